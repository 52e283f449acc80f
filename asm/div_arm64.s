//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neonmath_arm64.h"
#include "neon64_arm64.h"

// reciprocal and division, NEON, float32, as their twins (reciprocalGo1:
// 1/x; divGo, divVSGo, divSVGo: x/y) lane for lane, NaN payloads
// included. Go's arm64 assembler has no vector FDIV or FRECPE, so:
//
//   - y = RN(1/b) comes from RECIP (neonmath_arm64.h): the seed
//     0x7ef311c3 - bits(b), four Newton steps and RECIPFIX, which give
//     RN(1/b) for every b in [1, 2) (TestSigmoidRecip). For b = ±m·2^k
//     (m in [1, 2)) the seed is ±seed(m)·2^-k while its exponent field
//     stays above 0, and every step (t = 1 - b·y, y + t·y) is the one for m
//     scaled by 2^-k, so y = ±RN(1/m)·2^-k = RN(1/b) while the steps stay
//     normal: seed(m) ≥ 0.475 and the iterates are near 1/m in (1/2, 1],
//     so -126 ≤ k ≤ 124, 2^-126 ≤ |b| < 2^125. A negative b's bits are
//     0x80000000 more (mod 2^32), which flips the seed's sign; the steps
//     are odd in (b, y) and RECIPFIX reads the mantissa alone.
//
//   - a/b is Markstein's quotient from y = RN(1/b): q0 = RN(a·y),
//     r = RN(a - b·q0), q1 = RN(q0 + r·y). For a, b in [1, 2) and
//     z = a/b: |z - q0| ≤ a·|y - 1/b| + ½ulp(a·y) < 2^-24 + 2^-24, and
//     |b·y - 1| < 2^-24; r is a multiple of 2^-47 below 2^-22 in
//     magnitude, so it is exact or (from 2^-23 on) off by ε ≤ 2^-47. Then
//     q0 + r·y = z + (z - q0)(b·y - 1) + ε·y is within 2^-47 + 2^-47 =
//     2^-46 of z, and q1 = RN(z) unless z is that near a rounding
//     boundary: z - mid = N·2^-48/b below 1 (mid an odd multiple of
//     2^-25), N·2^-47/b from 1 on (odd multiples of 2^-24), N an integer,
//     not 0; that takes |N| ≤ 7, resp. |N| ≤ 3. TestDivMarkstein solves
//     for those dividends for every divisor significand and checks q1 on
//     each. For a = ±A·2^ka, b = ±B·2^kb every step is the one for A, B
//     scaled (y by 2^-kb, q0 and q1 by 2^(ka-kb), r by 2^ka), exact where
//     no value leaves the normal range: y, q0 and q1 in 2^(ka-kb)·[½, 2]
//     and r a multiple of 2^(ka-47). The kernels take |a| and |b| in
//     [2^-63, 2^63) (k in [-63, 62]), far inside that (ka ≥ -102 and
//     |ka - kb| ≤ 125 would do), and a = ±0: q0 = ±0 with the quotient's
//     sign, r and q1 zeros, whose sign is set to q0's (for a ≠ 0, q1 has
//     q0's sign anyway). The signs are symmetric (RN is odd).
//
//   - the range test is unsigned on the bits: u = bits of |x| << 1 is in
//     [L, H) when u - L ≤ H - L - 1 (VUMAX, VCMEQ); ±0 has u = 0, Inf and
//     NaN u ≥ 0xff000000, subnormals u < 0x01000000. A vector with a lane
//     outside the range is divided again, all four lanes, with FDIVS, the
//     twin's instruction (DIVLANE), which gives the twin's bits for 0, Inf,
//     NaN (a NaN operand's payload, quiet), overflow and underflow. The
//     last len%4 elements are divided with FDIVS too.

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x (dividends; reciprocal's operands)
#define nLeft  R2  // elements left
#define yPtr   R4  // next element of y (divisors)
#define sgn    V16 // 0x80000000 (-0) in every lane
#define ones   V17 // 1 in every lane
#define seed   V18 // 0x7ef311c3, the reciprocal's seed
#define mant   V19 // 0x007fffff, the mantissa bits
#define lo     V20 // L: the safe range's low end, bits of |x| << 1
#define wid    V21 // H - L - 1: its width less one
#define bcast  V22 // the scalar operand s in every lane (F22: lane 0)
#define srecip V23 // RN(1/s) in every lane (divVS32)

// The safe ranges as (L, H - L - 1): reciprocal |x| in [2^-126, 2^125),
// division |a|, |b| in [2^-63, 2^63) (and a = ±0).
#define RECIPLO  0x01000000
#define RECIPWID 0xfaffffff
#define DIVLO    0x40000000
#define DIVWID   0x7dffffff

// KEY(x, k): k = bits of |x| << 1, less L: ≤ wid where x is in the range.
#define KEY(x, k) \
	VSHL    $1, x.S4, k.S4;                 /* k = bits of |x| << 1 */ \
	VSUB    lo.S4, k.S4, k.S4               /* k -= L */

// KEYZ(x, k, t): KEY, and k = 0 (in the range) where x = ±0. Clobbers t.
#define KEYZ(x, k, t) \
	VSHL    $1, x.S4, t.S4;                 /* t = bits of |x| << 1 */ \
	VSUB    lo.S4, t.S4, k.S4;              /* k = t - L */ \
	VCMTST  t.S4, t.S4, t.S4;               /* t = ones where x ≠ ±0 */ \
	VAND    t.B16, k.B16, k.B16             /* k = 0 where x = ±0 */

// FALLBACK(k, a, b, f): if a lane of k is above wid (an operand outside
// the range), f = a/b in all four lanes with FDIVS. Clobbers k, R5, R6,
// F8, F9.
#define FALLBACK(k, a, b, f) \
	VUMAX   wid.S4, k.S4, k.S4;             /* k = max(k, wid) */ \
	VCMEQ   wid.S4, k.S4, k.S4;             /* k = ones where k ≤ wid */ \
	VMOV    k.D[0], R5;                     /* R5 = lanes 0, 1 */ \
	VMOV    k.D[1], R6;                     /* R6 = lanes 2, 3 */ \
	AND     R5, R6;                         /* R6 = all four */ \
	CMN     $1, R6;                         /* all ones? */ \
	BEQ     safe;                           /* then f stands */ \
	DIVLANE(a, b, f, 0);                    /* f[0] = a[0] / b[0] */ \
	DIVLANE(a, b, f, 1);                    /* f[1] = a[1] / b[1] */ \
	DIVLANE(a, b, f, 2);                    /* f[2] = a[2] / b[2] */ \
	DIVLANE(a, b, f, 3);                    /* f[3] = a[3] / b[3] */ \
safe:

// MARKSTEIN(a, b, y, f, q, r): f = RN(a/b) from y = RN(1/b), for a, b in
// the range. Clobbers q, r.
#define MARKSTEIN(a, b, y, f, q, r) \
	MULV(y, a, q);                          /* q = q0 = a·y */ \
	VMOV    a.B16, r.B16;                   /* r = a */ \
	VFMLS   b.S4, q.S4, r.S4;               /* r = a - b·q0 */ \
	VMOV    q.B16, f.B16;                   /* f = q0 */ \
	VFMLA   r.S4, y.S4, f.S4;               /* f = q0 + r·y = RN(a/b) */ \
	VBIT    sgn.B16, q.B16, f.B16           /* f gets q0's sign (a = ±0) */

// The vector steps: V12 = f(V0 = a, V1 = b); V2–V6 scratch.
#define RECIPSTEP \
	RECIP(V1, V12, V2);                     /* V12 = RN(1/b) */ \
	KEY(V1, V5);                            /* V5 = key of b */ \
	FALLBACK(V5, ones, V1, V12)             /* V12 = 1/b with FDIVS if out of range */
#define DIVVVSTEP \
	RECIP(V1, V2, V3);                      /* V2 = y = RN(1/b) */ \
	MARKSTEIN(V0, V1, V2, V12, V3, V4);     /* V12 = RN(a/b) */ \
	KEYZ(V0, V5, V6);                       /* V5 = key of a */ \
	KEY(V1, V6);                            /* V6 = key of b */ \
	VUMAX   V6.S4, V5.S4, V5.S4;            /* V5 = the larger */ \
	FALLBACK(V5, V0, V1, V12)               /* V12 = a/b with FDIVS if out of range */
#define DIVVSSTEP \
	MARKSTEIN(V0, bcast, srecip, V12, V3, V4); /* V12 = RN(a/s) */ \
	KEYZ(V0, V5, V6);                       /* V5 = key of a */ \
	FALLBACK(V5, V0, bcast, V12)            /* V12 = a/s with FDIVS if out of range */
#define DIVSVSTEP \
	RECIP(V1, V2, V3);                      /* V2 = y = RN(1/b) */ \
	MARKSTEIN(bcast, V1, V2, V12, V3, V4);  /* V12 = RN(s/b) */ \
	KEY(V1, V5);                            /* V5 = key of b */ \
	FALLBACK(V5, bcast, V1, V12)            /* V12 = s/b with FDIVS if out of range */

// The loaders: a vector into V0 (a) and V1 (b), or one element into F0
// (a) and F1 (b).
#define LDRECIP VLD1.P 16(xPtr), [V1.S4]                   /* V1 = x */
#define LDVV \
	VLD1.P  16(xPtr), [V0.S4];              /* V0 = x */ \
	VLD1.P  16(yPtr), [V1.S4]               /* V1 = y */
#define LDVS    VLD1.P 16(xPtr), [V0.S4]                   /* V0 = x */
#define LDSV    VLD1.P 16(yPtr), [V1.S4]                   /* V1 = y */
#define LERECIP \
	FMOVS   F17, F0;                        /* F0 = 1 */ \
	FMOVS.P 4(xPtr), F1                     /* F1 = x */
#define LEVV \
	FMOVS.P 4(xPtr), F0;                    /* F0 = x */ \
	FMOVS.P 4(yPtr), F1                     /* F1 = y */
#define LEVS \
	FMOVS.P 4(xPtr), F0;                    /* F0 = x */ \
	FMOVS   F22, F1                         /* F1 = s */
#define LESV \
	FMOVS   F22, F0;                        /* F0 = s */ \
	FMOVS.P 4(yPtr), F1                     /* F1 = y */

// DIVLOOP(LOADV, LOADE, STEP) runs d[i] = a[i] / b[i] over nLeft elements:
// one vector per step (LOADV, then STEP: V12 = V0 / V1), then one element
// at a time with FDIVS (LOADE: F0 = a, F1 = b).
//
// In:  dPtr, xPtr/yPtr, nLeft and the constants.
// Out: dst written; clobbers R0–R6, V0–V12.
#define DIVLOOP(LOADV, LOADE, STEP) \
loop: \
	CMP     $4, nLeft;                      /* a vector left? */ \
	BLT     tail;                           /* no: the single elements */ \
	LOADV;                                  /* V0 = a, V1 = b */ \
	STEP;                                   /* V12 = a / b */ \
	VST1.P  [V12.S4], 16(dPtr);             /* dst = V12 */ \
	SUB     $4, nLeft;                      /* 4 done */ \
	B       loop;                           /* the next */ \
tail: \
	CBZ     nLeft, done;                    /* nothing left? */ \
	LOADE;                                  /* F0 = a, F1 = b */ \
	FDIVS   F1, F0, F0;                     /* F0 = a / b */ \
	FMOVS.P F0, 4(dPtr);                    /* dst = F0 */ \
	SUB     $1, nLeft;                      /* one done */ \
	B       tail;                           /* the next */ \
done: \
	RET

// DIVCONSTS(L, W) sets the constants, with the safe range (L, W).
#define DIVCONSTS(L, W) \
	SPLAT(0x80000000, sgn);                 /* sgn = -0 */ \
	SPLAT(0x3f800000, ones);                /* ones = 1 */ \
	SPLAT(0x7ef311c3, seed);                /* seed = 0x7ef311c3 */ \
	SPLAT(0x007fffff, mant);                /* mant = the mantissa bits */ \
	SPLAT(L, lo);                           /* lo = L */ \
	SPLAT(W, wid)                           /* wid = H - L - 1 */

// func reciprocalF32(d, x []float32): d[i] = 1 / x[i].
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R6, V0–V23.
TEXT ·reciprocalF32(SB), NOSPLIT, $0-48
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	DIVCONSTS(RECIPLO, RECIPWID)            // the constants, |x| in [2^-126, 2^125)
	DIVLOOP(LDRECIP, LERECIP, RECIPSTEP)    // d = 1 / x

// func divVV32(d, x, y []float32): d[i] = x[i] / y[i].
//
// In:  d, x, y with len(x), len(y) ≥ len(d).
// Out: d written; clobbers R0–R6, V0–V23.
TEXT ·divVV32(SB), NOSPLIT, $0-72
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	MOVD    y_base+48(FP), yPtr             // yPtr = &y[0]
	DIVCONSTS(DIVLO, DIVWID)                // the constants, |x|, |y| in [2^-63, 2^63)
	DIVLOOP(LDVV, LEVV, DIVVVSTEP)          // d = x / y

// func divVS32(d, x []float32, s, r float32): d[i] = x[i] / s, given
// r = RN(1/s) and |s| in [2^-63, 2^63) (divVSNEON).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R6, V0–V23.
TEXT ·divVS32(SB), NOSPLIT, $0-56
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	FMOVS   s+48(FP), F22                   // bcast lane 0 = s
	VDUP    bcast.S[0], bcast.S4            // s in every lane
	FMOVS   r+52(FP), F23                   // srecip lane 0 = 1/s
	VDUP    srecip.S[0], srecip.S4          // 1/s in every lane
	DIVCONSTS(DIVLO, DIVWID)                // the constants, |x| in [2^-63, 2^63)
	DIVLOOP(LDVS, LEVS, DIVVSSTEP)          // d = x / s

// func divSV32(d []float32, s float32, y []float32): d[i] = s / y[i],
// given s = ±0 or |s| in [2^-63, 2^63) (divSVNEON).
//
// In:  d, y with len(y) ≥ len(d).
// Out: d written; clobbers R0–R6, V0–V23.
TEXT ·divSV32(SB), NOSPLIT, $0-56
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	FMOVS   s+24(FP), F22                   // bcast lane 0 = s
	VDUP    bcast.S[0], bcast.S4            // s in every lane
	MOVD    y_base+32(FP), yPtr             // yPtr = &y[0]
	DIVCONSTS(DIVLO, DIVWID)                // the constants, |y| in [2^-63, 2^63)
	DIVLOOP(LDSV, LESV, DIVSVSTEP)          // d = s / y

// Division, NEON, float64 (two D lanes), as the twins divGo, divVSGo and
// divSVGo lane for lane, NaN payloads included. The same plan as float32,
// with a proof instead of an enumeration (TestDiv64Model checks each
// step's claim in Go, math.FMA standing for VFMLA):
//
//   - y = RN(1/b) for b in [1, 2) (the rest scale as for float32): the
//     seed y0 = 0x7fde5f73aabb2400 - bits(b), five Newton steps
//     y' = RN(y + t·y), t = RN(1 - b·y), and RECIPFIXD.
//     The seed is linear in b on two pieces (the subtraction borrows from
//     the exponent or not), so |e0| = |1 - b·y0| is largest at their ends
//     or the parabolas' vertices: |e0| < 0.0509 (computed exactly by the
//     test). A step takes |e| ≤ E to |e'| ≤ P + (1 + P)·u, u = 2^-53,
//     P = E²(1 + u) + E·u (t = e(1 + δ1), y' = y(1 + t)(1 + δ2), so
//     e' = p - (1 - p)·δ2 with p = e² - e·δ1 + e²·δ1): E1 < 2^-8.5,
//     E2 < 2^-17, E3 < 2^-34, and y4 = RN(v), v = y3(1 + t3) within
//     P3 < 2^-67 of 1/b, is within 2^-54 + 2·P3 < 2^-53 of 1/b and in
//     [½, 1]: one ulp of the binade (½, 1).
//     The fifth step from such a y is RN(1/b) but for b = 2 - 2^-52
//     (Markstein; here in full): with b = B·2^-52, y = Y·2^-53, D = 2^105 -
//     B·Y, |D| < B < 2^53, so t = D·2^-105 is exact and y(1 + t) =
//     (1/b)(1 - t²) lies below 1/b by at most 2^-104/b. It rounds to
//     RN(1/b) unless a midpoint m = M·2^-54 (M odd) has v ≤ m < 1/b,
//     i.e. N = 2^106 - M·B in [1, t²·2^106] ⊂ [1, 3]. Then 2·(2^105 mod B)
//     ≡ N (mod B): either 2^105 mod B = N/2, so N = 2, B divides 2^105 - 1
//     and is odd, and M·B = 2^106 - 2 is even with M odd, impossible; or
//     2^105 mod B = (N + B)/2 and D is (N + B)/2 or (N - B)/2, |D| ≤
//     (B + N)/2, with D² ≥ N·2^104 only for B = 2^53 - 1, N = 1, D = 2^52:
//     y = ½, which the steps reach (the test), and y(1 + t) = ½ + 2^-54,
//     a tie rounded to ½. RECIPFIXD adds the ulp there.
//
//   - a/b for a, b in [1, 2), z = a/b: q0 = RN(a·y) with |a·y - z| =
//     z·|1 - b·y| ≤ a·2^-54 < 2^-53, so |q0 - z| < 1.5 ulp of z (the
//     rounding adds at most ½ ulp); r0 = RN(a - b·q0), q1 = RN(q0 + r0·y),
//     within 2^-104 of z before rounding (z - (z - q0)(1 - b·y) plus r0's
//     rounding, below 2^-105·y), so within ½ ulp + 2^-104 < 1 ulp of z
//     (the test checks this and r1's exactness on its samples); then r1 = a - b·q1
//     is exact (a multiple of 2^-105, resp. 2^-104 from z = 1 on, below
//     2^53 of those) and q2 = RN(q1 + r1·y) is RN(z) by Markstein's theorem
//     (y = RN(1/b), q1 within one ulp of a/b, r1 exact: P. Markstein, IBM
//     J. Res. Dev. 34(1), 1990; Cornea, Harrison, Tang, "Scientific
//     Computing on Itanium-based Systems", ch. 8; Muller et al., Handbook
//     of Floating-Point Arithmetic, the Newton-Raphson division section).
//     For a = ±A·2^ka, b = ±B·2^kb each step is the one for A, B scaled,
//     exact while nothing leaves the normal range: the kernels take |a|,
//     |b| in [2^-256, 2^256) (and a = ±0, whose q2 gets q0's sign), so y,
//     q0–q2 are within 2^±513, r0, r1 multiples of 2^(ka-106) ≥ 2^-362.
//
//   - the range test: u = bits of |x| << 1, k = u - L with L = 767<<53
//     (2^-256's u); x is in the range when k < 2^62 (bits 62, 63 of k
//     clear: below L, k wraps past 2^63). A vector with a lane outside is
//     divided again with FDIVD (DIVLANED), the twin's instruction; so is an
//     odd last element.

// Register roles (float64 kernels).
#define yPtrD  R7  // next element of y (divisors); R4 is DIVLANED's
#define sgnd   V16 // 0x8000000000000000 (-0) in every lane (MULD)
#define oned   V17 // 1.0 in every lane
#define seedd  V18 // 0x7fde5f73aabb2400, the reciprocal's seed
#define mantd  V19 // 0x000fffffffffffff, the mantissa bits
#define lod    V20 // L = 767<<53: bits of 2^-256 << 1
#define himask V21 // 0xc000000000000000: k's out-of-range bits
#define bcastd V22 // the scalar operand s in every lane (F22: lane 0)
#define srecd  V23 // RN(1/s) in every lane (divVS64)

// NEWTOND(b, y, t): y += y·(1 - b·y), a Newton step towards 1/b. Clobbers t.
#define NEWTOND(b, y, t) \
	VMOV    oned.B16, t.B16;                /* t = 1 */ \
	VFMLS   b.D2, y.D2, t.D2;               /* t = 1 - b·y */ \
	VFMLA   t.D2, y.D2, y.D2                /* y = y + t·y */

// RECIPD(b, y, t): y = RN(1/b) for |b| in [2^-256, 2^256): the seed, five
// Newton steps, and one ulp more where b's mantissa is all ones (where
// the last step stalls at the tie 2^-k·(½ + 2^-54), rounded to 2^-k·½).
// Clobbers t.
#define RECIPD(b, y, t) \
	VSUB    b.D2, seedd.D2, y.D2;           /* y = y0 = seed - bits of b */ \
	NEWTOND(b, y, t);                       /* y1 */ \
	NEWTOND(b, y, t);                       /* y2 */ \
	NEWTOND(b, y, t);                       /* y3 */ \
	NEWTOND(b, y, t);                       /* y4, within an ulp */ \
	NEWTOND(b, y, t);                       /* y5 = RN(1/b) but for all ones */ \
	VAND    mantd.B16, b.B16, t.B16;        /* t = the mantissa of b */ \
	VCMEQ   mantd.D2, t.D2, t.D2;           /* t = -1 where it is all ones */ \
	VSUB    t.D2, y.D2, y.D2                /* y = y + 1 ulp there */

// MARKSTEIND(a, b, y, f, q, r): f = RN(a/b) from y = RN(1/b), for a, b in
// the range: q0 = a·y, q1 = q0 + (a - b·q0)·y, f = q1 + (a - b·q1)·y.
// Clobbers q, r.
#define MARKSTEIND(a, b, y, f, q, r) \
	MULD(y, a, q);                          /* q = q0 = a·y */ \
	VMOV    a.B16, r.B16;                   /* r = a */ \
	VFMLS   b.D2, q.D2, r.D2;               /* r = r0 = a - b·q0 */ \
	VMOV    q.B16, f.B16;                   /* f = q0 */ \
	VFMLA   r.D2, y.D2, f.D2;               /* f = q1 = q0 + r0·y */ \
	VMOV    a.B16, r.B16;                   /* r = a */ \
	VFMLS   b.D2, f.D2, r.D2;               /* r = r1 = a - b·q1, exact */ \
	VFMLA   r.D2, y.D2, f.D2;               /* f = q1 + r1·y = RN(a/b) */ \
	VBIT    sgnd.B16, q.B16, f.B16          /* f gets q0's sign (a = ±0) */

// KEYD(x, k): k = bits of |x| << 1, less L: below 2^62 where x is in the
// range.
#define KEYD(x, k) \
	VSHL    $1, x.D2, k.D2;                 /* k = bits of |x| << 1 */ \
	VSUB    lod.D2, k.D2, k.D2              /* k -= L */

// KEYZD(x, k, t): KEYD, and k = 0 (in the range) where x = ±0. Clobbers t.
#define KEYZD(x, k, t) \
	VSHL    $1, x.D2, t.D2;                 /* t = bits of |x| << 1 */ \
	VSUB    lod.D2, t.D2, k.D2;             /* k = t - L */ \
	VCMTST  t.D2, t.D2, t.D2;               /* t = ones where x ≠ ±0 */ \
	VAND    t.B16, k.B16, k.B16             /* k = 0 where x = ±0 */

// FALLBACKD(k, a, b, f): if a lane of k has bit 62 or 63 set (an operand
// outside the range), f = a/b in both lanes with FDIVD. Clobbers k, R4–R6,
// F8, F9.
#define FALLBACKD(k, a, b, f) \
	VCMTST  himask.D2, k.D2, k.D2;          /* k = ones where out of range */ \
	VMOV    k.D[0], R5;                     /* R5 = lane 0 */ \
	VMOV    k.D[1], R6;                     /* R6 = lane 1 */ \
	ORR     R5, R6;                         /* R6 = either */ \
	CBZ     R6, safe;                       /* none: f stands */ \
	DIVLANED(a, b, f, 0, F8, F9);           /* f[0] = a[0] / b[0] */ \
	DIVLANED(a, b, f, 1, F8, F9);           /* f[1] = a[1] / b[1] */ \
safe:

// The vector steps: V12 = V0 / V1 (a, b); V2–V6 scratch.
#define DIVVVSTEPD \
	RECIPD(V1, V2, V3);                     /* V2 = y = RN(1/b) */ \
	MARKSTEIND(V0, V1, V2, V12, V3, V4);    /* V12 = RN(a/b) */ \
	KEYZD(V0, V5, V6);                      /* V5 = key of a */ \
	KEYD(V1, V6);                           /* V6 = key of b */ \
	VORR    V6.B16, V5.B16, V5.B16;         /* V5 = both keys' bits */ \
	FALLBACKD(V5, V0, V1, V12)              /* V12 = a/b with FDIVD if out of range */
#define DIVVSSTEPD \
	MARKSTEIND(V0, bcastd, srecd, V12, V3, V4); /* V12 = RN(a/s) */ \
	KEYZD(V0, V5, V6);                      /* V5 = key of a */ \
	FALLBACKD(V5, V0, bcastd, V12)          /* V12 = a/s with FDIVD if out of range */
#define DIVSVSTEPD \
	RECIPD(V1, V2, V3);                     /* V2 = y = RN(1/b) */ \
	MARKSTEIND(bcastd, V1, V2, V12, V3, V4); /* V12 = RN(s/b) */ \
	KEYD(V1, V5);                           /* V5 = key of b */ \
	FALLBACKD(V5, bcastd, V1, V12)          /* V12 = s/b with FDIVD if out of range */

// The loaders: a vector into V0 (a) and V1 (b), or one element into F0
// (a) and F1 (b).
#define LDVVD \
	VLD1.P  16(xPtr), [V0.D2];              /* V0 = x */ \
	VLD1.P  16(yPtrD), [V1.D2]              /* V1 = y */
#define LDVSD   VLD1.P 16(xPtr), [V0.D2]                   /* V0 = x */
#define LDSVD   VLD1.P 16(yPtrD), [V1.D2]                  /* V1 = y */
#define LEVVD \
	FMOVD   (xPtr), F0;                     /* F0 = x */ \
	FMOVD   (yPtrD), F1                     /* F1 = y */
#define LEVSD \
	FMOVD   (xPtr), F0;                     /* F0 = x */ \
	FMOVD   F22, F1                         /* F1 = s */
#define LESVD \
	FMOVD   F22, F0;                        /* F0 = s */ \
	FMOVD   (yPtrD), F1                     /* F1 = y */

// DIVLOOPD(LOADV, LOADE, STEP) runs d[i] = a[i] / b[i] over nLeft
// elements: one vector (two elements) per step (LOADV, then STEP:
// V12 = V0 / V1), then the odd last one with FDIVD (LOADE: F0 = a, F1 = b).
//
// In:  dPtr, xPtr/yPtrD, nLeft and the constants.
// Out: dst written; clobbers R0–R7, V0–V12.
#define DIVLOOPD(LOADV, LOADE, STEP) \
loop: \
	CMP     $2, nLeft;                      /* a vector left? */ \
	BLT     tail;                           /* no: the last element */ \
	LOADV;                                  /* V0 = a, V1 = b */ \
	STEP;                                   /* V12 = a / b */ \
	VST1.P  [V12.D2], 16(dPtr);             /* dst = V12 */ \
	SUB     $2, nLeft;                      /* 2 done */ \
	B       loop;                           /* the next */ \
tail: \
	CBZ     nLeft, done;                    /* nothing left? */ \
	LOADE;                                  /* F0 = a, F1 = b */ \
	FDIVD   F1, F0, F0;                     /* F0 = a / b */ \
	FMOVD   F0, (dPtr);                     /* dst = F0 */ \
done: \
	RET

// DIVCONSTSD sets the float64 constants.
#define DIVCONSTSD \
	SPLATD(0x8000000000000000, sgnd);       /* sgnd = -0 */ \
	SPLATD(0x3ff0000000000000, oned);       /* oned = 1 */ \
	SPLATD(0x7fde5f73aabb2400, seedd);      /* seedd = the seed */ \
	SPLATD(0x000fffffffffffff, mantd);      /* mantd = the mantissa bits */ \
	SPLATD(0x5fe0000000000000, lod);        /* lod = L */ \
	SPLATD(0xc000000000000000, himask)      /* himask = bits 62, 63 */

// func divVV64(d, x, y []float64): d[i] = x[i] / y[i].
//
// In:  d, x, y with len(x), len(y) ≥ len(d).
// Out: d written; clobbers R0–R7, V0–V23.
TEXT ·divVV64(SB), NOSPLIT, $0-72
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	MOVD    y_base+48(FP), yPtrD            // yPtrD = &y[0]
	DIVCONSTSD                              // the constants
	DIVLOOPD(LDVVD, LEVVD, DIVVVSTEPD)      // d = x / y

// func divVS64(d, x []float64, s, r float64): d[i] = x[i] / s, given
// r = RN(1/s) and |s| in [2^-256, 2^256) (divVSNEON64).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R7, V0–V23.
TEXT ·divVS64(SB), NOSPLIT, $0-64
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	FMOVD   s+48(FP), F22                   // bcastd lane 0 = s
	VDUP    bcastd.D[0], bcastd.D2          // s in every lane
	FMOVD   r+56(FP), F23                   // srecd lane 0 = 1/s
	VDUP    srecd.D[0], srecd.D2            // 1/s in every lane
	DIVCONSTSD                              // the constants
	DIVLOOPD(LDVSD, LEVSD, DIVVSSTEPD)      // d = x / s

// func divSV64(d []float64, s float64, y []float64): d[i] = s / y[i],
// given s = ±0 or |s| in [2^-256, 2^256) (divSVNEON64).
//
// In:  d, y with len(y) ≥ len(d).
// Out: d written; clobbers R0–R7, V0–V23.
TEXT ·divSV64(SB), NOSPLIT, $0-56
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	FMOVD   s+24(FP), F22                   // bcastd lane 0 = s
	VDUP    bcastd.D[0], bcastd.D2          // s in every lane
	MOVD    y_base+32(FP), yPtrD            // yPtrD = &y[0]
	DIVCONSTSD                              // the constants
	DIVLOOPD(LDSVD, LESVD, DIVSVSTEPD)      // d = s / y
