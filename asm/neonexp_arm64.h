// The pieces of e^x that the NEON kernels share (unary_exp_arm64.s's EXPV,
// gelu_arm64.s's GELUV): the reduction of expReduce and the polynomial of
// expm1Poly (unary_generic.go), written with neonmath_arm64.h's MULV and
// HSTEP (include that first).
//
// The including file #defines the register roles these use (besides
// neonmath_arm64.h's sgn and ones):
//   log2e          log2e
//   magic          M = 1.5·2^23 + K, K even, in every lane: M + x·log2e
//                  rounds x·log2e to the nearest integer n, ties to even
//                  (M's parity is n's), and bits(M + n) = bits(M) + n
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
