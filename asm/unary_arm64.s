//go:build !purego

#include "textflag.h"

// Unary float32 kernels, NEON: the sign-bit ones, abs and neg. The others
// are in files of their own (unary_arm64.go lists them).

// Register roles.
#define dPtr  R0  // next element of dst
#define xPtr  R1  // next element of x
#define nLeft R2  // elements left
#define bits  V16 // the sign mask (neg) or its complement (abs) in every lane

// SIGNLOOP(OP) sets d[i] = x[i] OP bits for len(d) elements: 16 per step,
// then 4, then one at a time through the integer registers.
//
// In:  dPtr, xPtr, nLeft, bits and R3 = its lane value.
// Out: dst written; clobbers R0–R2, R4, V0–V3.
#define SIGNLOOP(OP, SOP) \
	CMP   $16, nLeft;                            /* 16 left? */ \
	BLT   four;                               /* the 4-wide steps */ \
loop16: \
	VLD1.P 64(xPtr), [V0.B16, V1.B16, V2.B16, V3.B16]; /* V0:V3 = x */ \
	OP    bits.B16, V0.B16, V0.B16;              /* V0 = V0 op bits */ \
	OP    bits.B16, V1.B16, V1.B16;              /* V1 = V1 op bits */ \
	OP    bits.B16, V2.B16, V2.B16;              /* V2 = V2 op bits */ \
	OP    bits.B16, V3.B16, V3.B16;              /* V3 = V3 op bits */ \
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(dPtr); /* dst = V0:V3 */ \
	SUB   $16, nLeft;                            /* 16 done */ \
	CMP   $16, nLeft;                            /* 16 more? */ \
	BGE   loop16;                             /* to loop16 */ \
four: \
	CMP   $4, nLeft;                             /* 4 left? */ \
	BLT   one;                                /* the single vectors */ \
	VLD1.P 16(xPtr), [V0.B16];                   /* V0 = x */ \
	OP    bits.B16, V0.B16, V0.B16;              /* V0 = V0 op bits */ \
	VST1.P [V0.B16], 16(dPtr);                   /* dst = V0 */ \
	SUB   $4, nLeft;                             /* 4 done */ \
	B     four;                               /* the 4-wide steps */ \
one: \
	CBZ   nLeft, done;                           /* nothing left? */ \
	MOVWU.P 4(xPtr), R4;                         /* R4 = bits of x */ \
	SOP   R3, R4, R4;                            /* R4 = R4 op bits */ \
	MOVW.P R4, 4(dPtr);                          /* dst = R4 */ \
	SUB   $1, nLeft;                             /* one done */ \
	B     one;                                /* the single vectors */ \
done: \
	RET

#define ARGS \
	MOVD d_base+0(FP), dPtr;                     /* dPtr = &d[0] */ \
	MOVD d_len+8(FP), nLeft;                     /* nLeft = len(d) */ \
	MOVD x_base+24(FP), xPtr                     /* xPtr = &x[0] */

// func absF32(d, x []float32): d[i] = |x[i]|.
TEXT ·absF32(SB), NOSPLIT, $0-48
	ARGS                                     // dPtr, xPtr/sPtr, nLeft from the arguments
	MOVW  $0x7fffffff, R3                        // R3 = all bits but the sign
	VDUP  R3, bits.S4                            // in every lane
	SIGNLOOP(VAND, ANDW)                     // d = x and the mask

// func negF32(d, x []float32): d[i] = -x[i].
TEXT ·negF32(SB), NOSPLIT, $0-48
	ARGS                                     // dPtr, xPtr/sPtr, nLeft from the arguments
	MOVW  $0x80000000, R3                        // R3 = the sign bit
	VDUP  R3, bits.S4                            // in every lane
	SIGNLOOP(VEOR, EORW)                     // d = x eor the mask
