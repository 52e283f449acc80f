//go:build !purego

#include "textflag.h"
#include "floatkey_arm64.h"

// The float32 row kernels of the reductions table, NEON: layer_norm's
// forward rows (scaleShift, affine), the layer/group-norm backward rows
// and the extremes. Go's arm64 assembler has no vector FADD or FMUL, so
// each rounded step of a twin is one fused multiply-add that rounds the
// same way (binary_arm64.s): a + b = a + 1·b and a·b = -0 + a·b (VFMLA),
// a twin's fma32 one VFMLA. The lanes and the order of the additions are
// the twins'.
//
// NaNs: hardware and twin agree on a NaN only where one NaN meets numbers
// (an Inf·0 or Inf-Inf gives the default NaN on both); where two meet, the
// twin's payload depends on how the compiler ordered the operands, and
// VFMLA puts its addend first. So a kernel keeps no result that saw a NaN
// operand: every operand flows into a result and a NaN stays a NaN, so a
// result that is not a NaN saw none. The row kernels check their results
// block by block of 8 before storing them and stop before a block with a
// NaN (the Go side runs the twin on it); the sums kernels leave that to
// the Go side, which looks at the 8 lane sums; NaN scalars run the twin
// from the start. scaleShift alone needs no check: with s and c not NaN
// only x can be a NaN, and VFMLA then gives x quieted, as the twin.

// Register roles of the row kernels.
#define dPtr   R0  // next element of the first output (its input too where in/out)
#define ePtr   R1  // next element of the second output (normGradWB's db), or of an input
#define xPtr   R2  // next element of an input
#define yPtr   R3  // next element of an input
#define zPtr   R6  // next element of an input
#define nSteps R4  // steps of 8 elements left
#define nDone  R5  // elements done
#define sc1    V20 // the first scalar in every lane
#define sc2    V21 // the second scalar
#define sc3    V22 // the third scalar
#define ones   V28 // 1 in every lane
#define negz   V29 // -0 (0x80000000) in every lane: FKEY's sign too
#define absm   V30 // 0x7fffffff in every lane: all bits but the sign
#define nanb   V31 // 0x007fffff in every lane: |v| + nanb has bit 31 iff v is NaN

// ROWSETUP fills ones, negz, absm and nanb.
#define ROWSETUP \
	FMOVS $1.0, F28;                         /* ones[0] = 1 */ \
	VDUP  V28.S[0], ones.S4;                 /* ones = 1 everywhere */ \
	MOVW  $0x80000000, R9;                   /* R9 = bits of -0 */ \
	VDUP  R9, negz.S4;                       /* negz = -0 everywhere */ \
	MOVW  $0x7fffffff, R9;                   /* R9 = all but the sign */ \
	VDUP  R9, absm.S4;                       /* absm everywhere */ \
	MOVW  $0x007fffff, R9;                   /* R9 = the mantissa bits */ \
	VDUP  R9, nanb.S4                        /* nanb everywhere */

// SCALAR(arg, F, V) puts the float32 argument arg in every lane of V (F
// being V's scalar name).
#define SCALAR(arg, F, V) \
	FMOVS arg, F;                            /* F = arg */ \
	VDUP  V.S[0], V.S4                       /* V = it everywhere */

// FMUL4(a, b, d): d = a·b rounded (-0 + a·b keeps the sign of a zero product).
#define FMUL4(a, b, d) \
	VMOV  negz.B16, d.B16;                   /* d = -0 */ \
	VFMLA b.S4, a.S4, d.S4                   /* d = -0 + a·b */

// FADD4(a, d): d = d + a rounded (d + 1·a).
#define FADD4(a, d) VFMLA a.S4, ones.S4, d.S4    /* d += 1·a */

// NANCHECK(a, b, out) branches to out when a lane of a or b is a NaN.
// Clobbers R9, R10, V26, V27.
#define NANCHECK(a, b, out) \
	VAND  absm.B16, a.B16, V26.B16;          /* V26 = |a| */ \
	VAND  absm.B16, b.B16, V27.B16;          /* V27 = |b| */ \
	VUMAX V26.S4, V27.S4, V26.S4;            /* V26 = the larger */ \
	VADD  nanb.S4, V26.S4, V26.S4;           /* bit 31 set where above 0x7f800000 */ \
	VMOV  V26.D[0], R9;                      /* R9 = lanes 0:2 */ \
	VMOV  V26.D[1], R10;                     /* R10 = lanes 2:4 */ \
	ORR   R9, R10, R10;                      /* R10 = both */ \
	TST   $0x8000000080000000, R10;          /* some bit 31? */ \
	BNE   out                                /* a NaN: stop */

// NOCHECK(a, b, out) checks nothing (scaleShift).
#define NOCHECK(a, b, out)

