//go:build !purego

#include "textflag.h"

// bfloat16 conversions, NEON integer ops, 8 elements per step (the caller
// converts the last len%8). Go's arm64 assembler has no FCVTL/FCVTN, so
// float16 runs its twins.

// Register roles.
#define dPtr  R0  // next element of dst
#define sPtr  R1  // next element of src
#define nLeft R2  // elements left, a multiple of 8
#define round V16 // 0x7fff in every lane
#define one   V17 // 1 in every lane
#define nan   V18 // 0x7fc0 in every lane
#define inf   V19 // 0x7f800000 in every lane
#define absm  V20 // 0x7fffffff in every lane

// func bf16to32NEON(d []float32, s []uint16): d[i] = s[i] << 16.
TEXT ·bf16to32NEON(SB), NOSPLIT, $0-48
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    s_base+24(FP), sPtr             // sPtr = &s[0]
loop:
	VLD1.P  16(sPtr), [V0.H8]               // V0 = s[0:8]
	VUXTL   V0.H4, V1.S4                    // V1 = s[0:4] widened
	VUXTL2  V0.H8, V2.S4                    // V2 = s[4:8] widened
	VSHL    $16, V1.S4, V1.S4               // into the top halves
	VSHL    $16, V2.S4, V2.S4                // into the top halves
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
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    s_base+24(FP), sPtr             // sPtr = &s[0]
	MOVW    $0x7fff, R3                      // R3 = 0x7fff
	VDUP    R3, round.S4                    // round = 0x7fff
	MOVW    $1, R3                           // R3 = 1
	VDUP    R3, one.S4                      // one = 1
	MOVW    $0x7fc0, R3                      // R3 = 0x7fc0
	VDUP    R3, nan.S4                      // nan = 0x7fc0
	MOVW    $0x7f800000, R3                  // R3 = 0x7f800000
	VDUP    R3, inf.S4                      // inf = Inf bits
	MOVW    $0x7fffffff, R3                  // R3 = 0x7fffffff
	VDUP    R3, absm.S4                     // absm = all but the sign
loop:
	VLD1.P  32(sPtr), [V0.S4, V1.S4]        // V0:V1 = s[0:8]
	ROUNDBF(V0, V2, V4)                     // V2 = s[0:4] rounded
	ROUNDBF(V1, V3, V4)                     // V3 = s[4:8] rounded
	VUZP1   V3.H8, V2.H8, V5.H8             // V5 = their low halfwords
	VST1.P  [V5.H8], 16(dPtr)               // d[0:8] = V5
	SUB     $8, nLeft                       // 8 done
	CBNZ    nLeft, loop                     // until none left
	RET
