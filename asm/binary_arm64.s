//go:build !purego

#include "textflag.h"

// Elementwise binary kernels, NEON, float32 (S4) and float64 (D2). Go's
// arm64 assembler has no vector FADD, FSUB or FMUL, so they are fused
// multiply-adds that round the same way: x + y = x + 1·y (VFMLA), x - y =
// x - 1·y (VFMLS), x·y = -0 + x·y (-0 keeps the sign of a zero product).
// Every routine is BINLOOP: 4 vectors (64 bytes) per step, one vector per
// step, then one element per step with the scalar instruction.

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x (unused when x is the scalar)
#define yPtr   R2  // next element of y (unused when y is the scalar)
#define nLeft  R3  // elements left
#define ones   V28 // 1 in every lane
#define negz   V29 // -0 in every lane
#define bcast  V30 // the scalar operand (or axpy's a) in every lane; F30 its lane 0

// Vector loaders L4(A) (4 vectors into V0:V3 or V4:V7), L1(A) (one into
// V0 or V4) and element loaders E (F0 or F4); the B forms copy bcast.
#define XL4(A) VLD1.P 64(xPtr), [V0.A, V1.A, V2.A, V3.A]   /* V0:V3 = x */
#define YL4(A) VLD1.P 64(yPtr), [V4.A, V5.A, V6.A, V7.A]   /* V4:V7 = y */
#define XB4(A) \
	VMOV bcast.B16, V0.B16;                  /* V0:V3 = s */ \
	VMOV bcast.B16, V1.B16;                   /* V1 = s */ \
	VMOV bcast.B16, V2.B16;                   /* V2 = s */ \
	VMOV bcast.B16, V3.B16                   // V3 = s
#define YB4(A) \
	VMOV bcast.B16, V4.B16;                  /* V4:V7 = s */ \
	VMOV bcast.B16, V5.B16;                   /* V5 = s */ \
	VMOV bcast.B16, V6.B16;                   /* V6 = s */ \
	VMOV bcast.B16, V7.B16                   // V7 = s
#define XL1(A) VLD1.P 16(xPtr), [V0.A]                     /* V0 = x */
#define YL1(A) VLD1.P 16(yPtr), [V4.A]                     /* V4 = y */
#define XB1(A) VMOV bcast.B16, V0.B16                      /* V0 = s */
#define YB1(A) VMOV bcast.B16, V4.B16                      /* V4 = s */
#define XES FMOVS.P 4(xPtr), F0                            /* F0 = x */
#define YES FMOVS.P 4(yPtr), F4                            /* F4 = y */
#define XED FMOVD.P 8(xPtr), F0                            /* F0 = x */
#define YED FMOVD.P 8(yPtr), F4                            /* F4 = y */
#define BES(f) FMOVS F30, f                                /* f = s */
#define BED(f) FMOVD F30, f                                /* f = s */
#define XBS BES(F0)
#define YBS BES(F4)
#define XBD BED(F0)
#define YBD BED(F4)

// Vector operations V(x, y, t, A): x = x op y, t scratch; element
// operations on F0 (x) and F4 (y): F0 = x op y.
#define ADDV(x, y, t, A)  VFMLA y.A, ones.A, x.A           /* x += 1·y */
#define SUBV(x, y, t, A)  VFMLS y.A, ones.A, x.A           /* x -= 1·y */
#define MULV(x, y, t, A) \
	VMOV  negz.B16, t.B16;                   /* t = -0 */ \
	VFMLA y.A, x.A, t.A;                     /* t = -0 + x·y */ \
	VMOV  t.B16, x.B16                       /* x = t */
#define AXPYV(x, y, t, A) \
	VFMLA x.A, bcast.A, y.A;                 /* y += a·x */ \
	VMOV  y.B16, x.B16                       /* x = y */
#define ADDES FADDS F4, F0, F0                             /* F0 = x + y */
#define SUBES FSUBS F4, F0, F0                             /* F0 = x - y */
#define MULES FMULS F4, F0, F0                             /* F0 = x · y */
#define AXPYES FMADDS F0, F4, F30, F0                      /* F0 = y + a·x */
#define ADDED FADDD F4, F0, F0
#define SUBED FSUBD F4, F0, F0
#define MULED FMULD F4, F0, F0
#define AXPYED FMADDD F0, F4, F30, F0

// BINLOOP(A, W, LX4, LY4, LX1, LY1, EX, EY, ST, OPV, OPE) runs the
// operation over nLeft elements, W per vector of arrangement A; ST stores F0.
//
// In:  dPtr, xPtr, yPtr, nLeft, bcast/F30 and ones/negz set up.
// Out: dst written; clobbers R0–R3, V0–V11.
#define BINLOOP(A, W, LX4, LY4, LX1, LY1, EX, EY, ST, OPV, OPE) \
	CMP   $(4*W), nLeft;                     /* 4 vectors left? */ \
	BLT   one;                                /* the single vectors */ \
