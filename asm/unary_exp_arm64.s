//go:build !purego

#include "textflag.h"

// exp, NEON, float32, as expGo1 lane for lane. Go's arm64 assembler has no
// vector FMUL, FADD, FCMP, FMAX/FMIN or FRINT, so:
//   - products and sums are fused multiply-adds that round the same way:
//     x·y = -0 + x·y (VFMLA into -0), x + y = x + 1·y;
//   - the clamp to [expLo, expHi] is unsigned integer min on the bits:
//     negative floats order as their bits, positive ones as their bits
//     with the sign flipped;
//   - round(x·log2e) to nearest even is (x·log2e + M) - M with
//     M = 1.5·2^23 + 254, exact for |x·log2e| < 2^22 - 254 (the clamp
//     keeps it below 174); the bits of x·log2e + M are then bits(M) + n,
//     and as bits(M)/2 ≡ 127 (mod 512) the scales 2^k1 = 2^(n>>1) and
//     2^k2 = 2^(n - n>>1) are (w>>1) << 23 and (w - w>>1) << 23 for
//     w = bits(M) + n;
//   - a NaN x gives x with its quiet bit set, as the twin's arithmetic
//     does (its clamp leaves a NaN alone, and every operation after
//     propagates it; its scales are then 1).

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define nLeft  R2  // elements left
#define sgn    V17 // 0x80000000 (the sign bit, -0) in every lane
#define lo     V18 // bits of expLo = -120
#define hi     V19 // bits of expHi = 89 with the sign flipped
#define log2e  V20 // log2e
#define magic  V21 // M = 1.5·2^23 + 254
#define ones   V22 // 1
#define nln2hi V23 // -ln2Hi
#define nln2lo V24 // -ln2Lo
#define q0     V25 // expQ[0]
#define q1     V26 // expQ[1]
#define q2     V27 // expQ[2]
#define q3     V28 // expQ[3]
#define q4     V29 // expQ[4]
#define nanlim V30 // 0xff000000: the bits of ±Inf shifted left by one
#define quiet  V31 // 0x00400000: the quiet bit of a NaN

// BCAST(bits, v) puts the 32-bit constant bits in every lane of v
// (through R4).
#define BCAST(bits, v) \
	MOVW    $bits, R4;                      /* R4 = bits */ \
	VDUP    R4, v.S4                        /* in every lane of v */

// EXPV(x, a, b, c, d, e): x = e^x in every lane, as expGo1 (expParts'
// lines as comments). In: the constants above. Clobbers a–e.
#define EXPV(x, a, b, c, d, e) \
	VUMIN   lo.S4, x.S4, a.S4;              /* a = x, or -120 where x < -120 */ \
	VCMEQ   a.S4, x.S4, e.S4;               /* e = ones where !(x < expLo) (or NaN) */ \
	VEOR    sgn.B16, a.B16, a.B16;          /* a = bits, sign flipped */ \
	VUMIN   hi.S4, a.S4, a.S4;              /* 89 where x > 89 */ \
	VEOR    sgn.B16, a.B16, a.B16;          /* a = vmin(expHi, vmax(expLo, x)) */ \
	VMOV    sgn.B16, b.B16;                 /* b = -0 */ \
	VFMLA   log2e.S4, a.S4, b.S4;           /* b = x·log2e */ \
	VMOV    magic.B16, c.B16;               /* c = M */ \
	VFMLA   ones.S4, b.S4, c.S4;            /* c = M + n, n = round(x·log2e) */ \
	VMOV    c.B16, b.B16;                   /* b = M + n */ \
	VFMLS   ones.S4, magic.S4, b.S4;        /* b = n */ \
	VFMLA   nln2hi.S4, b.S4, a.S4;          /* a = x - n·ln2Hi */ \
	VFMLA   nln2lo.S4, b.S4, a.S4;          /* a = r = a - n·ln2Lo */ \
	VMOV    q3.B16, b.B16;                  /* b = Q3 */ \
	VFMLA   q4.S4, a.S4, b.S4;              /* b = Q3 + Q4·r */ \
	VMOV    q2.B16, d.B16;                  /* d = Q2 */ \
	VFMLA   b.S4, a.S4, d.S4;               /* d = Q2 + b·r */ \
	VMOV    q1.B16, b.B16;                  /* b = Q1 */ \
	VFMLA   d.S4, a.S4, b.S4;               /* b = Q1 + d·r */ \
	VMOV    q0.B16, d.B16;                  /* d = Q0 */ \
	VFMLA   b.S4, a.S4, d.S4;               /* d = Q(r) = Q0 + b·r */ \
	VMOV    sgn.B16, b.B16;                 /* b = -0 */ \
	VFMLA   a.S4, a.S4, b.S4;               /* b = r² */ \
	VFMLA   d.S4, b.S4, a.S4;               /* a = r + r²·Q = e^r - 1 */ \
	VMOV    ones.B16, b.B16;                /* b = 1 */ \
	VFMLA   ones.S4, a.S4, b.S4;            /* b = y = e^r - 1 + 1 */ \
	VUSHR   $1, c.S4, d.S4;                 /* d = w>>1 = 127 + k1 (mod 512) */ \
	VSUB    d.S4, c.S4, c.S4;               /* c = w - w>>1 = 127 + k2 (mod 512) */ \
	VSHL    $23, d.S4, d.S4;                /* d = s1 = 2^k1 */ \
	VSHL    $23, c.S4, c.S4;                /* c = s2 = 2^k2 */ \
	VMOV    sgn.B16, a.B16;                 /* a = -0 */ \
	VFMLA   d.S4, b.S4, a.S4;               /* a = y·s1 */ \
	VMOV    sgn.B16, b.B16;                 /* b = -0 */ \
	VFMLA   c.S4, a.S4, b.S4;               /* b = (y·s1)·s2 */ \
	VAND    e.B16, b.B16, b.B16;            /* b = 0 where x < expLo */ \
	VSHL    $1, x.S4, c.S4;                 /* c = bits of |x| << 1 */ \
	VUMAX   nanlim.S4, c.S4, c.S4;          /* c = max(c, Inf's) */ \
	VCMEQ   nanlim.S4, c.S4, c.S4;          /* c = ones where x is not NaN */ \
	VORR    quiet.B16, x.B16, x.B16;        /* x = x, quiet if NaN */ \
	VBIT    c.B16, b.B16, x.B16             /* x = b where x is not NaN */

