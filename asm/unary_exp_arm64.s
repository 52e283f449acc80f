//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neonmath_arm64.h"
#include "neonexp_arm64.h"

// exp, sigmoid, silu, tanh and log, NEON, float32, as their twins (expGo1,
// sigmoidGo1, siluGo1, tanhGo1, logGo1) lane for lane.
// Go's arm64 assembler has no vector FMUL, FADD, FDIV, FCMP, FMAX/FMIN,
// FRINT or FRECPE, so:
//   - products and sums are fused multiply-adds that round the same way:
//     x·y = -0 + x·y (VFMLA into -0), x + y = x + 1·y;
//   - the clamp to [expLo, expHi] is unsigned integer min on the bits:
//     negative floats order as their bits, positive ones as their bits
//     with the sign flipped;
//   - round(x·log2e) to nearest even is (x·log2e + M) - M with
//     M = 1.5·2^23 + 254, exact for |x·log2e| < 2^22 - 254 (the clamp
//     keeps it below 174); the bits of x·log2e + M are then bits(M) + n,
//     and as bits(M)/2 ≡ 127 (mod 512) the scales 2^k1 = 2^(n>>1) and
//     2^k2 = 2^(n - n>>1) are (w>>1) << 23 and (w - w>>1) << 23 for
//     w = bits(M) + n;
//   - a NaN x gives x with its quiet bit set, as the twin's arithmetic
//     does (its clamp leaves a NaN alone, and every operation after
//     propagates it; its scales are then 1);
//   - sigmoid's quotient num/(1 + e), with 1 + e in [1, 2] and num in
//     [0, 1], is Markstein's: y = 1/b from the integer seed
//     0x7ef311c3 - bits(b) and four Newton steps y += y·(1 - b·y), then
//     q = num·y, r = num - b·q (exact) and q + r·y, rounded once. That is
//     the correctly rounded quotient when y = RN(1/b) (Markstein), which
//     the Newton steps give except for b = 2 - 2^-23 (y stalls at the
//     tie 0.5 + 2^-25, rounded to 0.5), set apart by a compare
//     (TestSigmoidRecip: every b in [1, 2)). Nothing underflows: num =
//     e ≤ 2^-24 gives b = 1, y = 1 and q = e exactly, a larger e a
//     quotient above 2^-26.

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define nLeft  R2  // elements left
#define tp0    V7  // tanhP[0] (tanh)
#define tp1    V8  // tanhP[1] (tanh)
#define tp2    V9  // tanhP[2] (tanh)
#define tp3    V10 // tanhP[3] (tanh)
#define tp4    V11 // tanhP[4] (tanh)
#define silulo V13 // (2^-60 bits) << 1 (silu)
#define tsmall V13 // 0x3f1fffff: the largest float below 0.625 (tanh; silulo's register)
#define siluw  V14 // ((64 bits) << 1) - silulo (silu)
#define tbig   V14 // 2^27, where tanh's 1 + e is clamped (tanh; siluw's register)
#define mant   V15 // 0x007fffff: the mantissa bits (sigmoid, silu, tanh, log)
#define seed   V16 // 0x7ef311c3, the reciprocal's seed (sigmoid, silu, tanh)
#define shift  V16 // m in every lane (expShift; seed's register)
#define sgn    V17 // 0x80000000 (the sign bit, -0) in every lane
#define lo     V18 // bits of expLo = -120
#define hi     V19 // bits of expHi = 89 with the sign flipped
#define log2e  V20 // log2e
#define magic  V21 // M = 1.5·2^23 + 254
#define ones   V22 // 1
#define nln2hi V23 // -ln2Hi
#define nln2lo V24 // -ln2Lo
#define q0     V25 // expQ[0]
#define q1     V26 // expQ[1]
#define q2     V27 // expQ[2]
#define q3     V28 // expQ[3]
#define q4     V29 // expQ[4]
#define nanlim V30 // 0xff000000: the bits of ±Inf shifted left by one
#define quiet  V31 // 0x00400000: the quiet bit of a NaN

