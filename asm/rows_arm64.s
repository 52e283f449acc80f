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

// The layer/group-norm backward rows: sc1, sc2, sc3 hold their scalars.

// NGDX4(dy, x, w, d): d = fma(b, x, (rs·dy)·w) + c, sc1 = rs, sc2 = b,
// sc3 = c. Clobbers V6.
#define NGDX4(dy, x, w, d) \
	FMUL4(sc1, dy, V6);                      /* V6 = rs·dy */ \
	FMUL4(V6, w, d);                         /* d = (rs·dy)·w */ \
	VFMLA sc2.S4, x.S4, d.S4;                /* d += b·x, rounded once */ \
	FADD4(sc3, d)                            /* d += c */
#define NGDXSTEP \
	VLD1.P 32(xPtr), [V8.S4, V9.S4];         /* V8:V9 = dy[0:8] */ \
	VLD1.P 32(yPtr), [V10.S4, V11.S4];       /* V10:V11 = x[0:8] */ \
	VLD1.P 32(zPtr), [V12.S4, V13.S4];       /* V12:V13 = w[0:8] */ \
	NGDX4(V8, V10, V12, V0);                 /* V0 = dx[0:4] */ \
	NGDX4(V9, V11, V13, V1)                  // V1 = dx[4:8]

// func normGradDXNEON(dx, dy, x, w []float32, rs, b, c float32) int
//
// In:  the lengths equal, the scalars not NaN. Out: dx[i] = fma(b, x[i],
// (rs·dy[i])·w[i]) + c for i < the returned count, as affineNEON.
// Clobbers R0, R2–R6, R9, R10, V0, V1, V6, V8–V13, V20–V22, V26–V31.
TEXT ·normGradDXNEON(SB), NOSPLIT, $0-120
	MOVD  dx_base+0(FP), dPtr                // dPtr = &dx[0]
	MOVD  dx_len+8(FP), nSteps               // nSteps = len(dx)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  dy_base+24(FP), xPtr               // xPtr = &dy[0]
	MOVD  x_base+48(FP), yPtr                // yPtr = &x[0]
	MOVD  w_base+72(FP), zPtr                // zPtr = &w[0]
	ROWSETUP                                 // the constants
	SCALAR(rs+96(FP), F20, sc1)              // sc1 = rs
	SCALAR(b+100(FP), F21, sc2)              // sc2 = b
	SCALAR(c+104(FP), F22, sc3)              // sc3 = c
	ROWLOOP(NGDXSTEP, CHECK1, STORED, ret+112(FP))

// NGWB4(dy, x, dw, db): dw = fma(dy, fma(rs, x, nb), dw), db += dy, sc1 =
// rs, sc2 = nb. Clobbers V6.
#define NGWB4(dy, x, dw, db) \
	VMOV  sc2.B16, V6.B16;                   /* V6 = nb */ \
	VFMLA sc1.S4, x.S4, V6.S4;               /* V6 = nb + rs·x, rounded once */ \
	VFMLA V6.S4, dy.S4, dw.S4;               /* dw += dy·V6, rounded once */ \
	FADD4(dy, db)                            /* db += dy */
#define NGWBSTEP \
	VLD1  (dPtr), [V0.S4, V1.S4];            /* V0:V1 = dw[0:8] */ \
	VLD1  (ePtr), [V2.S4, V3.S4];            /* V2:V3 = db[0:8] */ \
	VLD1.P 32(xPtr), [V8.S4, V9.S4];         /* V8:V9 = dy[0:8] */ \
	VLD1.P 32(yPtr), [V10.S4, V11.S4];       /* V10:V11 = x[0:8] */ \
	NGWB4(V8, V10, V0, V2);                  /* dw, db [0:4] */ \
	NGWB4(V9, V11, V1, V3)                   // dw, db [4:8]
#define STOREWB \
	VST1.P [V0.S4, V1.S4], 32(dPtr);         /* dw[0:8] = V0:V1 */ \
	VST1.P [V2.S4, V3.S4], 32(ePtr)          // db[0:8] = V2:V3

