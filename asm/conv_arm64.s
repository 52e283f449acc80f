//go:build !purego

#include "textflag.h"

// The depthwise-convolution kernel, NEON (4 lanes). Row by row: 16 columns
// at a time (four vectors, four independent sums), then single vectors, then
// single columns with the scalar fused multiply-add; each tap's weight is
// replicated once per block and added with one VFMLA (fused), so every
// output element is init + its taps in order, as depthwiseGo computes it.

// Register roles.
#define dRow  R0  // dst: the row in hand
#define ldD   R1  // ldd in bytes
#define xRow  R2  // x: the row in hand
#define ldX   R3  // ldx in bytes
#define wPtr  R4  // w
#define oPtr  R5  // off
#define nTaps R6  // len(w)
#define nRows R7  // rows left
#define nCols R8  // cols
#define col   R9  // the first column of the block in hand
#define tap   R10 // the tap in hand
#define left  R13 // columns left in the row
#define vinit V30 // init in every lane; F30 its lane 0

// TAPADDR sets R11 to &x[row][col + off[tap]] and R12 to &w[tap].
#define TAPADDR \
	ADD  tap<<3, oPtr, R11;                  /* R11 = &off[tap] */ \
	MOVD (R11), R11;                         /* R11 = off[tap] */ \
	ADD  col, R11, R11;                      /* + col */ \
	ADD  R11<<2, xRow, R11;                  /* R11 = &x[row][col+off] */ \
	ADD  tap<<2, wPtr, R12                   // R12 = &w[tap]

// func depthwiseF32(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)
TEXT ·depthwiseF32(SB), NOSPLIT, $0-132
	MOVD  dst_base+0(FP), dRow               // dRow = dst
	MOVD  ldd+24(FP), ldD                    // ldD = ldd
	LSL   $2, ldD, ldD                       // in bytes
	MOVD  x_base+32(FP), xRow                // xRow = x
	MOVD  ldx+56(FP), ldX                    // ldX = ldx
	LSL   $2, ldX, ldX                       // in bytes
	MOVD  w_base+64(FP), wPtr                // wPtr = w
	MOVD  w_len+72(FP), nTaps                // nTaps = len(w)
	MOVD  off_base+88(FP), oPtr              // oPtr = off
	MOVD  rows+112(FP), nRows                // nRows = rows
	MOVD  cols+120(FP), nCols                // nCols = cols
	FMOVS init+128(FP), F30                  // F30 = init
	VDUP  V30.S[0], vinit.S4                 // init in every lane
row:
	CBZ   nRows, done                        // no rows left: finished
	MOVD  $0, col                            // col = 0
block:
	SUB   col, nCols, left                   // left = cols - col
	CMP   $16, left                          // 16 columns left?
	BLT   vec                                // no: single vectors
	VMOV  vinit.B16, V0.B16                  // V0:V3 = init
	VMOV  vinit.B16, V1.B16                  // V1 = init
	VMOV  vinit.B16, V2.B16                  // V2 = init
	VMOV  vinit.B16, V3.B16                  // V3 = init
	MOVD  $0, tap                            // tap = 0
blockTap:
	TAPADDR                                  // R11 = &x[col+off], R12 = &w
	VLD1R (R12), [V8.S4]                     // V8 = w[tap] everywhere
	VLD1  (R11), [V4.S4, V5.S4, V6.S4, V7.S4] // V4:V7 = x
	VFMLA V4.S4, V8.S4, V0.S4                // V0 += w·x
	VFMLA V5.S4, V8.S4, V1.S4                // V1 += w·x
	VFMLA V6.S4, V8.S4, V2.S4                // V2 += w·x
	VFMLA V7.S4, V8.S4, V3.S4                // V3 += w·x
	ADD   $1, tap                            // next tap
	CMP   nTaps, tap                         // any left?
	BLT   blockTap                           // then add it
	ADD   col<<2, dRow, R11                  // R11 = &dst[row][col]
	VST1  [V0.S4, V1.S4, V2.S4, V3.S4], (R11) // dst = V0:V3
	ADD   $16, col                           // next block
	B     block                              // again
vec:
	CMP   $4, left                           // a vector left?
	BLT   elem                               // no: single columns
	VMOV  vinit.B16, V0.B16                  // V0 = init
	MOVD  $0, tap                            // tap = 0
vecTap:
	TAPADDR                                  // R11 = &x[col+off], R12 = &w
	VLD1R (R12), [V8.S4]                     // V8 = w[tap] everywhere
	VLD1  (R11), [V4.S4]                     // V4 = x
	VFMLA V4.S4, V8.S4, V0.S4                // V0 += w·x
	ADD   $1, tap                            // next tap
	CMP   nTaps, tap                         // any left?
	BLT   vecTap                             // then add it
	ADD   col<<2, dRow, R11                  // R11 = &dst[row][col]
	VST1  [V0.S4], (R11)                     // dst = V0
	ADD   $4, col                            // next vector
	SUB   col, nCols, left                   // left = cols - col
	B     vec                                // again
elem:
	CBZ   left, next                         // row finished?
	FMOVS F30, F0                            // F0 = init
	MOVD  $0, tap                            // tap = 0
elemTap:
	TAPADDR                                  // R11 = &x[col+off], R12 = &w
	FMOVS (R12), F8                          // F8 = w[tap]
	FMOVS (R11), F4                          // F4 = x
	FMADDS F4, F0, F8, F0                    // F0 += w·x, fused
	ADD   $1, tap                            // next tap
	CMP   nTaps, tap                         // any left?
	BLT   elemTap                            // then add it
	ADD   col<<2, dRow, R11                  // R11 = &dst[row][col]
	FMOVS F0, (R11)                          // dst = F0
	ADD   $1, col                            // next column
	SUB   $1, left                           // one fewer left
	B     elem                               // again
next:
	ADD   ldX, xRow                          // x a row on
	ADD   ldD, dRow                          // dst a row on
	SUB   $1, nRows                          // a row done
	B     row                                // again
done:
	RET
