//go:build !purego

#include "textflag.h"
#include "floatkey_arm64.h"

// torch.where's blend, NEON: d[i] = c[i] != 0 ? x[i] : y[i] on raw 4-byte
// (sel32NEON) and 8-byte (sel64NEON) lanes. Each step widens 8 condition
// bytes to lanes with VUXTL (zero extension, so a nonzero byte stays
// nonzero), marks the zero ones with VCMEQ and takes y there with VBSL.

// Register roles.
#define dPtr  R0  // next vector of d
#define xPtr  R1  // next vector of x
#define yPtr  R2  // next vector of y
#define cPtr  R3  // next 8 condition bytes
#define steps R4  // steps of 8 elements left
#define zero  V31 // 0 in every lane

// SELARGS loads the arguments of both routines and clears zero.
#define SELARGS \
	MOVD  d+0(FP), dPtr;                         /* dPtr = &d[0] */ \
	MOVD  x+8(FP), xPtr;                         /* xPtr = &x[0] */ \
	MOVD  y+16(FP), yPtr;                        /* yPtr = &y[0] */ \
	MOVD  c+24(FP), cPtr;                        /* cPtr = &c[0] */ \
	MOVD  n+32(FP), steps;                       /* steps = n */ \
	VEOR  zero.B16, zero.B16, zero.B16           /* zero = 0 */

// SEL4(m, x, y) sets m = m ? y : x (VBSL: where a bit of m is set, y's).
#define SEL4(m, x, y) VBSL x.B16, y.B16, m.B16

// The float32 comparisons and threshold_backward, NEON, 8 elements per
// step (the caller runs the twin on the last len%8). Go's arm64 assembler
// has no vector float compare, so they compare the order keys of
// floatkey_arm64.h (bias 2^23: numbers 0..0xff000000, ±0 equal, NaNs above):
//
//	x == y ⇔ key x == key y, y not NaN
//	x <= y ⇔ umax(key x, key y) == key y, y not NaN
//	x <  y ⇔ umax(key x, key y) != key x, y not NaN
//	x != y ⇔ not x == y
//
// (a NaN x has a key above every number's, so only y needs the NaN test).

// Register roles (besides dPtr, xPtr, yPtr, steps and zero above).
#define sign V28 // 0x80000000 in every lane
#define bias V29 // 2^23 in every lane
#define infk V30 // 0xff000000, the key of +Inf, in every lane
#define one  V27 // 1 in every byte

// CMPSETUP fills sign, bias, infk, one and zero.
#define CMPSETUP \
	MOVW  $0x80000000, R5;                       /* R5 = the sign bit */ \
	VDUP  R5, sign.S4;                           /* sign everywhere */ \
	MOVW  $0x00800000, R5;                       /* R5 = 2^23 */ \
	VDUP  R5, bias.S4;                           /* bias everywhere */ \
	MOVW  $0xff000000, R5;                       /* R5 = key of +Inf */ \
	VDUP  R5, infk.S4;                           /* infk everywhere */ \
	MOVW  $1, R5;                                /* R5 = 1 */ \
	VDUP  R5, one.B16;                           /* one in every byte */ \
	VEOR  zero.B16, zero.B16, zero.B16           /* zero = 0 */

// The comparisons OP(kx, ky, m, t): m holds all ones where y is a number;
// they leave m = all ones where x op y. Clobber t.
#define EQOP(kx, ky, m, t) \
	VCMEQ kx.S4, ky.S4, t.S4;                    /* t = keys equal */ \
	VAND  t.B16, m.B16, m.B16                    /* m = equal and y a number */
#define LEOP(kx, ky, m, t) \
	VUMAX kx.S4, ky.S4, t.S4;                    /* t = the larger key */ \
	VCMEQ ky.S4, t.S4, t.S4;                     /* t = key x <= key y */ \
	VAND  t.B16, m.B16, m.B16                    /* m = that and y a number */