quad: \
	LX4(A);                                  /* V0:V3 = x */ \
	LY4(A);                                  /* V4:V7 = y */ \
	OPV(V0, V4, V8, A);                      /* V0 = x op y */ \
	OPV(V1, V5, V9, A);                      /* V1 = x op y */ \
	OPV(V2, V6, V10, A);                     /* V2 = x op y */ \
	OPV(V3, V7, V11, A);                     /* V3 = x op y */ \
	VST1.P [V0.A, V1.A, V2.A, V3.A], 64(dPtr); /* dst = V0:V3 */ \
	SUB   $(4*W), nLeft;                     /* 4 vectors done */ \
	CMP   $(4*W), nLeft;                     /* 4 more? */ \
	BGE   quad;                               /* again while 4 vectors are left */ \
one: \
	CMP   $W, nLeft;                         /* a vector left? */ \
	BLT   elem;                               /* the single elements */ \
	LX1(A);                                  /* V0 = x */ \
	LY1(A);                                  /* V4 = y */ \
	OPV(V0, V4, V8, A);                      /* V0 = x op y */ \
	VST1.P [V0.A], 16(dPtr);                 /* dst = V0 */ \
	SUB   $W, nLeft;                         /* one vector done */ \
	B     one;                                /* the single vectors */ \
elem: \
	CBZ   nLeft, done;                       /* nothing left? */ \
	EX;                                      /* F0 = x */ \
	EY;                                      /* F4 = y */ \
	OPE;                                     /* F0 = x op y */ \
	ST;                                      /* dst = F0 */ \
	SUB   $1, nLeft;                         /* one element done */ \
	B     elem;                               /* the single elements */ \
done: \
	RET

// SETUP32 / SETUP64 put 1 in ones and -0 in negz.
#define SETUP32 \
	FMOVS $1.0, F28;                         /* ones[0] = 1 */ \
	VDUP  V28.S[0], ones.S4;                 /* ones = 1 everywhere */ \
	MOVD  $0x80000000, R4;                   /* R4 = bits of -0 */ \
	VDUP  R4, negz.S4                        /* negz = -0 everywhere */
#define SETUP64 \
	FMOVD $1.0, F28;                         /* ones[0] = 1 */ \
	VDUP  V28.D[0], ones.D2;                 /* ones = 1 everywhere */ \
	MOVD  $0x8000000000000000, R4;           /* R4 = bits of -0 */ \
	VDUP  R4, negz.D2                        /* negz = -0 everywhere */

#define ST32 FMOVS.P F0, 4(dPtr)                           /* dst = F0 */
#define ST64 FMOVD.P F0, 8(dPtr)                           /* dst = F0 */

#define ARGSVV \
	MOVD d_base+0(FP), dPtr;                 /* dPtr = &d[0] */ \
	MOVD d_len+8(FP), nLeft;                 /* nLeft = len(d) */ \
	MOVD x_base+24(FP), xPtr;                /* xPtr = &x[0] */ \
	MOVD y_base+48(FP), yPtr                 /* yPtr = &y[0] */
#define ARGSVS32 \
	MOVD  d_base+0(FP), dPtr;                /* dPtr = &d[0] */ \
	MOVD  d_len+8(FP), nLeft;                /* nLeft = len(d) */ \
	MOVD  x_base+24(FP), xPtr;               /* xPtr = &x[0] */ \
	FMOVS s+48(FP), F30;                     /* F30 = s */ \
	VDUP  V30.S[0], bcast.S4                 /* bcast = s everywhere */
#define ARGSVS64 \
	MOVD  d_base+0(FP), dPtr;                /* dPtr = &d[0] */ \
	MOVD  d_len+8(FP), nLeft;                /* nLeft = len(d) */ \
	MOVD  x_base+24(FP), xPtr;               /* xPtr = &x[0] */ \
	FMOVD s+48(FP), F30;                     /* F30 = s */ \
	VDUP  V30.D[0], bcast.D2                 /* bcast = s everywhere */

// func addVV32(d, x, y []float32), subVV32, mulVV32: d[i] = x[i] op y[i].
TEXT ·addVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YL4, XL1, YL1, XES, YES, ST32, ADDV, ADDES) // the loop: d = x ADDES y

TEXT ·subVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YL4, XL1, YL1, XES, YES, ST32, SUBV, SUBES) // the loop: d = x SUBES y

TEXT ·mulVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YL4, XL1, YL1, XES, YES, ST32, MULV, MULES) // the loop: d = x MULES y

