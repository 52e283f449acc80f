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

// FKEY64(u, k, t, sign, bias) is FKEY for float64 lanes (D2): sign holds
// 0x8000000000000000 in every lane. With bias = 2^52 the keys are
//
//	-Inf → 0, ±0 → 0x7ff0000000000000, +Inf → 0xffe0000000000000,
//	NaNs → 0xffe0000000000001 and up.
//
// Clobbers t (u may not be k).
#define FKEY64(u, k, t, sign, bias) \
	VCMTST sign.D2, u.D2, t.D2;              /* t = all ones where u is negative */ \
	VORR   sign.B16, t.B16, k.B16;           /* k = t | sign */ \
	VEOR   u.B16, k.B16, k.B16;              /* k = ^u (negative) or u | sign */ \
	VSUB   t.D2, k.D2, k.D2;                 /* k -= t: ^u + 1 = -u where negative */ \
	VSUB   bias.D2, k.D2, k.D2               /* k -= bias */

// ULT64(a, b, m, t, sign): m = all ones in the 64-bit lanes where a < b
// (unsigned), else 0. NEON has no 64-bit VUMAX, VUMIN or VCMHI; a < b is
// the borrow out of a - b, which is bit 63 of b where the top bits of a
// and b differ and bit 63 of a - b where they are the same. Clobbers t
// (m may not be a or b).
#define ULT64(a, b, m, t, sign) \
	VEOR   a.B16, b.B16, t.B16;              /* t = a ^ b */ \
	VSUB   b.D2, a.D2, m.D2;                 /* m = a - b */ \
	VBIT   t.B16, b.B16, m.B16;              /* m = b's bits where a and b differ */ \
	VCMTST sign.D2, m.D2, m.D2               /* all ones where bit 63 (the borrow) is set */

// FNAN64(u, m, nanc, sign): m = all ones in the lanes where the float64 u
// is NaN (|u| > 0x7ff0000000000000), else 0; nanc holds 2^52-1 in every
// lane. u + nanc carries into bit 63 for a positive NaN and out of it for
// a negative one, and for no other u, so the sign of u + nanc differs from
// u's exactly for NaNs.
#define FNAN64(u, m, nanc, sign) \
	VADD   nanc.D2, u.D2, m.D2;              /* m = u + 2^52-1 */ \
	VEOR   u.B16, m.B16, m.B16;              /* bit 63: the sign changed */ \
	VCMTST sign.D2, m.D2, m.D2               /* all ones where it did: NaN */

// MAXKEEP(v, m, k, km, t, sign, bias, vnan, mnan): k = all ones in the
// lanes where a running maximum m keeps its place against a candidate v,
// 0 where it takes v, as `v > m || v != v` (maxidx_arm64.s). With bias
// 2^23 (keys -Inf → 0 … +Inf → 0xff000000, NaNs above), a NaN v's key is
// clamped to vnan = 0xff000001, above every number's, and a NaN m's to
// mnan = 0xff000000, +Inf's; then m keeps its place where key v ≤ key m:
// a number v against a NaN m (v > NaN is false), but not a NaN v against
// a NaN m (v != v). ±0 share a key (+0 > -0 is false). Clobbers km, t.
#define MAXKEEP(v, m, k, km, t, sign, bias, vnan, mnan) \
	FKEY(v, k, t, sign, bias);               /* k = the key of v */ \
	VUMIN  vnan.S4, k.S4, k.S4;              /* a NaN v's: vnan */ \
	FKEY(m, km, t, sign, bias);              /* km = the key of m */ \
	VUMIN  mnan.S4, km.S4, km.S4;            /* a NaN m's: mnan */ \
	VUMAX  k.S4, km.S4, t.S4;                /* t = the larger key */ \
	VCMEQ  km.S4, t.S4, k.S4                 /* k = ones where key v ≤ key m */