// func expF32(d, x []float32): d[i] = expGo1(x[i]); two vectors per step,
// then one, then one element at a time in lane 0.
//
// In:  d, x with len(x) ≥ len(d).
// Out: d written; clobbers R0–R2, R4, V0–V11, V17–V31.
TEXT ·expF32(SB), NOSPLIT, $0-48
	MOVD    d_base+0(FP), dPtr              // dPtr = &d[0]
	MOVD    d_len+8(FP), nLeft              // nLeft = len(d)
	MOVD    x_base+24(FP), xPtr             // xPtr = &x[0]
	BCAST(0x80000000, sgn)                  // sgn = -0
	BCAST(0xc2f00000, lo)                   // lo = -120
	BCAST(0xc2b20000, hi)                   // hi = 89 with the sign flipped
	BCAST(0x3fb8aa3b, log2e)                // log2e = 1.442695
	BCAST(0x4b4000fe, magic)                // magic = 12583166 = 1.5·2^23 + 254
	BCAST(0x3f800000, ones)                 // ones = 1
	BCAST(0xbf318000, nln2hi)               // nln2hi = -0.693359375
	BCAST(0x395e8083, nln2lo)               // nln2lo = 2.12194440e-4
	BCAST(0x3efffffe, q0)                   // q0 = 0.49999994
	BCAST(0x3e2aaa49, q1)                   // q1 = 0.16666521
	BCAST(0x3d2aac56, q2)                   // q2 = 0.04166826
	BCAST(0x3c091cbd, q3)                   // q3 = 0.008368668
	BCAST(0x3ab528b3, q4)                   // q4 = 0.0013821333
	BCAST(0xff000000, nanlim)               // nanlim = Inf's bits << 1
	BCAST(0x00400000, quiet)                // quiet = the quiet bit
	CMP     $8, nLeft                       // two vectors left?
	BLT     four                            // the single vector
loop8:
	VLD1.P  32(xPtr), [V0.S4, V1.S4]        // V0:V1 = x
	EXPV(V0, V2, V3, V4, V5, V6)            // V0 = e^V0
	EXPV(V1, V7, V8, V9, V10, V11)          // V1 = e^V1
	VST1.P  [V0.S4, V1.S4], 32(dPtr)        // dst = V0:V1
	SUB     $8, nLeft                       // 8 done
	CMP     $8, nLeft                       // 8 more?
	BGE     loop8                           // again while 8 are left
four:
	CMP     $4, nLeft                       // a vector left?
	BLT     one                             // the single elements
	VLD1.P  16(xPtr), [V0.S4]               // V0 = x
	EXPV(V0, V2, V3, V4, V5, V6)            // V0 = e^V0
	VST1.P  [V0.S4], 16(dPtr)               // dst = V0
	SUB     $4, nLeft                       // 4 done
one:
	CBZ     nLeft, done                     // nothing left?
	FMOVS.P 4(xPtr), F0                     // V0 = x[i], 0, 0, 0
	EXPV(V0, V2, V3, V4, V5, V6)            // V0 = e^V0
	FMOVS.P F0, 4(dPtr)                     // dst = lane 0
	SUB     $1, nLeft                       // one done
	B       one                             // the single elements
done:
	RET
