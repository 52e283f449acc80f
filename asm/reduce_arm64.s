//go:build !purego

#include "textflag.h"

// Reductions with float64 running sums, NEON. Go's arm64 assembler has no
// FCVTL, so float32 lanes are widened with integer ops and one exact
// multiply: the 31 magnitude bits of a float32, shifted up by 29 into a
// float64 (VUSHLL), land as the float64 exponent and mantissa fields and
// read as |x|·2^-896, for normal and subnormal x alike (exponent 0 stays
// a float64 subnormal with the same mantissa). Times ±2^896 (the sign
// taken from bit 31) that is float64(x) exactly: the multiply only moves
// the exponent (and normalises a subnormal), so it fuses into the
// accumulating VFMLA with one rounding, as the twin's acc + float64(x).
// Exponent 255 (Inf, NaN) widens to a finite number: every kernel keeps
// the largest magnitude it saw (VUMAX into seen) and reports whether one
// reached 0x7f800000; the Go side then runs the twin instead. So the
// vector path sees only finite values and never makes a NaN, which is
// why the order of the operands of each addition does not matter.
//
// Sum i mod 16 (i mod 32 for moments) of element i is lane i mod 2 of
// vector (i mod 16)/2: the kernels store their 16 sums in order and the
// Go side adds them up as the twins (sum16, sum32).

// Register roles.
#define aPtr  R0  // the running sums out (moments: the first ones)
#define bPtr  R1  // moments: the second running sums out
#define xPtr  R2  // next element of x
#define yPtr  R3  // next element of y
#define nLeft R4  // elements (accRowsNEON: rows) left
#define seen  V27 // the largest magnitude bits seen in each lane (S4)
#define zero  V28 // 0
#define absm  V29 // 0x7fffffff in every S lane: all bits but the sign
#define sgn   V30 // 0x8000000000000000 in every D lane: the sign, and -0
#define scale V31 // 2^896 (0x77f0000000000000) in every D lane

// ARGSAXY loads the arguments of func(a *[16]float64, x, y []float32).
#define ARGSAXY \
	MOVD  a+0(FP), aPtr;                     /* aPtr = a */ \
	MOVD  x_base+8(FP), xPtr;                /* xPtr = &x[0] */ \
	MOVD  x_len+16(FP), nLeft;               /* nLeft = len(x) */ \
	MOVD  y_base+32(FP), yPtr                /* yPtr = &y[0] */

// SETUP sets the constants and clears seen.
#define SETUP \
	VEOR  zero.B16, zero.B16, zero.B16;      /* zero = 0 */ \
	MOVW  $0x7fffffff, R9;                   /* R9 = all but the sign */ \
	VDUP  R9, absm.S4;                       /* absm = it everywhere */ \
	MOVD  $0x8000000000000000, R9;           /* R9 = the sign of a float64 */ \
	VDUP  R9, sgn.D2;                        /* sgn = it everywhere */ \
	MOVD  $0x77f0000000000000, R9;           /* R9 = bits of 2^896 */ \
	VDUP  R9, scale.D2;                      /* scale = 2^896 everywhere */ \
	VEOR  seen.B16, seen.B16, seen.B16       /* nothing seen */

// ZERO8 clears the running sums V0–V7.
#define ZERO8 \
	VEOR  V0.B16, V0.B16, V0.B16;            /* V0 = 0 */ \
	VEOR  V1.B16, V1.B16, V1.B16;            /* V1 = 0 */ \
	VEOR  V2.B16, V2.B16, V2.B16;            /* V2 = 0 */ \
	VEOR  V3.B16, V3.B16, V3.B16;            /* V3 = 0 */ \
	VEOR  V4.B16, V4.B16, V4.B16;            /* V4 = 0 */ \
	VEOR  V5.B16, V5.B16, V5.B16;            /* V5 = 0 */ \
	VEOR  V6.B16, V6.B16, V6.B16;            /* V6 = 0 */ \
	VEOR  V7.B16, V7.B16, V7.B16             // V7 = 0

