//go:build !purego

#include "textflag.h"

// Register roles of sgemmKernel8x8. Row i of the tile lives in V(2i) (columns
// 0:4) and V(2i+1) (columns 4:8).
#define kLeft  R0  // depth steps left
#define aPtr   R1  // packed A sliver: 8 elements per step
#define bPtr   R2  // packed B sliver: 8 elements per step
#define cRow   R3  // current row of the C tile
#define ldcB   R4  // C row stride in bytes
#define ones   V28 // {1, 1, …}: VFMLA by ones adds, as NEON has no vector FADD here

// ADDROW adds the accumulators lo, hi to the 8 elements at cRow, then
// moves cRow one row down. V26, V27 hold the row of C.
#define ADDROW(lo, hi) \
	VLD1  (cRow), [V26.S4, V27.S4];     /* V26:V27 = C[i][0:8] */ \
	VFMLA lo, ones.S4, V26.S4;         /* V26 += lo·1          */ \
	VFMLA hi, ones.S4, V27.S4;         /* V27 += hi·1          */ \
	VST1  [V26.S4, V27.S4], (cRow);    /* C[i][0:8] = V26:V27 */ \
	ADD   ldcB, cRow                    /* next row of C        */

// func sgemmKernel8x8(k int, a, b, c *float32, ldc int)
//
// In:  k depth, a packed A (k×8, row i of the tile at a[p*8+i]), b packed
//      B (k×8, b[p*8+j]), c the C tile (8 rows of 8, stride ldc elements).
// Out: C[i][j] += Σ_p a[p*8+i]·b[p*8+j]; R0–R4, V0–V28 clobbered.
TEXT ·sgemmKernel8x8(SB), NOSPLIT, $0-40
	MOVD    k+0(FP), kLeft          // kLeft = k
	MOVD    a+8(FP), aPtr           // aPtr = &a[0]
	MOVD    b+16(FP), bPtr          // bPtr = &b[0]
	MOVD    c+24(FP), cRow          // cRow = &c[0]
	MOVD    ldc+32(FP), ldcB        // ldcB = ldc
	LSL     $2, ldcB                // ldcB *= 4 bytes
	FMOVS   $1.0, F28               // ones[0] = 1
	VDUP    V28.S[0], ones.S4       // ones = {1, 1, …}
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
	VLD1.P  32(bPtr), [V16.S4, V17.S4] // V16:V17 = B[p][0:8]; bPtr to step p+1
	VLD1R.P 4(aPtr), [V18.S4]       // V18 = A[p][0] in every lane
	VLD1R.P 4(aPtr), [V19.S4]       // V19 = A[p][1] in every lane
	VLD1R.P 4(aPtr), [V20.S4]       // V20 = A[p][2] in every lane
	VLD1R.P 4(aPtr), [V21.S4]       // V21 = A[p][3] in every lane
	VLD1R.P 4(aPtr), [V22.S4]       // V22 = A[p][4] in every lane
	VLD1R.P 4(aPtr), [V23.S4]       // V23 = A[p][5] in every lane
	VLD1R.P 4(aPtr), [V24.S4]       // V24 = A[p][6] in every lane
	VLD1R.P 4(aPtr), [V25.S4]       // V25 = A[p][7] in every lane
	VFMLA   V16.S4, V18.S4, V0.S4   // C[0][0:4] += A[p][0]·B[p][0:4]
	VFMLA   V17.S4, V18.S4, V1.S4   // C[0][4:8] += A[p][0]·B[p][4:8]
	VFMLA   V16.S4, V19.S4, V2.S4   // C[1][0:4] += A[p][1]·B[p][0:4]
	VFMLA   V17.S4, V19.S4, V3.S4   // C[1][4:8] += A[p][1]·B[p][4:8]
	VFMLA   V16.S4, V20.S4, V4.S4   // C[2][0:4] += A[p][2]·B[p][0:4]
	VFMLA   V17.S4, V20.S4, V5.S4   // C[2][4:8] += A[p][2]·B[p][4:8]
	VFMLA   V16.S4, V21.S4, V6.S4   // C[3][0:4] += A[p][3]·B[p][0:4]
	VFMLA   V17.S4, V21.S4, V7.S4   // C[3][4:8] += A[p][3]·B[p][4:8]
	VFMLA   V16.S4, V22.S4, V8.S4   // C[4][0:4] += A[p][4]·B[p][0:4]
	VFMLA   V17.S4, V22.S4, V9.S4   // C[4][4:8] += A[p][4]·B[p][4:8]
	VFMLA   V16.S4, V23.S4, V10.S4  // C[5][0:4] += A[p][5]·B[p][0:4]
	VFMLA   V17.S4, V23.S4, V11.S4  // C[5][4:8] += A[p][5]·B[p][4:8]
	VFMLA   V16.S4, V24.S4, V12.S4  // C[6][0:4] += A[p][6]·B[p][0:4]
	VFMLA   V17.S4, V24.S4, V13.S4  // C[6][4:8] += A[p][6]·B[p][4:8]
	VFMLA   V16.S4, V25.S4, V14.S4  // C[7][0:4] += A[p][7]·B[p][0:4]
	VFMLA   V17.S4, V25.S4, V15.S4  // C[7][4:8] += A[p][7]·B[p][4:8]
	SUBS    $1, kLeft               // one step done
	BNE     loop                    // until k steps

store:
	ADDROW(V0.S4, V1.S4)            // C row 0 += accumulators
	ADDROW(V2.S4, V3.S4)            // C row 1 += accumulators
	ADDROW(V4.S4, V5.S4)            // C row 2 += accumulators
	ADDROW(V6.S4, V7.S4)            // C row 3 += accumulators
	ADDROW(V8.S4, V9.S4)            // C row 4 += accumulators
	ADDROW(V10.S4, V11.S4)          // C row 5 += accumulators
	ADDROW(V12.S4, V13.S4)          // C row 6 += accumulators
	ADDROW(V14.S4, V15.S4)          // C row 7 += accumulators
	RET
