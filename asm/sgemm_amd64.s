//go:build !purego

#include "textflag.h"

// Register roles of sgemmKernel6x16. Row i of the tile accumulates in Y4+2i
// (columns 0:8) and Y5+2i (columns 8:16): Y4–Y15.
#define kLeft  CX  // depth steps left
#define aPtr   SI  // packed A sliver: 6 floats per step
#define bPtr   DI  // packed B sliver: 16 floats per step
#define cRow   DX  // current row of the C tile
#define ldcB   R8  // C row stride in bytes
#define cPre   R9  // row of C being prefetched
#define bLo    Y0  // B[p][0:8]
#define bHi    Y1  // B[p][8:16]
#define a0     Y2  // A[p][i] broadcast, rows 0, 2, 4
#define a1     Y3  // A[p][i] broadcast, rows 1, 3, 5

// STEP does depth step p at byte offsets ao into A and bo into B: two loads
// of B, 6 broadcasts of A, 12 FMAs.
#define STEP(ao, bo) \
	VMOVUPS      bo(bPtr), bLo;           /* bLo = B[p][0:8]             */ \
	VMOVUPS      bo+32(bPtr), bHi;        /* bHi = B[p][8:16]            */ \
	VBROADCASTSS ao+0(aPtr), a0;          /* a0 = A[p][0]                */ \
	VBROADCASTSS ao+4(aPtr), a1;          /* a1 = A[p][1]                */ \
	VFMADD231PS  bLo, a0, Y4;             /* C[0][0:8] += a0·bLo         */ \
	VFMADD231PS  bHi, a0, Y5;             /* C[0][8:16] += a0·bHi        */ \
	VFMADD231PS  bLo, a1, Y6;             /* C[1][0:8] += a1·bLo         */ \
	VFMADD231PS  bHi, a1, Y7;             /* C[1][8:16] += a1·bHi        */ \
	VBROADCASTSS ao+8(aPtr), a0;          /* a0 = A[p][2]                */ \
	VBROADCASTSS ao+12(aPtr), a1;         /* a1 = A[p][3]                */ \
	VFMADD231PS  bLo, a0, Y8;             /* C[2][0:8] += a0·bLo         */ \
	VFMADD231PS  bHi, a0, Y9;             /* C[2][8:16] += a0·bHi        */ \
	VFMADD231PS  bLo, a1, Y10;            /* C[3][0:8] += a1·bLo         */ \
	VFMADD231PS  bHi, a1, Y11;            /* C[3][8:16] += a1·bHi        */ \
	VBROADCASTSS ao+16(aPtr), a0;         /* a0 = A[p][4]                */ \
	VBROADCASTSS ao+20(aPtr), a1;         /* a1 = A[p][5]                */ \
	VFMADD231PS  bLo, a0, Y12;            /* C[4][0:8] += a0·bLo         */ \
	VFMADD231PS  bHi, a0, Y13;            /* C[4][8:16] += a0·bHi        */ \
	VFMADD231PS  bLo, a1, Y14;            /* C[5][0:8] += a1·bLo         */ \
	VFMADD231PS  bHi, a1, Y15             /* C[5][8:16] += a1·bHi        */

// ADDROW adds accumulators lo, hi to the 16 floats at cRow and moves
// cRow one row down.
#define ADDROW(lo, hi) \
	VADDPS  (cRow), lo, lo;               /* lo += C[i][0:8]             */ \
	VMOVUPS lo, (cRow);                   /* C[i][0:8] = lo              */ \
	VADDPS  32(cRow), hi, hi;             /* hi += C[i][8:16]            */ \
	VMOVUPS hi, 32(cRow);                 /* C[i][8:16] = hi             */ \
	ADDQ    ldcB, cRow                    /* next row of C               */

// PREROW prefetches the 64 bytes of C at cPre and moves cPre one row down.
#define PREROW \
	PREFETCHT0 (cPre);                    /* first line of the row       */ \
	PREFETCHT0 63(cPre);                  /* line of its last byte       */ \
	ADDQ    ldcB, cPre                    /* next row                    */

// ZERO2 clears two accumulators.
#define ZERO2(lo, hi) \
	VXORPS  lo, lo, lo;                   /* lo = 0                      */ \
	VXORPS  hi, hi, hi                    /* hi = 0                      */

// func sgemmKernel6x16(k int, a, b, c *float32, ldc int)
//
// In:  k depth, a packed A (k×6, row i of the tile at a[p*6+i]), b packed
//      B (k×16, b[p*16+j]), c the C tile (6 rows of 16, stride ldc floats).
// Out: C[i][j] += Σ_p a[p*6+i]·b[p*16+j]. Clobbers CX, SI, DI, DX, R8, R9,
//      Y0–Y3, Y4–Y15. C is prefetched first so its misses overlap
//      the arithmetic; the depth loop is unrolled 4 times. Needs AVX2 and FMA.
TEXT ·sgemmKernel6x16(SB), NOSPLIT, $0-40
	MOVQ    k+0(FP), kLeft         // kLeft = k
	MOVQ    a+8(FP), aPtr          // aPtr = &a[0]
	MOVQ    b+16(FP), bPtr         // bPtr = &b[0]
	MOVQ    c+24(FP), cRow         // cRow = &c[0]
	MOVQ    ldc+32(FP), ldcB       // ldcB = ldc
	SHLQ    $2, ldcB               // ldcB *= 4 bytes
	MOVQ    cRow, cPre             // prefetch from row 0
	PREROW                         // C row 0
	PREROW                         // C row 1
	PREROW                         // C row 2
	PREROW                         // C row 3
	PREROW                         // C row 4
	PREROW                         // C row 5
	ZERO2(Y4, Y5)                  // row 0 accumulators = 0
	ZERO2(Y6, Y7)                  // row 1 accumulators = 0
	ZERO2(Y8, Y9)                  // row 2 accumulators = 0
	ZERO2(Y10, Y11)                // row 3 accumulators = 0
	ZERO2(Y12, Y13)                // row 4 accumulators = 0
	ZERO2(Y14, Y15)                // row 5 accumulators = 0
	CMPQ    kLeft, $4              // fewer than 4 steps?
	JLT     tail                   // then one at a time

loop:
	STEP(0, 0)                     // step p+0
	STEP(24, 64)                   // step p+1
	STEP(48, 128)                  // step p+2
	STEP(72, 192)                  // step p+3
	ADDQ    $96, aPtr              // aPtr to step p+4
	ADDQ    $256, bPtr             // bPtr to step p+4
	SUBQ    $4, kLeft              // 4 steps done
	CMPQ    kLeft, $4              // 4 more?
	JGE     loop                   // then again

tail:
	TESTQ   kLeft, kLeft           // steps left?
	JZ      store                  // no: add to C
	STEP(0, 0)                     // step p
	ADDQ    $24, aPtr              // aPtr to step p+1
	ADDQ    $64, bPtr              // bPtr to step p+1
	DECQ    kLeft                  // one step done
	JMP     tail                   // next

store:
	ADDROW(Y4, Y5)                 // C row 0 += accumulators
	ADDROW(Y6, Y7)                 // C row 1 += accumulators
	ADDROW(Y8, Y9)                 // C row 2 += accumulators
	ADDROW(Y10, Y11)               // C row 3 += accumulators
	ADDROW(Y12, Y13)               // C row 4 += accumulators
	ADDROW(Y14, Y15)               // C row 5 += accumulators
	VZEROUPPER                     // leave AVX state clean for SSE code
	RET
