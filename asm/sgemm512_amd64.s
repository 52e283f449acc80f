//go:build !purego

#include "textflag.h"

// Register roles of sgemmKernel12x32. Row i of the tile accumulates in Z8+2i
// (columns 0:16) and Z9+2i (columns 16:32): Z8–Z31.
#define kLeft  CX  // depth steps left
#define aPtr   SI  // packed A sliver: 12 floats per step
#define bPtr   DI  // packed B sliver: 32 floats per step
#define cRow   DX  // current row of the C tile
#define ldcB   R8  // C row stride in bytes
#define cPre   R9  // row of C being prefetched
#define bLo    Z0  // B[p][0:16]
#define bHi    Z1  // B[p][16:32]
#define a0     Z2  // A[p][i] broadcast, rows 0, 4, 8
#define a1     Z3  // A[p][i] broadcast, rows 1, 5, 9
#define a2     Z4  // A[p][i] broadcast, rows 2, 6, 10
#define a3     Z5  // A[p][i] broadcast, rows 3, 7, 11

// STEP does depth step p at byte offsets ao into A and bo into B: two loads
// of B, 12 broadcasts of A, 24 FMAs.
#define STEP(ao, bo) \
	VMOVUPS      bo(bPtr), bLo;           /* bLo = B[p][0:16]            */ \
	VMOVUPS      bo+64(bPtr), bHi;        /* bHi = B[p][16:32]           */ \
	VBROADCASTSS ao+0(aPtr), a0;          /* a0 = A[p][0]                */ \
	VBROADCASTSS ao+4(aPtr), a1;          /* a1 = A[p][1]                */ \
	VBROADCASTSS ao+8(aPtr), a2;          /* a2 = A[p][2]                */ \
	VBROADCASTSS ao+12(aPtr), a3;         /* a3 = A[p][3]                */ \
	VFMADD231PS  bLo, a0, Z8;             /* C[0][0:16] += a0·bLo        */ \
	VFMADD231PS  bHi, a0, Z9;             /* C[0][16:32] += a0·bHi       */ \
	VFMADD231PS  bLo, a1, Z10;            /* C[1][0:16] += a1·bLo        */ \
	VFMADD231PS  bHi, a1, Z11;            /* C[1][16:32] += a1·bHi       */ \
	VFMADD231PS  bLo, a2, Z12;            /* C[2][0:16] += a2·bLo        */ \
	VFMADD231PS  bHi, a2, Z13;            /* C[2][16:32] += a2·bHi       */ \
	VFMADD231PS  bLo, a3, Z14;            /* C[3][0:16] += a3·bLo        */ \
	VFMADD231PS  bHi, a3, Z15;            /* C[3][16:32] += a3·bHi       */ \
	VBROADCASTSS ao+16(aPtr), a0;         /* a0 = A[p][4]                */ \
	VBROADCASTSS ao+20(aPtr), a1;         /* a1 = A[p][5]                */ \
	VBROADCASTSS ao+24(aPtr), a2;         /* a2 = A[p][6]                */ \
	VBROADCASTSS ao+28(aPtr), a3;         /* a3 = A[p][7]                */ \
	VFMADD231PS  bLo, a0, Z16;            /* C[4][0:16] += a0·bLo        */ \
	VFMADD231PS  bHi, a0, Z17;            /* C[4][16:32] += a0·bHi       */ \
	VFMADD231PS  bLo, a1, Z18;            /* C[5][0:16] += a1·bLo        */ \
	VFMADD231PS  bHi, a1, Z19;            /* C[5][16:32] += a1·bHi       */ \
	VFMADD231PS  bLo, a2, Z20;            /* C[6][0:16] += a2·bLo        */ \
	VFMADD231PS  bHi, a2, Z21;            /* C[6][16:32] += a2·bHi       */ \
	VFMADD231PS  bLo, a3, Z22;            /* C[7][0:16] += a3·bLo        */ \
	VFMADD231PS  bHi, a3, Z23;            /* C[7][16:32] += a3·bHi       */ \
	VBROADCASTSS ao+32(aPtr), a0;         /* a0 = A[p][8]                */ \
	VBROADCASTSS ao+36(aPtr), a1;         /* a1 = A[p][9]                */ \
	VBROADCASTSS ao+40(aPtr), a2;         /* a2 = A[p][10]               */ \
	VBROADCASTSS ao+44(aPtr), a3;         /* a3 = A[p][11]               */ \
	VFMADD231PS  bLo, a0, Z24;            /* C[8][0:16] += a0·bLo        */ \
	VFMADD231PS  bHi, a0, Z25;            /* C[8][16:32] += a0·bHi       */ \
	VFMADD231PS  bLo, a1, Z26;            /* C[9][0:16] += a1·bLo        */ \
	VFMADD231PS  bHi, a1, Z27;            /* C[9][16:32] += a1·bHi       */ \
	VFMADD231PS  bLo, a2, Z28;            /* C[10][0:16] += a2·bLo       */ \
	VFMADD231PS  bHi, a2, Z29;            /* C[10][16:32] += a2·bHi      */ \
	VFMADD231PS  bLo, a3, Z30;            /* C[11][0:16] += a3·bLo       */ \
	VFMADD231PS  bHi, a3, Z31             /* C[11][16:32] += a3·bHi      */

