//go:build !purego

#include "textflag.h"

// Register roles of dgemmKernel6x8.
#define kLeft  CX  // depth steps left
#define aPtr   SI  // packed A sliver: 6 doubles per step
#define bPtr   DI  // packed B sliver: 8 doubles per step
#define cRow   DX  // current row of the C tile
#define ldcB   R8  // C row stride in bytes
#define cPre   R9  // row being prefetched
#define bLo    Y0  // B[p][0:4]
#define bHi    Y1  // B[p][4:8]
#define aEven  Y2  // A[p][i] broadcast, rows 0, 2, 4
#define aOdd   Y3  // A[p][i] broadcast, rows 1, 3, 5
#define c0Lo   Y4  // accumulator C[0][0:4]
#define c0Hi   Y5  // accumulator C[0][4:8]
#define c1Lo   Y6  // C[1][0:4]
#define c1Hi   Y7  // C[1][4:8]
#define c2Lo   Y8  // C[2][0:4]
#define c2Hi   Y9  // C[2][4:8]
#define c3Lo   Y10 // C[3][0:4]
#define c3Hi   Y11 // C[3][4:8]
#define c4Lo   Y12 // C[4][0:4]
#define c4Hi   Y13 // C[4][4:8]
#define c5Lo   Y14 // C[5][0:4]
#define c5Hi   Y15 // C[5][4:8]

// STEP does one depth step p at byte offsets ao into A and bo into B:
// two loads of B, six broadcasts of A, twelve FMAs into the accumulators.
#define STEP(ao, bo) \
	VMOVUPD      bo(bPtr), bLo;           /* bLo = B[p][0:4]    */ \
	VMOVUPD      bo+32(bPtr), bHi;        /* bHi = B[p][4:8]    */ \
	VBROADCASTSD ao+0(aPtr), aEven;       /* aEven = A[p][0]    */ \
	VBROADCASTSD ao+8(aPtr), aOdd;        /* aOdd = A[p][1]     */ \
	VFMADD231PD  bLo, aEven, c0Lo;        /* c0Lo += A[p][0]·bLo */ \
	VFMADD231PD  bHi, aEven, c0Hi;        /* c0Hi += A[p][0]·bHi */ \
	VFMADD231PD  bLo, aOdd, c1Lo;         /* c1Lo += A[p][1]·bLo */ \
	VFMADD231PD  bHi, aOdd, c1Hi;         /* c1Hi += A[p][1]·bHi */ \
	VBROADCASTSD ao+16(aPtr), aEven;      /* aEven = A[p][2]    */ \
	VBROADCASTSD ao+24(aPtr), aOdd;       /* aOdd = A[p][3]     */ \
	VFMADD231PD  bLo, aEven, c2Lo;        /* c2Lo += A[p][2]·bLo */ \
	VFMADD231PD  bHi, aEven, c2Hi;        /* c2Hi += A[p][2]·bHi */ \
	VFMADD231PD  bLo, aOdd, c3Lo;         /* c3Lo += A[p][3]·bLo */ \
	VFMADD231PD  bHi, aOdd, c3Hi;         /* c3Hi += A[p][3]·bHi */ \
	VBROADCASTSD ao+32(aPtr), aEven;      /* aEven = A[p][4]    */ \
	VBROADCASTSD ao+40(aPtr), aOdd;       /* aOdd = A[p][5]     */ \
	VFMADD231PD  bLo, aEven, c4Lo;        /* c4Lo += A[p][4]·bLo */ \
	VFMADD231PD  bHi, aEven, c4Hi;        /* c4Hi += A[p][4]·bHi */ \
	VFMADD231PD  bLo, aOdd, c5Lo;         /* c5Lo += A[p][5]·bLo */ \
	VFMADD231PD  bHi, aOdd, c5Hi          /* c5Hi += A[p][5]·bHi */

// ADDROW adds the accumulators lo, hi to the 8 doubles at cRow, then moves
// cRow one row down.
#define ADDROW(lo, hi) \
	VADDPD  (cRow), lo, lo;               /* lo += C[i][0:4]    */ \
	VMOVUPD lo, (cRow);                   /* C[i][0:4] = lo     */ \
	VADDPD  32(cRow), hi, hi;             /* hi += C[i][4:8]    */ \
	VMOVUPD hi, 32(cRow);                 /* C[i][4:8] = hi     */ \
	ADDQ    ldcB, cRow                    /* next row of C      */