#define LTOP(kx, ky, m, t) \
	VUMAX kx.S4, ky.S4, t.S4;                    /* t = the larger key */ \
	VCMEQ kx.S4, t.S4, t.S4;                     /* t = key x >= key y */ \
	VBIT  t.B16, zero.B16, m.B16                 /* m = not that, and y a number */
#define NEOP EQOP

// CMPV(x, y, kx, ky, m, t, OP): m = all ones where x[i] OP y[i], in lanes.
// Clobbers kx, ky, t.
#define CMPV(x, y, kx, ky, m, t, OP) \
	FKEY(x, kx, t, sign, bias);                  /* kx = key of x */ \
	FKEY(y, ky, t, sign, bias);                  /* ky = key of y */ \
	VUMAX infk.S4, ky.S4, m.S4;                  /* m = max(ky, key of +Inf) */ \
	VCMEQ infk.S4, m.S4, m.S4;                   /* m = y is a number */ \
	OP(kx, ky, m, t)                             /* m = x op y */

// BOOLS(b) turns the 0/0xff bytes of b into bools; NEBOOLS into their
// negations (ne is not eq).
#define BOOLS(b) VAND one.B16, b.B16, b.B16       /* b = 1 where set */
#define NEBOOLS(b) \
	VAND  one.B16, b.B16, b.B16;                 /* b = 1 where eq */ \
	VEOR  one.B16, b.B16, b.B16                  /* b = 1 where not */

// CMPLOOP(OP, OUT) stores 8 bools per step: two vectors of masks narrowed
// to bytes (VUZP1 keeps the low half of each lane: S4 → H8 → B16).
//
// In:  dPtr, xPtr, yPtr, steps (> 0). Out: d[0:8·steps]; clobbers R0–R5,
// V0–V9, V16–V19, V27–V31.
#define CMPLOOP(OP, OUT) \
	MOVD  d+0(FP), dPtr;                         /* dPtr = &d[0] */ \
	MOVD  x+8(FP), xPtr;                         /* xPtr = &x[0] */ \
	MOVD  y+16(FP), yPtr;                        /* yPtr = &y[0] */ \
	MOVD  n+24(FP), steps;                       /* steps = n */ \
	CMPSETUP;                                    /* the constants */ \
loop: \
	VLD1.P 32(xPtr), [V0.S4, V1.S4];             /* V0:V1 = x[0:8] */ \
	VLD1.P 32(yPtr), [V2.S4, V3.S4];             /* V2:V3 = y[0:8] */ \
	CMPV(V0, V2, V4, V5, V16, V6, OP);           /* V16 = x op y, 0:4 */ \
	CMPV(V1, V3, V7, V8, V17, V9, OP);           /* V17 = x op y, 4:8 */ \
	VUZP1 V17.H8, V16.H8, V18.H8;                /* V18 = the 8 masks as halves */ \
	VUZP1 V18.B16, V18.B16, V19.B16;             /* V19[0:8] = as bytes */ \
	OUT(V19);                                    /* as bools */ \
	VST1.P [V19.B8], 8(dPtr);                    /* d[0:8] = V19[0:8] */ \
	SUBS  $1, steps;                             /* one step done */ \
	BNE   loop;                                  /* more */ \
	RET

// The float64 comparisons, 8 elements per step as well, with FKEY64's keys
// (bias 2^52). NEON has no 64-bit VUMAX or VCMHI, so x < y is ULT64 of the
// keys, and y's NaN lanes come from FNAN64:
//
//	x == y ⇔ key x == key y, y not NaN
//	x <  y ⇔ key x < key y, y not NaN
//	x <= y ⇔ not (key y < key x or y NaN)
//	x != y ⇔ not x == y
//
// The constants: sign, bias, one and zero as above (sign and bias in 64-bit
// lanes), and nanc.
#define nanc V26 // 2^52-1 in every lane (FNAN64)

