// Float32 order keys for NEON (binary_arm64.s, select_arm64.s). Go's arm64
// assembler has no vector float compare, min or max (FCMxx, FMAX, FMIN) and
// no signed compare, so those kernels map each float to an unsigned key that
// orders as the floats do and compare the keys with VUMAX/VUMIN and VCMEQ
// (a ≤ b ⇔ umax(a, b) == b).
//
// FKEY(u, k, t, sign, bias) sets k to the key of the float32 bits in each
// lane of u: -u (the two's complement) where u is negative, u | 2^31 where
// it is not, minus the lanes of bias. -0 and +0 get the same key (2^31),
// so they compare equal. With bias = 2^23 the keys are
//
//	-Inf → 0, ±0 → 0x7f800000, +Inf → 0xff000000, NaNs → 0xff000001 and up,
//
// every NaN above every number; another bias rotates that circle (mod
// 2^32). sign holds 0x80000000 in every lane. Clobbers t (u may not be k).
#define FKEY(u, k, t, sign, bias) \
	VCMTST sign.S4, u.S4, t.S4;              /* t = all ones where u is negative */ \
	VORR   sign.B16, t.B16, k.B16;           /* k = t | sign */ \
	VEOR   u.B16, k.B16, k.B16;              /* k = ^u (negative) or u | sign */ \
	VSUB   t.S4, k.S4, k.S4;                 /* k -= t: ^u + 1 = -u where negative */ \
	VSUB   bias.S4, k.S4, k.S4               /* k -= bias */