// func normGradWBNEON(dw, db, dy, x []float32, rs, nb float32) int
//
// In:  the lengths equal, the scalars not NaN. Out: dw[i] = fma(dy[i],
// fma(rs, x[i], nb), dw[i]), db[i] += dy[i] for i < the returned count,
// as affineNEON (a block stops when dw or db would hold a NaN). Clobbers
// R0–R5, R9, R10, V0–V3, V6, V8–V11, V20, V21, V26–V31.
TEXT ·normGradWBNEON(SB), NOSPLIT, $0-112
	MOVD  dw_base+0(FP), dPtr                // dPtr = &dw[0]
	MOVD  dw_len+8(FP), nSteps               // nSteps = len(dw)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  db_base+24(FP), ePtr               // ePtr = &db[0]
	MOVD  dy_base+48(FP), xPtr               // xPtr = &dy[0]
	MOVD  x_base+72(FP), yPtr                // yPtr = &x[0]
	ROWSETUP                                 // the constants
	SCALAR(rs+96(FP), F20, sc1)              // sc1 = rs
	SCALAR(nb+100(FP), F21, sc2)             // sc2 = nb
	ROWLOOP(NGWBSTEP, CHECK2, STOREWB, ret+104(FP))

// GGDX4(dy, x, d): d = fma(c1, dy, c2·x) + c3, sc1:sc3 = c1:c3.
#define GGDX4(dy, x, d) \
	FMUL4(sc2, x, d);                        /* d = c2·x */ \
	VFMLA sc1.S4, dy.S4, d.S4;               /* d += c1·dy, rounded once */ \
	FADD4(sc3, d)                            /* d += c3 */
#define GGDXSTEP \
	VLD1.P 32(xPtr), [V8.S4, V9.S4];         /* V8:V9 = dy[0:8] */ \
	VLD1.P 32(yPtr), [V10.S4, V11.S4];       /* V10:V11 = x[0:8] */ \
	GGDX4(V8, V10, V0);                      /* V0 = dx[0:4] */ \
	GGDX4(V9, V11, V1)                       // V1 = dx[4:8]

// func groupGradDXNEON(dx, dy, x []float32, c1, c2, c3 float32) int
//
// In:  the lengths equal, the scalars not NaN. Out: dx[i] = fma(c1,
// dy[i], c2·x[i]) + c3 for i < the returned count, as affineNEON.
// Clobbers R0, R2–R5, R9, R10, V0, V1, V8–V11, V20–V22, V26–V31.
TEXT ·groupGradDXNEON(SB), NOSPLIT, $0-96
	MOVD  dx_base+0(FP), dPtr                // dPtr = &dx[0]
	MOVD  dx_len+8(FP), nSteps               // nSteps = len(dx)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  dy_base+24(FP), xPtr               // xPtr = &dy[0]
	MOVD  x_base+48(FP), yPtr                // yPtr = &x[0]
	ROWSETUP                                 // the constants
	SCALAR(c1+72(FP), F20, sc1)              // sc1 = c1
	SCALAR(c2+76(FP), F21, sc2)              // sc2 = c2
	SCALAR(c3+80(FP), F22, sc3)              // sc3 = c3
	ROWLOOP(GGDXSTEP, CHECK1, STORED, ret+88(FP))

// The sums kernels keep 8 lane sums s (V0:V1) and b (V2:V3), lane l
// taking the elements l, l+8, …; they store them at dPtr and ePtr. A NaN
// they meet stays in its lane, so the Go side tells by the sums.

// PRODS(dy, x, w, ps, pb): ps = (dy·x)·w and pb = dy·w, each product
// rounded (as the twin's float32(…), no fused add). Clobbers V6.
#define PRODS(dy, x, w, ps, pb) \
	FMUL4(dy, x, V6);                        /* V6 = dy·x */ \
	FMUL4(V6, w, ps);                        /* ps = (dy·x)·w */ \
	FMUL4(dy, w, pb)                         /* pb = dy·w */
#define NGSLOAD \
	VLD1.P 32(xPtr), [V8.S4, V9.S4];         /* V8:V9 = dy[0:8] */ \
	VLD1.P 32(yPtr), [V10.S4, V11.S4];       /* V10:V11 = x[0:8] */ \
	VLD1.P 32(zPtr), [V12.S4, V13.S4]        /* V12:V13 = w[0:8] */

// func normGradSumsNEON(s, b *[8]float32, dy, x, w []float32)
//
// In:  len(dy) = len(x) = len(w) a positive multiple of 8. Out: s[l] and
// b[l] as normGradSumsGo: the products of elements l < 8 are the start,
// those of l+8, l+16, … added in turn. Clobbers R0–R4, R6, R9, V0–V3,
// V6, V8–V17, V28–V31.
TEXT ·normGradSumsNEON(SB), NOSPLIT, $0-88
	MOVD  s+0(FP), dPtr                      // dPtr = s
	MOVD  b+8(FP), ePtr                      // ePtr = b
	MOVD  dy_base+16(FP), xPtr               // xPtr = &dy[0]
	MOVD  dy_len+24(FP), nSteps              // nSteps = len(dy)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  x_base+40(FP), yPtr                // yPtr = &x[0]
	MOVD  w_base+64(FP), zPtr                // zPtr = &w[0]
	ROWSETUP                                 // the constants
	NGSLOAD                                  // the first 8 elements
	PRODS(V8, V10, V12, V0, V2)              // s, b [0:4] = their products
	PRODS(V9, V11, V13, V1, V3)              // s, b [4:8] likewise
	SUBS  $1, nSteps                         // one step done
	BEQ   ngsDone                            // no more