// ADDROW adds accumulators lo, hi to the 32 floats at cRow and moves
// cRow one row down.
#define ADDROW(lo, hi) \
	VADDPS  (cRow), lo, lo;               /* lo += C[i][0:16]            */ \
	VMOVUPS lo, (cRow);                   /* C[i][0:16] = lo             */ \
	VADDPS  64(cRow), hi, hi;             /* hi += C[i][16:32]           */ \
	VMOVUPS hi, 64(cRow);                 /* C[i][16:32] = hi            */ \
	ADDQ    ldcB, cRow                    /* next row of C               */

// PREROW prefetches the 128 bytes of C at cPre and moves cPre one row down.
#define PREROW \
	PREFETCHT0 (cPre);                    /* first line of the row       */ \
	PREFETCHT0 64(cPre);                  /* second line                 */ \
	PREFETCHT0 127(cPre);                 /* line of its last byte       */ \
	ADDQ    ldcB, cPre                    /* next row                    */

// ZERO2 clears two accumulators.
#define ZERO2(lo, hi) \
	VPXORQ  lo, lo, lo;                   /* lo = 0                      */ \
	VPXORQ  hi, hi, hi                    /* hi = 0                      */

// func sgemmKernel12x32(k int, a, b, c *float32, ldc int)
//
// In:  k depth, a packed A (k×12, row i of the tile at a[p*12+i]), b packed
//      B (k×32, b[p*32+j]), c the C tile (12 rows of 32, stride ldc floats).
// Out: C[i][j] += Σ_p a[p*12+i]·b[p*32+j]. Clobbers CX, SI, DI, DX, R8, R9,
//      Z0–Z5, Z8–Z31. C is prefetched first so its misses overlap
//      the arithmetic; the depth loop is unrolled 2 times. Needs AVX-512F.
TEXT ·sgemmKernel12x32(SB), NOSPLIT, $0-40
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
	PREROW                         // C row 6
	PREROW                         // C row 7
	PREROW                         // C row 8
	PREROW                         // C row 9
	PREROW                         // C row 10
	PREROW                         // C row 11
	ZERO2(Z8, Z9)                  // row 0 accumulators = 0
	ZERO2(Z10, Z11)                // row 1 accumulators = 0
	ZERO2(Z12, Z13)                // row 2 accumulators = 0
	ZERO2(Z14, Z15)                // row 3 accumulators = 0
	ZERO2(Z16, Z17)                // row 4 accumulators = 0
	ZERO2(Z18, Z19)                // row 5 accumulators = 0
	ZERO2(Z20, Z21)                // row 6 accumulators = 0
	ZERO2(Z22, Z23)                // row 7 accumulators = 0
	ZERO2(Z24, Z25)                // row 8 accumulators = 0
	ZERO2(Z26, Z27)                // row 9 accumulators = 0
	ZERO2(Z28, Z29)                // row 10 accumulators = 0
	ZERO2(Z30, Z31)                // row 11 accumulators = 0
	CMPQ    kLeft, $2              // fewer than 2 steps?
	JLT     tail                   // then one at a time

loop:
	STEP(0, 0)                     // step p+0
	STEP(48, 128)                  // step p+1
	ADDQ    $96, aPtr              // aPtr to step p+2
	ADDQ    $256, bPtr             // bPtr to step p+2
	SUBQ    $2, kLeft              // 2 steps done
	CMPQ    kLeft, $2              // 2 more?
	JGE     loop                   // then again

tail:
	TESTQ   kLeft, kLeft           // steps left?
	JZ      store                  // no: add to C
	STEP(0, 0)                     // step p
	ADDQ    $48, aPtr              // aPtr to step p+1
	ADDQ    $128, bPtr             // bPtr to step p+1
	DECQ    kLeft                  // one step done
	JMP     tail                   // next

store:
	ADDROW(Z8, Z9)                 // C row 0 += accumulators
	ADDROW(Z10, Z11)               // C row 1 += accumulators
	ADDROW(Z12, Z13)               // C row 2 += accumulators
	ADDROW(Z14, Z15)               // C row 3 += accumulators
	ADDROW(Z16, Z17)               // C row 4 += accumulators
	ADDROW(Z18, Z19)               // C row 5 += accumulators
	ADDROW(Z20, Z21)               // C row 6 += accumulators
	ADDROW(Z22, Z23)               // C row 7 += accumulators
	ADDROW(Z24, Z25)               // C row 8 += accumulators
	ADDROW(Z26, Z27)               // C row 9 += accumulators
	ADDROW(Z28, Z29)               // C row 10 += accumulators
	ADDROW(Z30, Z31)               // C row 11 += accumulators
	VZEROUPPER                     // leave AVX state clean for SSE code
	RET
