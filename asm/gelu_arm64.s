//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neonmath_arm64.h"
#include "neonexp_arm64.h"

// gelu (the erf form), NEON, float32, as its twin geluGo1 lane for lane,
// with the tools of unary_exp_arm64.s (products and sums as fused
// multiply-adds that round the same way, integer compares on the bits):
//   - t = min(14.5, |x|) is an unsigned min on the bits of |x|; a NaN x
//     gives t = 14.5 there (its result is made below, not from t);
//   - n = round(a·log2e) by the magic M = 1.5·2^23 + 190 (EXPREDUCE), so
//     that the low 9 bits of bits(M + n) are 190 + n = 127 + (n + 63), in
//     [38, 190] for n in [-152, 0]: shifted left by 23 they are
//     sc = 2^(n+63), and g = (w·sc)·2^-63 where the twin has
//     (w·2^(n+64))·2^-64. Both equal RN(w·2^n): w·2^(n+63) is exact (w is
//     about -1 from t ≈ 1 on, where n < 0, and w·2^-89 is normal), and
//     2^-63 is sgn >> 2, no constant register;
//   - the quotient q = b/(c·t·b + a) is Markstein's as in SIGMOIDV: y =
//     RN(1/den) by RECIP, q0 = b·y, rr = b - den·q0 (exact), q = q0 + rr·y.
//     No lane needs a fallback: for t in [0, 14.5] b(t) is in [399.96,
//     1.44e6] and den = a(t) + c·t·b(t) in [799.9, 5.3e7] (every
//     coefficient is positive), so den, 1/den, the Newton steps and the
//     remainder are normal and finite in every lane (NaN and ±Inf lanes
//     have t = 14.5 too);
//   - the result: x + g where x's sign is clear, g - (x - x) where it is
//     set, as the twin. The differences of the twin's x < 0 (-0 and the
//     negative NaNs go to the second) change nothing: for x = -0, x + g
//     and g - 0 are g alike; a NaN x gives its NaN, quiet, with the sign
//     cleared (x - x is x, quiet, and VFMLS negates it), as the twin on
//     amd64 and the AVX2/AVX-512 kernels; -Inf gives -(the default NaN),
//     0xffc00000, as there. (The twin compiled for arm64 fuses x + g into
//     one FMADD, whose NaN is x's with its sign: a negative NaN x stays
//     negative there.)

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define nLeft  R2  // elements left
#define gb0    V5  // geluB[0]
#define gb1    V6  // geluB[1]
#define gb2    V7  // geluB[2]
#define gb3    V8  // geluB[3]
#define gb4    V9  // geluB[4] (geluB[5] = 1)
#define ga0    V10 // geluA[0]
#define ga1    V11 // geluA[1]
#define ga2    V13 // geluA[2]
#define ga3    V14 // geluA[3]
#define ga4    V15 // geluA[4]
#define gc     V16 // geluC = √(2π)
#define tmax   V17 // geluTMax = 14.5
#define nhalf  V18 // -0.5
#define mant   V19 // 0x007fffff: the mantissa bits (RECIPFIX)
#define seed   V20 // 0x7ef311c3, the reciprocal's seed
#define sgn    V21 // 0x80000000 (the sign bit, -0) in every lane
#define ones   V22 // 1
#define log2e  V23 // log2e
#define magic  V24 // M = 1.5·2^23 + 190
#define nln2hi V25 // -ln2Hi
#define nln2lo V26 // -ln2Lo
#define q0     V27 // expQ[0]
#define q1     V28 // expQ[1]
#define q2     V29 // expQ[2]
#define q3     V30 // expQ[3]
#define q4     V31 // expQ[4]

