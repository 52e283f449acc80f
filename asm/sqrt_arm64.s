//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neonmath_arm64.h"

// sqrt and rsqrt, NEON, float32, as their twins (sqrtGo1, rsqrtGo1) lane
// for lane: s = RN(√x), the correctly rounded square root (the twin's
// float64 square root rounded to float32 is that: 53 ≥ 2·24 + 2 bits), and
// rsqrt's 1/s rounded once. Go's arm64 assembler has no vector FSQRT,
// FRSQRTE or FDIV, so:
//   - a positive subnormal x is scaled by 2^24 first (exact) and its root
//     by 2^-12 after (an exponent 12 lower: the root of a subnormal is
//     normal), so that the steps below see a normal xs;
//   - y ≈ 1/√xs from the integer seed 0x5f375a86 - bits(xs)>>1 (3.4% off
//     at most) and two Newton steps y += (y/2)·(1 - (xs·y)·y) (y/2 by the
//     exponent: y is far from the subnormals), then s = xs·y, the residual
//     r = xs - s·s and s' = s + r·(y/2), within an ulp of RN(√xs) (one
//     Newton step leaves s' up to 70 ulps off);
//   - the exact decision between s', its successor n and its predecessor
//     p (Tuckerman's test): √xs lies above the midpoint (s' + n)/2 iff
//     xs > s'·n, and below (p + s')/2 iff xs ≤ s'·p. Both products are
//     multiples of the squared ulp of s', as xs is, and the midpoints'
//     squares lie a quarter of it above them, so the strict and the
//     non-strict comparisons are exact; xs - s'·n and xs - s'·p come from
//     one fused operation each, whose sign (that of the exact value, an
//     exact 0 giving +0, a tiny one keeping its sign) is read as an
//     integer: RN(√xs) = p + [s'·n < xs] + [s'·p < xs] in the bits. No
//     rounding boundary is a tie: a midpoint's square has too many bits
//     to be a float32;
//   - rsqrt is RECIP(s) = RN(1/s) (neonmath_arm64.h; s is normal for every
//     positive x up to MaxFloat32, and so is 1/s);
//   - the special lanes are set last, as the twin's FSQRT and FDIV give
//     them: a negative x (-Inf included) the default NaN 0x7fc00000, ±0
//     itself (rsqrt: ±Inf), +Inf itself (rsqrt: +0), a NaN itself, quiet
//     (its payload kept).
// TestSqrtNEON checks them and the thresholds; TestUnaryDense with
// GOATEN_DENSE_STEP=1 every float32.

// Register roles.
#define dPtr    R0  // next element of dst
#define xPtr    R1  // next element of x
#define nLeft   R2  // elements left
#define mant    V14 // 0x007fffff: the largest subnormal's bits (and RECIPFIX's mantissa bits)
#define scale   V15 // 2^24, a subnormal's scale
#define rseed   V16 // 0x5f375a86, the seed of 1/√x
#define sgn     V17 // 0x80000000 (the sign bit, -0) in every lane
#define ones    V18 // 1
#define halve   V19 // 0x00800000: the exponent's unit (bits - halve = value/2)
#define ulp     V20 // 1: the bits' unit (bits ± ulp = the neighbours)
#define unscale V21 // 12 << 23: 2^-12 as an exponent to subtract
#define pinf    V22 // 0x7f800000: +Inf
#define nanlim  V23 // 0xff000000: the bits of ±Inf shifted left by one
#define quiet   V24 // 0x00400000: the quiet bit of a NaN
#define dnan    V25 // 0x7fc00000: the default NaN
#define seed    V26 // 0x7ef311c3, the reciprocal's seed (rsqrt)

// RSQRTSTEP(x, y, t, r): y += (y/2)·(1 - (x·y)·y), a Newton step towards
// 1/√x. Clobbers t, r.
#define RSQRTSTEP(x, y, t, r) \
	MULV(x, y, t);                          /* t = x·y */ \
	VMOV    ones.B16, r.B16;                /* r = 1 */ \
	VFMLS   t.S4, y.S4, r.S4;               /* r = 1 - (x·y)·y */ \
	VSUB    halve.S4, y.S4, t.S4;           /* t = y/2 */ \
	VFMLA   r.S4, t.S4, y.S4                /* y = y + (y/2)·r */

