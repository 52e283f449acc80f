//go:build !purego

#include "textflag.h"

// Register roles of dgemmKernel8x4. Row i of the tile lives in V(2i) (columns
// 0:2) and V(2i+1) (columns 2:4).
#define kLeft  R0  // depth steps left
#define aPtr   R1  // packed A sliver: 8 elements per step
#define bPtr   R2  // packed B sliver: 4 elements per step
#define cRow   R3  // current row of the C tile
#define ldcB   R4  // C row stride in bytes
#define ones   V28 // {1, 1, …}: VFMLA by ones adds, as NEON has no vector FADD here

// ADDROW adds the accumulators lo, hi to the 4 elements at cRow, then
// moves cRow one row down. V26, V27 hold the row of C.
#define ADDROW(lo, hi) \
	VLD1  (cRow), [V26.D2, V27.D2];     /* V26:V27 = C[i][0:4] */ \
	VFMLA lo, ones.D2, V26.D2;         /* V26 += lo·1          */ \
	VFMLA hi, ones.D2, V27.D2;         /* V27 += hi·1          */ \
	VST1  [V26.D2, V27.D2], (cRow);    /* C[i][0:4] = V26:V27 */ \
	ADD   ldcB, cRow                    /* next row of C        */

// func dgemmKernel8x4(k int, a, b, c *float64, ldc int)
//
// In:  k depth, a packed A (k×8, row i of the tile at a[p*8+i]), b packed
//      B (k×4, b[p*4+j]), c the C tile (8 rows of 4, stride ldc elements).
// Out: C[i][j] += Σ_p a[p*8+i]·b[p*4+j]; R0–R4, V0–V28 clobbered.
TEXT ·dgemmKernel8x4(SB), NOSPLIT, $0-40
	MOVD    k+0(FP), kLeft          // kLeft = k
	MOVD    a+8(FP), aPtr           // aPtr = &a[0]
	MOVD    b+16(FP), bPtr          // bPtr = &b[0]
	MOVD    c+24(FP), cRow          // cRow = &c[0]
	MOVD    ldc+32(FP), ldcB        // ldcB = ldc
	LSL     $3, ldcB                // ldcB *= 8 bytes
	FMOVD   $1.0, F28               // ones[0] = 1
	VDUP    V28.D[0], ones.D2       // ones = {1, 1, …}
	VEOR    V0.B16, V0.B16, V0.B16  // V0 = 0: zero the 16 accumulators
	VEOR    V1.B16, V1.B16, V1.B16  // V1 = 0
	VEOR    V2.B16, V2.B16, V2.B16  // V2 = 0
	VEOR    V3.B16, V3.B16, V3.B16  // V3 = 0
	VEOR    V4.B16, V4.B16, V4.B16  // V4 = 0
	VEOR    V5.B16, V5.B16, V5.B16  // V5 = 0
	VEOR    V6.B16, V6.B16, V6.B16  // V6 = 0
	VEOR    V7.B16, V7.B16, V7.B16  // V7 = 0
	VEOR    V8.B16, V8.B16, V8.B16  // V8 = 0
	VEOR    V9.B16, V9.B16, V9.B16  // V9 = 0
	VEOR    V10.B16, V10.B16, V10.B16 // V10 = 0
	VEOR    V11.B16, V11.B16, V11.B16 // V11 = 0
	VEOR    V12.B16, V12.B16, V12.B16 // V12 = 0
	VEOR    V13.B16, V13.B16, V13.B16 // V13 = 0
	VEOR    V14.B16, V14.B16, V14.B16 // V14 = 0
	VEOR    V15.B16, V15.B16, V15.B16 // V15 = 0
	CBZ     kLeft, store            // k == 0: C is left as it is

loop:
	VLD1.P  32(bPtr), [V16.D2, V17.D2] // V16:V17 = B[p][0:4]; bPtr to step p+1
	VLD1R.P 8(aPtr), [V18.D2]       // V18 = A[p][0] in every lane
	VLD1R.P 8(aPtr), [V19.D2]       // V19 = A[p][1] in every lane
	VLD1R.P 8(aPtr), [V20.D2]       // V20 = A[p][2] in every lane
	VLD1R.P 8(aPtr), [V21.D2]       // V21 = A[p][3] in every lane
	VLD1R.P 8(aPtr), [V22.D2]       // V22 = A[p][4] in every lane
	VLD1R.P 8(aPtr), [V23.D2]       // V23 = A[p][5] in every lane
	VLD1R.P 8(aPtr), [V24.D2]       // V24 = A[p][6] in every lane
	VLD1R.P 8(aPtr), [V25.D2]       // V25 = A[p][7] in every lane
	VFMLA   V16.D2, V18.D2, V0.D2   // C[0][0:2] += A[p][0]·B[p][0:2]
	VFMLA   V17.D2, V18.D2, V1.D2   // C[0][2:4] += A[p][0]·B[p][2:4]
	VFMLA   V16.D2, V19.D2, V2.D2   // C[1][0:2] += A[p][1]·B[p][0:2]
	VFMLA   V17.D2, V19.D2, V3.D2   // C[1][2:4] += A[p][1]·B[p][2:4]
	VFMLA   V16.D2, V20.D2, V4.D2   // C[2][0:2] += A[p][2]·B[p][0:2]
	VFMLA   V17.D2, V20.D2, V5.D2   // C[2][2:4] += A[p][2]·B[p][2:4]
	VFMLA   V16.D2, V21.D2, V6.D2   // C[3][0:2] += A[p][3]·B[p][0:2]
	VFMLA   V17.D2, V21.D2, V7.D2   // C[3][2:4] += A[p][3]·B[p][2:4]
	VFMLA   V16.D2, V22.D2, V8.D2   // C[4][0:2] += A[p][4]·B[p][0:2]
	VFMLA   V17.D2, V22.D2, V9.D2   // C[4][2:4] += A[p][4]·B[p][2:4]
	VFMLA   V16.D2, V23.D2, V10.D2  // C[5][0:2] += A[p][5]·B[p][0:2]
	VFMLA   V17.D2, V23.D2, V11.D2  // C[5][2:4] += A[p][5]·B[p][2:4]
	VFMLA   V16.D2, V24.D2, V12.D2  // C[6][0:2] += A[p][6]·B[p][0:2]
	VFMLA   V17.D2, V24.D2, V13.D2  // C[6][2:4] += A[p][6]·B[p][2:4]
	VFMLA   V16.D2, V25.D2, V14.D2  // C[7][0:2] += A[p][7]·B[p][0:2]
	VFMLA   V17.D2, V25.D2, V15.D2  // C[7][2:4] += A[p][7]·B[p][2:4]
	SUBS    $1, kLeft               // one step done
	BNE     loop                    // until k steps

store:
	ADDROW(V0.D2, V1.D2)            // C row 0 += accumulators
	ADDROW(V2.D2, V3.D2)            // C row 1 += accumulators
	ADDROW(V4.D2, V5.D2)            // C row 2 += accumulators
	ADDROW(V6.D2, V7.D2)            // C row 3 += accumulators
	ADDROW(V8.D2, V9.D2)            // C row 4 += accumulators
	ADDROW(V10.D2, V11.D2)          // C row 5 += accumulators
	ADDROW(V12.D2, V13.D2)          // C row 6 += accumulators
	ADDROW(V14.D2, V15.D2)          // C row 7 += accumulators
	RET
