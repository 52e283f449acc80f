//go:build !purego

#include "textflag.h"
#include "floatkey_arm64.h"

// Elementwise binary kernels, NEON, float32 (S4) and float64 (D2). Go's
// arm64 assembler has no vector FADD, FSUB or FMUL, so they are fused
// multiply-adds that round the same way: x + y = x + 1·y (VFMLA), x - y =
// x - 1·y (VFMLS), x·y = -0 + x·y (-0 keeps the sign of a zero product).
// It has no FMAX or FMIN either: maximum and minimum compare the order keys
// of floatkey_arm64.h and pick an operand (MMVV and MMVV64 below).
// Every routine is BINLOOP: 4 vectors (64 bytes) per step, one vector per
// step, then one element per step with the scalar instruction (maximum and
// minimum: the vector one on lane 0).

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x (unused when x is the scalar)
#define yPtr   R2  // next element of y (unused when y is the scalar)
#define nLeft  R3  // elements left
#define ones   V28 // 1 in every lane
#define negz   V29 // -0 in every lane
#define bcast  V30 // the scalar operand (or axpy's a) in every lane; F30 its lane 0
#define skey   V25 // maximum/minimum: the key of the scalar operand in every lane
#define bias   V26 // maximum/minimum: FKEY's bias in every lane
#define nank   V27 // maximum/minimum: the one key all NaNs get in every lane
#define nanc   V24 // float64 maximum/minimum: 2^52-1 in every lane (FNAN64)
#define zero   V23 // float64 minimum: 0 in every lane

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

// Maximum and minimum, float32 (the A argument is S4). maximum(a, b) is a
// if a is NaN, else b if b is NaN or b > a, else a (ties, ±0 included, give
// a); minimum likewise with b < a. With keys that put every NaN above the
// numbers (maximum) or below them (minimum), all NaNs clamped to one key,
// that is: a where PICK(key a, key b) == key a, PICK = VUMAX (maximum) or
// VUMIN (minimum), else b. SETUPMM sets the bias and the NaN key:
//
//	maximum: bias 2^23, NaNs above +Inf (0xff000000) clamped down (VUMIN)
//	         to 0xff000001;
//	minimum: bias 0xff800001, keys 2^24-1 higher: numbers 0x00ffffff up to
//	         0xffffffff, NaNs wrapped to 0..0x00fffffe, clamped up (VUMAX)
//	         to 0x00fffffe.
//
// MMKEY(u, k, CLAMP): k = the key of u, NaNs clamped. Clobbers V13.
#define MMKEY(u, k, CLAMP) \
	FKEY(u, k, V13, negz, bias);             /* k = the key of u */ \
	CLAMP nank.S4, k.S4, k.S4                /* every NaN the same key */

// MMPICK(x, y, kx, ky, PICK): x = y where PICK(kx, ky) != kx. Clobbers V13.
#define MMPICK(x, y, kx, ky, PICK) \
	PICK  ky.S4, kx.S4, V13.S4;              /* V13 = the winning key */ \
	VCMEQ kx.S4, V13.S4, V13.S4;             /* all ones where x wins or ties */ \
	VBIF  V13.B16, y.B16, x.B16              /* x = y elsewhere */

// MMVV, MMVS and MMSV are the vector-vector, vector-scalar and
// scalar-vector forms (the scalar's key is skey); t and V12 are scratch.
#define MMVV(x, y, t, CLAMP, PICK) \
	MMKEY(x, t, CLAMP);                      /* t = key of x */ \
	MMKEY(y, V12, CLAMP);                    /* V12 = key of y */ \
	MMPICK(x, y, t, V12, PICK)               /* x = x or y */
#define MMVS(x, y, t, CLAMP, PICK) \
	MMKEY(x, t, CLAMP);                      /* t = key of x */ \
	MMPICK(x, y, t, skey, PICK)              /* x = x or s */
#define MMSV(x, y, t, CLAMP, PICK) \
	MMKEY(y, t, CLAMP);                      /* t = key of y */ \
	MMPICK(x, y, skey, t, PICK)              /* x = s or y */

#define MAXVV(x, y, t, A) MMVV(x, y, t, VUMIN, VUMAX)
#define MINVV(x, y, t, A) MMVV(x, y, t, VUMAX, VUMIN)
#define MAXVS(x, y, t, A) MMVS(x, y, t, VUMIN, VUMAX)
#define MINVS(x, y, t, A) MMVS(x, y, t, VUMAX, VUMIN)
#define MAXSV(x, y, t, A) MMSV(x, y, t, VUMIN, VUMAX)
#define MINSV(x, y, t, A) MMSV(x, y, t, VUMAX, VUMIN)