// SQRTV(x, a, b, c, d, e, f): f = RN(√x) in every lane where x is positive
// and finite (+0: anything), a = 12 << 23 where x was scaled (else 0).
// f may be e (written once e is spent). In: the constants above. Clobbers
// b–e.
#define SQRTV(x, a, b, c, d, e, f) \
	VUMIN   mant.S4, x.S4, a.S4;            /* a = min(bits, 0x007fffff) */ \
	VCMEQ   a.S4, x.S4, a.S4;               /* a = ones where x is +0 or subnormal */ \
	MULV(scale, x, b);                      /* b = x·2^24 */ \
	VBIF    a.B16, x.B16, b.B16;            /* b = xs = x where not subnormal */ \
	VUSHR   $1, b.S4, c.S4;                 /* c = bits(xs)>>1 */ \
	VSUB    c.S4, rseed.S4, c.S4;           /* c = y = seed - bits(xs)>>1 */ \
	RSQRTSTEP(b, c, d, e);                  /* y, 0.18% off */ \
	RSQRTSTEP(b, c, d, e);                  /* y ≈ 1/√xs */ \
	MULV(c, b, d);                          /* d = s = xs·y */ \
	VSUB    halve.S4, c.S4, c.S4;           /* c = y/2 */ \
	VMOV    b.B16, e.B16;                   /* e = xs */ \
	VFMLS   d.S4, d.S4, e.S4;               /* e = r = xs - s·s */ \
	VFMLA   e.S4, c.S4, d.S4;               /* d = s' = s + r·(y/2) */ \
	VEOR    sgn.B16, b.B16, b.B16;          /* b = -xs */ \
	VADD    ulp.S4, d.S4, c.S4;             /* c = n, the successor of s' */ \
	VMOV    b.B16, e.B16;                   /* e = -xs */ \
	VFMLA   d.S4, c.S4, e.S4;               /* e = s'·n - xs */ \
	VSUB    ulp.S4, d.S4, c.S4;             /* c = p, the predecessor of s' */ \
	VFMLA   d.S4, c.S4, b.S4;               /* b = s'·p - xs */ \
	VUSHR   $31, e.S4, e.S4;                /* e = 1 where s'·n < xs */ \
	VUSHR   $31, b.S4, b.S4;                /* b = 1 where s'·p < xs */ \
	VADD    e.S4, c.S4, c.S4;               /* c = p + [s'·n < xs] */ \
	VADD    b.S4, c.S4, f.S4;               /* f = RN(√xs) */ \
	VAND    unscale.B16, a.B16, a.B16;      /* a = 12 << 23 where x was scaled */ \
	VSUB    a.S4, f.S4, f.S4                /* f = RN(√x) = RN(√xs)·2^-12 there */

// SPECIALS(x, t, f, a, b): f = the twin's result where x is not positive
// and finite or is +0: the default NaN where x < 0 (-Inf included), t
// where x is ±0 or +Inf, x with its quiet bit set where x is NaN.
// Clobbers a, b.
#define SPECIALS(x, t, f, a, b) \
	VCMTST  sgn.S4, x.S4, b.S4;             /* b = ones where x's sign is set */ \
	VBIT    b.B16, dnan.B16, f.B16;         /* f = the NaN there */ \
	VSHL    $1, x.S4, a.S4;                 /* a = bits of |x| << 1 */ \
	VCMTST  a.S4, a.S4, b.S4;               /* b = ones where x is not ±0 */ \
	VBIF    b.B16, t.B16, f.B16;            /* f = t where x = ±0 */ \
	VCMEQ   pinf.S4, x.S4, b.S4;            /* b = ones where x = +Inf */ \
	VBIT    b.B16, t.B16, f.B16;            /* f = t there */ \
	VUMAX   nanlim.S4, a.S4, b.S4;          /* b = max(a, Inf's) */ \
	VCMEQ   nanlim.S4, b.S4, b.S4;          /* b = ones where x is not NaN */ \
	VORR    quiet.B16, x.B16, a.B16;        /* a = x, quiet */ \
	VBIF    b.B16, a.B16, f.B16             /* f = a where x is NaN */