// SIGNS(s, h0, h1) sets h0:h1 = ±2^896 with the signs of the float32
// lanes 0:1 and 2:3 of s.
#define SIGNS(s, h0, h1) \
	VZIP1 s.S4, zero.S4, h0.S4;              /* h0 = s[0:2] in the top halves */ \
	VZIP2 s.S4, zero.S4, h1.S4;              /* h1 = s[2:4] likewise */ \
	VBIF  sgn.B16, scale.B16, h0.B16;        /* h0 = its sign, 2^896 */ \
	VBIF  sgn.B16, scale.B16, h1.B16         // h1 = its sign, 2^896

// MAG(u, w0, w1) sets w0:w1 = |u|·2^-896 as float64 (lanes 0:1, 2:3 of
// the float32 bits u; u becomes |u|) and keeps the largest in seen.
#define MAG(u, w0, w1) \
	VAND    absm.B16, u.B16, u.B16;          /* u = |u| */ \
	VUMAX   u.S4, seen.S4, seen.S4;          /* seen = max(seen, |u|) */ \
	VUSHLL  $29, u.S2, w0.D2;                /* w0 = |u[0:2]|·2^-896 */ \
	VUSHLL2 $29, u.S4, w1.D2                 // w1 = |u[2:4]|·2^-896

// WIDEN(u, w0, w1, h0, h1): float64(u[0:2]) = w0·h0, float64(u[2:4]) =
// w1·h1, exactly.
#define WIDEN(u, w0, w1, h0, h1) \
	SIGNS(u, h0, h1);                        /* h0:h1 = ±2^896 */ \
	MAG(u, w0, w1)                           // w0:w1 = |u|·2^-896

// ADDW(u, a0, a1) adds float64(u[0:4]) to the sums a0:a1 (V20–V23 scratch).
#define ADDW(u, a0, a1) \
	WIDEN(u, V20, V21, V22, V23);            /* u = V20:V21 · V22:V23 */ \
	VFMLA V20.D2, V22.D2, a0.D2;             /* a0 += float64(u[0:2]) */ \
	VFMLA V21.D2, V23.D2, a1.D2              // a1 += float64(u[2:4])

// DEV(u, c, d0, d1) sets d0:d1 = float64(u[0:4]) - c, c = -c in every D
// lane (V20–V23 scratch): -c + w·h, one rounding, as the twin's difference.
#define DEV(u, c, d0, d1) \
	WIDEN(u, V20, V21, V22, V23);            /* u = V20:V21 · V22:V23 */ \
	VMOV  c.B16, d0.B16;                     /* d0 = -c */ \
	VMOV  c.B16, d1.B16;                     /* d1 = -c */ \
	VFMLA V20.D2, V22.D2, d0.D2;             /* d0 = float64(u[0:2]) - c */ \
	VFMLA V21.D2, V23.D2, d1.D2              // d1 = float64(u[2:4]) - c

// STORE8(p) stores the 16 sums V0–V7 at p (p advances by 128).
#define STORE8(p) \
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(p); /* p[0:8] = V0:V3 */ \
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(p)  // p[8:16] = V4:V7

// ANYSPECIAL sets the flags to NE when some magnitude in seen reached
// 0x7f800000 (an Inf or a NaN went by), EQ otherwise. Clobbers R9, R10, V26.
#define ANYSPECIAL \
	MOVW  $0x00800000, R9;                   /* R9 = the lowest exponent bit */ \
	VDUP  R9, V26.S4;                        /* V26 = it everywhere */ \
	VADD  V26.S4, seen.S4, seen.S4;          /* bit 31 set where exponent 255 */ \
	VMOV  seen.D[0], R9;                     /* R9 = lanes 0:2 */ \
	VMOV  seen.D[1], R10;                    /* R10 = lanes 2:4 */ \
	ORR   R9, R10, R10;                      /* R10 = both */ \
	TST   $0x8000000080000000, R10           // NE: some bit 31