// func addVS32(d, x []float32, s float32), subVS32, mulVS32: d[i] = x[i] op s.
TEXT ·addVS32(SB), NOSPLIT, $0-52
	ARGSVS32                                 // dPtr, xPtr, nLeft; bcast = s
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YB4, XL1, YB1, XES, YBS, ST32, ADDV, ADDES) // the loop: d = x ADDES y

TEXT ·subVS32(SB), NOSPLIT, $0-52
	ARGSVS32                                 // dPtr, xPtr, nLeft; bcast = s
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YB4, XL1, YB1, XES, YBS, ST32, SUBV, SUBES) // the loop: d = x SUBES y

TEXT ·mulVS32(SB), NOSPLIT, $0-52
	ARGSVS32                                 // dPtr, xPtr, nLeft; bcast = s
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YB4, XL1, YB1, XES, YBS, ST32, MULV, MULES) // the loop: d = x MULES y

// func subSV32(d []float32, s float32, y []float32): d[i] = s - y[i].
TEXT ·subSV32(SB), NOSPLIT, $0-56
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nLeft                 // nLeft = len(d)
	FMOVS s+24(FP), F30                      // F30 = s
	VDUP  V30.S[0], bcast.S4                 // bcast = s everywhere
	MOVD  y_base+32(FP), yPtr                // yPtr = &y[0]
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XB4, YL4, XB1, YL1, XBS, YES, ST32, SUBV, SUBES) // the loop: d = x SUBES y

// func axpy32(d []float32, a float32, x, y []float32): d[i] = a·x[i] + y[i].
TEXT ·axpy32(SB), NOSPLIT, $0-80
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nLeft                 // nLeft = len(d)
	FMOVS a+24(FP), F30                      // F30 = a
	VDUP  V30.S[0], bcast.S4                 // bcast = a everywhere
	MOVD  x_base+32(FP), xPtr                // xPtr = &x[0]
	MOVD  y_base+56(FP), yPtr                // yPtr = &y[0]
	SETUP32                                  // ones = 1, negz = -0 (float32 lanes)
	BINLOOP(S4, 4, XL4, YL4, XL1, YL1, XES, YES, ST32, AXPYV, AXPYES) // the loop: d = x AXPYES y

// The float64 kernels, as the float32 ones.
TEXT ·addVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YL4, XL1, YL1, XED, YED, ST64, ADDV, ADDED) // the loop: d = x ADDED y

TEXT ·subVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YL4, XL1, YL1, XED, YED, ST64, SUBV, SUBED) // the loop: d = x SUBED y

TEXT ·mulVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YL4, XL1, YL1, XED, YED, ST64, MULV, MULED) // the loop: d = x MULED y

TEXT ·addVS64(SB), NOSPLIT, $0-56
	ARGSVS64                                 // dPtr, xPtr, nLeft; bcast = s
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YB4, XL1, YB1, XED, YBD, ST64, ADDV, ADDED) // the loop: d = x ADDED y

TEXT ·subVS64(SB), NOSPLIT, $0-56
	ARGSVS64                                 // dPtr, xPtr, nLeft; bcast = s
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YB4, XL1, YB1, XED, YBD, ST64, SUBV, SUBED) // the loop: d = x SUBED y

TEXT ·mulVS64(SB), NOSPLIT, $0-56
	ARGSVS64                                 // dPtr, xPtr, nLeft; bcast = s
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YB4, XL1, YB1, XED, YBD, ST64, MULV, MULED) // the loop: d = x MULED y

TEXT ·subSV64(SB), NOSPLIT, $0-56
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nLeft                 // nLeft = len(d)
	FMOVD s+24(FP), F30                      // F30 = s
	VDUP  V30.D[0], bcast.D2                 // bcast = s everywhere
	MOVD  y_base+32(FP), yPtr                // yPtr = &y[0]
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XB4, YL4, XB1, YL1, XBD, YED, ST64, SUBV, SUBED) // the loop: d = x SUBED y

TEXT ·axpy64(SB), NOSPLIT, $0-80
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nLeft                 // nLeft = len(d)
	FMOVD a+24(FP), F30                      // F30 = a
	VDUP  V30.D[0], bcast.D2                 // bcast = a everywhere
	MOVD  x_base+32(FP), xPtr                // xPtr = &x[0]
	MOVD  y_base+56(FP), yPtr                // yPtr = &y[0]
	SETUP64                                  // ones = 1, negz = -0 (float64 lanes)
	BINLOOP(D2, 2, XL4, YL4, XL1, YL1, XED, YED, ST64, AXPYV, AXPYED) // the loop: d = x AXPYED y