// CMPSETUP64 fills sign, bias, nanc, one and zero.
#define CMPSETUP64 \
	MOVD  $0x8000000000000000, R5;               /* R5 = the sign bit */ \
	VDUP  R5, sign.D2;                           /* sign everywhere */ \
	MOVD  $0x0010000000000000, R5;               /* R5 = 2^52 */ \
	VDUP  R5, bias.D2;                           /* bias everywhere */ \
	MOVD  $0x000fffffffffffff, R5;               /* R5 = 2^52-1 */ \
	VDUP  R5, nanc.D2;                           /* nanc everywhere */ \
	MOVW  $1, R5;                                /* R5 = 1 */ \
	VDUP  R5, one.B16;                           /* one in every byte */ \
	VEOR  zero.B16, zero.B16, zero.B16           /* zero = 0 */

// The comparisons OP64(kx, ky, n, m, t): n holds all ones where y is NaN;
// they leave m = all ones where x op y (NLEOP64: where not x <= y, for
// NEBOOLS). Clobber t.
#define EQOP64(kx, ky, n, m, t) \
	VCMEQ kx.D2, ky.D2, m.D2;                    /* m = keys equal */ \
	VBIT  n.B16, zero.B16, m.B16                 /* m = 0 where y is NaN */
#define LTOP64(kx, ky, n, m, t) \
	ULT64(kx, ky, m, t, sign);                   /* m = key x < key y */ \
	VBIT  n.B16, zero.B16, m.B16                 /* m = 0 where y is NaN */
#define NLEOP64(kx, ky, n, m, t) \
	ULT64(ky, kx, m, t, sign);                   /* m = key y < key x */ \
	VORR  n.B16, m.B16, m.B16                    /* m = that or y NaN */

// CMPV64(x, y, m, OP): m = all ones where x[i] OP y[i], in 64-bit lanes.
// Clobbers V8–V11.
#define CMPV64(x, y, m, OP) \
	FKEY64(x, V8, V11, sign, bias);              /* V8 = key of x */ \
	FKEY64(y, V9, V11, sign, bias);              /* V9 = key of y */ \
	FNAN64(y, V10, nanc, sign);                  /* V10 = y is NaN */ \
	OP(V8, V9, V10, m, V11)                      /* m = x op y */

// CMPLOOP64(OP, OUT) stores 8 bools per step: four vectors of masks
// narrowed to bytes (VUZP1 keeps the low half of each lane: D2 → S4 → H8
// → B16).
//
// In:  dPtr, xPtr, yPtr, steps (> 0). Out: d[0:8·steps]; clobbers R0–R5,
// V0–V11, V16–V23, V26–V31.
#define CMPLOOP64(OP, OUT) \
	MOVD  d+0(FP), dPtr;                         /* dPtr = &d[0] */ \
	MOVD  x+8(FP), xPtr;                         /* xPtr = &x[0] */ \
	MOVD  y+16(FP), yPtr;                        /* yPtr = &y[0] */ \
	MOVD  n+24(FP), steps;                       /* steps = n */ \
	CMPSETUP64;                                  /* the constants */ \
loop: \
	VLD1.P 64(xPtr), [V0.D2, V1.D2, V2.D2, V3.D2]; /* V0:V3 = x[0:8] */ \
	VLD1.P 64(yPtr), [V4.D2, V5.D2, V6.D2, V7.D2]; /* V4:V7 = y[0:8] */ \
	CMPV64(V0, V4, V16, OP);                     /* V16 = x op y, 0:2 */ \
	CMPV64(V1, V5, V17, OP);                     /* V17 = x op y, 2:4 */ \
	CMPV64(V2, V6, V18, OP);                     /* V18 = x op y, 4:6 */ \
	CMPV64(V3, V7, V19, OP);                     /* V19 = x op y, 6:8 */ \
	VUZP1 V17.S4, V16.S4, V20.S4;                /* V20 = the masks 0:4 as words */ \
	VUZP1 V19.S4, V18.S4, V21.S4;                /* V21 = 4:8 */ \
	VUZP1 V21.H8, V20.H8, V22.H8;                /* V22 = the 8 masks as halves */ \
	VUZP1 V22.B16, V22.B16, V23.B16;             /* V23[0:8] = as bytes */ \
	OUT(V23);                                    /* as bools */ \
	VST1.P [V23.B8], 8(dPtr);                    /* d[0:8] = V23[0:8] */ \
	SUBS  $1, steps;                             /* one step done */ \
	BNE   loop;                                  /* more */ \
	RET