// RETOK(ret) stores true at ret when no Inf or NaN went by.
#define RETOK(ret) \
	ANYSPECIAL;                              /* EQ: all finite */ \
	CSET  EQ, R9;                            /* R9 = all finite */ \
	MOVB  R9, ret;                           /* returned */ \
	RET

// func sumNEON(a *[16]float64, x []float32) bool
//
// In:  len(x) a positive multiple of 16. Out: a[l] = Σ float64(x[i]) over
// i mod 16 = l, and true; false when x holds an Inf or a NaN (a is then
// meaningless). Clobbers R0, R2, R4, R9, R10, V0–V7, V16–V31.
TEXT ·sumNEON(SB), NOSPLIT, $0-33
	MOVD  a+0(FP), aPtr                      // aPtr = a
	MOVD  x_base+8(FP), xPtr                 // xPtr = &x[0]
	MOVD  x_len+16(FP), nLeft                // nLeft = len(x)
	SETUP                                    // constants, seen = 0
	ZERO8                                    // the sums = 0
sumLoop:
	VLD1.P 64(xPtr), [V16.S4, V17.S4, V18.S4, V19.S4] // V16:V19 = x[0:16]
	ADDW(V16, V0, V1)                        // sums 0:4 += x[0:4]
	ADDW(V17, V2, V3)                        // sums 4:8 += x[4:8]
	ADDW(V18, V4, V5)                        // sums 8:12 += x[8:12]
	ADDW(V19, V6, V7)                        // sums 12:16 += x[12:16]
	SUBS  $16, nLeft                         // 16 done
	BNE   sumLoop                            // more
	STORE8(aPtr)                             // a = the sums
	RETOK(ret+32(FP))                        // all finite?

// func sum2NEON(a, b *[16]float64, x, y []float32) bool
//
// In:  len(x) = len(y), a positive multiple of 16. Out: a and b as
// sumNEON's of x and of y (the same additions in the same order, two rows
// through one loop), and true; false when x or y holds an Inf or a NaN.
// Clobbers R0–R4, R9, R10, V0–V31.
TEXT ·sum2NEON(SB), NOSPLIT, $0-65
	MOVD  a+0(FP), aPtr                      // aPtr = a
	MOVD  b+8(FP), bPtr                      // bPtr = b
	MOVD  x_base+16(FP), xPtr                // xPtr = &x[0]
	MOVD  x_len+24(FP), nLeft                // nLeft = len(x)
	MOVD  y_base+40(FP), yPtr                // yPtr = &y[0]
	SETUP                                    // constants, seen = 0
	ZERO8                                    // x's sums = 0
	VEOR  V8.B16, V8.B16, V8.B16             // y's sums = 0
	VEOR  V9.B16, V9.B16, V9.B16
	VEOR  V10.B16, V10.B16, V10.B16
	VEOR  V11.B16, V11.B16, V11.B16
	VEOR  V12.B16, V12.B16, V12.B16
	VEOR  V13.B16, V13.B16, V13.B16
	VEOR  V14.B16, V14.B16, V14.B16
	VEOR  V15.B16, V15.B16, V15.B16
