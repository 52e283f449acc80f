//go:build !purego

#include "textflag.h"

// The NEON GEMM micro-kernels: sgemmKernel8x8 (float32) and dgemmKernel8x4
// (float64), one routine body (KERNEL8) over the element's arrangement.
// Row i of the tile lives in V(2i) (its first 16 bytes of columns) and
// V(2i+1) (the next 16).

// Register roles.
#define kLeft  R0  // depth steps left
#define aPtr   R1  // packed A sliver: 8 elements per step
#define bPtr   R2  // packed B sliver: 32 bytes (8 float32, 4 float64) per step
#define cRow   R3  // current row of the C tile
#define ldcB   R4  // C row stride in bytes
#define ones   V28 // {1, 1, …}: VFMLA by ones adds, as NEON has no vector FADD here

// ADDROW adds the accumulators lo, hi (arrangement T) to the 32 bytes at
// cRow, then moves cRow one row down. V26, V27 hold the row of C.
#define ADDROW(lo, hi, T) \
	VLD1  (cRow), [V26.T, V27.T];       /* V26:V27 = C[i]       */ \
	VFMLA lo.T, ones.T, V26.T;         /* V26 += lo·1          */ \
	VFMLA hi.T, ones.T, V27.T;         /* V27 += hi·1          */ \
	VST1  [V26.T, V27.T], (cRow);      /* C[i] = V26:V27       */ \
	ADD   ldcB, cRow                    /* next row of C        */

// ROW2 adds A[p][i]·B[p] (A[p][i] in every lane of a) into row i's
// accumulators lo, hi.
#define ROW2(a, lo, hi, T) \
	VFMLA V16.T, a.T, lo.T;            /* C[i], first half += a·B[p]  */ \
	VFMLA V17.T, a.T, hi.T             /* C[i], second half += a·B[p] */

// KERNEL8 is the body of both micro-kernels, for elements of E = 1<<LOGE
// bytes in arrangement T (S4, D2); FMOV1 moves 1.0 into an F register and
// LANE0 names lane 0 of V28 (for VDUP):
//
// In:  k depth, a packed A (k×8, row i of the tile at a[p*8+i]), b packed
//      B (k steps of 32 bytes), c the C tile (8 rows of 32 bytes, stride
//      ldc elements).
// Out: C[i][j] += Σ_p a[p*8+i]·b[p][j]; R0–R4, V0–V28 clobbered.
#define KERNEL8(T, E, LOGE, FMOV1, LANE0) \
	MOVD    k+0(FP), kLeft;             /* kLeft = k                   */ \
	MOVD    a+8(FP), aPtr;              /* aPtr = &a[0]                */ \
	MOVD    b+16(FP), bPtr;             /* bPtr = &b[0]                */ \
	MOVD    c+24(FP), cRow;             /* cRow = &c[0]                */ \
	MOVD    ldc+32(FP), ldcB;           /* ldcB = ldc                  */ \
	LSL     $LOGE, ldcB;                /* in bytes                    */ \
	FMOV1   $1.0, F28;                  /* ones[0] = 1                 */ \
	VDUP    LANE0, ones.T;              /* ones = {1, 1, …}            */ \
	VEOR    V0.B16, V0.B16, V0.B16;     /* zero the 16 accumulators    */ \
	VEOR    V1.B16, V1.B16, V1.B16; \
	VEOR    V2.B16, V2.B16, V2.B16; \
	VEOR    V3.B16, V3.B16, V3.B16; \
	VEOR    V4.B16, V4.B16, V4.B16; \
	VEOR    V5.B16, V5.B16, V5.B16; \
	VEOR    V6.B16, V6.B16, V6.B16; \
	VEOR    V7.B16, V7.B16, V7.B16; \
	VEOR    V8.B16, V8.B16, V8.B16; \
	VEOR    V9.B16, V9.B16, V9.B16; \
	VEOR    V10.B16, V10.B16, V10.B16; \
	VEOR    V11.B16, V11.B16, V11.B16; \
	VEOR    V12.B16, V12.B16, V12.B16; \
	VEOR    V13.B16, V13.B16, V13.B16; \
	VEOR    V14.B16, V14.B16, V14.B16; \
	VEOR    V15.B16, V15.B16, V15.B16; \
	CBZ     kLeft, store;               /* k == 0: C is left as it is  */ \
loop: \
	VLD1.P  32(bPtr), [V16.T, V17.T];   /* V16:V17 = B[p]; bPtr on     */ \
	VLD1R.P E(aPtr), [V18.T];           /* V18 = A[p][0] in every lane */ \
	VLD1R.P E(aPtr), [V19.T];           /* V19 = A[p][1]               */ \
	VLD1R.P E(aPtr), [V20.T];           /* V20 = A[p][2]               */ \
	VLD1R.P E(aPtr), [V21.T];           /* V21 = A[p][3]               */ \
	VLD1R.P E(aPtr), [V22.T];           /* V22 = A[p][4]               */ \
	VLD1R.P E(aPtr), [V23.T];           /* V23 = A[p][5]               */ \
	VLD1R.P E(aPtr), [V24.T];           /* V24 = A[p][6]               */ \
	VLD1R.P E(aPtr), [V25.T];           /* V25 = A[p][7]               */ \
	ROW2(V18, V0, V1, T);               /* row 0                       */ \
	ROW2(V19, V2, V3, T);               /* row 1                       */ \
	ROW2(V20, V4, V5, T);               /* row 2                       */ \
	ROW2(V21, V6, V7, T);               /* row 3                       */ \
	ROW2(V22, V8, V9, T);               /* row 4                       */ \
	ROW2(V23, V10, V11, T);             /* row 5                       */ \
	ROW2(V24, V12, V13, T);             /* row 6                       */ \
	ROW2(V25, V14, V15, T);             /* row 7                       */ \
	SUBS    $1, kLeft;                  /* one step done               */ \
	BNE     loop;                       /* until k steps               */ \
store: \
	ADDROW(V0, V1, T);                  /* C row 0 += accumulators     */ \
	ADDROW(V2, V3, T);                  /* C row 1                     */ \
	ADDROW(V4, V5, T);                  /* C row 2                     */ \
	ADDROW(V6, V7, T);                  /* C row 3                     */ \
	ADDROW(V8, V9, T);                  /* C row 4                     */ \
	ADDROW(V10, V11, T);                /* C row 5                     */ \
	ADDROW(V12, V13, T);                /* C row 6                     */ \
	ADDROW(V14, V15, T);                /* C row 7                     */ \
	RET

// func sgemmKernel8x8(k int, a, b, c *float32, ldc int): KERNEL8 with B 8
// floats a step.
TEXT ·sgemmKernel8x8(SB), NOSPLIT, $0-40
	KERNEL8(S4, 4, 2, FMOVS, V28.S[0])

// func dgemmKernel8x4(k int, a, b, c *float64, ldc int): KERNEL8 with B 4
// doubles a step.
TEXT ·dgemmKernel8x4(SB), NOSPLIT, $0-40
	KERNEL8(D2, 8, 3, FMOVD, V28.D[0])
