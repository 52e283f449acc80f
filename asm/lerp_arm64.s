//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"

// x·a + y·b, NEON: eight elements (two vectors) a block, each product
// rounded (MULS4) before the sum (ADDS4), as the twin. The operands keep
// the twin's order, which decides the NaN where two meet: a·x and b·y
// (the weight first), then p + q (TestLerpNEONBits holds the twin to it).

// Register roles.
#define dPtr  R0  // next element of dst
#define xPtr  R1  // next element of x
#define yPtr  R2  // next element of y
#define nLeft R4  // elements left (R3: SPLAT's scratch)
#define va    V28 // a in every lane
#define vb    V29 // b in every lane
#define negz  V30 // -0 in every lane
#define ones  V31 // 1.0 in every lane

// func lerpF32NEON(dst, x []float32, a float32, y []float32, b float32)
// In:  len(dst) = len(x) = len(y), a positive multiple of 8.
// Out: as lerpGo. R0–R4, V0–V7, V28–V31 clobbered.
TEXT ·lerpF32NEON(SB), NOSPLIT, $0-84
	MOVD   dst_base+0(FP), dPtr     // dPtr = &dst[0]
	MOVD   dst_len+8(FP), nLeft     // nLeft = len(dst)
	MOVD   x_base+24(FP), xPtr      // xPtr = &x[0]
	MOVD   y_base+56(FP), yPtr      // yPtr = &y[0]
	FMOVS  a+48(FP), F28            // va[0] = a
	VDUP   V28.S[0], va.S4          // va = a everywhere
	FMOVS  b+80(FP), F29            // vb[0] = b
	VDUP   V29.S[0], vb.S4          // vb = b everywhere
	SPLAT(0x80000000, negz)         // negz = -0 everywhere (the sign bit)
	FMOVS  $1.0, F31                // ones[0] = 1
	VDUP   V31.S[0], ones.S4        // ones = 1 everywhere
loop:
	VLD1.P 32(xPtr), [V0.S4, V1.S4] // V0:V1 = x[i:i+8]
	VLD1.P 32(yPtr), [V2.S4, V3.S4] // V2:V3 = y[i:i+8]
	MULS4(va, V0, V4, negz)         // V4 = a·x, rounded
	MULS4(va, V1, V5, negz)         // V5 likewise
	MULS4(vb, V2, V6, negz)         // V6 = b·y, rounded
	MULS4(vb, V3, V7, negz)         // V7 likewise
	ADDS4(V6, V4, ones)             // V4 = a·x + b·y, rounded
	ADDS4(V7, V5, ones)             // V5 likewise
	VST1.P [V4.S4, V5.S4], 32(dPtr) // dst[i:i+8] stored
	SUB    $8, nLeft                // 8 done
	CBNZ   nLeft, loop              // more?
	RET