sum2Loop:
	VLD1.P 64(xPtr), [V16.S4, V17.S4, V18.S4, V19.S4] // V16:V19 = x[0:16]
	ADDW(V16, V0, V1)                        // x's sums 0:4 += x[0:4]
	ADDW(V17, V2, V3)                        // 4:8 += x[4:8]
	ADDW(V18, V4, V5)                        // 8:12 += x[8:12]
	ADDW(V19, V6, V7)                        // 12:16 += x[12:16]
	VLD1.P 64(yPtr), [V16.S4, V17.S4, V18.S4, V19.S4] // V16:V19 = y[0:16]
	ADDW(V16, V8, V9)                        // y's sums 0:4 += y[0:4]
	ADDW(V17, V10, V11)                      // 4:8 += y[4:8]
	ADDW(V18, V12, V13)                      // 8:12 += y[8:12]
	ADDW(V19, V14, V15)                      // 12:16 += y[12:16]
	SUBS  $16, nLeft                         // 16 of each done
	BNE   sum2Loop                           // more
	STORE8(aPtr)                             // a = x's sums
	VST1.P [V8.D2, V9.D2, V10.D2, V11.D2], 64(bPtr)    // b[0:8] = V8:V11
	VST1.P [V12.D2, V13.D2, V14.D2, V15.D2], 64(bPtr)  // b[8:16] = V12:V15
	RETOK(ret+64(FP))                        // all finite?

// DOT4(u, v, a0, a1) adds float64(u[k])·float64(v[k]), k < 4, to the sums
// a0:a1: x = -0 + |u|·2^-896·(±2^896) with the sign of the product, y =
// -0 + |v|·2^-896·2^896 (both exact), a += x·y (exact product, one
// rounding, as the twin's fused multiply-add). V8–V15, V24–V26 scratch.
#define DOT4(u, v, a0, a1) \
	VEOR  u.B16, v.B16, V24.B16;             /* V24 = the signs of the products */ \
	SIGNS(V24, V25, V26);                    /* V25:V26 = ±2^896 */ \
	MAG(u, V8, V9);                          /* V8:V9 = |u|·2^-896 */ \
	MAG(v, V10, V11);                        /* V10:V11 = |v|·2^-896 */ \
	VMOV  sgn.B16, V12.B16;                  /* V12 = -0 */ \
	VMOV  sgn.B16, V13.B16;                  /* V13 = -0 */ \
	VMOV  sgn.B16, V14.B16;                  /* V14 = -0 */ \
	VMOV  sgn.B16, V15.B16;                  /* V15 = -0 */ \
	VFMLA V8.D2, V25.D2, V12.D2;             /* V12 = ±|u[0:2]| */ \
	VFMLA V9.D2, V26.D2, V13.D2;             /* V13 = ±|u[2:4]| */ \
	VFMLA V10.D2, scale.D2, V14.D2;          /* V14 = |v[0:2]| */ \
	VFMLA V11.D2, scale.D2, V15.D2;          /* V15 = |v[2:4]| */ \
	VFMLA V12.D2, V14.D2, a0.D2;             /* a0 += u[0:2]·v[0:2] */ \
	VFMLA V13.D2, V15.D2, a1.D2              // a1 += u[2:4]·v[2:4]

// func dotNEON(a *[16]float64, x, y []float32) bool
//
// In:  len(x) = len(y) a positive multiple of 16. Out: a[l] = Σ
// float64(x[i])·float64(y[i]) over i mod 16 = l, and true; false when x
// or y holds an Inf or a NaN. Clobbers R0, R2–R4, R9, R10, V0–V31.
TEXT ·dotNEON(SB), NOSPLIT, $0-57
	ARGSAXY                                  // aPtr, xPtr, yPtr, nLeft from the arguments
	SETUP                                    // constants, seen = 0
	ZERO8                                    // the sums = 0
dotLoop:
	VLD1.P 64(xPtr), [V16.S4, V17.S4, V18.S4, V19.S4] // V16:V19 = x[0:16]
	VLD1.P 64(yPtr), [V20.S4, V21.S4, V22.S4, V23.S4] // V20:V23 = y[0:16]
	DOT4(V16, V20, V0, V1)                   // sums 0:4 += x·y [0:4]
	DOT4(V17, V21, V2, V3)                   // sums 4:8 += x·y [4:8]
	DOT4(V18, V22, V4, V5)                   // sums 8:12 += x·y [8:12]
	DOT4(V19, V23, V6, V7)                   // sums 12:16 += x·y [12:16]
	SUBS  $16, nLeft                         // 16 done
	BNE   dotLoop                            // more
	STORE8(aPtr)                             // a = the sums
	RETOK(ret+56(FP))                        // all finite?

