//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neon64_arm64.h"

// erf, NEON, float32, as its twin (erfGo1) lane for lane, in float64
// (neon64_arm64.h): z = float64(x), a = min(10.6, |z|), zz = a·a;
// p = FMA(a, c0, a·P(zz)) (erfPoly64 of |z|: the twin's erfPoly64(z) is
// -p for negative z, its roundings being symmetric), and r = 1 - (e^-zz·t)·H(t)
// with t = 2/(2 + a) by scalar FDIVD (there is no vector FDIV), e^-zz by
// EXPD (-zz ≥ -112.36: no clamp needed); p for |x| < 1, r elsewhere, with
// x's sign (math.Copysign), rounded to float32 once. Every product, sum
// and Horner step is the twin's, rounded once (its arm64 build fuses
// nothing but the math.FMA of horner64 and erfPoly64). ±Inf is clamped
// to 10.6 as in the twin (erf = ±1); a vector holding a NaN stops the
// kernel, and the Go side runs the twin on it (erf_arm64.go). The
// polynomials' coefficients do not fit in the registers beside exp's:
// each Horner step loads its own from erfCoef by VLD1R (HLOAD).

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define nLeft  R2  // elements left
#define coef   R7  // next coefficient in erfCoef
#define spec   V10 // 0xff000000: the bits of Inf << 1 (NaNs are above)
#define clim   V11 // 0x82533332: the bits of the largest float32 ≤ 10.6, << 1
#define plim   V12 // 0x7efffffe: the bits of the largest float32 < 1, << 1
#define log2e  V13 // log2 e
#define ln2hi  V14 // ln2Hi64
#define ln2lo  V15 // ln2Lo64
#define c1023  V16 // 1023 as an integer
#define et0    V17 // expT[0]
#define et1    V18 // expT[1]
#define et2    V19 // expT[2]
#define et3    V20 // expT[3]
#define et4    V21 // expT[4]
#define et5    V22 // expT[5]
#define et6    V23 // expT[6]
#define sgnd   V24 // 0x8000000000000000: the sign, and -0
#define scale  V25 // 2^896
#define oned   V26 // 1.0
#define int1   V27 // 1 as an integer
#define magic  V28 // M = 1.5·2^52
#define rbias  V29 // 2^28 - 1 - 896<<52
#define tiny   V30 // 2^-97
#define sublim V31 // 0x380fffffffffffff

// erfCoef: the float64 constants in the order ERFD loads them: erfP64
// from the top, erfC0, 2, erfcH64 from the top.
DATA erfCoef<>+0(SB)/8, $0x3f149698e0000000   // erfP[6]
DATA erfCoef<>+8(SB)/8, $0xbf4a3f8620000000   // erfP[5]
DATA erfCoef<>+16(SB)/8, $0x3f754062e0000000  // erfP[4]
DATA erfCoef<>+24(SB)/8, $0xbf9b7f92a0000000  // erfP[3]
DATA erfCoef<>+32(SB)/8, $0x3fbce2cfa0000000  // erfP[2]
DATA erfCoef<>+40(SB)/8, $0xbfd81273e0000000  // erfP[1]
DATA erfCoef<>+48(SB)/8, $0xbe701b2b80000000  // erfP[0]
DATA erfCoef<>+56(SB)/8, $0x3ff20dd760000000  // erfC0
DATA erfCoef<>+64(SB)/8, $0x4000000000000000  // 2
DATA erfCoef<>+72(SB)/8, $0xbfa0941380000000  // erfcH[9]
DATA erfCoef<>+80(SB)/8, $0x3fb3687780000000  // erfcH[8]
DATA erfCoef<>+88(SB)/8, $0x3fa76b6560000000  // erfcH[7]
DATA erfCoef<>+96(SB)/8, $0xbfd03190e0000000  // erfcH[6]
DATA erfCoef<>+104(SB)/8, $0x3fc1d51d20000000 // erfcH[5]
DATA erfCoef<>+112(SB)/8, $0x3f98c80260000000 // erfcH[4]
DATA erfCoef<>+120(SB)/8, $0x3fc8803e60000000 // erfcH[3]
DATA erfCoef<>+128(SB)/8, $0x3fcf4c1640000000 // erfcH[2]
DATA erfCoef<>+136(SB)/8, $0x3fd2111980000000 // erfcH[1]
DATA erfCoef<>+144(SB)/8, $0x3fd20db8e0000000 // erfcH[0]
GLOBL erfCoef<>(SB), RODATA|NOPTR, $152

// NEXTC(d): d = the next coefficient of erfCoef in both D lanes.
#define NEXTC(d) \
	VLD1R.P 8(coef), [d.D2]                 /* d = *coef++ */

// HLOAD(p, x, d): d = c + p·x, rounded once, with c the next coefficient:
// a Horner step (horner64's math.FMA(p, x, c)).
#define HLOAD(p, x, d) \
	NEXTC(d);                               /* d = c */ \
	VFMLA   p.D2, x.D2, d.D2                /* d = c + x·p */

