// Float64 arithmetic for the NEON float32 kernels whose twins compute in
// float64 and round to float32 once (sin and cos: sincos_arm64.s). Go's
// arm64 assembler has no FCVTL, FCVTN, FRINT or vector FADD and FMUL, so:
//   - WIDEN makes float64(x) exactly from the float32 bits: the 31
//     magnitude bits shifted up by 29 (VUSHLL) read as |x|·2^-896, normal
//     and subnormal x alike, and times ±2^896 (the sign from bit 31) that
//     is float64(x), the product exact (as reduce_arm64.s widens);
//   - a product is -0 + m·n (MULD), a sum or Horner step p + m·n (HSTEPD),
//     each rounded once as the twin's operation or math.FMA;
//   - RoundToEven(t) is (t + M) - M with M = 1.5·2^52 (ROUNDN), exact for
//     |t| < 2^51; the bits of t + M are bits(M) + n, so n mod 4 is in the
//     low bits, as the twins read int64(n + M);
//   - NARROW rounds to float32 (nearest, ties to even) with integer ops:
//     at bit 29 of the float64 bits and rebiased for results from 2^-126,
//     and below, where float32 is subnormal, by the float64 sum 2^-97 + |v|,
//     whose mantissa bits are then the subnormal's (its ulp is 2^-149);
//   - two D2 vectors of float32 bits pack into one S4 vector by VUZP1.
//
// The including file #defines the register roles these use (D lanes):
//   sgnd   0x8000000000000000: the sign, and -0 (WIDEN, MULD, NARROW)
//   scale  2^896 (WIDEN)
//   oned   1.0 (ROUNDN, NARROW)
//   int1   1 as an integer (NARROW)
//   magic  M = 1.5·2^52 (ROUNDN)
//   rbias  2^28 - 1 - 896<<52: the rounding bias less the exponents'
//          difference (NARROW)
//   tiny   2^-97 (NARROW)
//   sublim 0x380fffffffffffff: the high word of 2^-126's bits less one,
//          the low word all ones (NARROW)
//   log2e, ln2hi, ln2lo, c1023 and et0–et6: log2 e, ln2Hi64, ln2Lo64,
//          1023 as an integer and expT (EXPD)
// and dPtr, xPtr, nLeft, the loop's pointers and count (UNLOOPSTOP).

// SPLATD(c, v) puts the 64-bit constant c in every D lane of v. Clobbers R3.
#define SPLATD(c, v) \
	MOVD    $c, R3;                         /* R3 = c */ \
	VDUP    R3, v.D2                        /* in every D lane */

// F64CONSTS sets the constants of the register roles this file uses:
// sgnd, scale, oned, int1, magic, rbias, tiny and sublim.
#define F64CONSTS \
	SPLATD(0x8000000000000000, sgnd);       /* sgnd = -0 */ \
	SPLATD(0x77f0000000000000, scale);      /* scale = 2^896 */ \
	SPLATD(0x3ff0000000000000, oned);       /* oned = 1 */ \
	SPLATD(0x0000000000000001, int1);       /* int1 = 1 */ \
	SPLATD(0x4338000000000000, magic);      /* magic = 1.5·2^52 */ \
	SPLATD(0xc80000000fffffff, rbias);      /* rbias = 2^28 - 1 - 896<<52 */ \
	SPLATD(0x39e0000000000000, tiny);       /* tiny = 2^-97 */ \
	SPLATD(0x380fffffffffffff, sublim)      /* sublim = 2^-126's high word - 1, ones */

// EXPDCONSTS sets the constants EXPD uses: log2e, ln2hi, ln2lo, c1023
// and et0–et6 (expT).
#define EXPDCONSTS \
	SPLATD(0x3ff71547652b82fe, log2e);      /* log2e = 1.4426950408889634 */ \
	SPLATD(0x3fe62e42fee00000, ln2hi);      /* ln2hi = 0.6931471803691238 */ \
	SPLATD(0x3dea39ef35793c76, ln2lo);      /* ln2lo = 1.9082149292705877e-10 */ \
	SPLATD(0x00000000000003ff, c1023);      /* c1023 = 1023 */ \
	SPLATD(0x3fe0000000000000, et0);        /* et0 = 1/2 */ \
	SPLATD(0x3fc5555555555555, et1);        /* et1 = 1/6 */ \
	SPLATD(0x3fa5555555555555, et2);        /* et2 = 1/24 */ \
	SPLATD(0x3f81111111111111, et3);        /* et3 = 1/120 */ \
	SPLATD(0x3f56c16c16c16c17, et4);        /* et4 = 1/720 */ \
	SPLATD(0x3f2a01a01a01a01a, et5);        /* et5 = 1/5040 */ \
	SPLATD(0x3efa01a01a01a01a, et6)         /* et6 = 1/40320 */

