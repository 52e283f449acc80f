//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
#include "neon64_arm64.h"

// sin and cos, NEON, float32, as their twins (sinGo1, cosGo1) lane for
// lane: in float64 (neon64_arm64.h) as sinCos64, rounded to float32 once.
// n = RoundToEven(x·2/π), r = x - n·π/2 with π/2 in three parts (n·pio2A
// is exact), the Taylor polynomials of sin and cos on r² by Horner steps,
// and n mod 4 (plus one for cos) from the low bits of n + M: bit 0 picks
// cos r over sin r, bit 1 negates. A vector holding |x| ≥ 1e6, an Inf or
// a NaN (which the twin leaves to math.Sin and math.Cos) stops the kernel
// (STOPIF), and the Go side runs the twin on it (sincos_arm64.go).

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define nLeft  R2  // elements left
#define spec   V9  // 0x92e847fe: the bits of 1e6's predecessor << 1
#define qadd   V10 // 0 (sin) or 1 (cos), added to n mod 4
#define twoopi V11 // 2/π
#define pio2A  V12 // π/2 to 33 bits
#define pio2B  V13 // the next 53 bits
#define pio2C  V14 // the rest
#define st0    V15 // sinT[0]
#define st1    V16 // sinT[1]
#define st2    V17 // sinT[2]
#define st3    V18 // sinT[3]
#define ct0    V19 // cosT[0]
#define ct1    V20 // cosT[1]
#define ct2    V21 // cosT[2]
#define ct3    V22 // cosT[3]
#define ct4    V23 // cosT[4]
#define sgnd   V24 // 0x8000000000000000: the sign, and -0
#define scale  V25 // 2^896
#define oned   V26 // 1.0
#define int1   V27 // 1 as an integer
#define magic  V28 // M = 1.5·2^52
#define rbias  V29 // 2^28 - 1 - 896<<52
#define tiny   V30 // 2^-97
#define sublim V31 // 0x380fffffffffffff

// SINCOSD(x, c, d, e, f, g): x = the float32 bits of sinCos64(x) (cos
// where qadd is 1) in the low words of its D lanes. Clobbers c–g.
#define SINCOSD(x, c, d, e, f, g) \
	MULD(twoopi, x, c);                     /* c = x·2/π */ \
	ROUNDN(c, d, c);                        /* c = n, d = n + M */ \
	VFMLS   pio2A.D2, c.D2, x.D2;           /* x = r = x - n·pio2A */ \
	VFMLS   pio2B.D2, c.D2, x.D2;           /* r -= n·pio2B */ \
	VFMLS   pio2C.D2, c.D2, x.D2;           /* r -= n·pio2C */ \
	MULD(x, x, c);                          /* c = rr = r·r */ \
	HSTEPD(st2, st3, c, e);                 /* e = S2 + rr·S3 */ \
	HSTEPD(st1, e, c, f);                   /* f = S1 + rr·e */ \
	HSTEPD(st0, f, c, e);                   /* e = S(rr) = S0 + rr·f */ \
	MULD(x, c, f);                          /* f = r·rr */ \
	HSTEPD(x, f, e, g);                     /* g = r + r·rr·S(rr) */ \
	VBIT    sgnd.B16, x.B16, g.B16;         /* g = sin r, with the sign of r */ \
	HSTEPD(ct3, ct4, c, e);                 /* e = C3 + rr·C4 */ \
	HSTEPD(ct2, e, c, f);                   /* f = C2 + rr·e */ \
	HSTEPD(ct1, f, c, e);                   /* e = C1 + rr·f */ \
	HSTEPD(ct0, e, c, f);                   /* f = C(rr) = C0 + rr·e */ \
	HSTEPD(oned, f, c, e);                  /* e = cos r = 1 + rr·C(rr) */ \
	VADD    qadd.D2, d.D2, d.D2;            /* d = q: n mod 4 (+1 for cos) in the low bits */ \
	VCMTST  int1.D2, d.D2, c.D2;            /* c = ones where q is odd */ \
	VBIT    c.B16, e.B16, g.B16;            /* g = v = cos r there, sin r elsewhere */ \
	VSHL    $62, d.D2, d.D2;                /* d = q's bit 1 at the sign */ \
	VAND    sgnd.B16, d.B16, d.B16;         /* d = the sign where q&2 */ \
	VEOR    d.B16, g.B16, g.B16;            /* g = -v there */ \
	NARROW(g, x, c, d, e)                   /* x = float32(v)'s bits */

// SINCOSV: V0 = sin (cos) of the four float32 lanes of V0, or to stop
// when one is beyond 1e6's predecessor, an Inf or a NaN. Clobbers R4,
// R5, V1–V7.
#define SINCOSV \
	STOPIF(V0, spec, V1, stop);             /* |x| ≥ 1e6, Inf or NaN: to the twin */ \
	WIDEN(V0, V1, V2, V3, V4);              /* V1:V2 = float64(x) */ \
	SINCOSD(V1, V3, V4, V5, V6, V7);        /* V1 = lanes 0:2's bits */ \
	SINCOSD(V2, V3, V4, V5, V6, V7);        /* V2 = lanes 2:4's bits */ \
	VUZP1   V2.S4, V1.S4, V0.S4             /* V0 = the four float32 results */

// func sinCosF32(d, x []float32, k int) int: d[i] = sinGo1(x[i]) for
// k = 0, cosGo1(x[i]) for k = 1, up to the first vector (of four, or
// the single element of the tail) holding |x| ≥ 1e6, an Inf or a NaN.
//
// In:  d, x with len(x) ≥ len(d); k.
// Out: d written up to that vector; the elements written. Clobbers R0–R6,
// V0–V31.
TEXT ·sinCosF32(SB), NOSPLIT, $0-64
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	MOVD    k+48(FP), R3                    // R3 = k
	VDUP    R3, qadd.D2                     // qadd = k in every D lane
	SPLAT(0x92e847fe, spec)                 // spec = 1e6's predecessor's bits << 1
	SPLATD(0x3fe45f306dc9c883, twoopi)      // twoopi = 0.6366197723675814
	SPLATD(0x3ff921fb54400000, pio2A)       // pio2A = 1.5707963267341256
	SPLATD(0x3dd0b4611a626331, pio2B)       // pio2B = 6.077100506506192e-11
	SPLATD(0x3a71701b839a2520, pio2C)       // pio2C = 3.5215598651832e-27
	SPLATD(0xbfc5555555555555, st0)         // st0 = -1/6
	SPLATD(0x3f81111111111111, st1)         // st1 = 1/120
	SPLATD(0xbf2a01a01a01a01a, st2)         // st2 = -1/5040
	SPLATD(0x3ec71de3a556c734, st3)         // st3 = 1/362880
	SPLATD(0xbfe0000000000000, ct0)         // ct0 = -1/2
	SPLATD(0x3fa5555555555555, ct1)         // ct1 = 1/24
	SPLATD(0xbf56c16c16c16c17, ct2)         // ct2 = -1/720
	SPLATD(0x3efa01a01a01a01a, ct3)         // ct3 = 1/40320
	SPLATD(0xbe927e4fb7789f5c, ct4)         // ct4 = -1/3628800
	F64CONSTS                               // sgnd, scale, oned, int1, magic, rbias, tiny, sublim
	UNLOOPSTOP(SINCOSV, ret+56(FP))         // d = sin (cos) x, up to a stop
