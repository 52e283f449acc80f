//go:build !purego

#include "textflag.h"

// The AVX2+FMA GEMM micro-kernels: sgemmKernel6x16 (float32) and
// dgemmKernel6x8 (float64), one routine body (KERNEL6) over the element's
// instructions. Row i of the tile accumulates in Y4+2i (its first 32 bytes
// of columns) and Y5+2i (the next 32): Y4–Y15.

// Register roles.
#define kLeft  CX  // depth steps left
#define aPtr   SI  // packed A sliver: 6 elements per step
#define bPtr   DI  // packed B sliver: 64 bytes (16 float32, 8 float64) per step
#define cRow   DX  // current row of the C tile
#define ldcB   R8  // C row stride in bytes
#define cPre   R9  // row of C being prefetched
#define bLo    Y0  // B[p], first 32 bytes
#define bHi    Y1  // B[p], next 32 bytes
#define a0     Y2  // A[p][i] broadcast, rows 0, 2, 4
#define a1     Y3  // A[p][i] broadcast, rows 1, 3, 5

// STEP does depth step p at byte offsets ao into A and bo into B: two loads
// of B, 6 broadcasts of A, 12 FMAs. MOVU, BCAST and FMA are the element's
// load, broadcast and fused multiply-add; E is its size in bytes.
#define STEP(ao, bo, MOVU, BCAST, FMA, E) \
	MOVU   bo(bPtr), bLo;                 /* bLo = B[p], first half      */ \
	MOVU   bo+32(bPtr), bHi;              /* bHi = B[p], second half     */ \
	BCAST  ao+0*E(aPtr), a0;              /* a0 = A[p][0]                */ \
	BCAST  ao+1*E(aPtr), a1;              /* a1 = A[p][1]                */ \
	FMA    bLo, a0, Y4;                   /* C[0], first half += a0·bLo  */ \
	FMA    bHi, a0, Y5;                   /* C[0], second half += a0·bHi */ \
	FMA    bLo, a1, Y6;                   /* C[1] += a1·bLo              */ \
	FMA    bHi, a1, Y7;                   /* C[1] += a1·bHi              */ \
	BCAST  ao+2*E(aPtr), a0;              /* a0 = A[p][2]                */ \
	BCAST  ao+3*E(aPtr), a1;              /* a1 = A[p][3]                */ \
	FMA    bLo, a0, Y8;                   /* C[2] += a0·bLo              */ \
	FMA    bHi, a0, Y9;                   /* C[2] += a0·bHi              */ \
	FMA    bLo, a1, Y10;                  /* C[3] += a1·bLo              */ \
	FMA    bHi, a1, Y11;                  /* C[3] += a1·bHi              */ \
	BCAST  ao+4*E(aPtr), a0;              /* a0 = A[p][4]                */ \
	BCAST  ao+5*E(aPtr), a1;              /* a1 = A[p][5]                */ \
	FMA    bLo, a0, Y12;                  /* C[4] += a0·bLo              */ \
	FMA    bHi, a0, Y13;                  /* C[4] += a0·bHi              */ \
	FMA    bLo, a1, Y14;                  /* C[5] += a1·bLo              */ \
	FMA    bHi, a1, Y15                   /* C[5] += a1·bHi              */

// ADDROW adds accumulators lo, hi to the 64 bytes of C at cRow (ADDV, MOVU:
// the element's add and store) and moves cRow one row down.
#define ADDROW(lo, hi, ADDV, MOVU) \
	ADDV    (cRow), lo, lo;               /* lo += C[i], first half      */ \
	MOVU    lo, (cRow);                   /* C[i], first half = lo       */ \
	ADDV    32(cRow), hi, hi;             /* hi += C[i], second half     */ \
	MOVU    hi, 32(cRow);                 /* C[i], second half = hi      */ \
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

// SETROW stores accumulators lo, hi into the 64 bytes of C at cRow,
// without reading C: what ADDROW leaves in a cleared C (the sums start at
// +0, so none is -0).
#define SETROW(lo, hi, MOVU) \
	MOVU    lo, (cRow);                   /* C[i], first half = lo       */ \
	MOVU    hi, 32(cRow);                 /* C[i], second half = hi      */ \
	ADDQ    ldcB, cRow                    /* next row of C               */

// STORE6 adds the accumulators to the tile's 6 rows of C; SET6 stores them
// there (C not read; ADDV unused).
#define STORE6(ADDV, MOVU) \
	ADDROW(Y4, Y5, ADDV, MOVU);           /* C row 0 += accumulators     */ \
	ADDROW(Y6, Y7, ADDV, MOVU);           /* C row 1                     */ \
	ADDROW(Y8, Y9, ADDV, MOVU);           /* C row 2                     */ \
	ADDROW(Y10, Y11, ADDV, MOVU);         /* C row 3                     */ \
	ADDROW(Y12, Y13, ADDV, MOVU);         /* C row 4                     */ \
	ADDROW(Y14, Y15, ADDV, MOVU)          /* C row 5                     */