// func dgemmKernel6x8(k int, a, b, c *float64, ldc int)
//
// In:  k depth, a packed A (k×6, row i of the tile at a[p*6+i]), b packed B
//      (k×8, b[p*8+j]), c the C tile (6 rows of 8, stride ldc doubles).
// Out: C[i][j] += Σ_p a[p*6+i]·b[p*8+j]; CX, SI, DI, DX, R8, R9, Y0–Y15
//      clobbered. The depth loop is unrolled four times; C is prefetched
//      first so its misses overlap the arithmetic.
TEXT ·dgemmKernel6x8(SB), NOSPLIT, $0-40
	MOVQ    k+0(FP), kLeft         // kLeft = k
	MOVQ    a+8(FP), aPtr          // aPtr = &a[0]
	MOVQ    b+16(FP), bPtr         // bPtr = &b[0]
	MOVQ    c+24(FP), cRow         // cRow = &c[0]
	MOVQ    ldc+32(FP), ldcB       // ldcB = ldc
	SHLQ    $3, ldcB               // ldcB *= 8 bytes
	MOVQ    cRow, cPre             // cPre = row 0 of C
	PREFETCHT0 (cPre)              // fetch C row 0, first line
	PREFETCHT0 63(cPre)            // and its last byte's line
	ADDQ    ldcB, cPre             // next row
	PREFETCHT0 (cPre)              // fetch C row 1, first line
	PREFETCHT0 63(cPre)            // and its last byte's line
	ADDQ    ldcB, cPre             // next row
	PREFETCHT0 (cPre)              // fetch C row 2, first line
	PREFETCHT0 63(cPre)            // and its last byte's line
	ADDQ    ldcB, cPre             // next row
	PREFETCHT0 (cPre)              // fetch C row 3, first line
	PREFETCHT0 63(cPre)            // and its last byte's line
	ADDQ    ldcB, cPre             // next row
	PREFETCHT0 (cPre)              // fetch C row 4, first line
	PREFETCHT0 63(cPre)            // and its last byte's line
	ADDQ    ldcB, cPre             // next row
	PREFETCHT0 (cPre)              // fetch C row 5, first line
	PREFETCHT0 63(cPre)            // and its last byte's line
	VXORPD  c0Lo, c0Lo, c0Lo       // c0Lo = 0
	VXORPD  c0Hi, c0Hi, c0Hi       // c0Hi = 0
	VXORPD  c1Lo, c1Lo, c1Lo       // c1Lo = 0
	VXORPD  c1Hi, c1Hi, c1Hi       // c1Hi = 0
	VXORPD  c2Lo, c2Lo, c2Lo       // c2Lo = 0
	VXORPD  c2Hi, c2Hi, c2Hi       // c2Hi = 0
	VXORPD  c3Lo, c3Lo, c3Lo       // c3Lo = 0
	VXORPD  c3Hi, c3Hi, c3Hi       // c3Hi = 0
	VXORPD  c4Lo, c4Lo, c4Lo       // c4Lo = 0
	VXORPD  c4Hi, c4Hi, c4Hi       // c4Hi = 0
	VXORPD  c5Lo, c5Lo, c5Lo       // c5Lo = 0
	VXORPD  c5Hi, c5Hi, c5Hi       // c5Hi = 0
	CMPQ    kLeft, $4              // fewer than 4 steps?
	JLT     tail                   // then one at a time

loop4:
	STEP(0, 0)                     // step p+0
	STEP(48, 64)                   // step p+1
	STEP(96, 128)                  // step p+2
	STEP(144, 192)                 // step p+3
	ADDQ    $192, aPtr             // aPtr to step p+4
	ADDQ    $256, bPtr             // bPtr to step p+4
	SUBQ    $4, kLeft              // four steps done
	CMPQ    kLeft, $4              // four more?
	JGE     loop4                  // then loop

tail:
	TESTQ   kLeft, kLeft           // steps left?
	JZ      store                  // no: add to C

loop1:
	STEP(0, 0)                     // step p
	ADDQ    $48, aPtr              // aPtr to step p+1
	ADDQ    $64, bPtr              // bPtr to step p+1
	DECQ    kLeft                  // one step done
	JNZ     loop1                  // until k steps

store:
	ADDROW(c0Lo, c0Hi)             // C row 0 += accumulators
	ADDROW(c1Lo, c1Hi)             // C row 1 += accumulators
	ADDROW(c2Lo, c2Hi)             // C row 2 += accumulators
	ADDROW(c3Lo, c3Hi)             // C row 3 += accumulators
	ADDROW(c4Lo, c4Hi)             // C row 4 += accumulators
	ADDROW(c5Lo, c5Hi)             // C row 5 += accumulators
	VZEROUPPER                     // leave AVX state clean for SSE code
	RET