ngsLoop:
	NGSLOAD                                  // the next 8
	PRODS(V8, V10, V12, V14, V16)            // V14, V16 = ps, pb [0:4]
	PRODS(V9, V11, V13, V15, V17)            // V15, V17 = ps, pb [4:8]
	FADD4(V14, V0)                           // s[0:4] += ps
	FADD4(V15, V1)                           // s[4:8] += ps
	FADD4(V16, V2)                           // b[0:4] += pb
	FADD4(V17, V3)                           // b[4:8] += pb
	SUBS  $1, nSteps                         // one step done
	BNE   ngsLoop                            // more
ngsDone:
	VST1  [V0.S4, V1.S4], (dPtr)             // s = V0:V1
	VST1  [V2.S4, V3.S4], (ePtr)             // b = V2:V3
	RET

// func groupGradSumsNEON(s, b *[8]float32, dy, x []float32)
//
// In:  len(dy) = len(x) a positive multiple of 8. Out: s[l] and b[l] as
// groupGradSumsGo: from +0, s[l] = fma(dy, x, s[l]) and b[l] += dy over
// the elements l, l+8, … in turn. Clobbers R0–R4, R9, V0–V3, V8–V11,
// V28–V31.
TEXT ·groupGradSumsNEON(SB), NOSPLIT, $0-64
	MOVD  s+0(FP), dPtr                      // dPtr = s
	MOVD  b+8(FP), ePtr                      // ePtr = b
	MOVD  dy_base+16(FP), xPtr               // xPtr = &dy[0]
	MOVD  dy_len+24(FP), nSteps              // nSteps = len(dy)
	LSR   $3, nSteps                         // in steps of 8
	MOVD  x_base+40(FP), yPtr                // yPtr = &x[0]
	ROWSETUP                                 // the constants
	VEOR  V0.B16, V0.B16, V0.B16             // s[0:4] = +0
	VEOR  V1.B16, V1.B16, V1.B16             // s[4:8] = +0
	VEOR  V2.B16, V2.B16, V2.B16             // b[0:4] = +0
	VEOR  V3.B16, V3.B16, V3.B16             // b[4:8] = +0
ggsLoop:
	VLD1.P 32(xPtr), [V8.S4, V9.S4]          // V8:V9 = dy[0:8]
	VLD1.P 32(yPtr), [V10.S4, V11.S4]        // V10:V11 = x[0:8]
	VFMLA V10.S4, V8.S4, V0.S4               // s[0:4] += dy·x, rounded once
	VFMLA V11.S4, V9.S4, V1.S4               // s[4:8] likewise
	FADD4(V8, V2)                            // b[0:4] += dy
	FADD4(V9, V3)                            // b[4:8] += dy
	SUBS  $1, nSteps                         // one step done
	BNE   ggsLoop                            // more
	VST1  [V0.S4, V1.S4], (dPtr)             // s = V0:V1
	VST1  [V2.S4, V3.S4], (ePtr)             // b = V2:V3
	RET

// The extremes compare the order keys of floatkey_arm64.h with VUMAX or
// VUMIN, biased as binary_arm64.s's maximum and minimum:
//
//	max: bias 2^23, numbers 0..0xff000000, NaNs above, clamped (VUMIN)
//	     to 0xff000001;
//	min: bias 0xff800001, numbers 0x00ffffff..0xffffffff, NaNs below,
//	     clamped (VUMAX) to 0x00fffffe.
//
// A lane of maxLanes/minLanes takes x where its clamped key strictly wins
// over the lane's (PICK(key x, key lane) != key lane): a NaN replaces a
// number, never another NaN, ±0 tie, as the twins' maxBetter/minBetter.

// Register roles of the extremes (besides xPtr, nSteps and negz above).
#define vPtr  R0  // maxLanes/minLanes: the lanes' values out
#define iPtr  R1  // maxLanes/minLanes: the lanes' indices out
#define bias  V24 // the keys' bias in every lane
#define nank  V25 // the key every NaN is clamped to
#define eight V26 // 8 in every lane

