//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neon64_arm64.h"

// gelu_tanh, NEON, float32, as its twin (geluTanhGo1) lane for lane: in
// float64 (neon64_arm64.h), u = β·(x + κ·x³), e = exp64(-|u|), and
// x/(1 + e) for u ≥ 0, x·e/(1 + e) below (the sign of u is that of x),
// the quotients by scalar FDIVD (there is no vector FDIV), rounded to
// float32 once. exp64 clamps its argument at -700 and gives 0 below; here
// e is set to 0 from |u| ≥ 512 on, which gives the same float32 results:
// there e ≤ e^-512 < 2^-738, so 1 + e = 1, and x·e (|x| < 2^128) is below
// 2^-600, which rounds to a zero of x's sign as x·0 does. A vector holding
// an Inf or a NaN stops the kernel, and the Go side runs the twin on it
// (gelutanh_arm64.go).

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define nLeft  R2  // elements left
#define spec   V9  // 0xfefffffe: the bits of the largest finite float32 << 1
#define kappa  V10 // κ = 0.044715
#define beta2  V11 // β = 2·√(2/π)
#define ulim   V12 // 0xc07fffffffffffff: -|u| above -512 (the high word), the low word all ones
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

// GELUTD(x, a, b, c, d, e, f, g, fa, fb): x = the float32 bits of
// geluTanhGo1 of the float64 lanes x in the low words of its D lanes; fa
// and fb are the F names of a and b. Clobbers a–g.
#define GELUTD(x, a, b, c, d, e, f, g, fa, fb) \
	MULD(x, x, a);                          /* a = x·x */ \
	MULD(x, a, b);                          /* b = x·x·x */ \
	HSTEPD(x, kappa, b, a);                 /* a = x + x³·κ */ \
	MULD(beta2, a, b);                      /* b = u = β·a */ \
	VORR    sgnd.B16, b.B16, b.B16;         /* b = -|u| */ \
	VUMAX   ulim.S4, b.S4, c.S4;            /* c = ulim where -|u|'s high word ≤ ulim's */ \
	VCMEQ   ulim.D2, c.D2, c.D2;            /* c = ones where |u| < 512 */ \
	EXPD(b, a, d, e, f, g);                 /* a = e^-|u| */ \
	VAND    c.B16, a.B16, a.B16;            /* a = e, 0 where |u| ≥ 512 */ \
	MULD(a, x, b);                          /* b = x·e */ \
	VCMTST  sgnd.D2, x.D2, c.D2;            /* c = ones where x (and u) is negative */ \
	VBIT    c.B16, b.B16, x.B16;            /* x = num: x·e there, x elsewhere */ \
	HSTEPD(oned, oned, a, d);               /* d = 1 + e */ \
	DIVLANED(x, d, e, 0, fa, fb);           /* e[0] = num[0] / d[0] */ \
	DIVLANED(x, d, e, 1, fa, fb);           /* e[1] = num[1] / d[1] */ \
	NARROW(e, x, a, b, c)                   /* x = float32(e)'s bits */

// GELUTV: V0 = gelu_tanh of the four float32 lanes of V0, or to stop when
// one is an Inf or a NaN. Clobbers R4, R5, V1–V8.
#define GELUTV \
	STOPIF(V0, spec, V1, stop);             /* Inf or NaN: to the twin */ \
	WIDEN(V0, V1, V2, V3, V4);              /* V1:V2 = float64(x) */ \
	GELUTD(V1, V3, V4, V5, V6, V7, V8, V0, F3, F4); /* V1 = lanes 0:2's bits */ \
	GELUTD(V2, V3, V4, V5, V6, V7, V8, V0, F3, F4); /* V2 = lanes 2:4's bits */ \
	VUZP1   V2.S4, V1.S4, V0.S4             /* V0 = the four float32 results */

// func geluTanhF32(d, x []float32) int: d[i] = geluTanhGo1(x[i]) up to
// the first vector (of four, or the single element of the tail) holding
// an Inf or a NaN.
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written up to that vector; the elements written. Clobbers R0–R6,
// V0–V31.
TEXT ·geluTanhF32(SB), NOSPLIT, $0-56
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	SPLAT(0xfefffffe, spec)                 // spec = the largest finite's bits << 1
	SPLATD(0x3fa6e4e26d4801f7, kappa)       // kappa = 0.044715
	SPLATD(0x3ff9884533d43651, beta2)       // beta2 = 1.5957691216057308
	SPLATD(0xc07fffffffffffff, ulim)        // ulim = -512's high word - 1, ones
	EXPDCONSTS                              // log2e, ln2hi, ln2lo, c1023, et0–et6
	F64CONSTS                               // sgnd, scale, oned, int1, magic, rbias, tiny, sublim
	UNLOOPSTOP(GELUTV, ret+48(FP))          // d = gelu_tanh(x), up to a stop