// log's registers (LOGCONSTS), in those of the constants above that log
// does not use.
#define lp0    V7  // logP[0]
#define lp1    V8  // logP[1]
#define lp2    V9  // logP[2]
#define lp3    V10 // logP[3]
#define lp4    V11 // logP[4]
#define lp5    V25 // logP[5]
#define lp6    V26 // logP[6]
#define lp7    V27 // logP[7]
#define lhalf  V13 // 0.5 (0x3f000000: also [0.5, 1)'s exponent bits)
#define lmthr  V14 // 0x003504f2: the mantissa bits of √½'s predecessor
#define lbias  V16 // bits(lmagic) - 126
#define lscale V18 // 2^23
#define l23    V19 // 23
#define lnan   V20 // 0x7fc00000, the twin's NaN for x < 0
#define lmagic V21 // 1.5·2^23
#define lninf  V28 // -Inf

// EXPV(x, a, b, c, d, e): x = e^x in every lane, as expGo1. In: the
// constants above. Out: x, and c = ones where x is not NaN (SIGMOIDV uses
// it). Clobbers a, b, d, e.
#define EXPV(x, a, b, c, d, e) \
	VUMIN   lo.S4, x.S4, a.S4;              /* a = x, or -120 where x < -120 */ \
	VCMEQ   a.S4, x.S4, e.S4;               /* e = ones where !(x < expLo) (NaN: either) */ \
	VEOR    sgn.B16, a.B16, a.B16;          /* a = bits, sign flipped */ \
	VUMIN   hi.S4, a.S4, a.S4;              /* a = 89's where x > 89 */ \
	VEOR    sgn.B16, a.B16, a.B16;          /* a = vmin(expHi, vmax(expLo, x)) */ \
	EXPREDUCE(a, b, c);                     /* a = r = x - n·ln 2, b = n, c = M + n */ \
	EXPM1POLY(a, b, d);                     /* a = e^r - 1 */ \
	HSTEP(ones, ones, a, b);                /* b = y = e^r - 1 + 1 */ \
	VUSHR   $1, c.S4, d.S4;                 /* d = w>>1 = 127 + k1 (mod 512) */ \
	VSUB    d.S4, c.S4, c.S4;               /* c = w - w>>1 = 127 + k2 (mod 512) */ \
	VSHL    $23, d.S4, d.S4;                /* d = s1 = 2^k1 */ \
	VSHL    $23, c.S4, c.S4;                /* c = s2 = 2^k2 */ \
	MULV(d, b, a);                          /* a = y·s1 */ \
	MULV(c, a, b);                          /* b = (y·s1)·s2 */ \
	VAND    e.B16, b.B16, b.B16;            /* b = 0 where x < expLo */ \
	VSHL    $1, x.S4, c.S4;                 /* c = bits of |x| << 1 */ \
	VUMAX   nanlim.S4, c.S4, c.S4;          /* c = max(c, Inf's) */ \
	VCMEQ   nanlim.S4, c.S4, c.S4;          /* c = ones where x is not NaN */ \
	VORR    quiet.B16, x.B16, x.B16;        /* x = x, quiet if NaN */ \
	VBIT    c.B16, b.B16, x.B16             /* x = b where x is not NaN */