// func sel32NEON(d, x, y *uint32, c *uint8, n int)
//
// In:  8n elements of d, x, y and c. Out: d[i] = c[i] != 0 ? x[i] : y[i].
// Clobbers R0–R4, V0–V2, V16–V19, V31.
TEXT ·sel32NEON(SB), NOSPLIT, $0-40
	SELARGS                                      // pointers, steps, zero
loop32:
	VLD1.P 8(cPtr), [V0.B8]                      // V0 = c[0:8]
	VUXTL  V0.B8, V0.H8                          // as 8 halves
	VUXTL  V0.H4, V1.S4                          // V1 = c[0:4] as words
	VUXTL2 V0.H8, V2.S4                          // V2 = c[4:8]
	VCMEQ  zero.S4, V1.S4, V1.S4                 // V1 = all ones where c == 0
	VCMEQ  zero.S4, V2.S4, V2.S4                 // V2 likewise
	VLD1.P 32(xPtr), [V16.S4, V17.S4]            // V16:V17 = x[0:8]
	VLD1.P 32(yPtr), [V18.S4, V19.S4]            // V18:V19 = y[0:8]
	SEL4(V1, V16, V18)                           // V1 = c == 0 ? y : x, 0:4
	SEL4(V2, V17, V19)                           // V2 likewise, 4:8
	VST1.P [V1.S4, V2.S4], 32(dPtr)              // d[0:8] = V1:V2
	SUBS   $1, steps                             // one step done
	BNE    loop32                                // more
	RET

// func sel64NEON(d, x, y *uint64, c *uint8, n int)
//
// In:  8n elements of d, x, y and c. Out: d[i] = c[i] != 0 ? x[i] : y[i].
// Clobbers R0–R4, V0–V6, V16–V23, V31.
TEXT ·sel64NEON(SB), NOSPLIT, $0-40
	SELARGS                                      // pointers, steps, zero
loop64:
	VLD1.P 8(cPtr), [V0.B8]                      // V0 = c[0:8]
	VUXTL  V0.B8, V0.H8                          // as 8 halves
	VUXTL  V0.H4, V1.S4                          // V1 = c[0:4] as words
	VUXTL2 V0.H8, V2.S4                          // V2 = c[4:8]
	VUXTL  V1.S2, V3.D2                          // V3 = c[0:2] as doublewords
	VUXTL2 V1.S4, V4.D2                          // V4 = c[2:4]
	VUXTL  V2.S2, V5.D2                          // V5 = c[4:6]
	VUXTL2 V2.S4, V6.D2                          // V6 = c[6:8]
	VCMEQ  zero.D2, V3.D2, V3.D2                 // all ones where c == 0
	VCMEQ  zero.D2, V4.D2, V4.D2
	VCMEQ  zero.D2, V5.D2, V5.D2
	VCMEQ  zero.D2, V6.D2, V6.D2
	VLD1.P 64(xPtr), [V16.D2, V17.D2, V18.D2, V19.D2] // V16:V19 = x[0:8]
	VLD1.P 64(yPtr), [V20.D2, V21.D2, V22.D2, V23.D2] // V20:V23 = y[0:8]
	SEL4(V3, V16, V20)                           // V3 = c == 0 ? y : x, 0:2
	SEL4(V4, V17, V21)                           // 2:4
	SEL4(V5, V18, V22)                           // 4:6
	SEL4(V6, V19, V23)                           // 6:8
	VST1.P [V3.D2, V4.D2, V5.D2, V6.D2], 64(dPtr) // d[0:8] = V3:V6
	SUBS   $1, steps                             // one step done
	BNE    loop64                                // more
	RET