// SQDEV4(u, a0, a1) adds (float64(u[k]) - m)², k < 4, to the sums a0:a1
// (fused, as the twin's math.FMA), V26 = -m.
#define SQDEV4(u, a0, a1) \
	DEV(u, V26, V24, V25);                   /* V24:V25 = x - m */ \
	VFMLA V24.D2, V24.D2, a0.D2;             /* a0 += (x-m)² [0:2] */ \
	VFMLA V25.D2, V25.D2, a1.D2              // a1 += (x-m)² [2:4]

// func sumSqDevNEON(a *[16]float64, x []float32, m float64) bool
//
// In:  len(x) a positive multiple of 16, m not NaN. Out: a[l] = Σ
// (float64(x[i]) - m)² over i mod 16 = l, and true; false when x holds an
// Inf or a NaN. Clobbers R0, R2, R4, R9, R10, V0–V7, V16–V31.
TEXT ·sumSqDevNEON(SB), NOSPLIT, $0-41
	MOVD  a+0(FP), aPtr                      // aPtr = a
	MOVD  x_base+8(FP), xPtr                 // xPtr = &x[0]
	MOVD  x_len+16(FP), nLeft                // nLeft = len(x)
	FMOVD m+32(FP), F26                      // F26 = m
	FNEGD F26, F26                           // F26 = -m
	VDUP  V26.D[0], V26.D2                   // V26 = -m everywhere
	SETUP                                    // constants, seen = 0
	ZERO8                                    // the sums = 0
sqDevLoop:
	VLD1.P 64(xPtr), [V16.S4, V17.S4, V18.S4, V19.S4] // V16:V19 = x[0:16]
	SQDEV4(V16, V0, V1)                      // sums 0:4
	SQDEV4(V17, V2, V3)                      // sums 4:8
	SQDEV4(V18, V4, V5)                      // sums 8:12
	SQDEV4(V19, V6, V7)                      // sums 12:16
	SUBS  $16, nLeft                         // 16 done
	BNE   sqDevLoop                          // more
	STORE8(aPtr)                             // a = the sums
	RETOK(ret+40(FP))                        // all finite?

// MOM4(u, a0, a1, b0, b1) adds d = float64(u[k]) - k to the sums a0:a1
// and d² (fused) to b0:b1, k < 4; V26 = -k, V18 = 1.
#define MOM4(u, a0, a1, b0, b1) \
	DEV(u, V26, V24, V25);                   /* V24:V25 = d */ \
	VFMLA V24.D2, V18.D2, a0.D2;             /* a0 += d [0:2] */ \
	VFMLA V25.D2, V18.D2, a1.D2;             /* a1 += d [2:4] */ \
	VFMLA V24.D2, V24.D2, b0.D2;             /* b0 += d² [0:2] */ \
	VFMLA V25.D2, V25.D2, b1.D2              // b1 += d² [2:4]