// The element forms: F0 and F4 were loaded by FMOVS, which clears the other
// lanes; the vector form runs on lane 0.
#define MAXVVE MAXVV(V0, V4, V8, S4)
#define MINVVE MINVV(V0, V4, V8, S4)
#define MAXVSE MAXVS(V0, V4, V8, S4)
#define MINVSE MINVS(V0, V4, V8, S4)
#define MAXSVE MAXSV(V0, V4, V8, S4)
#define MINSVE MINSV(V0, V4, V8, S4)

// SETUPMM(B, N) puts the sign bit in negz, B in bias and N in nank.
#define SETUPMM(B, N) \
	MOVD  $0x80000000, R4;                   /* R4 = the sign bit */ \
	VDUP  R4, negz.S4;                       /* negz = sign bit everywhere */ \
	MOVW  $B, R4;                            /* R4 = the bias */ \
	VDUP  R4, bias.S4;                       /* bias everywhere */ \
	MOVW  $N, R4;                            /* R4 = the NaN key */ \
	VDUP  R4, nank.S4                        /* nank everywhere */
#define SETUPMAX SETUPMM(0x00800000, 0xff000001)
#define SETUPMIN SETUPMM(0xff800001, 0x00fffffe)

// Maximum and minimum, float64 (the A argument is D2), the same rule with
// FKEY64's keys. NEON has no 64-bit VUMAX or VUMIN to clamp the NaN keys
// with, so the pick is ULT64, a strict unsigned a < b, and only a's key is
// adjusted where a is NaN (FNAN64), to a key nothing is beyond:
//
//	maximum: bias 2^52 (NaNs above +Inf, 0xffe0000000000000); b where
//	         key a < key b, a's key all ones where a is NaN;
//	minimum: bias 0xfff0000000000001, keys 2^53-1 higher: numbers
//	         0x001fffffffffffff up to all ones, NaNs wrapped to
//	         0..0x001ffffffffffffe; b where key b < key a, a's key 0 where
//	         a is NaN.
//
// (A number a loses to a NaN b: its key is above (minimum: below) every
// NaN's; a NaN a wins, its key adjusted; ±0 have one key, so ties keep a.)
//
// MMKEYA64(u, k, SAT): k = the key of a = u, adjusted by SAT where u is NaN;
// MMKEYB64(u, k): k = the key of b = u. Both clobber V13.
#define MMKEYA64(u, k, SAT) \
	FKEY64(u, k, V13, negz, bias);           /* k = the key of u */ \
	FNAN64(u, V13, nanc, negz);              /* V13 = all ones where u is NaN */ \
	SAT(V13, k)                              /* the NaN keys adjusted */
#define MMKEYB64(u, k) FKEY64(u, k, V13, negz, bias) /* k = the key of u */
#define SATMAX(n, k) VORR n.B16, k.B16, k.B16       /* k = all ones where n */
#define SATMIN(n, k) VBIT n.B16, zero.B16, k.B16    /* k = 0 where n */

// MMPICK64(x, y, ka, kb, LT): x = y where LT(ka, kb), the lanes where b
// wins: LTMAX (key a < key b) or LTMIN (key b < key a). Clobbers V13, V14.
#define LTMAX(ka, kb, m, t) ULT64(ka, kb, m, t, negz)
#define LTMIN(ka, kb, m, t) ULT64(kb, ka, m, t, negz)
#define MMPICK64(x, y, ka, kb, LT) \
	LT(ka, kb, V13, V14);                    /* V13 = all ones where y wins */ \
	VBIT V13.B16, y.B16, x.B16               /* x = y there */

// MMVV64, MMVS64 and MMSV64 are the three forms (the scalar's key, adjusted
// for MMSV64 where it is a, is skey); t and V12 are scratch.
#define MMVV64(x, y, t, SAT, LT) \
	MMKEYA64(x, t, SAT);                     /* t = key of x */ \
	MMKEYB64(y, V12);                        /* V12 = key of y */ \
	MMPICK64(x, y, t, V12, LT)               /* x = x or y */
#define MMVS64(x, y, t, SAT, LT) \
	MMKEYA64(x, t, SAT);                     /* t = key of x */ \
	MMPICK64(x, y, t, skey, LT)              /* x = x or s */
#define MMSV64(x, y, t, SAT, LT) \
	MMKEYB64(y, t);                          /* t = key of y */ \
	MMPICK64(x, y, skey, t, LT)              /* x = s or y */

