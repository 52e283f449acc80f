//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"

// Conversions between float32 and the 16-bit float formats, NEON, 8
// elements per step (the caller converts the last len%8). Go's arm64
// assembler has no FCVTL/FCVTN nor vector FMUL/FADD, so float16 is built
// from integer ops and exact fused multiply-adds (VFMLA): x·y = 0 + x·y,
// x + y = x + 1·y, each rounded once as the scalar FMUL/FADD would.

// Register roles.
#define dPtr  R0  // next element of dst
#define sPtr  R1  // next element of src
#define nLeft R2  // elements left, a multiple of 8
#define round V16 // 0x7fff in every lane
#define one   V17 // 1 in every lane
#define nan   V18 // 0x7fc0 in every lane
#define inf   V19 // 0x7f800000 in every lane
#define absm  V20 // 0x7fffffff in every lane
#define hinf  V21 // 0x7c00 in every lane: float16's Inf, its exponent mask
#define habs  V22 // 0x7fff in every lane: float16's all but the sign
#define p112  V23 // 2^112 (float32) in every lane
#define m3ff  V24 // 0x3ff in every lane: float16's mantissa mask
#define sign  V25 // 0x80000000 in every lane
#define bias  V26 // 0xfff - (112 << 23) (mod 2^32) in every lane
#define fone  V27 // 1.0 (float32) in every lane
#define half  V28 // 0.5 (float32, bits 0x3f000000) in every lane
#define subl  V29 // 0x387fffff in every lane: the largest float32 below 2^-14
#define quiet V30 // 0x200 in every lane: float16's quiet bit
#define hsign V31 // 0x8000 in every halfword

#define ARGS \
	MOVD    d_base+0(FP), dPtr;             /* dPtr = &d[0] */ \
	MOVD    d_len+8(FP), nLeft;             /* nLeft = len(d) */ \
	MOVD    s_base+24(FP), sPtr             /* sPtr = &s[0] */