// func cmpEq32NEON(d *bool, x, y *float32, n int), cmpNe32NEON,
// cmpLt32NEON, cmpLe32NEON: d[i] = x[i] op y[i] for i < 8n (n > 0).
TEXT ·cmpEq32NEON(SB), NOSPLIT, $0-32
	CMPLOOP(EQOP, BOOLS)                         // d = x == y

TEXT ·cmpNe32NEON(SB), NOSPLIT, $0-32
	CMPLOOP(NEOP, NEBOOLS)                       // d = not x == y

TEXT ·cmpLt32NEON(SB), NOSPLIT, $0-32
	CMPLOOP(LTOP, BOOLS)                         // d = x < y

TEXT ·cmpLe32NEON(SB), NOSPLIT, $0-32
	CMPLOOP(LEOP, BOOLS)                         // d = x <= y

// func cmpEq64NEON(d *bool, x, y *float64, n int), cmpNe64NEON,
// cmpLt64NEON, cmpLe64NEON: d[i] = x[i] op y[i] for i < 8n (n > 0).
TEXT ·cmpEq64NEON(SB), NOSPLIT, $0-32
	CMPLOOP64(EQOP64, BOOLS)                     // d = x == y

TEXT ·cmpNe64NEON(SB), NOSPLIT, $0-32
	CMPLOOP64(EQOP64, NEBOOLS)                   // d = not x == y

TEXT ·cmpLt64NEON(SB), NOSPLIT, $0-32
	CMPLOOP64(LTOP64, BOOLS)                     // d = x < y

TEXT ·cmpLe64NEON(SB), NOSPLIT, $0-32
	CMPLOOP64(NLEOP64, NEBOOLS)                  // d = not (x > y or y NaN)

// func thresholdBwdNEON(d, gr, x *float32, th float32, n int)
//
// In:  8n elements of d, gr, x (n > 0), th not NaN. Out: d[i] = +0 if
// x[i] ≤ th, else gr[i] (a NaN x: its key is above th's). Clobbers R0–R5,
// V0–V7, V16, V28–V31.
TEXT ·thresholdBwdNEON(SB), NOSPLIT, $0-40
	MOVD  d+0(FP), dPtr                          // dPtr = &d[0]
	MOVD  gr+8(FP), yPtr                         // yPtr = &gr[0]
	MOVD  x+16(FP), xPtr                         // xPtr = &x[0]
	FMOVS th+24(FP), F0                          // F0 = th
	VDUP  V0.S[0], V0.S4                         // V0 = th everywhere
	MOVD  n+32(FP), steps                        // steps = n
	CMPSETUP                                     // the constants
	FKEY(V0, V16, V1, sign, bias)                // V16 = key of th
thloop:
	VLD1.P 32(xPtr), [V0.S4, V1.S4]              // V0:V1 = x[0:8]
	VLD1.P 32(yPtr), [V2.S4, V3.S4]              // V2:V3 = gr[0:8]
	FKEY(V0, V4, V6, sign, bias)                 // V4 = key of x, 0:4
	FKEY(V1, V5, V7, sign, bias)                 // V5 = key of x, 4:8
	VUMAX V16.S4, V4.S4, V4.S4                   // V4 = max(key x, key th)
	VUMAX V16.S4, V5.S4, V5.S4                   // V5 likewise
	VCMEQ V16.S4, V4.S4, V4.S4                   // V4 = x ≤ th
	VCMEQ V16.S4, V5.S4, V5.S4                   // V5 likewise
	VBIT  V4.B16, zero.B16, V2.B16               // V2 = +0 where x ≤ th, else gr
	VBIT  V5.B16, zero.B16, V3.B16               // V3 likewise
	VST1.P [V2.S4, V3.S4], 32(dPtr)              // d[0:8] = V2:V3
	SUBS  $1, steps                              // one step done
	BNE   thloop                                 // more
	RET