// func momentsNEON(a, b *[16]float64, x []float32, k float64) bool
//
// Half of momentsGo's 32 running sums: x[32j+l] for l < 16 and every j
// with 32j+16 ≤ len(x) (call it on x, then on x[16:], for all 32).
//
// In:  len(x) ≥ 16, k not NaN. Out: a[l] = Σ d, b[l] = Σ d² (fused), d =
// float64(x[32j+l]) - k, and true; false when those elements hold an Inf
// or a NaN. Clobbers R0–R2, R4, R9, R10, V0–V31.
TEXT ·momentsNEON(SB), NOSPLIT, $0-49
	MOVD  a+0(FP), aPtr                      // aPtr = a
	MOVD  b+8(FP), bPtr                      // bPtr = b
	MOVD  x_base+16(FP), xPtr                // xPtr = &x[0]
	MOVD  x_len+24(FP), nLeft                // nLeft = len(x)
	ADD   $16, nLeft                         // + 16
	LSR   $5, nLeft                          // nLeft = blocks of 32
	FMOVD k+40(FP), F26                      // F26 = k
	FNEGD F26, F26                           // F26 = -k
	VDUP  V26.D[0], V26.D2                   // V26 = -k everywhere
	FMOVD $1.0, F18                          // F18 = 1
	VDUP  V18.D[0], V18.D2                   // V18 = 1 everywhere
	SETUP                                    // constants, seen = 0
	ZERO8                                    // sums a = 0
	VEOR  V8.B16, V8.B16, V8.B16             // sums b = 0
	VEOR  V9.B16, V9.B16, V9.B16
	VEOR  V10.B16, V10.B16, V10.B16
	VEOR  V11.B16, V11.B16, V11.B16
	VEOR  V12.B16, V12.B16, V12.B16
	VEOR  V13.B16, V13.B16, V13.B16
	VEOR  V14.B16, V14.B16, V14.B16
	VEOR  V15.B16, V15.B16, V15.B16
momLoop:
	VLD1.P 32(xPtr), [V16.S4, V17.S4]        // V16:V17 = x[0:8]
	MOM4(V16, V0, V1, V8, V9)                // sums 0:4
	MOM4(V17, V2, V3, V10, V11)              // sums 4:8
	VLD1.P 32(xPtr), [V16.S4, V17.S4]        // V16:V17 = x[8:16]
	MOM4(V16, V4, V5, V12, V13)              // sums 8:12
	MOM4(V17, V6, V7, V14, V15)              // sums 12:16
	ADD   $64, xPtr                          // past the other half of the block
	SUBS  $1, nLeft                          // a block done
	BNE   momLoop                            // more
	STORE8(aPtr)                             // a = the sums of d
	VST1.P [V8.D2, V9.D2, V10.D2, V11.D2], 64(bPtr)    // b[0:8] = V8:V11
	VST1.P [V12.D2, V13.D2, V14.D2, V15.D2], 64(bPtr)  // b[8:16] = V12:V15
	RETOK(ret+48(FP))                        // all finite?

// SQD4(x, y, a0, a1) adds float64(float32((x-y)²)), 4 lanes, to the sums
// a0:a1, V12 = 1 and V13 = -0 in every float32 lane: x - 1·y and -0 +
// d·d round as the twin's float32 difference and square (binary_arm64.s's
// SubF32 and MulF32); the square, never negative, is widened and added
// (ADDW) unless it is an Inf or a NaN (seen). Clobbers x, V14, V20–V23.
#define SQD4(x, y, a0, a1) \
	VFMLS y.S4, V12.S4, x.S4;                /* x = x - y, rounded once */ \
	VMOV  V13.B16, V14.B16;                  /* V14 = -0 */ \
	VFMLA x.S4, x.S4, V14.S4;                /* V14 = (x-y)², rounded once */ \
	ADDW(V14, a0, a1)                        /* a0:a1 += float64(V14) */

// func sqDiffNEON(a *[16]float64, x, y []float32) bool
//
// In:  len(x) = len(y) a positive multiple of 16. Out: a[l] += Σ
// float64(float32((x[i]-y[i])²)) over i mod 16 = l in turn, as
// sqDiffLanesGo, and true; false when a square is an Inf or a NaN (a is
// then meaningless). Clobbers R0–R4, R9, R10, V0–V23, V26–V31.
TEXT ·sqDiffNEON(SB), NOSPLIT, $0-57
	ARGSAXY                                  // aPtr, xPtr, yPtr, nLeft from the arguments
	SETUP                                    // constants, seen = 0
	FMOVS $1.0, F12                          // F12 = 1
	VDUP  V12.S[0], V12.S4                   // V12 = 1 in every float32 lane
	MOVW  $0x80000000, R9                    // R9 = bits of float32 -0
	VDUP  R9, V13.S4                         // V13 = -0 in every float32 lane
	MOVD  aPtr, bPtr                         // bPtr = a
	VLD1.P 64(bPtr), [V0.D2, V1.D2, V2.D2, V3.D2] // V0:V3 = a[0:8]
	VLD1  (bPtr), [V4.D2, V5.D2, V6.D2, V7.D2] // V4:V7 = a[8:16]