// SQRTX(x, a, b, c, d, e, f): f = sqrtGo1(x) in every lane. Clobbers a–e.
#define SQRTX(x, a, b, c, d, e, f) \
	SQRTV(x, a, b, c, d, e, f);             /* f = RN(√x) */ \
	SPECIALS(x, x, f, a, b)                 /* ±0, +Inf: x; x < 0, NaN */

// RSQRTX(x, a, b, c, d, e, f): f = rsqrtGo1(x) in every lane. Clobbers a–e.
#define RSQRTX(x, a, b, c, d, e, f) \
	SQRTV(x, a, b, c, d, e, e);             /* e = s = RN(√x) */ \
	RECIP(e, f, b);                         /* f = RN(1/s) */ \
	VEOR    pinf.B16, x.B16, c.B16;         /* c = ±Inf for ±0, +0 for +Inf */ \
	SPECIALS(x, c, f, a, b)                 /* ±0: ±Inf, +Inf: 0; x < 0, NaN */

// The steps of UNLOOP.
#define SQRT2 \
	SQRTX(V0, V2, V3, V4, V5, V6, V12);     /* V12 = sqrt(x) */ \
	SQRTX(V1, V7, V8, V9, V10, V11, V13)    /* V13 = sqrt(x) */
#define SQRT1 \
	SQRTX(V0, V2, V3, V4, V5, V6, V12)      /* V12 = sqrt(x) */
#define RSQRT2 \
	RSQRTX(V0, V2, V3, V4, V5, V6, V12);    /* V12 = rsqrt(x) */ \
	RSQRTX(V1, V7, V8, V9, V10, V11, V13)   /* V13 = rsqrt(x) */
#define RSQRT1 \
	RSQRTX(V0, V2, V3, V4, V5, V6, V12)     /* V12 = rsqrt(x) */

#define ARGS \
	MOVD    d_base+0(FP), dPtr;             /* dPtr = &d[0] */ \
	MOVD    d_len+8(FP), nLeft;             /* nLeft = len(d) */ \
	MOVD    x_base+24(FP), xPtr             /* xPtr = &x[0] */

// CONSTS sets the constants of the register roles above.
#define CONSTS \
	SPLAT(0x007fffff, mant);                /* mant = the largest subnormal */ \
	SPLAT(0x4b800000, scale);               /* scale = 2^24 */ \
	SPLAT(0x5f375a86, rseed);               /* rseed = 0x5f375a86 */ \
	SPLAT(0x80000000, sgn);                 /* sgn = -0 */ \
	SPLAT(0x3f800000, ones);                /* ones = 1 */ \
	SPLAT(0x00800000, halve);               /* halve = the exponent's unit */ \
	SPLAT(0x00000001, ulp);                 /* ulp = 1 */ \
	SPLAT(0x06000000, unscale);             /* unscale = 12 << 23 */ \
	SPLAT(0x7f800000, pinf);                /* pinf = +Inf */ \
	SPLAT(0xff000000, nanlim);              /* nanlim = Inf's bits << 1 */ \
	SPLAT(0x00400000, quiet);               /* quiet = the quiet bit */ \
	SPLAT(0x7fc00000, dnan);                /* dnan = the default NaN */ \
	SPLAT(0x7ef311c3, seed)                 /* seed = 0x7ef311c3 */

// func sqrtF32(d, x []float32): d[i] = sqrtGo1(x[i]).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V26.
TEXT ·sqrtF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	UNLOOP(SQRT2, SQRT1)                    // d = sqrt(x)

// func rsqrtF32(d, x []float32): d[i] = rsqrtGo1(x[i]).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V26.
TEXT ·rsqrtF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	UNLOOP(RSQRT2, RSQRT1)                  // d = rsqrt(x)