// WIDEN(u, x0, x1, t0, t1): x0 = float64(u[0:2]), x1 = float64(u[2:4])
// of the float32 lanes u, exactly. Clobbers u, t0, t1.
#define WIDEN(u, x0, x1, t0, t1) \
	VSHL    $1, u.S4, t0.S4;                /* t0 = the bits of |u| << 1 */ \
	VUSHLL  $28, t0.S2, t1.D2;              /* t1 = |u[0:2]|·2^-896 (the bits << 29) */ \
	VUSHLL2 $28, t0.S4, t0.D2;              /* t0 = |u[2:4]|·2^-896 */ \
	VZIP1   u.S4, u.S4, x1.S4;              /* x1 = u[0:2], each in the top of its D lane */ \
	VBIF    sgnd.B16, scale.B16, x1.B16;    /* x1 = ±2^896 with their signs */ \
	VMOV    sgnd.B16, x0.B16;               /* x0 = -0 */ \
	VFMLA   t1.D2, x1.D2, x0.D2;            /* x0 = float64(u[0:2]) */ \
	VZIP2   u.S4, u.S4, u.S4;               /* u = u[2:4], likewise */ \
	VBIF    sgnd.B16, scale.B16, u.B16;     /* u = ±2^896 with their signs */ \
	VMOV    sgnd.B16, x1.B16;               /* x1 = -0 */ \
	VFMLA   t0.D2, u.D2, x1.D2              /* x1 = float64(u[2:4]) */

// MULD(m, n, d): d = n·m, rounded once (-0 + n·m).
#define MULD(m, n, d) \
	VMOV    sgnd.B16, d.B16;                /* d = -0 */ \
	VFMLA   m.D2, n.D2, d.D2                /* d = -0 + n·m */

// HSTEPD(p, m, n, d): d = p + n·m, rounded once: a Horner step (the
// twins' math.FMA(m, n, p)).
#define HSTEPD(p, m, n, d) \
	VMOV    p.B16, d.B16;                   /* d = p */ \
	VFMLA   m.D2, n.D2, d.D2                /* d = p + n·m */

// ROUNDN(t, q, n): n = RoundToEven(t) + 0 (+0, not -0, for t in
// [-0.5, 0]) and q = n + M, whose bits hold n in the low bits, for
// |t| < 2^51. n may be t.
#define ROUNDN(t, q, n) \
	VMOV    magic.B16, q.B16;               /* q = M */ \
	VFMLA   oned.D2, t.D2, q.D2;            /* q = M + t, rounded to an integer */ \
	VMOV    q.B16, n.B16;                   /* n = q */ \
	VFMLS   oned.D2, magic.D2, n.D2         /* n = q - M, exactly */

// EXPD(w, e, a, b, c, d): e = exp64(w) for w in [-700, 0] (no clamp):
// n = RoundToEven(w·log2 e), r = w - n·ln2Hi64 - n·ln2Lo64, y = r +
// r²·T(r) + 1 (expT by Horner steps), times 2^n from the bits of n + M.
// Clobbers w, a–d.
#define EXPD(w, e, a, b, c, d) \
	MULD(log2e, w, a);                      /* a = w·log2 e */ \
	ROUNDN(a, b, a);                        /* a = n, b = n + M */ \
	VFMLS   ln2hi.D2, a.D2, w.D2;           /* w = r = w - n·ln2Hi64 */ \
	VFMLS   ln2lo.D2, a.D2, w.D2;           /* r -= n·ln2Lo64 */ \
	HSTEPD(et5, et6, w, a);                 /* a = T5 + r·T6 */ \
	HSTEPD(et4, a, w, c);                   /* c = T4 + r·a */ \
	HSTEPD(et3, c, w, a);                   /* a = T3 + r·c */ \
	HSTEPD(et2, a, w, c);                   /* c = T2 + r·a */ \
	HSTEPD(et1, c, w, a);                   /* a = T1 + r·c */ \
	HSTEPD(et0, a, w, c);                   /* c = T(r) = T0 + r·a */ \
	MULD(w, w, a);                          /* a = r² */ \
	HSTEPD(w, c, a, d);                     /* d = r + r²·T(r) */ \
	VFMLA   oned.D2, oned.D2, d.D2;         /* d = y = d + 1 */ \
	VADD    c1023.D2, b.D2, b.D2;           /* b = bits(M) + n + 1023 */ \
	VSHL    $52, b.D2, b.D2;                /* b = 2^n: n + 1023 in the exponent */ \
	MULD(b, d, e)                           /* e = y·2^n */

// DIVLANED(n, d, q, i, fn, fd): q[i] = n[i] / d[i] (FDIVD, rounded
// once); fn and fd are the F names of two spare vector registers.
// Clobbers R4, fn, fd.
#define DIVLANED(n, d, q, i, fn, fd) \
	VMOV    n.D[i], R4;                     /* R4 = n[i] */ \
	FMOVD   R4, fn;                         /* fn = n[i] */ \
	VMOV    d.D[i], R4;                     /* R4 = d[i] */ \
	FMOVD   R4, fd;                         /* fd = d[i] */ \
	FDIVD   fd, fn, fn;                     /* fn = n[i] / d[i] */ \
	FMOVD   fn, R4;                         /* R4 = the quotient */ \
	VMOV    R4, q.D[i]                      /* q[i] = R4 */