// SIGMOIDV(x, a, b, c, d, e, f): f = sigmoid(x) in every lane, as
// sigmoidGo1. In: the constants above. Clobbers a–e.
#define SIGMOIDV(x, a, b, c, d, e, f) \
	VORR    sgn.B16, x.B16, f.B16;          /* f = -|x| */ \
	EXPV(f, a, b, c, d, e);                 /* f = e^-|x|; c = ones where not NaN */ \
	VUMAX   sgn.S4, x.S4, a.S4;             /* a = max(bits, bits of -0) */ \
	VCMEQ   sgn.S4, a.S4, a.S4;             /* a = ones where !(x < 0) */ \
	VMOV    f.B16, b.B16;                   /* b = e */ \
	VBIT    a.B16, ones.B16, b.B16;         /* b = num = 1 where !(x < 0) */ \
	HSTEP(ones, ones, f, d);                /* d = 1 + e, in [1, 2] */ \
	RECIP(d, e, a);                         /* e = y = RN(1/d) */ \
	MULV(e, b, a);                          /* a = q = num·y */ \
	VFMLS   d.S4, a.S4, b.S4;               /* b = r = num - d·q */ \
	VFMLA   b.S4, e.S4, a.S4;               /* a = q + r·y = num/d */ \
	VBIT    c.B16, a.B16, f.B16             /* f = a where not NaN (else -|x|, quiet) */

// SILUV(x, a, b, c, d, e, f): f = silu(x) = x/(e^-x + 1) in every lane,
// as siluGo1: Markstein's quotient as in SIGMOIDV (the Newton steps and
// RECIPFIX scale with b's exponent) where 2^-60 ≤ |x| ≤ 64, so that
// 1 ≤ b < 2^93 and nothing overflows or underflows; if a lane is outside
// that range (0, tiny, below -64, above 64, ±Inf, NaN), all four lanes are
// divided again with FDIVS, the twin's instruction. Clobbers a–e, R5, R6,
// F8, F9.
#define SILUV(x, a, b, c, d, e, f) \
	VEOR    sgn.B16, x.B16, f.B16;          /* f = -x */ \
	EXPV(f, a, b, c, d, e);                 /* f = e = e^-x */ \
	HSTEP(ones, ones, f, d);                /* d = e + 1 */ \
	RECIP(d, e, a);                         /* e = y = RN(1/d) */ \
	MULV(e, x, f);                          /* f = q = x·y */ \
	VMOV    x.B16, b.B16;                   /* b = x */ \
	VFMLS   d.S4, f.S4, b.S4;               /* b = r = x - d·q */ \
	VFMLA   b.S4, e.S4, f.S4;               /* f = q + r·y = x/d */ \
	VSHL    $1, x.S4, a.S4;                 /* a = bits of |x| << 1 */ \
	VSUB    silulo.S4, a.S4, a.S4;          /* a -= 2^-60's */ \
	VUMAX   siluw.S4, a.S4, a.S4;           /* a = max(a, siluw) */ \
	VCMEQ   siluw.S4, a.S4, a.S4;           /* a = ones where 2^-60 ≤ |x| ≤ 64 */ \
	VMOV    a.D[0], R5;                     /* R5 = lanes 0, 1 */ \
	VMOV    a.D[1], R6;                     /* R6 = lanes 2, 3 */ \
	AND     R5, R6;                         /* R6 = all four */ \
	CMN     $1, R6;                         /* all ones? */ \
	BEQ     safe;                           /* then f stands */ \
	DIVLANE(x, d, f, 0);                    /* f[0] = x[0] / d[0] */ \
	DIVLANE(x, d, f, 1);                    /* f[1] = x[1] / d[1] */ \
	DIVLANE(x, d, f, 2);                    /* f[2] = x[2] / d[2] */ \
	DIVLANE(x, d, f, 3);                    /* f[3] = x[3] / d[3] */ \
safe:

