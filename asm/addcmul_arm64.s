//go:build !purego

#include "textflag.h"

// addcmul, NEON, float32 (S4) and float64 (D2): d[i] = fma(v·t1[i],
// t2[i], x[i]). Go's arm64 assembler has no vector FMUL, so v·t1 is
// -0 + v·t1 (VFMLA, one rounding: the plain product, the sign of a zero
// product kept), then x + p·t2 (VFMLA, rounded once). ACMLOOP: 4 vectors
// (64 bytes) per step, one vector per step, then one element per step
// with the scalar FMUL and FMADD.

// Register roles.
#define dPtr   R0  // next element of dst
#define xPtr   R1  // next element of x
#define aPtr   R2  // next element of t1
#define bPtr   R3  // next element of t2
#define nLeft  R4  // elements left
#define negz   V29 // -0 in every lane
#define vv     V30 // v in every lane; F30 its lane 0

// ACMV(a, x, b, p, A): x = fma(v·a, b, x) on vectors of arrangement A;
// p is scratch.
#define ACMV(a, x, b, p, A) \
	VMOV  negz.B16, p.B16;                   /* p = -0 */ \
	VFMLA a.A, vv.A, p.A;                    /* p = -0 + v·t1, the product rounded */ \
	VFMLA b.A, p.A, x.A                      /* x += p·t2, rounded once */

// ACMLOOP(A, W, SZ, LDE, STE, MULE, FMAE) runs the loop over nLeft
// elements, W per vector of arrangement A; the element step loads with LDE
// (SZ bytes), multiplies with MULE, fuses with FMAE and stores with STE.
//
// In:  dPtr, xPtr, aPtr, bPtr, nLeft, vv/F30 and negz set up.
// Out: dst written; clobbers R0–R4, V0–V15.
#define ACMLOOP(A, W, SZ, LDE, STE, MULE, FMAE) \
	CMP   $(4*W), nLeft;                     /* 4 vectors left? */ \
	BLT   one;                               /* the single vectors */ \
quad: \
	VLD1.P 64(aPtr), [V0.A, V1.A, V2.A, V3.A]; /* V0:V3 = t1 */ \
	VLD1.P 64(xPtr), [V4.A, V5.A, V6.A, V7.A]; /* V4:V7 = x */ \
	VLD1.P 64(bPtr), [V8.A, V9.A, V10.A, V11.A]; /* V8:V11 = t2 */ \
	ACMV(V0, V4, V8, V12, A);                /* V4 = fma(v·t1, t2, x) */ \
	ACMV(V1, V5, V9, V13, A);                /* V5 likewise */ \
	ACMV(V2, V6, V10, V14, A);               /* V6 likewise */ \
	ACMV(V3, V7, V11, V15, A);               /* V7 likewise */ \
	VST1.P [V4.A, V5.A, V6.A, V7.A], 64(dPtr); /* dst = V4:V7 */ \
	SUB   $(4*W), nLeft;                     /* 4 vectors done */ \
	CMP   $(4*W), nLeft;                     /* 4 more? */ \
	BGE   quad;                              /* again while 4 vectors are left */ \
one: \
	CMP   $W, nLeft;                         /* a vector left? */ \
	BLT   elem;                              /* the single elements */ \
	VLD1.P 16(aPtr), [V0.A];                 /* V0 = t1 */ \
	VLD1.P 16(xPtr), [V4.A];                 /* V4 = x */ \
	VLD1.P 16(bPtr), [V8.A];                 /* V8 = t2 */ \
	ACMV(V0, V4, V8, V12, A);                /* V4 = fma(v·t1, t2, x) */ \
	VST1.P [V4.A], 16(dPtr);                 /* dst = V4 */ \
	SUB   $W, nLeft;                         /* one vector done */ \
	B     one;                               /* the single vectors */ \
elem: \
	CBZ   nLeft, done;                       /* nothing left? */ \
	LDE.P SZ(aPtr), F0;                      /* F0 = t1 */ \
	LDE.P SZ(xPtr), F4;                      /* F4 = x */ \
	LDE.P SZ(bPtr), F8;                      /* F8 = t2 */ \
	MULE  F30, F0, F0;                       /* F0 = v·t1, rounded */ \
	FMAE  F8, F4, F0, F4;                    /* F4 = x + F0·t2, rounded once */ \
	STE.P F4, SZ(dPtr);                      /* dst = F4 */ \
	SUB   $1, nLeft;                         /* one element done */ \
	B     elem;                              /* the single elements */ \
done: \
	RET

// Argument loading: the four slices (d's length is n).
#define ARGS \
	MOVD d_base+0(FP), dPtr;                 /* dPtr = &d[0] */ \
	MOVD d_len+8(FP), nLeft;                 /* nLeft = len(d) */ \
	MOVD x_base+24(FP), xPtr;                /* xPtr = &x[0] */ \
	MOVD t1_base+48(FP), aPtr;               /* aPtr = &t1[0] */ \
	MOVD t2_base+72(FP), bPtr                /* bPtr = &t2[0] */

// func addcmul32(d, x, t1, t2 []float32, v float32):
// d[i] = fma(v·t1[i], t2[i], x[i]). In: slices of len(d) elements.
TEXT ·addcmul32(SB), NOSPLIT, $0-100
	ARGS                                     // dPtr, xPtr, aPtr, bPtr, nLeft from the arguments
	FMOVS v+96(FP), F30                      // F30 = v
	VDUP  V30.S[0], vv.S4                    // vv = v everywhere
	MOVD  $0x80000000, R5                    // R5 = bits of -0
	VDUP  R5, negz.S4                        // negz = -0 everywhere
	ACMLOOP(S4, 4, 4, FMOVS, FMOVS, FMULS, FMADDS) // the loop

// func addcmul64(d, x, t1, t2 []float64, v float64): as addcmul32.
TEXT ·addcmul64(SB), NOSPLIT, $0-104
	ARGS                                     // dPtr, xPtr, aPtr, bPtr, nLeft from the arguments
	FMOVD v+96(FP), F30                      // F30 = v
	VDUP  V30.D[0], vv.D2                    // vv = v everywhere
	MOVD  $0x8000000000000000, R5            // R5 = bits of -0
	VDUP  R5, negz.D2                        // negz = -0 everywhere
	ACMLOOP(D2, 2, 8, FMOVD, FMOVD, FMULD, FMADDD) // the loop