sqdLoop:
	VLD1.P 64(xPtr), [V16.S4, V17.S4, V18.S4, V19.S4] // V16:V19 = x[0:16]
	VLD1.P 64(yPtr), [V8.S4, V9.S4, V10.S4, V11.S4]   // V8:V11 = y[0:16]
	SQD4(V16, V8, V0, V1)                    // sums 0:4
	SQD4(V17, V9, V2, V3)                    // sums 4:8
	SQD4(V18, V10, V4, V5)                   // sums 8:12
	SQD4(V19, V11, V6, V7)                   // sums 12:16
	SUBS  $16, nLeft                         // 16 done
	BNE   sqdLoop                            // more
	STORE8(aPtr)                             // a = the sums
	RETOK(ret+56(FP))                        // all finite?

// Register roles of accRowsNEON.
#define nCols   R5  // len(acc)
#define xCol    R6  // row 0 of the block of columns at hand
#define nRows   R7  // rows
#define xStride R8  // stride in bytes
#define nDone   R11 // columns done

// func accRowsNEON(acc []float64, x []float32, rows, stride int) int
//
// In:  len(acc) a positive multiple of 8, rows ≥ 1, x holding rows rows
// of len(acc) elements stride apart. Out: block by block of 8 columns,
// acc[i] += float64(x[r*stride+i]) for r = 0, 1, …, rows-1 in turn (the
// twin's additions, one rounding each); it stops before the first block
// whose rows hold an Inf or a NaN, leaving that block's acc untouched,
// and returns the columns done. Clobbers R0, R2, R4–R11, V0–V3, V16–V31.
TEXT ·accRowsNEON(SB), NOSPLIT, $0-72
	MOVD  acc_base+0(FP), aPtr               // aPtr = &acc[0]
	MOVD  acc_len+8(FP), nCols               // nCols = len(acc)
	MOVD  x_base+24(FP), xCol                // xCol = &x[0]
	MOVD  rows+48(FP), nRows                 // nRows = rows
	MOVD  stride+56(FP), xStride             // xStride = stride
	LSL   $2, xStride                        // in bytes
	MOVD  $0, nDone                          // no columns done
	SETUP                                    // constants
accBlock:
	VLD1  (aPtr), [V0.D2, V1.D2, V2.D2, V3.D2] // V0:V3 = acc[0:8]
	VEOR  seen.B16, seen.B16, seen.B16       // nothing seen in this block
	MOVD  xCol, xPtr                         // xPtr = its row 0
	MOVD  nRows, nLeft                       // nLeft = rows
accRow:
	VLD1  (xPtr), [V16.S4, V17.S4]           // V16:V17 = the row's 8 elements
	ADD   xStride, xPtr                      // next row
	ADDW(V16, V0, V1)                        // acc[0:4] += x[0:4]
	ADDW(V17, V2, V3)                        // acc[4:8] += x[4:8]
	SUBS  $1, nLeft                          // a row done
	BNE   accRow                             // more
	ANYSPECIAL                               // NE: an Inf or a NaN
	BNE   accDone                            // leave this block to the twin
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(aPtr) // acc[0:8] = V0:V3
	ADD   $32, xCol                          // the next 8 columns
	ADD   $8, nDone                          // 8 columns done
	CMP   nCols, nDone                       // all?
	BLT   accBlock                           // no: the next block
accDone:
	MOVD  nDone, ret+64(FP)                  // the columns done
	RET