// TANHV(x, a, b, c, d, e, f): f = tanh(x) in every lane, as tanhGo1:
// x + x³·P(x²) where |x| < 0.625, else 1 - 2/(e + 1) with e = e^(2|x|),
// given x's sign. The quotient: 2/b = 2·RN(1/b), y = RN(1/b) from the seed,
// the Newton steps and RECIPFIX as in SIGMOIDV (they scale with b's
// exponent). b ≥ 1 + e^1.25 > 4 is clamped to 2^27: from b = 2^26 on,
// 2/b ≤ 2^-25 and 1 - 2/b rounds to 1 (the tie 1 - 2^-25 to even), so the
// clamp changes no result and keeps 1/b normal (e = +Inf from 2|x| ≈ 88.7
// on). A NaN x gives x, quiet. Clobbers a–e.
#define TANHV(x, a, b, c, d, e, f) \
	VSHL    $1, x.S4, f.S4;                 /* f = bits of |x| << 1 */ \
	VUSHR   $1, f.S4, f.S4;                 /* f = |x| */ \
	VFMLA   ones.S4, f.S4, f.S4;            /* f = |x| + 1·|x| = 2|x| */ \
	EXPV(f, a, b, c, d, e);                 /* f = e = e^2|x|; c = ones where not NaN */ \
	HSTEP(ones, ones, f, d);                /* d = b = e + 1 */ \
	VUMIN   tbig.S4, d.S4, d.S4;            /* d = min(b, 2^27) (b is positive) */ \
	RECIP(d, e, a);                         /* e = y = RN(1/d) */ \
	VFMLA   ones.S4, e.S4, e.S4;            /* e = q = y + 1·y = RN(2/d) */ \
	VMOV    ones.B16, f.B16;                /* f = 1 */ \
	VFMLS   ones.S4, e.S4, f.S4;            /* f = 1 - 1·q */ \
	MULV(x, x, a);                          /* a = z = x·x */ \
	HSTEP(tp3, tp4, a, b);                  /* b = P3 + P4·z */ \
	HSTEP(tp2, b, a, d);                    /* d = P2 + b·z */ \
	HSTEP(tp1, d, a, b);                    /* b = P1 + d·z */ \
	HSTEP(tp0, b, a, d);                    /* d = P(z) = P0 + b·z */ \
	MULV(a, x, b);                          /* b = x·z */ \
	HSTEP(x, b, d, e);                      /* e = x + (x·z)·P(z) */ \
	VSHL    $1, x.S4, a.S4;                 /* a = bits of |x| << 1 */ \
	VUSHR   $1, a.S4, a.S4;                 /* a = |x| */ \
	VUMIN   tsmall.S4, a.S4, b.S4;          /* b = min(|x|, 0.625's predecessor) */ \
	VCMEQ   b.S4, a.S4, b.S4;               /* b = ones where |x| < 0.625 */ \
	VBIT    b.B16, e.B16, f.B16;            /* f = the polynomial there */ \
	VBIT    sgn.B16, x.B16, f.B16;          /* f gets x's sign */ \
	VORR    quiet.B16, x.B16, a.B16;        /* a = x, quiet if NaN */ \
	VBIF    c.B16, a.B16, f.B16             /* f = a where x is NaN */