#define SET6(ADDV, MOVU) \
	SETROW(Y4, Y5, MOVU);                 /* C row 0 = accumulators      */ \
	SETROW(Y6, Y7, MOVU);                 /* C row 1                     */ \
	SETROW(Y8, Y9, MOVU);                 /* C row 2                     */ \
	SETROW(Y10, Y11, MOVU);               /* C row 3                     */ \
	SETROW(Y12, Y13, MOVU);               /* C row 4                     */ \
	SETROW(Y14, Y15, MOVU)                /* C row 5                     */

// KERNEL6 is the body of both micro-kernels, for elements of E = 1<<LOGE
// bytes, adding to C with STORE = STORE6 or setting it with SET6:
//
// In:  k depth, a packed A (k×6, row i of the tile at a[p*6+i]), b packed
//      B (k steps of 64 bytes), c the C tile (6 rows of 64 bytes, stride
//      ldc elements).
// Out: C[i][j] += Σ_p a[p*6+i]·b[p][j]. Clobbers CX, SI, DI, DX, R8, R9,
//      Y0–Y15. C is prefetched first so its misses overlap the
//      arithmetic; the depth loop is unrolled 4 times. Needs AVX2 and FMA.
#define KERNEL6(STORE, MOVU, BCAST, FMA, ADDV, E, LOGE) \
	MOVQ    k+0(FP), kLeft;               /* kLeft = k                   */ \
	MOVQ    a+8(FP), aPtr;                /* aPtr = &a[0]                */ \
	MOVQ    b+16(FP), bPtr;               /* bPtr = &b[0]                */ \
	MOVQ    c+24(FP), cRow;               /* cRow = &c[0]                */ \
	MOVQ    ldc+32(FP), ldcB;             /* ldcB = ldc                  */ \
	SHLQ    $LOGE, ldcB;                  /* in bytes                    */ \
	MOVQ    cRow, cPre;                   /* prefetch from row 0         */ \
	PREROW; PREROW; PREROW;               /* C rows 0–2                  */ \
	PREROW; PREROW; PREROW;               /* C rows 3–5                  */ \
	ZERO2(Y4, Y5); ZERO2(Y6, Y7);         /* rows 0, 1 accumulators = 0  */ \
	ZERO2(Y8, Y9); ZERO2(Y10, Y11);       /* rows 2, 3                   */ \
	ZERO2(Y12, Y13); ZERO2(Y14, Y15);     /* rows 4, 5                   */ \
	CMPQ    kLeft, $4;                    /* fewer than 4 steps?         */ \
	JLT     tail;                         /* then one at a time          */ \
loop: \
	STEP(0, 0, MOVU, BCAST, FMA, E);      /* step p+0                    */ \
	STEP(6*E, 64, MOVU, BCAST, FMA, E);   /* step p+1                    */ \
	STEP(12*E, 128, MOVU, BCAST, FMA, E); /* step p+2                    */ \
	STEP(18*E, 192, MOVU, BCAST, FMA, E); /* step p+3                    */ \
	ADDQ    $(24*E), aPtr;                /* aPtr to step p+4            */ \
	ADDQ    $256, bPtr;                   /* bPtr to step p+4            */ \
	SUBQ    $4, kLeft;                    /* 4 steps done                */ \
	CMPQ    kLeft, $4;                    /* 4 more?                     */ \
	JGE     loop;                         /* then again                  */ \
tail: \
	TESTQ   kLeft, kLeft;                 /* steps left?                 */ \
	JZ      store;                        /* no: add to C                */ \
	STEP(0, 0, MOVU, BCAST, FMA, E);      /* step p                      */ \
	ADDQ    $(6*E), aPtr;                 /* aPtr to step p+1            */ \
	ADDQ    $64, bPtr;                    /* bPtr to step p+1            */ \
	DECQ    kLeft;                        /* one step done               */ \
	JMP     tail;                         /* next                        */ \
store: \
	STORE(ADDV, MOVU);                    /* C rows += (or =) the sums   */ \
	VZEROUPPER;                           /* AVX state clean for SSE     */ \
	RET

// func sgemmKernel6x16(k int, a, b, c *float32, ldc int): KERNEL6 with
// B 16 floats a step.
TEXT ·sgemmKernel6x16(SB), NOSPLIT, $0-40
	KERNEL6(STORE6, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func dgemmKernel6x8(k int, a, b, c *float64, ldc int): KERNEL6 with B 8
// doubles a step.
TEXT ·dgemmKernel6x8(SB), NOSPLIT, $0-40
	KERNEL6(STORE6, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)

// func sgemmKernelSet6x16(k int, a, b, c *float32, ldc int): sgemmKernel6x16
// with C[i][j] = Σ_p … (C not read): a first depth block with beta = 0.
TEXT ·sgemmKernelSet6x16(SB), NOSPLIT, $0-40
	KERNEL6(SET6, VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS, 4, 2)

// func dgemmKernelSet6x8(k int, a, b, c *float64, ldc int): likewise.
TEXT ·dgemmKernelSet6x8(SB), NOSPLIT, $0-40
	KERNEL6(SET6, VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD, 8, 3)