#define MAXVV64(x, y, t, A) MMVV64(x, y, t, SATMAX, LTMAX)
#define MINVV64(x, y, t, A) MMVV64(x, y, t, SATMIN, LTMIN)
#define MAXVS64(x, y, t, A) MMVS64(x, y, t, SATMAX, LTMAX)
#define MINVS64(x, y, t, A) MMVS64(x, y, t, SATMIN, LTMIN)
#define MAXSV64(x, y, t, A) MMSV64(x, y, t, SATMAX, LTMAX)
#define MINSV64(x, y, t, A) MMSV64(x, y, t, SATMIN, LTMIN)

// The element forms: FMOVD clears the other lane; the vector form runs on
// lane 0.
#define MAXVVE64 MAXVV64(V0, V4, V8, D2)
#define MINVVE64 MINVV64(V0, V4, V8, D2)
#define MAXVSE64 MAXVS64(V0, V4, V8, D2)
#define MINVSE64 MINVS64(V0, V4, V8, D2)
#define MAXSVE64 MAXSV64(V0, V4, V8, D2)
#define MINSVE64 MINSV64(V0, V4, V8, D2)

// SETUPMM64(B) puts the sign bit in negz, B in bias, 2^52-1 in nanc and 0
// in zero (64-bit lanes).
#define SETUPMM64(B) \
	MOVD  $0x8000000000000000, R4;           /* R4 = the sign bit */ \
	VDUP  R4, negz.D2;                       /* negz = sign bit everywhere */ \
	MOVD  $B, R4;                            /* R4 = the bias */ \
	VDUP  R4, bias.D2;                       /* bias everywhere */ \
	MOVD  $0x000fffffffffffff, R4;           /* R4 = 2^52-1 */ \
	VDUP  R4, nanc.D2;                       /* nanc everywhere */ \
	VEOR  zero.B16, zero.B16, zero.B16       /* zero = 0 */
#define SETUPMAX64 SETUPMM64(0x0010000000000000)
#define SETUPMIN64 SETUPMM64(0xfff0000000000001)

// BINLOOP(A, W, LX4, LY4, LX1, LY1, EX, EY, ST, OPV, OPE) runs the
// operation over nLeft elements, W per vector of arrangement A; ST stores F0.
//
// In:  dPtr, xPtr, yPtr, nLeft, bcast/F30 and ones/negz set up.
// Out: dst written; clobbers R0–R3, V0–V11 (maximum/minimum: V0–V14).
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
#define ARGSSV32 \
	MOVD  d_base+0(FP), dPtr;                /* dPtr = &d[0] */ \
	MOVD  d_len+8(FP), nLeft;                /* nLeft = len(d) */ \
	FMOVS s+24(FP), F30;                     /* F30 = s */ \
	VDUP  V30.S[0], bcast.S4;                /* bcast = s everywhere */ \
	MOVD  y_base+32(FP), yPtr                /* yPtr = &y[0] */
#define ARGSSV64 \
	MOVD  d_base+0(FP), dPtr;                /* dPtr = &d[0] */ \
	MOVD  d_len+8(FP), nLeft;                /* nLeft = len(d) */ \
	FMOVD s+24(FP), F30;                     /* F30 = s */ \
	VDUP  V30.D[0], bcast.D2;                /* bcast = s everywhere */ \
	MOVD  y_base+32(FP), yPtr                /* yPtr = &y[0] */

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
	ARGSSV32                                 // dPtr, yPtr, nLeft; bcast = s
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

// func maxVV32(d, x, y []float32), minVV32: d[i] = maximum/minimum(x[i], y[i]).
TEXT ·maxVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUPMAX                                 // negz, bias, nank for maximum
	BINLOOP(S4, 4, XL4, YL4, XL1, YL1, XES, YES, ST32, MAXVV, MAXVVE) // the loop: d = maximum(x, y)

TEXT ·minVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUPMIN                                 // negz, bias, nank for minimum
	BINLOOP(S4, 4, XL4, YL4, XL1, YL1, XES, YES, ST32, MINVV, MINVVE) // the loop: d = minimum(x, y)

// func maxVS32(d, x []float32, s float32), minVS32: d[i] = maximum/minimum(x[i], s).
TEXT ·maxVS32(SB), NOSPLIT, $0-52
	ARGSVS32                                 // dPtr, xPtr, nLeft; bcast = s
	SETUPMAX                                 // negz, bias, nank for maximum
	MMKEY(bcast, skey, VUMIN)                // skey = key of s
	BINLOOP(S4, 4, XL4, YB4, XL1, YB1, XES, YBS, ST32, MAXVS, MAXVSE) // the loop: d = maximum(x, s)