// ROWLOOP(STEP, CHECK, STORE, ret) runs STEP (loads 8 elements and leaves
// the results in V0:V1, and V2:V3 for a second output), CHECK(V0, V1) and
// CHECK(V2, V3) as STEP needs, then STORE, nSteps times; it returns the
// elements done in ret, stopping before a block CHECK rejects.
//
// In:  nSteps (may be 0), the pointers, ROWSETUP and the scalars done.
#define ROWLOOP(STEP, CHECK, STORE, ret) \
	MOVD  $0, nDone;                         /* nothing done */ \
	CBZ   nSteps, done;                      /* no whole block */ \
loop: \
	STEP;                                    /* V0:V1 (V2:V3) = the results */ \
	CHECK;                                   /* stop before a NaN */ \
	STORE;                                   /* the results out */ \
	ADD   $8, nDone;                         /* 8 more done */ \
	SUBS  $1, nSteps;                        /* one step done */ \
	BNE   loop;                              /* more */ \
done: \
	MOVD  nDone, ret;                        /* the elements done */ \
	RET

// STORED stores V0:V1 at dPtr (the one output).
#define STORED VST1.P [V0.S4, V1.S4], 32(dPtr)     /* d[0:8] = V0:V1 */
// CHECK1 and CHECK2 check the one output, or both.
#define CHECK1 NANCHECK(V0, V1, done)
#define CHECK2 \
	NANCHECK(V0, V1, done);                  /* the first output */ \
	NANCHECK(V2, V3, done)                   // the second

// SCALESHIFT4(x, d): d = fma(x, s, c), sc1 = s, sc2 = c.
#define SCALESHIFT4(x, d) \
	VMOV  sc2.B16, d.B16;                    /* d = c */ \
	VFMLA sc1.S4, x.S4, d.S4                 /* d = c + x·s, rounded once */
#define SCALESHIFTSTEP \
	VLD1.P 32(xPtr), [V4.S4, V5.S4];         /* V4:V5 = x[0:8] */ \
	SCALESHIFT4(V4, V0);                     /* V0 = d[0:4] */ \
	SCALESHIFT4(V5, V1)                      // V1 = d[4:8]

// func scaleShiftNEON(d, x []float32, s, c float32) int
//
// In:  len(d) = len(x), s and c not NaN. Out: d[i] = fma(x[i], s, c) for
// i < len(x)&^7, returned. Clobbers R0, R2, R4, R5, R9, V0, V1, V4, V5,
// V20, V21, V28–V31.
TEXT ·scaleShiftNEON(SB), NOSPLIT, $0-64
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nSteps                // nSteps = len(d)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  x_base+24(FP), xPtr                // xPtr = &x[0]
	ROWSETUP                                 // the constants
	SCALAR(s+48(FP), F20, sc1)               // sc1 = s
	SCALAR(c+52(FP), F21, sc2)               // sc2 = c
	ROWLOOP(SCALESHIFTSTEP, NOCHECK(V0, V1, done), STORED, ret+56(FP))

// AFFINE4(x, w, d): d = fma(fma(x, s, c), w, d), d loaded with b; V6 scratch.
#define AFFINE4(x, w, d) \
	SCALESHIFT4(x, V6);                      /* V6 = fma(x, s, c) */ \
	VFMLA w.S4, V6.S4, d.S4                  /* d = b + V6·w, rounded once */
#define AFFINESTEP \
	VLD1.P 32(xPtr), [V4.S4, V5.S4];         /* V4:V5 = x[0:8] */ \
	VLD1.P 32(yPtr), [V2.S4, V3.S4];         /* V2:V3 = w[0:8] */ \
	VLD1.P 32(zPtr), [V0.S4, V1.S4];         /* V0:V1 = b[0:8] */ \
	AFFINE4(V4, V2, V0);                     /* V0 = d[0:4] */ \
	AFFINE4(V5, V3, V1)                      // V1 = d[4:8]

// func affineNEON(d, x, w, b []float32, s, c float32) int
//
// In:  len(d) = len(x) = len(w) = len(b), s and c not NaN. Out: d[i] =
// fma(fma(x[i], s, c), w[i], b[i]) for i < the returned count: the blocks
// of 8 up to len(x)&^7, stopping before one whose results hold a NaN.
// Clobbers R0, R2–R6, R9, R10, V0–V6, V20, V21, V26–V31.
TEXT ·affineNEON(SB), NOSPLIT, $0-112
	MOVD  d_base+0(FP), dPtr                 // dPtr = &d[0]
	MOVD  d_len+8(FP), nSteps                // nSteps = len(d)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  x_base+24(FP), xPtr                // xPtr = &x[0]
	MOVD  w_base+48(FP), yPtr                // yPtr = &w[0]
	MOVD  b_base+72(FP), zPtr                // zPtr = &b[0]
	ROWSETUP                                 // the constants
	SCALAR(s+96(FP), F20, sc1)               // sc1 = s
	SCALAR(c+100(FP), F21, sc2)              // sc2 = c
	ROWLOOP(AFFINESTEP, CHECK1, STORED, ret+104(FP))