// KEYSETUP(B, N) puts the sign bit in negz, B in bias and N in nank.
#define KEYSETUP(B, N) \
	MOVW  $0x80000000, R9;                   /* R9 = the sign bit */ \
	VDUP  R9, negz.S4;                       /* negz = it everywhere */ \
	MOVW  $B, R9;                            /* R9 = the bias */ \
	VDUP  R9, bias.S4;                       /* bias everywhere */ \
	MOVW  $N, R9;                            /* R9 = the NaN key */ \
	VDUP  R9, nank.S4                        /* nank everywhere */

// KEY(u, k, CLAMP): k = the key of u, NaNs clamped to nank. Clobbers V27.
#define KEY(u, k, CLAMP) \
	FKEY(u, k, V27, negz, bias);             /* k = the key of u */ \
	CLAMP nank.S4, k.S4, k.S4                /* every NaN one key */

// LANES4(x, v, k, i, c, CLAMP, PICK): where the key of x strictly wins
// over k, v = x, i = c and k = its key. Clobbers V23, V27.
#define LANES4(x, v, k, i, c, CLAMP, PICK) \
	KEY(x, V23, CLAMP);                      /* V23 = the key of x */ \
	PICK  V23.S4, k.S4, V27.S4;              /* V27 = the winning key */ \
	VCMEQ k.S4, V27.S4, V23.S4;              /* V23 = all ones where k wins or ties */ \
	VMOV  V27.B16, k.B16;                    /* k = the winning key */ \
	VBIF  V23.B16, x.B16, v.B16;             /* v = x where x wins */ \
	VBIF  V23.B16, c.B16, i.B16              /* i = its index there */

// LANES(B, N, CLAMP, PICK) is maxLanesNEON (minLanesNEON): lane l in V0:V1
// (values), V2:V3 (their keys), V4:V5 (indices); V6:V7 the indices of
// the elements at hand.
//
// In:  vPtr, iPtr, xPtr, nSteps > 0 (LANESARGS). Out: v, idx. Clobbers
// R0–R2, R4, R9, V0–V7, V16, V17, V23–V27, V29.
#define LANES(B, N, CLAMP, PICK) \
	KEYSETUP(B, N);                          /* negz, bias, nank */ \
	MOVD  $0x0000000100000000, R9;           /* R9 = indices 0, 1 */ \
	VMOV  R9, V4.D[0];                       /* V4[0:2] = 0, 1 */ \
	MOVD  $0x0000000300000002, R9;           /* R9 = indices 2, 3 */ \
	VMOV  R9, V4.D[1];                       /* V4 = 0, 1, 2, 3 */ \
	MOVW  $4, R9;                            /* R9 = 4 */ \
	VDUP  R9, eight.S4;                      /* eight = 4 for now */ \
	VADD  eight.S4, V4.S4, V5.S4;            /* V5 = 4, 5, 6, 7 */ \
	VADD  eight.S4, eight.S4, eight.S4;      /* eight = 8 */ \
	VADD  eight.S4, V4.S4, V6.S4;            /* V6 = 8, …, 11 */ \
	VADD  eight.S4, V5.S4, V7.S4;            /* V7 = 12, …, 15 */ \
	VLD1.P 32(xPtr), [V0.S4, V1.S4];         /* the lanes = x[0:8] */ \
	KEY(V0, V2, CLAMP);                      /* V2 = their keys */ \
	KEY(V1, V3, CLAMP);                      /* V3 likewise */ \
	SUBS  $1, nSteps;                        /* one step done */ \
	BEQ   done;                              /* no more */ \
loop: \
	VLD1.P 32(xPtr), [V16.S4, V17.S4];       /* V16:V17 = x[0:8] */ \
	LANES4(V16, V0, V2, V4, V6, CLAMP, PICK); /* lanes 0:4 */ \
	LANES4(V17, V1, V3, V5, V7, CLAMP, PICK); /* lanes 4:8 */ \
	VADD  eight.S4, V6.S4, V6.S4;            /* the next indices */ \
	VADD  eight.S4, V7.S4, V7.S4;            /* likewise */ \
	SUBS  $1, nSteps;                        /* one step done */ \
	BNE   loop;                              /* more */ \
done: \
	VST1  [V0.S4, V1.S4], (vPtr);            /* v = the lanes' values */ \
	VST1  [V4.S4, V5.S4], (iPtr);            /* idx = their indices */ \
	RET