TEXT ·minVS32(SB), NOSPLIT, $0-52
	ARGSVS32                                 // dPtr, xPtr, nLeft; bcast = s
	SETUPMIN                                 // negz, bias, nank for minimum
	MMKEY(bcast, skey, VUMAX)                // skey = key of s
	BINLOOP(S4, 4, XL4, YB4, XL1, YB1, XES, YBS, ST32, MINVS, MINVSE) // the loop: d = minimum(x, s)

// func maxSV32(d []float32, s float32, y []float32), minSV32: d[i] = maximum/minimum(s, y[i]).
TEXT ·maxSV32(SB), NOSPLIT, $0-56
	ARGSSV32                                 // dPtr, yPtr, nLeft; bcast = s
	SETUPMAX                                 // negz, bias, nank for maximum
	MMKEY(bcast, skey, VUMIN)                // skey = key of s
	BINLOOP(S4, 4, XB4, YL4, XB1, YL1, XBS, YES, ST32, MAXSV, MAXSVE) // the loop: d = maximum(s, y)

TEXT ·minSV32(SB), NOSPLIT, $0-56
	ARGSSV32                                 // dPtr, yPtr, nLeft; bcast = s
	SETUPMIN                                 // negz, bias, nank for minimum
	MMKEY(bcast, skey, VUMAX)                // skey = key of s
	BINLOOP(S4, 4, XB4, YL4, XB1, YL1, XBS, YES, ST32, MINSV, MINSVE) // the loop: d = minimum(s, y)

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
	ARGSSV64                                 // dPtr, yPtr, nLeft; bcast = s
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

// func maxVV64(d, x, y []float64), minVV64, maxVS64(d, x []float64, s float64),
// minVS64, maxSV64(d []float64, s float64, y []float64), minSV64: as the
// float32 ones, with the keys of MMVV64.
TEXT ·maxVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUPMAX64                               // negz, bias, nanc, zero for maximum
	BINLOOP(D2, 2, XL4, YL4, XL1, YL1, XED, YED, ST64, MAXVV64, MAXVVE64) // the loop: d = maximum(x, y)

TEXT ·minVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	SETUPMIN64                               // negz, bias, nanc, zero for minimum
	BINLOOP(D2, 2, XL4, YL4, XL1, YL1, XED, YED, ST64, MINVV64, MINVVE64) // the loop: d = minimum(x, y)

TEXT ·maxVS64(SB), NOSPLIT, $0-56
	ARGSVS64                                 // dPtr, xPtr, nLeft; bcast = s
	SETUPMAX64                               // negz, bias, nanc, zero for maximum
	MMKEYB64(bcast, skey)                    // skey = key of s (it is b)
	BINLOOP(D2, 2, XL4, YB4, XL1, YB1, XED, YBD, ST64, MAXVS64, MAXVSE64) // the loop: d = maximum(x, s)

TEXT ·minVS64(SB), NOSPLIT, $0-56
	ARGSVS64                                 // dPtr, xPtr, nLeft; bcast = s
	SETUPMIN64                               // negz, bias, nanc, zero for minimum
	MMKEYB64(bcast, skey)                    // skey = key of s (it is b)
	BINLOOP(D2, 2, XL4, YB4, XL1, YB1, XED, YBD, ST64, MINVS64, MINVSE64) // the loop: d = minimum(x, s)

TEXT ·maxSV64(SB), NOSPLIT, $0-56
	ARGSSV64                                 // dPtr, yPtr, nLeft; bcast = s
	SETUPMAX64                               // negz, bias, nanc, zero for maximum
	MMKEYA64(bcast, skey, SATMAX)            // skey = key of s (it is a), all ones if NaN
	BINLOOP(D2, 2, XB4, YL4, XB1, YL1, XBD, YED, ST64, MAXSV64, MAXSVE64) // the loop: d = maximum(s, y)

TEXT ·minSV64(SB), NOSPLIT, $0-56
	ARGSSV64                                 // dPtr, yPtr, nLeft; bcast = s
	SETUPMIN64                               // negz, bias, nanc, zero for minimum
	MMKEYA64(bcast, skey, SATMIN)            // skey = key of s (it is a), 0 if NaN
	BINLOOP(D2, 2, XB4, YL4, XB1, YL1, XBD, YED, ST64, MINSV64, MINSVE64) // the loop: d = minimum(s, y)