// GELUV(x, a, b, c, d, f): f = gelu(x) in every lane, as geluGo1 (the
// twin's steps in its order). In: the constants above. Clobbers a–d.
#define GELUV(x, a, b, c, d, f) \
	VSHL    $1, x.S4, a.S4;                 /* a = bits of |x| << 1 */ \
	VUSHR   $1, a.S4, a.S4;                 /* a = |x| */ \
	VUMIN   tmax.S4, a.S4, a.S4;            /* a = t = min(|x|, 14.5) */ \
	HSTEP(gb4, ones, a, b);                 /* b = B4 + t */ \
	HSTEP(gb3, b, a, c);                    /* c = B3 + b·t */ \
	HSTEP(gb2, c, a, b);                    /* b = B2 + c·t */ \
	HSTEP(gb1, b, a, c);                    /* c = B1 + b·t */ \
	HSTEP(gb0, c, a, b);                    /* b = b(t) = B0 + c·t */ \
	HSTEP(ga3, ga4, a, c);                  /* c = A3 + A4·t */ \
	HSTEP(ga2, c, a, d);                    /* d = A2 + c·t */ \
	HSTEP(ga1, d, a, c);                    /* c = A1 + d·t */ \
	HSTEP(ga0, c, a, d);                    /* d = a(t) = A0 + c·t */ \
	MULV(gc, a, c);                         /* c = t·c */ \
	VFMLA   c.S4, b.S4, d.S4;               /* d = den = a(t) + b·(t·c) */ \
	RECIP(d, c, f);                         /* c = y = RN(1/den) */ \
	MULV(c, b, f);                          /* f = q0 = b·y */ \
	VFMLS   d.S4, f.S4, b.S4;               /* b = rr = b - den·q0 */ \
	VFMLA   b.S4, c.S4, f.S4;               /* f = q = q0 + rr·y = b/den */ \
	VMOV    sgn.B16, b.B16;                 /* b = -0 */ \
	VFMLS   f.S4, a.S4, b.S4;               /* b = v = -0 - t·q */ \
	MULV(a, a, c);                          /* c = s = t·t */ \
	VEOR    sgn.B16, c.B16, d.B16;          /* d = -s */ \
	VFMLA   a.S4, a.S4, d.S4;               /* d = e = t·t - s (exact) */ \
	MULV(nhalf, c, a);                      /* a = -0.5·s (exact) */ \
	EXPREDUCE(a, c, f);                     /* a = a - n·ln 2, c = n, f = M + n */ \
	VFMLA   nhalf.S4, d.S4, a.S4;           /* a = r = a - e/2 */ \
	VSHL    $23, f.S4, f.S4;                /* f = sc = 2^(n+63) */ \
	EXPM1POLY(a, c, d);                     /* a = ym = e^r - 1 */ \
	VFMLA   a.S4, b.S4, b.S4;               /* b = w = v + v·ym */ \
	MULV(f, b, c);                          /* c = w·sc */ \
	VUSHR   $2, sgn.S4, d.S4;               /* d = 2^-63 */ \
	MULV(d, c, a);                          /* a = g = gelu(-t), rounded once */ \
	HSTEP(x, ones, a, f);                   /* f = x + g */ \
	VMOV    x.B16, b.B16;                   /* b = x */ \
	VFMLS   ones.S4, x.S4, b.S4;            /* b = x - x (NaN: x, quiet) */ \
	VMOV    a.B16, c.B16;                   /* c = g */ \
	VFMLS   ones.S4, b.S4, c.S4;            /* c = g - (x - x), negating the NaN */ \
	VCMTST  sgn.S4, x.S4, d.S4;             /* d = ones where x's sign is set */ \
	VBIT    d.B16, c.B16, f.B16             /* f = c there */

#define ARGS \
	MOVD    d_base+0(FP), dPtr;             /* dPtr = &d[0] */ \
	MOVD    d_len+8(FP), nLeft;             /* nLeft = len(d) */ \
	MOVD    x_base+24(FP), xPtr             /* xPtr = &x[0] */

// CONSTS sets the constants of the register roles above.
#define CONSTS \
	SPLAT(0x43c7fb5a, gb0);                 /* gb0 = 399.96368 */ \
	SPLAT(0x43d93110, gb1);                 /* gb1 = 434.3833 */ \
	SPLAT(0x436289b4, gb2);                 /* gb2 = 226.5379 */ \
	SPLAT(0x4288cac8, gb3);                 /* gb3 = 68.39606 */ \
	SPLAT(0x413f4e76, gb4);                 /* gb4 = 11.9566555 */ \
	SPLAT(0x4447fb5a, ga0);                 /* ga0 = 799.92737 */ \
	SPLAT(0x43fc3a5e, ga1);                 /* ga1 = 504.456 */ \
	SPLAT(0x4326b340, ga2);                 /* ga2 = 166.7002 */ \
	SPLAT(0x41efab1a, ga3);                 /* ga3 = 29.958546 */ \
	SPLAT(0x4020709e, ga4);                 /* ga4 = 2.5068736 */ \
	SPLAT(0x40206c99, gc);                  /* gc = 2.5066283 */ \
	SPLAT(0x41680000, tmax);                /* tmax = 14.5 */ \
	SPLAT(0xbf000000, nhalf);               /* nhalf = -0.5 */ \
	SPLAT(0x007fffff, mant);                /* mant = the mantissa bits */ \
	SPLAT(0x7ef311c3, seed);                /* seed = 0x7ef311c3 */ \
	SPLAT(0x80000000, sgn);                 /* sgn = -0 */ \
	SPLAT(0x3f800000, ones);                /* ones = 1 */ \
	SPLAT(0x3fb8aa3b, log2e);               /* log2e = 1.442695 */ \
	SPLAT(0x4b4000be, magic);               /* magic = 12583102 = 1.5·2^23 + 190 */ \
	EXPCONSTS                               /* nln2hi, nln2lo, q0–q4 */

// func geluF32(d, x []float32): d[i] = geluGo1(x[i]), one vector per step
// (the constants take 26 registers).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V31.
TEXT ·geluF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	UNLOOP1(GELUV(V0, V1, V2, V3, V4, V12)) // d = gelu(x)
