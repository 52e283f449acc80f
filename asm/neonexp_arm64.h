// The pieces of e^x that the NEON kernels share (unary_exp_arm64.s's EXPV,
// gelu_arm64.s's GELUV): the reduction of expReduce and the polynomial of
// expm1Poly (unary_generic.go), written with neonmath_arm64.h's MULV and
// HSTEP (include that first), and the constants they take (EXPCONSTS, with
// neon_arm64.h's SPLAT).
//
// The including file #defines the register roles these use (besides
// neonmath_arm64.h's sgn and ones):
//   log2e          log2e
//   magic          M = 1.5·2^23 + K, K even, in every lane: M + x·log2e
//                  rounds x·log2e to the nearest integer n, ties to even
//                  (M being even, M + n has n's parity), and
//                  bits(M + n) = bits(M) + n
//   nln2hi, nln2lo -ln2Hi, -ln2Lo
//   q0–q4          expQ[0..4]

// EXPREDUCE(a, n, w): a = r = a - n·ln 2 (two fused steps) with n =
// round(a·log2e), as expReduce; n = n as a float and w = M + n, whose
// bits are bits(M) + n. Exact for |a·log2e| < 2^22 - K.
#define EXPREDUCE(a, n, w) \
	MULV(log2e, a, n);                      /* n = a·log2e */ \
	VMOV    magic.B16, w.B16;               /* w = M */ \
	VFMLA   ones.S4, n.S4, w.S4;            /* w = M + n, n = round(a·log2e) */ \
	VMOV    w.B16, n.B16;                   /* n = M + n */ \
	VFMLS   ones.S4, magic.S4, n.S4;        /* n = n */ \
	VFMLA   nln2hi.S4, n.S4, a.S4;          /* a = a - n·ln2Hi */ \
	VFMLA   nln2lo.S4, n.S4, a.S4           /* a = r = a - n·ln2Lo */

// EXPM1POLY(a, b, d): a = e^r - 1 = r + r²·Q(r) for a = r, as expm1Poly.
// Clobbers b, d.
#define EXPM1POLY(a, b, d) \
	HSTEP(q3, q4, a, b);                    /* b = Q3 + Q4·r */ \
	HSTEP(q2, b, a, d);                     /* d = Q2 + b·r */ \
	HSTEP(q1, d, a, b);                     /* b = Q1 + d·r */ \
	HSTEP(q0, b, a, d);                     /* d = Q(r) = Q0 + b·r */ \
	MULV(a, a, b);                          /* b = r² */ \
	VFMLA   d.S4, b.S4, a.S4                /* a = r + r²·Q = e^r - 1 */

// EXPCONSTS sets nln2hi, nln2lo and q0–q4 (neon_arm64.h's SPLAT: clobbers
// R3).
#define EXPCONSTS \
	SPLAT(0xbf318000, nln2hi);              /* nln2hi = -0.693359375 */ \
	SPLAT(0x395e8083, nln2lo);              /* nln2lo = 2.12194440e-4 */ \
	SPLAT(0x3efffffe, q0);                  /* q0 = 0.49999994 */ \
	SPLAT(0x3e2aaa49, q1);                  /* q1 = 0.16666521 */ \
	SPLAT(0x3d2aac56, q2);                  /* q2 = 0.04166826 */ \
	SPLAT(0x3c091cbd, q3);                  /* q3 = 0.008368668 */ \
	SPLAT(0x3ab528b3, q4)                   /* q4 = 0.0013821333 */