// func maxLanesNEON(v *[8]float32, idx *[8]int32, x []float32)
//
// maxLanesGo for len(x) a positive multiple of 8 (LANES).
TEXT ·maxLanesNEON(SB), NOSPLIT, $0-40
	MOVD  v+0(FP), vPtr                      // vPtr = v
	MOVD  idx+8(FP), iPtr                    // iPtr = idx
	MOVD  x_base+16(FP), xPtr                // xPtr = &x[0]
	MOVD  x_len+24(FP), nSteps               // nSteps = len(x)
	LSR   $3, nSteps                         // in steps of 8
	LANES(0x00800000, 0xff000001, VUMIN, VUMAX)

// func minLanesNEON(v *[8]float32, idx *[8]int32, x []float32)
//
// minLanesGo for len(x) a positive multiple of 8 (LANES).
TEXT ·minLanesNEON(SB), NOSPLIT, $0-40
	MOVD  v+0(FP), vPtr                      // vPtr = v
	MOVD  idx+8(FP), iPtr                    // iPtr = idx
	MOVD  x_base+16(FP), xPtr                // xPtr = &x[0]
	MOVD  x_len+24(FP), nSteps               // nSteps = len(x)
	LSR   $3, nSteps                         // in steps of 8
	LANES(0xff800001, 0x00fffffe, VUMAX, VUMIN)

// EXTKEY(B, PICK) is maxKeyNEON (minKeyNEON): the PICK of the keys of x
// (bias B, NaNs not clamped), folded in V0:V1, then across the lanes.
//
// In:  xPtr, nSteps > 0. Out: the key in R9. Clobbers R2, R4, R9, V0–V3,
// V16, V17, V24, V27, V29.
#define EXTKEY(B, PICK) \
	KEYSETUP(B, 0);                          /* negz, bias */ \
	VLD1.P 32(xPtr), [V16.S4, V17.S4];       /* V16:V17 = x[0:8] */ \
	FKEY(V16, V0, V27, negz, bias);          /* V0 = their keys */ \
	FKEY(V17, V1, V27, negz, bias);          /* V1 likewise */ \
	SUBS  $1, nSteps;                        /* one step done */ \
	BEQ   fold;                              /* no more */ \
loop: \
	VLD1.P 32(xPtr), [V16.S4, V17.S4];       /* V16:V17 = x[0:8] */ \
	FKEY(V16, V2, V27, negz, bias);          /* V2 = their keys */ \
	FKEY(V17, V3, V27, negz, bias);          /* V3 likewise */ \
	PICK  V2.S4, V0.S4, V0.S4;               /* V0 = PICK(V0, V2) */ \
	PICK  V3.S4, V1.S4, V1.S4;               /* V1 = PICK(V1, V3) */ \
	SUBS  $1, nSteps;                        /* one step done */ \
	BNE   loop;                              /* more */ \
fold: \
	PICK  V1.S4, V0.S4, V0.S4;               /* V0 = PICK of both */ \
	VEXT  $8, V0.B16, V0.B16, V1.B16;        /* V1 = V0's halves swapped */ \
	PICK  V1.S4, V0.S4, V0.S4;               /* lanes 0, 1 = PICK of the halves */ \
	VEXT  $4, V0.B16, V0.B16, V1.B16;        /* V1 = V0 rotated by a lane */ \
	PICK  V1.S4, V0.S4, V0.S4;               /* lane 0 = PICK of all */ \
	VMOV  V0.S[0], R9                        // R9 = it

// func maxKeyNEON(x []float32) uint32
//
// The largest key of x (max bias: a NaN's is above 0xff000000).
TEXT ·maxKeyNEON(SB), NOSPLIT, $0-28
	MOVD  x_base+0(FP), xPtr                 // xPtr = &x[0]
	MOVD  x_len+8(FP), nSteps                // nSteps = len(x)
	LSR   $3, nSteps                         // in steps of 8
	EXTKEY(0x00800000, VUMAX)
	MOVW  R9, ret+24(FP)                     // returned
	RET

// func minKeyNEON(x []float32) uint32
//
// The smallest key of x (min bias: a NaN's is below 0x00ffffff).
TEXT ·minKeyNEON(SB), NOSPLIT, $0-28
	MOVD  x_base+0(FP), xPtr                 // xPtr = &x[0]
	MOVD  x_len+8(FP), nSteps                // nSteps = len(x)
	LSR   $3, nSteps                         // in steps of 8
	EXTKEY(0xff800001, VUMIN)
	MOVW  R9, ret+24(FP)                     // returned
	RET