// LOGV(x, a, b, c, d, e, f): f = log(x) in every lane, as logGo1: x =
// 2^e·m with m in [√½, √2) (a subnormal x scaled by 2^23 first), f =
// m - 1, log x = f - f²/2 + f³·P(f) + e·ln2 (ln2 in two parts). m is x's
// mantissa under the exponent of [0.5, 1), doubled (exponent + 1) and e
// lowered by one where it is below √½, which its mantissa bits tell.
// float(e) is exact by the magic number: bits(M) + e read as a float, less
// M (M = 1.5·2^23). Then x = ±0 gives -Inf, x < 0 the NaN 0x7fc00000, +Inf
// and NaN x itself (a NaN unchanged, as the twin). Clobbers a–e.
#define LOGV(x, a, b, c, d, e, f) \
	VUMIN   mant.S4, x.S4, a.S4;            /* a = min(bits, 0x007fffff) */ \
	VCMEQ   a.S4, x.S4, a.S4;               /* a = ones where x is +0 or subnormal */ \
	MULV(lscale, x, b);                     /* b = x·2^23 */ \
	VBIF    a.B16, x.B16, b.B16;            /* b = xs = x where not subnormal */ \
	VUSHR   $23, b.S4, c.S4;                /* c = xs's exponent field (and sign) */ \
	VADD    lbias.S4, c.S4, c.S4;           /* c = bits(M) + exponent - 126 */ \
	VAND    l23.B16, a.B16, a.B16;          /* a = 23 where x was scaled */ \
	VSUB    a.S4, c.S4, c.S4;               /* c = w = bits(M) + e */ \
	VAND    mant.B16, b.B16, b.B16;         /* b = xs's mantissa bits */ \
	VUMIN   lmthr.S4, b.S4, a.S4;           /* a = min(them, √½'s predecessor's) */ \
	VCMEQ   a.S4, b.S4, a.S4;               /* a = ones where m < √½ */ \
	VORR    lhalf.B16, b.B16, b.B16;        /* b = m in [0.5, 1) */ \
	VADD    a.S4, c.S4, c.S4;               /* c = w - 1 there (e - 1) */ \
	VSHL    $23, a.S4, a.S4;                /* a = -1 << 23 there */ \
	VSUB    a.S4, b.S4, b.S4;               /* b = m + m there (exponent + 1) */ \
	VFMLS   ones.S4, ones.S4, b.S4;         /* b = f = m - 1·1 */ \
	VFMLS   ones.S4, lmagic.S4, c.S4;       /* c = ef = float(e) = w - 1·M */ \
	MULV(b, b, a);                          /* a = z = f·f */ \
	HSTEP(lp6, lp7, b, d);                  /* d = P6 + P7·f */ \
	HSTEP(lp5, d, b, e);                    /* e = P5 + d·f */ \
	HSTEP(lp4, e, b, d);                    /* d = P4 + e·f */ \
	HSTEP(lp3, d, b, e);                    /* e = P3 + d·f */ \
	HSTEP(lp2, e, b, d);                    /* d = P2 + e·f */ \
	HSTEP(lp1, d, b, e);                    /* e = P1 + d·f */ \
	HSTEP(lp0, e, b, d);                    /* d = P(f) = P0 + e·f */ \
	MULV(d, a, e);                          /* e = P·z */ \
	MULV(e, b, d);                          /* d = y = (P·z)·f */ \
	VFMLS   nln2lo.S4, c.S4, d.S4;          /* d = y + ef·ln2Lo */ \
	VFMLS   lhalf.S4, a.S4, d.S4;           /* d = y - z·0.5 */ \
	VMOV    b.B16, f.B16;                   /* f = f */ \
	VFMLA   ones.S4, d.S4, f.S4;            /* f = r = f + 1·y */ \
	VFMLS   nln2hi.S4, c.S4, f.S4;          /* f = r + ef·ln2Hi */ \
	VSHL    $1, x.S4, a.S4;                 /* a = bits of |x| << 1 */ \
	VUMAX   nanlim.S4, a.S4, c.S4;          /* c = max(a, Inf's) */ \
	VCMEQ   nanlim.S4, c.S4, c.S4;          /* c = ones where x is not NaN */ \
	VCMTST  sgn.S4, x.S4, b.S4;             /* b = ones where x's sign is set */ \
	VAND    c.B16, b.B16, b.B16;            /* b = ones where x < 0 or x = -0 */ \
	VBIT    b.B16, lnan.B16, f.B16;         /* f = NaN there */ \
	VCMTST  a.S4, a.S4, b.S4;               /* b = ones where x is not ±0 */ \
	VBIF    b.B16, lninf.B16, f.B16;        /* f = -Inf where x = ±0 */ \
	VBIF    c.B16, x.B16, f.B16;            /* f = x where x is NaN */ \
	VUSHR   $1, nanlim.S4, b.S4;            /* b = +Inf */ \
	VCMEQ   b.S4, x.S4, b.S4;               /* b = ones where x = +Inf */ \
	VBIT    b.B16, x.B16, f.B16             /* f = +Inf there */

// The steps of UNLOOP for exp and sigmoid.
#define EXP2 \
	VMOV    V0.B16, V12.B16;                /* V12 = x */ \
	VMOV    V1.B16, V13.B16;                /* V13 = x */ \
	EXPV(V12, V2, V3, V4, V5, V6);          /* V12 = e^x */ \
	EXPV(V13, V7, V8, V9, V10, V11)         /* V13 = e^x */