// ERFD(a, ZIP, p, t, w, b, c, d, e, fb, fe): a = the float32 bits of
// erfGo1 of the lanes of V0 that ZIP (VZIP1: lanes 0:2, VZIP2: 2:4) puts
// in the D lanes, given a = min(10.6, |z|) there, in the low words of its
// D lanes; fb and fe are the F names of b and e. Clobbers R4, coef, p–e.
#define ERFD(a, ZIP, p, t, w, b, c, d, e, fb, fe) \
	MOVD    $erfCoef<>(SB), coef;           /* coef = the first coefficient */ \
	MULD(a, a, w);                          /* w = zz = a·a */ \
	NEXTC(p);                               /* p = P6 */ \
	HLOAD(p, w, t);                         /* t = P5 + zz·p */ \
	HLOAD(t, w, p);                         /* p = P4 + zz·t */ \
	HLOAD(p, w, t);                         /* t = P3 + zz·p */ \
	HLOAD(t, w, p);                         /* p = P2 + zz·t */ \
	HLOAD(p, w, t);                         /* t = P1 + zz·p */ \
	HLOAD(t, w, p);                         /* p = P(zz) = P0 + zz·t */ \
	MULD(p, a, b);                          /* b = a·P(zz) */ \
	NEXTC(c);                               /* c = c0 */ \
	HSTEPD(b, c, a, p);                     /* p = a·c0 + b: erf(a) for a < 1 */ \
	NEXTC(c);                               /* c = 2 */ \
	HSTEPD(c, oned, a, d);                  /* d = 2 + a */ \
	DIVLANED(c, d, t, 0, fb, fe);           /* t[0] = 2 / d[0] */ \
	DIVLANED(c, d, t, 1, fb, fe);           /* t[1] = 2 / d[1] */ \
	VEOR    sgnd.B16, w.B16, w.B16;         /* w = -zz */ \
	EXPD(w, w, b, c, d, e);                 /* w = e^-zz */ \
	MULD(t, w, b);                          /* b = e^-zz·t */ \
	NEXTC(c);                               /* c = H9 */ \
	HLOAD(c, t, d);                         /* d = H8 + t·c */ \
	HLOAD(d, t, c);                         /* c = H7 + t·d */ \
	HLOAD(c, t, d);                         /* d = H6 + t·c */ \
	HLOAD(d, t, c);                         /* c = H5 + t·d */ \
	HLOAD(c, t, d);                         /* d = H4 + t·c */ \
	HLOAD(d, t, c);                         /* c = H3 + t·d */ \
	HLOAD(c, t, d);                         /* d = H2 + t·c */ \
	HLOAD(d, t, c);                         /* c = H1 + t·d */ \
	HLOAD(c, t, d);                         /* d = H(t) = H0 + t·c */ \
	MULD(d, b, c);                          /* c = erfc(a) = b·H(t) */ \
	VMOV    oned.B16, e.B16;                /* e = 1 */ \
	VFMLS   oned.D2, c.D2, e.D2;            /* e = 1 - erfc(a) */ \
	VSHL    $1, V0.S4, d.S4;                /* d = the bits of |x| << 1 */ \
	VUMAX   plim.S4, d.S4, d.S4;            /* d = plim where |x| < 1 */ \
	VCMEQ   plim.S4, d.S4, d.S4;            /* d = ones there */ \
	ZIP     d.S4, d.S4, d.S4;               /* d = ones in the D lanes where |z| < 1 */ \
	VBIT    d.B16, p.B16, e.B16;            /* e = p there */ \
	ZIP     V0.S4, V0.S4, d.S4;             /* d = x, its sign at bit 63 */ \
	VBIT    sgnd.B16, d.B16, e.B16;         /* e = Copysign(e, z) */ \
	NARROW(e, a, b, c, d)                   /* a = float32(e)'s bits */

// ERFV: V0 = erf of the four float32 lanes of V0, or to stop when one is
// a NaN. Clobbers R3–R5, coef, V1–V9.
#define ERFV \
	STOPIF(V0, spec, V1, stop);             /* NaN: to the twin */ \
	VSHL    $1, V0.S4, V1.S4;               /* V1 = the bits of |x| << 1 */ \
	VUMAX   clim.S4, V1.S4, V2.S4;          /* V2 = clim where |x| ≤ 10.6 */ \
	VCMEQ   clim.S4, V2.S4, V2.S4;          /* V2 = ones there */ \
	VUSHR   $1, V1.S4, V1.S4;               /* V1 = |x| */ \
	WIDEN(V1, V3, V4, V5, V6);              /* V3:V4 = |z| */ \
	SPLATD(0x4025333333333333, V5);         /* V5 = 10.6 */ \
	VZIP1   V2.S4, V2.S4, V6.S4;            /* V6 = lanes 0:2's mask */ \
	VBIF    V6.B16, V5.B16, V3.B16;         /* V3 = a = min(10.6, |z|) */ \
	VZIP2   V2.S4, V2.S4, V6.S4;            /* V6 = lanes 2:4's mask */ \
	VBIF    V6.B16, V5.B16, V4.B16;         /* V4 = a likewise */ \
	ERFD(V3, VZIP1, V1, V2, V5, V6, V7, V8, V9, F6, F9); /* V3 = lanes 0:2's bits */ \
	ERFD(V4, VZIP2, V1, V2, V5, V6, V7, V8, V9, F6, F9); /* V4 = lanes 2:4's bits */ \
	VUZP1   V4.S4, V3.S4, V0.S4             /* V0 = the four float32 results */

// func erfF32(d, x []float32) int: d[i] = erfGo1(x[i]) up to the first
// vector (of four, or the single element of the tail) holding a NaN.
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written up to that vector; the elements written. Clobbers R0–R7,
// V0–V31.
TEXT ·erfF32(SB), NOSPLIT, $0-56
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	SPLAT(0xff000000, spec)                 // spec = Inf's bits << 1
	SPLAT(0x82533332, clim)                 // clim = the largest float32 ≤ 10.6, << 1
	SPLAT(0x7efffffe, plim)                 // plim = the largest float32 < 1, << 1
	EXPDCONSTS                              // log2e, ln2hi, ln2lo, c1023, et0–et6
	F64CONSTS                               // sgnd, scale, oned, int1, magic, rbias, tiny, sublim
	UNLOOPSTOP(ERFV, ret+48(FP))            // d = erf(x), up to a stop
