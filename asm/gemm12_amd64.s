//go:build !purego

#include "textflag.h"

// The AVX-512F GEMM micro-kernels: sgemmKernel12x32 (float32) and
// dgemmKernel12x16 (float64), one routine body (KERNEL12) over the
// element's instructions. Row i of the tile accumulates in Z8+2i (its first
// 64 bytes of columns) and Z9+2i (the next 64): Z8–Z31.

// Register roles.
#define kLeft  CX  // depth steps left
#define aPtr   SI  // packed A sliver: 12 elements per step
#define bPtr   DI  // packed B sliver: 128 bytes (32 float32, 16 float64) per step
#define cRow   DX  // current row of the C tile
#define ldcB   R8  // C row stride in bytes
#define cPre   R9  // row of C being prefetched
#define bLo    Z0  // B[p], first 64 bytes
#define bHi    Z1  // B[p], next 64 bytes
#define a0     Z2  // A[p][i] broadcast, rows 0, 4, 8
#define a1     Z3  // A[p][i] broadcast, rows 1, 5, 9
#define a2     Z4  // A[p][i] broadcast, rows 2, 6, 10
#define a3     Z5  // A[p][i] broadcast, rows 3, 7, 11

// QUAD broadcasts A[p][r:r+4] (ao: A's step offset, E: element size) and
// adds their products with bLo, bHi into the accumulators of rows r…r+3,
// c0…c7.
#define QUAD(ao, r, E, BCAST, FMA, c0, c1, c2, c3, c4, c5, c6, c7) \
	BCAST  ao+(r+0)*E(aPtr), a0;          /* a0 = A[p][r]                */ \
	BCAST  ao+(r+1)*E(aPtr), a1;          /* a1 = A[p][r+1]              */ \
	BCAST  ao+(r+2)*E(aPtr), a2;          /* a2 = A[p][r+2]              */ \
	BCAST  ao+(r+3)*E(aPtr), a3;          /* a3 = A[p][r+3]              */ \
	FMA    bLo, a0, c0;                   /* C[r], first half += a0·bLo  */ \
	FMA    bHi, a0, c1;                   /* C[r], second half += a0·bHi */ \
	FMA    bLo, a1, c2;                   /* C[r+1] += a1·bLo            */ \
	FMA    bHi, a1, c3;                   /* C[r+1] += a1·bHi            */ \
	FMA    bLo, a2, c4;                   /* C[r+2] += a2·bLo            */ \
	FMA    bHi, a2, c5;                   /* C[r+2] += a2·bHi            */ \
	FMA    bLo, a3, c6;                   /* C[r+3] += a3·bLo            */ \
	FMA    bHi, a3, c7                    /* C[r+3] += a3·bHi            */

// STEP12, STEP8 and STEP4 do depth step p for the first 12, 8 or 4 rows of
// the tile, at byte offsets ao into A (whose steps are 12 elements apart
// whatever the rows) and bo into B: two loads of B, a broadcast of A per
// row, two FMAs per row. MOVU, BCAST and FMA are the element's load,
// broadcast and fused multiply-add; E is its size in bytes.
#define STEP4(ao, bo, MOVU, BCAST, FMA, E) \
	MOVU   bo(bPtr), bLo;                 /* bLo = B[p], first half      */ \
	MOVU   bo+64(bPtr), bHi;              /* bHi = B[p], second half     */ \
	QUAD(ao, 0, E, BCAST, FMA, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)    /* rows 0–3  */
#define STEP8(ao, bo, MOVU, BCAST, FMA, E) \
	STEP4(ao, bo, MOVU, BCAST, FMA, E);   /* rows 0–3                    */ \
	QUAD(ao, 4, E, BCAST, FMA, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)  /* rows 4–7  */
#define STEP12(ao, bo, MOVU, BCAST, FMA, E) \
	STEP8(ao, bo, MOVU, BCAST, FMA, E);   /* rows 0–7                    */ \
	QUAD(ao, 8, E, BCAST, FMA, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)  /* rows 8–11 */

// ADDROW adds accumulators lo, hi to the 128 bytes of C at cRow (ADDV,
// MOVU: the element's add and store) and moves cRow one row down.
#define ADDROW(lo, hi, ADDV, MOVU) \
	ADDV    (cRow), lo, lo;               /* lo += C[i], first half      */ \
	MOVU    lo, (cRow);                   /* C[i], first half = lo       */ \
	ADDV    64(cRow), hi, hi;             /* hi += C[i], second half     */ \
	MOVU    hi, 64(cRow);                 /* C[i], second half = hi      */ \
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