#define EXP1 \
	VMOV    V0.B16, V12.B16;                /* V12 = x */ \
	EXPV(V12, V2, V3, V4, V5, V6)           /* V12 = e^x */
#define EXPSHIFT2 \
	VMOV    V0.B16, V12.B16;                /* V12 = x */ \
	VMOV    V1.B16, V13.B16;                /* V13 = x */ \
	VFMLS   shift.S4, ones.S4, V12.S4;      /* V12 = x - 1·m */ \
	VFMLS   shift.S4, ones.S4, V13.S4;      /* V13 = x - 1·m */ \
	EXPV(V12, V2, V3, V4, V5, V6);          /* V12 = e^(x-m) */ \
	EXPV(V13, V7, V8, V9, V10, V11)         /* V13 = e^(x-m) */
#define EXPSHIFT1 \
	VMOV    V0.B16, V12.B16;                /* V12 = x */ \
	VFMLS   shift.S4, ones.S4, V12.S4;      /* V12 = x - 1·m */ \
	EXPV(V12, V2, V3, V4, V5, V6)           /* V12 = e^(x-m) */
#define SIGMOID2 \
	SIGMOIDV(V0, V2, V3, V4, V5, V6, V12);  /* V12 = sigmoid(x) */ \
	SIGMOIDV(V1, V7, V8, V9, V10, V11, V13) /* V13 = sigmoid(x) */
#define SIGMOID1 \
	SIGMOIDV(V0, V2, V3, V4, V5, V6, V12)   /* V12 = sigmoid(x) */

#define ARGS \
	MOVD    d_base+0(FP), dPtr;             /* dPtr = &d[0] */ \
	MOVD    d_len+8(FP), nLeft;             /* nLeft = len(d) */ \
	MOVD    x_base+24(FP), xPtr             /* xPtr = &x[0] */

// CONSTS sets the constants of the register roles above.
#define CONSTS \
	SPLAT(0x43000000, silulo);              /* silulo = bits of 2^-60 << 1 */ \
	SPLAT(0x42000000, siluw);               /* siluw = (bits of 64 << 1) - silulo */ \
	SPLAT(0x007fffff, mant);                /* mant = the mantissa bits */ \
	SPLAT(0x7ef311c3, seed);                /* seed = 0x7ef311c3 */ \
	SPLAT(0x80000000, sgn);                 /* sgn = -0 */ \
	SPLAT(0xc2f00000, lo);                  /* lo = -120 */ \
	SPLAT(0xc2b20000, hi);                  /* hi = 89 with the sign flipped */ \
	SPLAT(0x3fb8aa3b, log2e);               /* log2e = 1.442695 */ \
	SPLAT(0x4b4000fe, magic);               /* magic = 12583166 = 1.5·2^23 + 254 */ \
	SPLAT(0x3f800000, ones);                /* ones = 1 */ \
	EXPCONSTS;                              /* nln2hi, nln2lo, q0–q4 */ \
	SPLAT(0xff000000, nanlim);              /* nanlim = Inf's bits << 1 */ \
	SPLAT(0x00400000, quiet)                /* quiet = the quiet bit */

// TANHCONSTS sets tanh's constants after CONSTS (in silu's registers and
// V7–V11, which UNLOOP1's STEP leaves alone).
#define TANHCONSTS \
	SPLAT(0xbeaaaa99, tp0);                 /* tp0 = -0.3333328 */ \
	SPLAT(0x3e08837c, tp1);                 /* tp1 = 0.13331407 */ \
	SPLAT(0xbd5c1b08, tp2);                 /* tp2 = -0.053736717 */ \
	SPLAT(0x3ca8fe27, tp3);                 /* tp3 = 0.020629002 */ \
	SPLAT(0xbbba8f8d, tp4);                 /* tp4 = -0.005693382 */ \
	SPLAT(0x3f1fffff, tsmall);              /* tsmall = 0.625's predecessor */ \
	SPLAT(0x4d000000, tbig)                 /* tbig = 2^27 */