// func bf16to32NEON(d []float32, s []uint16): d[i] = s[i] << 16.
TEXT ·bf16to32NEON(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, sPtr, nLeft from the arguments
loop:
	VLD1.P  16(sPtr), [V0.H8]               // V0 = s[0:8]
	VUXTL   V0.H4, V1.S4                    // V1 = s[0:4] widened
	VUXTL2  V0.H8, V2.S4                    // V2 = s[4:8] widened
	VSHL    $16, V1.S4, V1.S4               // into the top halves
	VSHL    $16, V2.S4, V2.S4               // into the top halves
	VST1.P  [V1.S4, V2.S4], 32(dPtr)        // d[0:8] = V1:V2
	SUB     $8, nLeft                       // 8 done
	CBNZ    nLeft, loop                     // until none left
	RET

// ROUNDBF(u, r, t): r = bfloat16 bits of the float32 bits u in its low
// halfwords (0x7fc0 for NaN), as f32tobfGo. Clobbers t.
#define ROUNDBF(u, r, t) \
	VUSHR   $16, u.S4, r.S4;                /* r = u >> 16 */ \
	VAND    one.B16, r.B16, r.B16;          /* r = the lowest kept bit */ \
	VADD    round.S4, r.S4, r.S4;           /* r += 0x7fff */ \
	VADD    u.S4, r.S4, r.S4;               /* r += u */ \
	VUSHR   $16, r.S4, r.S4;                /* r = the rounded top half */ \
	VAND    absm.B16, u.B16, t.B16;         /* t = |u| */ \
	VUMAX   inf.S4, t.S4, t.S4;             /* t = max(|u|, Inf bits) */ \
	VCMEQ   inf.S4, t.S4, t.S4;             /* t = not NaN */ \
	VBIF    t.B16, nan.B16, r.B16           /* r = NaN bits where t is 0 */

// func f32tobfNEON(d []uint16, s []float32): d[i] = bfloat16(s[i]).
TEXT ·f32tobfNEON(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, sPtr, nLeft from the arguments
	SPLAT(0x7fff, round)                    // round = 0x7fff
	SPLAT(1, one)                           // one = 1
	SPLAT(0x7fc0, nan)                      // nan = 0x7fc0
	SPLAT(0x7f800000, inf)                  // inf = Inf bits
	SPLAT(0x7fffffff, absm)                 // absm = all but the sign
loop:
	VLD1.P  32(sPtr), [V0.S4, V1.S4]        // V0:V1 = s[0:8]
	ROUNDBF(V0, V2, V4)                     // V2 = s[0:4] rounded
	ROUNDBF(V1, V3, V4)                     // V3 = s[4:8] rounded
	VUZP1   V3.H8, V2.H8, V5.H8             // V5 = their low halfwords
	VST1.P  [V5.H8], 16(dPtr)               // d[0:8] = V5
	SUB     $8, nLeft                       // 8 done
	CBNZ    nLeft, loop                     // until none left
	RET

// WIDEN16(u, r, m, t): r = float32 bits of the float16 bits u (one per
// lane, zero-extended), as f16to32Go: |h|'s bits shifted into float32's
// places read as 2^-112·|h| (subnormal halves as float32 subnormals), so
// one exact multiply by 2^112 gives |h|, normalised; exponent 31 (Inf,
// NaN) comes out as 2^16·1.m and gets exponent 255 ORed in, plus the quiet
// bit when m != 0; then h's sign. Clobbers u, m, t.
#define WIDEN16(u, r, m, t) \
	VAND    habs.B16, u.B16, m.B16;         /* m = |h| */ \
	VSHL    $13, m.S4, t.S4;                /* t = |h| in float32's places */ \
	VEOR    r.B16, r.B16, r.B16;            /* r = +0 */ \
	VFMLA   p112.S4, t.S4, r.S4;            /* r = 0 + t·2^112 (exact) */ \
	VAND    hinf.B16, m.B16, t.B16;         /* t = h's exponent bits */ \
	VCMEQ   hinf.S4, t.S4, t.S4;            /* t = all ones where h is Inf or NaN */ \
	VAND    inf.B16, t.B16, t.B16;          /* t = 0x7f800000 there */ \
	VORR    t.B16, r.B16, r.B16;            /* r's exponent = 255 there */ \
	VADD    m3ff.S4, m.S4, m.S4;            /* bit 15 of m = |h| > 0x7c00 (NaN) */ \
	VUSHR   $15, m.S4, m.S4;                /* m = 1 where h is NaN, else 0 */ \
	VSHL    $22, m.S4, m.S4;                /* m = float32's quiet bit there */ \
	VORR    m.B16, r.B16, r.B16;            /* r = a quiet NaN there */ \
	VSHL    $16, u.S4, u.S4;                /* u = h's sign at bit 31 */ \
	VBIT    sign.B16, u.B16, r.B16          /* r's sign = h's sign */

// func f16to32NEON(d []float32, s []uint16): d[i] = float32(float16 s[i]).
TEXT ·f16to32NEON(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, sPtr, nLeft from the arguments
	SPLAT(0x7f800000, inf)                  // inf = Inf bits
	SPLAT(0x7c00, hinf)                     // hinf = float16's exponent mask
	SPLAT(0x7fff, habs)                     // habs = float16's all but the sign
	SPLAT(0x77800000, p112)                 // p112 = 2^112
	SPLAT(0x3ff, m3ff)                      // m3ff = float16's mantissa mask
	SPLAT(0x80000000, sign)                 // sign = the sign bit
loop:
	VLD1.P  16(sPtr), [V0.H8]               // V0 = s[0:8]
	VUXTL   V0.H4, V1.S4                    // V1 = s[0:4] widened
	VUXTL2  V0.H8, V2.S4                    // V2 = s[4:8] widened
	WIDEN16(V1, V3, V5, V6)                 // V3 = s[0:4] as float32
	WIDEN16(V2, V4, V5, V6)                 // V4 = s[4:8] as float32
	VST1.P  [V3.S4, V4.S4], 32(dPtr)        // d[0:8] = V3:V4
	SUB     $8, nLeft                       // 8 done
	CBNZ    nLeft, loop                     // until none left
	RET

// NARROW16(u, r, a, s, t): r = float16 bits of the float32 bits u in its
// low halfwords, but for the sign (bit 15 is left for the caller), as
// f32to16Go. |u| >= 2^-14 (a half normal or larger): the exponent
// rebiased and the mantissa rounded to nearest even in one integer add of
// 0xfff plus the lowest kept bit (its carry runs into the exponent), then
// clamped to Inf. |u| < 2^-14 (a half subnormal or 0): |u| + 0.5 rounds
// |u| to a multiple of 2^-24 (0.5's ulp) in the float add, which leaves
// the half bits in the low ones. NaN: 0x7e00 | the top of the payload.
// Clobbers a, s, t.
#define NARROW16(u, r, a, s, t) \
	VAND    absm.B16, u.B16, a.B16;         /* a = |u| */ \
	VUSHR   $13, a.S4, r.S4;                /* r = a >> 13 */ \
	VAND    one.B16, r.B16, r.B16;          /* r = the lowest kept bit */ \
	VADD    bias.S4, r.S4, r.S4;            /* r += 0xfff - (112 << 23) */ \
	VADD    a.S4, r.S4, r.S4;               /* r += a */ \
	VUSHR   $13, r.S4, r.S4;                /* r = the half bits, rounded */ \
	VUMIN   hinf.S4, r.S4, r.S4;            /* r = Inf if it overflowed */ \
	VMOV    a.B16, s.B16;                   /* s = a */ \
	VFMLA   fone.S4, half.S4, s.S4;         /* s = a + 0.5·1, rounded */ \
	VSUB    half.S4, s.S4, s.S4;            /* s = its bits less 0.5's: the half bits */ \
	VUMIN   subl.S4, a.S4, t.S4;            /* t = min(a, below 2^-14) */ \
	VCMEQ   a.S4, t.S4, t.S4;               /* t = all ones where a < 2^-14 */ \
	VBIT    t.B16, s.B16, r.B16;            /* r = s there */ \
	VUSHR   $13, u.S4, s.S4;                /* s = the payload's top in bits 0-9 */ \
	VORR    quiet.B16, s.B16, s.B16;        /* s = 0x7e00 | it, in the low 15 bits */ \
	VUMAX   inf.S4, a.S4, t.S4;             /* t = max(a, Inf bits) */ \
	VCMEQ   inf.S4, t.S4, t.S4;             /* t = not NaN */ \
	VBIF    t.B16, s.B16, r.B16             /* r = s where t is 0 */

// func f32to16NEON(d []uint16, s []float32): d[i] = float16(s[i]).
TEXT ·f32to16NEON(SB), NOSPLIT, $0-48
	ARGS                                    // dPtr, sPtr, nLeft from the arguments
	SPLAT(1, one)                           // one = 1
	SPLAT(0x7f800000, inf)                  // inf = Inf bits
	SPLAT(0x7fffffff, absm)                 // absm = all but the sign
	SPLAT(0x7c00, hinf)                     // hinf = float16's Inf
	SPLAT(0xc8000fff, bias)                 // bias = 0xfff - (112 << 23)
	SPLAT(0x3f800000, fone)                 // fone = 1.0
	SPLAT(0x3f000000, half)                 // half = 0.5
	SPLAT(0x387fffff, subl)                 // subl = the largest float32 below 2^-14
	SPLAT(0x200, quiet)                     // quiet = float16's quiet bit
	MOVW    $0x8000, R3                     // R3 = float16's sign bit
	VDUP    R3, hsign.H8                    // in every halfword
loop:
	VLD1.P  32(sPtr), [V0.S4, V1.S4]        // V0:V1 = s[0:8]
	NARROW16(V0, V2, V4, V5, V6)            // V2 = s[0:4] rounded
	NARROW16(V1, V3, V4, V5, V6)            // V3 = s[4:8] rounded
	VUZP1   V3.H8, V2.H8, V7.H8             // V7 = their low halfwords
	VUZP2   V1.H8, V0.H8, V8.H8             // V8 = s's top halfwords (sign at bit 15)
	VBIT    hsign.B16, V8.B16, V7.B16       // V7's signs = s's
	VST1.P  [V7.H8], 16(dPtr)               // d[0:8] = V7
	SUB     $8, nLeft                       // 8 done
	CBNZ    nLeft, loop                     // until none left
	RET