// Per block of four rows r…r+3 (QZERO, QSTORE, QPRE by the block's
// accumulators): clear the accumulators, add them to C at cRow, prefetch C
// at cPre; the row pointers move down four rows.
#define QZERO(c0, c1, c2, c3, c4, c5, c6, c7) \
	ZERO2(c0, c1); ZERO2(c2, c3);         /* rows r, r+1 accumulators = 0 */ \
	ZERO2(c4, c5); ZERO2(c6, c7)          /* rows r+2, r+3               */
#define QSTORE(ADDV, MOVU, c0, c1, c2, c3, c4, c5, c6, c7) \
	ADDROW(c0, c1, ADDV, MOVU);           /* C row r += accumulators     */ \
	ADDROW(c2, c3, ADDV, MOVU);           /* C row r+1                   */ \
	ADDROW(c4, c5, ADDV, MOVU);           /* C row r+2                   */ \
	ADDROW(c6, c7, ADDV, MOVU)            /* C row r+3                   */
#define QPRE PREROW; PREROW; PREROW; PREROW

// ZERO12/8/4, STORE12/8/4 and PRE12/8/4 do that for the tile's first 12, 8
// or 4 rows (accumulators Z8–Z15, Z16–Z23, Z24–Z31 by block).
#define ZERO4 QZERO(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
#define ZERO8 ZERO4; QZERO(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
#define ZERO12 ZERO8; QZERO(Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
#define STORE4(ADDV, MOVU) QSTORE(ADDV, MOVU, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
#define STORE8(ADDV, MOVU) STORE4(ADDV, MOVU); QSTORE(ADDV, MOVU, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
#define STORE12(ADDV, MOVU) STORE8(ADDV, MOVU); QSTORE(ADDV, MOVU, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
#define PRE4 QPRE
#define PRE8 QPRE; QPRE
#define PRE12 QPRE; QPRE; QPRE

// SETROW stores accumulators lo, hi into the 128 bytes of C at cRow,
// without reading C: what ADDROW leaves in a cleared C (the sums start at
// +0, so none is -0). SET12/8/4 do that for the tile's first 12, 8 or 4
// rows (ADDV unused).
#define SETROW(lo, hi, MOVU) \
	MOVU    lo, (cRow);                   /* C[i], first half = lo       */ \
	MOVU    hi, 64(cRow);                 /* C[i], second half = hi      */ \
	ADDQ    ldcB, cRow                    /* next row of C               */
#define QSET(MOVU, c0, c1, c2, c3, c4, c5, c6, c7) \
	SETROW(c0, c1, MOVU);                 /* C row r = accumulators      */ \
	SETROW(c2, c3, MOVU);                 /* C row r+1                   */ \
	SETROW(c4, c5, MOVU);                 /* C row r+2                   */ \
	SETROW(c6, c7, MOVU)                  /* C row r+3                   */
#define SET4(ADDV, MOVU) QSET(MOVU, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
#define SET8(ADDV, MOVU) SET4(ADDV, MOVU); QSET(MOVU, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
#define SET12(ADDV, MOVU) SET8(ADDV, MOVU); QSET(MOVU, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)

// KERNEL is the body of the micro-kernels, for the first R = 12, 8 or 4
// rows of the tile (STEP, ZERO, STORE, PRE: the macros for R rows) and
// elements of E = 1<<LOGE bytes:
//
// In:  k depth, a packed A (k×12, row i of the tile at a[p*12+i]; rows R…11
//      unread), b packed B (k steps of 128 bytes), c the C tile (R rows of
//      128 bytes, stride ldc elements).
// Out: C[i][j] += Σ_p a[p*12+i]·b[p][j] for i < R (with STORE a SET
//      macro: C[i][j] = that sum, C not read). Clobbers CX, SI, DI, DX,
//      R8, R9, Z0–Z5, Z8–Z31. C is prefetched first so its misses overlap
//      the arithmetic; the depth loop is unrolled 2 times. Needs AVX-512F.
#define KERNEL(STEP, ZERO, STORE, PRE, MOVU, BCAST, FMA, ADDV, E, LOGE) \
	MOVQ    k+0(FP), kLeft;               /* kLeft = k                   */ \
	MOVQ    a+8(FP), aPtr;                /* aPtr = &a[0]                */ \
	MOVQ    b+16(FP), bPtr;               /* bPtr = &b[0]                */ \
	MOVQ    c+24(FP), cRow;               /* cRow = &c[0]                */ \
	MOVQ    ldc+32(FP), ldcB;             /* ldcB = ldc                  */ \
	SHLQ    $LOGE, ldcB;                  /* in bytes                    */ \
	MOVQ    cRow, cPre;                   /* prefetch from row 0         */ \
	PRE;                                  /* C's R rows                  */ \
	ZERO;                                 /* accumulators = 0            */ \
	CMPQ    kLeft, $2;                    /* fewer than 2 steps?         */ \
	JLT     tail;                         /* then one at a time          */ \