// LOGCONSTS sets log's constants after CONSTS (in registers of exp's
// that log does not use, and V7–V11, which UNLOOP1's STEP leaves alone).
#define LOGCONSTS \
	SPLAT(0x3eaaaaaa, lp0);                 /* lp0 = 0.33333331 */ \
	SPLAT(0xbe800113, lp1);                 /* lp1 = -0.2500082 */ \
	SPLAT(0x3e4cd00f, lp2);                 /* lp2 = 0.20001243 */ \
	SPLAT(0xbe2a3946, lp3);                 /* lp3 = -0.1662341 */ \
	SPLAT(0x3e116c7c, lp4);                 /* lp4 = 0.1420154 */ \
	SPLAT(0xbe06c0f9, lp5);                 /* lp5 = -0.1315955 */ \
	SPLAT(0x3e02b017, lp6);                 /* lp6 = 0.12762485 */ \
	SPLAT(0xbd9c6790, lp7);                 /* lp7 = -0.076369405 */ \
	SPLAT(0x3f000000, lhalf);               /* lhalf = 0.5 */ \
	SPLAT(0x003504f2, lmthr);               /* lmthr = √½'s predecessor's mantissa */ \
	SPLAT(0x4b3fff82, lbias);               /* lbias = bits(1.5·2^23) - 126 */ \
	SPLAT(0x4b000000, lscale);              /* lscale = 2^23 */ \
	SPLAT(0x00000017, l23);                 /* l23 = 23 */ \
	SPLAT(0x7fc00000, lnan);                /* lnan = the NaN */ \
	SPLAT(0x4b400000, lmagic);              /* lmagic = 1.5·2^23 */ \
	SPLAT(0xff800000, lninf)                /* lninf = -Inf */

// func expF32(d, x []float32): d[i] = expGo1(x[i]).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V31.
TEXT ·expF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	UNLOOP(EXP2, EXP1)                      // d = e^x

// func sigmoidF32(d, x []float32): d[i] = sigmoidGo1(x[i]).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V31.
TEXT ·sigmoidF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	UNLOOP(SIGMOID2, SIGMOID1)              // d = sigmoid(x)

// func siluF32(d, x []float32): d[i] = siluGo1(x[i]), one vector per step
// (SILUV's lane fallback has a label, so UNLOOP1 has it once).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, R5, R6, V0–V31.
TEXT ·siluF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	UNLOOP1(SILUV(V0, V2, V3, V4, V5, V6, V12)) // d = silu(x)

// func expShiftF32(d, x []float32, m float32): d[i] = expGo1(x[i] - m),
// the difference rounded once as the twin's (m is not NaN: the caller's
// twin takes that case, whose payload the fused form would not keep).
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V31.
TEXT ·expShiftF32(SB), NOSPLIT, $0-52
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	FMOVS   m+48(FP), F16                   // shift lane 0 = m
	VDUP    shift.S[0], shift.S4            // m in every lane
	UNLOOP(EXPSHIFT2, EXPSHIFT1)            // d = e^(x-m)

// func tanhF32(d, x []float32): d[i] = tanhGo1(x[i]), one vector per step.
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V31.
TEXT ·tanhF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	TANHCONSTS                              // and tanh's
	UNLOOP1(TANHV(V0, V1, V2, V3, V4, V5, V12)) // d = tanh(x)

// func logF32(d, x []float32): d[i] = logGo1(x[i]), one vector per step.
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R3, V0–V31.
TEXT ·logF32(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, xPtr, nLeft from the arguments
	CONSTS                                  // the constants
	LOGCONSTS                               // and log's
	UNLOOP1(LOGV(V0, V1, V2, V3, V4, V5, V12)) // d = log(x)
