// The float32 arithmetic and loop macros of the NEON unary kernels
// (unary_exp_arm64.s and the kernels that include this file). Go's arm64
// assembler has no vector FMUL, FADD or FDIV, so a product is -0 + n·m
// (MULV), a sum or Horner step p + n·m (HSTEP), both rounded once as the
// plain operations, and a reciprocal comes from an integer seed and Newton
// steps (RECIP).
//
// The including file #defines the register roles these use:
//   sgn   0x80000000 (-0) in every lane (MULV)
//   ones  1 in every lane (NEWTON)
//   seed  0x7ef311c3 in every lane (RECIP)
//   mant  0x007fffff in every lane (RECIPFIX)
//   dPtr, xPtr, nLeft: the loops' pointers and count (UNLOOP, UNLOOP1).

// MULV(m, n, d): d = n·m, rounded once (-0 + n·m).
#define MULV(m, n, d) \
	VMOV    sgn.B16, d.B16;                 /* d = -0 */ \
	VFMLA   m.S4, n.S4, d.S4                /* d = -0 + n·m */

// HSTEP(p, m, n, d): d = p + n·m, rounded once: a Horner step, or with
// m = ones the sum p + n.
#define HSTEP(p, m, n, d) \
	VMOV    p.B16, d.B16;                   /* d = p */ \
	VFMLA   m.S4, n.S4, d.S4                /* d = p + n·m */

// RECIP(b, y, t): y = RN(1/b) for a normal b: the seed 0x7ef311c3 - bits(b),
// four NEWTON steps (which reach RN(1/b) but for a mantissa of all ones,
// where they stall at a tie) and RECIPFIX. Clobbers t.
#define RECIP(b, y, t) \
	VSUB    b.S4, seed.S4, y.S4;            /* y = y0 = seed - bits of b */ \
	NEWTON(b, y, t);                        /* y1 */ \
	NEWTON(b, y, t);                        /* y2 */ \
	NEWTON(b, y, t);                        /* y3 */ \
	NEWTON(b, y, t);                        /* y4 */ \
	RECIPFIX(b, y, t)                       /* y = RN(1/b) */

// NEWTON(b, y, t): y += y·(1 - b·y), a Newton step towards 1/b. Clobbers t.
#define NEWTON(b, y, t) \
	VMOV    ones.B16, t.B16;                /* t = 1 */ \
	VFMLS   b.S4, y.S4, t.S4;               /* t = 1 - b·y */ \
	VFMLA   t.S4, y.S4, y.S4                /* y = y + t·y */

// UNLOOP(V2STEP, V1STEP) runs d[i] = f(x[i]) over nLeft elements: two
// vectors per step (V2STEP: V12:V13 = f(V0:V1)), then one, then one element
// at a time in lane 0 (V1STEP: V12 = f(V0)).
//
// In:  dPtr, xPtr, nLeft and the constants.
// Out: dst written; clobbers R0–R2, V0–V13.
#define UNLOOP(V2STEP, V1STEP) \
	CMP     $8, nLeft;                      /* two vectors left? */ \
	BLT     four;                           /* the single vector */ \
loop8: \
	VLD1.P  32(xPtr), [V0.S4, V1.S4];       /* V0:V1 = x */ \
	V2STEP;                                 /* V12:V13 = f(V0:V1) */ \
	VST1.P  [V12.S4, V13.S4], 32(dPtr);     /* dst = V12:V13 */ \
	SUB     $8, nLeft;                      /* 8 done */ \
	CMP     $8, nLeft;                      /* 8 more? */ \
	BGE     loop8;                          /* again while 8 are left */ \
four: \
	CMP     $4, nLeft;                      /* a vector left? */ \
	BLT     one;                            /* the single elements */ \
	VLD1.P  16(xPtr), [V0.S4];              /* V0 = x */ \
	V1STEP;                                 /* V12 = f(V0) */ \
	VST1.P  [V12.S4], 16(dPtr);             /* dst = V12 */ \
	SUB     $4, nLeft;                      /* 4 done */ \
one: \
	CBZ     nLeft, done;                    /* nothing left? */ \
	FMOVS.P 4(xPtr), F0;                    /* V0 = x[i], 0, 0, 0 */ \
	V1STEP;                                 /* V12 = f(V0) */ \
	FMOVS.P F12, 4(dPtr);                   /* dst = lane 0 */ \
	SUB     $1, nLeft;                      /* one done */ \
	B       one;                            /* the single elements */ \
done: \
	RET

// UNLOOP1(STEP) runs d[i] = f(x[i]) over nLeft elements with one copy of
// STEP (V12 = f(V0)): one vector per step, then one element at a time in
// lane 0. For the kernels that keep more constants than UNLOOP's two
// vectors leave registers for (tanh, log), or whose STEP has a label
// (silu).
//
// In:  dPtr, xPtr, nLeft and the constants.
// Out: dst written; clobbers R0–R2, V0–V12.
#define UNLOOP1(STEP) \
loop: \
	CBZ     nLeft, done;                    /* nothing left? */ \
	CMP     $4, nLeft;                      /* a vector left? */ \
	BLT     load1;                          /* no: one element */ \
	VLD1.P  16(xPtr), [V0.S4];              /* V0 = x */ \
	B       compute;                        /* to compute */ \
load1: \
	FMOVS.P 4(xPtr), F0;                    /* V0 = x[i], 0, 0, 0 */ \
compute: \
	STEP;                                   /* V12 = f(V0) */ \
	CMP     $4, nLeft;                      /* a vector? */ \
	BLT     store1;                         /* no: one element */ \
	VST1.P  [V12.S4], 16(dPtr);             /* dst = V12 */ \
	SUB     $4, nLeft;                      /* 4 done */ \
	B       loop;                           /* the next */ \
store1: \
	FMOVS.P F12, 4(dPtr);                   /* dst = lane 0 */ \
	SUB     $1, nLeft;                      /* one done */ \
	B       loop;                           /* the next */ \
done: \
	RET

// RECIPFIX(b, y, t): y = RN(1/b) from the four Newton steps' y: one ulp
// more where b's mantissa is all ones (2^k·(2 - 2^-23), where y stalls at
// the tie 2^-k·(0.5 + 2^-25), rounded to 2^-k·0.5). Clobbers t.
#define RECIPFIX(b, y, t) \
	VAND    mant.B16, b.B16, t.B16;         /* t = the mantissa of b */ \
	VCMEQ   mant.S4, t.S4, t.S4;            /* t = -1 where it is all ones */ \
	VSUB    t.S4, y.S4, y.S4                /* y = y + 1 ulp there */

// DIVLANE(x, d, f, i): f[i] = x[i] / d[i] with FDIVS. Clobbers R5, F8, F9.
#define DIVLANE(x, d, f, i) \
	VMOV    x.S[i], R5;                     /* R5 = x[i] */ \
	FMOVS   R5, F8;                         /* F8 = x[i] */ \
	VMOV    d.S[i], R5;                     /* R5 = d[i] */ \
	FMOVS   R5, F9;                         /* F9 = d[i] */ \
	FDIVS   F9, F8, F8;                     /* F8 = x[i] / d[i] */ \
	FMOVS   F8, R5;                         /* R5 = the quotient */ \
	VMOV    R5, f.S[i]                      /* f[i] = R5 */

