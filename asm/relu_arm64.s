//go:build !purego

#include "textflag.h"

// relu, NEON: d[i] = +0 where x[i] < 0, else x[i] (-0 and NaNs kept), as
// reluGo1. Go's arm64 assembler has no vector FMAX or float compare, so it
// tests the bits: x < 0 ⇔ 0x80000001 ≤ bits ≤ 0xff800000 (a negative
// number other than -0, -Inf included) ⇔ bits - 0x80000001 ≤ 0x7f7fffff,
// unsigned, one VUMAX and one VCMEQ.

// Register roles.
#define dPtr  R0  // next element of dst
#define xPtr  R1  // next element of x
#define nLeft R2  // elements left
#define off   V28 // 0x7fffffff (= -0x80000001) in every lane
#define lim   V29 // 0x7f7fffff in every lane
#define zero  V30 // 0 in every lane

// RELUV(x, t): x = relu(x) on 4 lanes; clobbers t.
#define RELUV(x, t) \
	VADD  off.S4, x.S4, t.S4;                /* t = bits - 0x80000001 */ \
	VUMAX lim.S4, t.S4, t.S4;                /* t = max(t, lim) */ \
	VCMEQ lim.S4, t.S4, t.S4;                /* t = all ones where t ≤ lim: x < 0 */ \
	VBIT  t.B16, zero.B16, x.B16             /* x = +0 there */

// func reluF32NEON(d, x []float32): d[i] = x[i] < 0 ? +0 : x[i].
//
// 16 elements per step, then 4, then one (lane 0 of the vector form).
// Clobbers R0–R3, V0–V7, V28–V30.
TEXT ·reluF32NEON(SB), NOSPLIT, $0-48
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nLeft                 // nLeft = len(d)
	MOVD  x_base+24(FP), xPtr                // xPtr = &x[0]
	MOVW  $0x7fffffff, R3                    // R3 = -0x80000001
	VDUP  R3, off.S4                         // off everywhere
	MOVW  $0x7f7fffff, R3                    // R3 = the largest t of a negative x
	VDUP  R3, lim.S4                         // lim everywhere
	VEOR  zero.B16, zero.B16, zero.B16       // zero = 0
	CMP   $16, nLeft                         // 16 left?
	BLT   four                               // the 4-wide steps
loop16:
	VLD1.P 64(xPtr), [V0.S4, V1.S4, V2.S4, V3.S4] // V0:V3 = x
	RELUV(V0, V4)                            // V0 = relu(x)
	RELUV(V1, V5)                            // V1 = relu(x)
	RELUV(V2, V6)                            // V2 = relu(x)
	RELUV(V3, V7)                            // V3 = relu(x)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(dPtr) // dst = V0:V3
	SUB   $16, nLeft                         // 16 done
	CMP   $16, nLeft                         // 16 more?
	BGE   loop16                             // to loop16
four:
	CMP   $4, nLeft                          // 4 left?
	BLT   one                                // the single elements
	VLD1.P 16(xPtr), [V0.S4]                 // V0 = x
	RELUV(V0, V4)                            // V0 = relu(x)
	VST1.P [V0.S4], 16(dPtr)                 // dst = V0
	SUB   $4, nLeft                          // 4 done
	B     four                               // the 4-wide steps
one:
	CBZ   nLeft, done                        // nothing left?
	FMOVS.P 4(xPtr), F0                      // V0 lane 0 = x
	RELUV(V0, V4)                            // lane 0 = relu(x)
	FMOVS.P F0, 4(dPtr)                      // dst = lane 0
	SUB   $1, nLeft                          // one done
	B     one                                // the single elements
done:
	RET