// NARROW(v, f, a, b, c): f = the float32 bits of v (rounded to nearest,
// ties to even) in the low word of each D lane, the high word 0, for
// finite v with |v| < 2^128. Clobbers v, a, b, c.
#define NARROW(v, f, a, b, c) \
	VAND    sgnd.B16, v.B16, a.B16;         /* a = the sign of v */ \
	VEOR    a.B16, v.B16, v.B16;            /* v = |v| */ \
	VUSHR   $29, v.D2, f.D2;                /* f = the bits >> 29 */ \
	VAND    int1.B16, f.B16, f.B16;         /* f = 1 where they are odd (a tie goes up) */ \
	VADD    rbias.D2, f.D2, f.D2;           /* f += 2^28 - 1 - 896<<52 */ \
	VADD    v.D2, f.D2, f.D2;               /* f = the bits rounded at bit 29, rebiased */ \
	VUSHR   $29, f.D2, f.D2;                /* f = the float32 bits of |v| ≥ 2^-126 */ \
	VMOV    tiny.B16, b.B16;                /* b = 2^-97 */ \
	VFMLA   oned.D2, v.D2, b.D2;            /* b = 2^-97 + |v|: |v| to a multiple of 2^-149 */ \
	VSUB    tiny.D2, b.D2, b.D2;            /* b = the float32 bits of |v| < 2^-126 */ \
	VUMAX   sublim.S4, v.S4, c.S4;          /* c = sublim where the high word ≤ sublim's */ \
	VCMEQ   sublim.D2, c.D2, c.D2;          /* c = ones where |v| < 2^-126 */ \
	VBIT    c.B16, b.B16, f.B16;            /* f = b there */ \
	VUSHR   $32, a.D2, a.D2;                /* a = the sign at bit 31 */ \
	VORR    a.B16, f.B16, f.B16             /* f = the float32 bits of v */

// STOPIF(u, lim, t, label) jumps to label when a float32 lane of u has
// the bits of |u|, shifted left by one, above lim's (in every S lane).
// Clobbers R4, R5, t.
#define STOPIF(u, lim, t, label) \
	VSHL    $1, u.S4, t.S4;                 /* t = the bits of |u| << 1 */ \
	VUMAX   lim.S4, t.S4, t.S4;             /* t = max(t, lim) */ \
	VEOR    lim.B16, t.B16, t.B16;          /* t ≠ 0 where |u| is beyond */ \
	VMOV    t.D[0], R4;                     /* R4 = lanes 0:2 */ \
	VMOV    t.D[1], R5;                     /* R5 = lanes 2:4 */ \
	ORR     R4, R5, R5;                     /* R5 = both */ \
	CBNZ    R5, label                       /* some lane is beyond */

// UNLOOPSTOP(STEP, ret) runs d[i] = f(x[i]) over nLeft elements with one
// copy of STEP (V0 = f(V0)): one vector per step, then one element at a
// time in lane 0 (lanes 1–3 zero), as UNLOOP1. STEP may jump to stop,
// leaving the vector (or element) it was given to the caller; the
// elements done are stored at ret.
//
// In:  dPtr, xPtr, nLeft and the constants.
// Out: dst written, ret; clobbers R0–R2, R6, V0.
#define UNLOOPSTOP(STEP, ret) \
	MOVD    nLeft, R6;                      /* R6 = the elements to do */ \
loop: \
	CBZ     nLeft, stop;                    /* nothing left? */ \
	CMP     $4, nLeft;                      /* a vector left? */ \
	BLT     load1;                          /* no: one element */ \
	VLD1.P  16(xPtr), [V0.S4];              /* V0 = x */ \
	B       compute;                        /* to compute */ \
load1: \
	FMOVS.P 4(xPtr), F0;                    /* V0 = x[i], 0, 0, 0 */ \
compute: \
	STEP;                                   /* V0 = f(V0), or to stop */ \
	CMP     $4, nLeft;                      /* a vector? */ \
	BLT     store1;                         /* no: one element */ \
	VST1.P  [V0.S4], 16(dPtr);              /* dst = V0 */ \
	SUB     $4, nLeft;                      /* 4 done */ \
	B       loop;                           /* the next */ \
store1: \
	FMOVS.P F0, 4(dPtr);                    /* dst = lane 0 */ \
	SUB     $1, nLeft;                      /* one done */ \
	B       loop;                           /* the next */ \
stop: \
	SUB     nLeft, R6, R6;                  /* R6 = the elements done */ \
	MOVD    R6, ret;                        /* returned */ \
	RET