loop: \
	STEP(0, 0, MOVU, BCAST, FMA, E);      /* step p+0                    */ \
	STEP(12*E, 128, MOVU, BCAST, FMA, E); /* step p+1                    */ \
	ADDQ    $(24*E), aPtr;                /* aPtr to step p+2            */ \
	ADDQ    $256, bPtr;                   /* bPtr to step p+2            */ \
	SUBQ    $2, kLeft;                    /* 2 steps done                */ \
	CMPQ    kLeft, $2;                    /* 2 more?                     */ \
	JGE     loop;                         /* then again                  */ \
tail: \
	TESTQ   kLeft, kLeft;                 /* steps left?                 */ \
	JZ      store;                        /* no: add to C                */ \
	STEP(0, 0, MOVU, BCAST, FMA, E);      /* step p                      */ \
	ADDQ    $(12*E), aPtr;                /* aPtr to step p+1            */ \
	ADDQ    $128, bPtr;                   /* bPtr to step p+1            */ \
	DECQ    kLeft;                        /* one step done               */ \
	JMP     tail;                         /* next                        */ \
store: \
	STORE(ADDV, MOVU);                    /* C rows += accumulators      */ \
	VZEROUPPER;                           /* AVX state clean for SSE     */ \
	RET

// func sgemmKernel12x32(k int, a, b, c *float32, ldc int): KERNEL with
// B 32 floats a step; sgemmKernel8x32 and sgemmKernel4x32 do the tile's
// first 8 or 4 rows (the bottom edge of C).
TEXT ·sgemmKernel12x32(SB), NOSPLIT, $0-40
	KERNEL(STEP12, ZERO12, STORE12, PRE12, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func sgemmKernel8x32(k int, a, b, c *float32, ldc int)
TEXT ·sgemmKernel8x32(SB), NOSPLIT, $0-40
	KERNEL(STEP8, ZERO8, STORE8, PRE8, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func sgemmKernel4x32(k int, a, b, c *float32, ldc int)
TEXT ·sgemmKernel4x32(SB), NOSPLIT, $0-40
	KERNEL(STEP4, ZERO4, STORE4, PRE4, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func dgemmKernel12x16(k int, a, b, c *float64, ldc int): KERNEL with B
// 16 doubles a step; dgemmKernel8x16 and dgemmKernel4x16 likewise.
TEXT ·dgemmKernel12x16(SB), NOSPLIT, $0-40
	KERNEL(STEP12, ZERO12, STORE12, PRE12, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)

// func dgemmKernel8x16(k int, a, b, c *float64, ldc int)
TEXT ·dgemmKernel8x16(SB), NOSPLIT, $0-40
	KERNEL(STEP8, ZERO8, STORE8, PRE8, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)

// func dgemmKernel4x16(k int, a, b, c *float64, ldc int)
TEXT ·dgemmKernel4x16(SB), NOSPLIT, $0-40
	KERNEL(STEP4, ZERO4, STORE4, PRE4, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)

// The Set kernels are the kernels above with C[i][j] = Σ_p … instead of +=
// (C is not read): a product's first depth block with beta = 0.

// func sgemmKernelSet12x32(k int, a, b, c *float32, ldc int)
TEXT ·sgemmKernelSet12x32(SB), NOSPLIT, $0-40
	KERNEL(STEP12, ZERO12, SET12, PRE12, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func sgemmKernelSet8x32(k int, a, b, c *float32, ldc int)
TEXT ·sgemmKernelSet8x32(SB), NOSPLIT, $0-40
	KERNEL(STEP8, ZERO8, SET8, PRE8, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func sgemmKernelSet4x32(k int, a, b, c *float32, ldc int)
TEXT ·sgemmKernelSet4x32(SB), NOSPLIT, $0-40
	KERNEL(STEP4, ZERO4, SET4, PRE4, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func dgemmKernelSet12x16(k int, a, b, c *float64, ldc int)
TEXT ·dgemmKernelSet12x16(SB), NOSPLIT, $0-40
	KERNEL(STEP12, ZERO12, SET12, PRE12, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)

// func dgemmKernelSet8x16(k int, a, b, c *float64, ldc int)
TEXT ·dgemmKernelSet8x16(SB), NOSPLIT, $0-40
	KERNEL(STEP8, ZERO8, SET8, PRE8, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)

// func dgemmKernelSet4x16(k int, a, b, c *float64, ldc int)
TEXT ·dgemmKernelSet4x16(SB), NOSPLIT, $0-40
	KERNEL(STEP4, ZERO4, SET4, PRE4, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)
