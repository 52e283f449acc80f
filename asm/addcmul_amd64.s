//go:build !purego

#include "textflag.h"
#include "tailmask_amd64.h"

// addcmul, AVX2+FMA, float32 and float64: d[i] = fma(v·t1[i], t2[i],
// x[i]), VMULPS (v·t1 rounded) then VFMADD231PS (the multiply-add rounded
// once). ACMLOOP: 4 vectors of 32 bytes per step, then one vector per
// step, then a last partial vector through a lane mask (VMASKMOVPS reads
// and writes only the lanes in range; the others compute 0·0 + 0).

// Register roles.
#define dPtr   DI  // next element of dst
#define xPtr   SI  // next element of x
#define aPtr   DX  // next element of t1
#define bPtr   BX  // next element of t2
#define nLeft  CX  // elements left
#define mPtr   R8  // into tailMask<>: the lane mask of the last vector
#define vv     Y14 // v in every lane
#define mask   Y15 // tail lane mask: all ones in lanes < nLeft

// ACM(off, p, s, MUL, FMA): s = fma(v·t1, t2, x) for the vector at byte
// offset off; p is scratch.
#define ACM(off, p, s, MUL, FMA) \
	MUL     off(aPtr), vv, p;                 /* p = v·t1, rounded      */ \
	VMOVUPS off(xPtr), s;                     /* s = x                  */ \
	FMA     off(bPtr), p, s                   /* s = p·t2 + x, rounded once */

// ACMLOOP(W, SH, MUL, FMA, MASKMOV) runs the loop over nLeft elements of W
// per vector (8 float32 or 4 float64; SH = log2 of the element size).
//
// In:  dPtr, xPtr, aPtr, bPtr, nLeft ≥ 0, vv.
// Out: dst written; clobbers CX, SI, DI, DX, BX, R8, Y0–Y8, Y15.
#define ACMLOOP(W, SH, MUL, FMA, MASKMOV) \
	CMPQ    nLeft, $(4*W);                    /* 4 vectors left?        */ \
	JLT     one;                              /* no: one at a time      */ \
quad: \
	ACM(0, Y0, Y4, MUL, FMA);                 /* Y4 = d[0:W]            */ \
	ACM(32, Y1, Y5, MUL, FMA);                /* Y5 = d[W:2W]           */ \
	ACM(64, Y2, Y6, MUL, FMA);                /* Y6 = d[2W:3W]          */ \
	ACM(96, Y3, Y7, MUL, FMA);                /* Y7 = d[3W:4W]          */ \
	VMOVUPS Y4, 0(dPtr);                      /* dst = Y4:Y7            */ \
	VMOVUPS Y5, 32(dPtr);                     /* store Y5               */ \
	VMOVUPS Y6, 64(dPtr);                     /* store Y6               */ \
	VMOVUPS Y7, 96(dPtr);                     /* store Y7               */ \
	ADDQ    $128, xPtr;                       /* next 4 vectors         */ \
	ADDQ    $128, aPtr;                       /* advance aPtr too       */ \
	ADDQ    $128, bPtr;                       /* advance bPtr too       */ \
	ADDQ    $128, dPtr;                       /* advance dPtr too       */ \
	SUBQ    $(4*W), nLeft;                    /* 4 vectors done         */ \
	CMPQ    nLeft, $(4*W);                    /* 4 more?                */ \
	JGE     quad;                             /* again while 4 vectors are left */ \
one: \
	CMPQ    nLeft, $W;                        /* a whole vector left?   */ \
	JLT     tail;                             /* no: the masked tail    */ \
	ACM(0, Y0, Y4, MUL, FMA);                 /* Y4 = d[0:W]            */ \
	VMOVUPS Y4, (dPtr);                       /* dst = Y4               */ \
	ADDQ    $32, xPtr;                        /* next vector            */ \
	ADDQ    $32, aPtr;                        /* advance aPtr too       */ \
	ADDQ    $32, bPtr;                        /* advance bPtr too       */ \
	ADDQ    $32, dPtr;                        /* advance dPtr too       */ \
	SUBQ    $W, nLeft;                        /* one vector done        */ \
	JMP     one;                              /* the single vectors     */ \
tail: \
	TESTQ   nLeft, nLeft;                     /* anything left?         */ \
	JZ      done;                             /* finished               */ \
	LEAQ    tailMask<>+32(SB), mPtr;          /* mPtr = end of the ones */ \
	SHLQ    $SH, nLeft;                       /* nLeft = bytes left     */ \
	SUBQ    nLeft, mPtr;                      /* back by the bytes left */ \
	VMOVUPS (mPtr), mask;                     /* mask = lanes in range  */ \
	MASKMOV (aPtr), mask, Y0;                 /* Y0 = t1, masked        */ \
	MASKMOV (xPtr), mask, Y4;                 /* Y4 = x, masked         */ \
	MASKMOV (bPtr), mask, Y8;                 /* Y8 = t2, masked        */ \
	MUL     Y0, vv, Y0;                       /* Y0 = v·t1, rounded     */ \
	FMA     Y8, Y0, Y4;                       /* Y4 = Y0·t2 + x, rounded once */ \
	MASKMOV Y4, mask, (dPtr);                 /* dst = Y4, masked       */ \
done: \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// Argument loading: the four slices (d's length is n).
#define ARGS \
	MOVQ d_base+0(FP), dPtr;                  /* dPtr = &d[0]           */ \
	MOVQ d_len+8(FP), nLeft;                  /* nLeft = len(d)         */ \
	MOVQ x_base+24(FP), xPtr;                 /* xPtr = &x[0]           */ \
	MOVQ t1_base+48(FP), aPtr;                /* aPtr = &t1[0]          */ \
	MOVQ t2_base+72(FP), bPtr                 /* bPtr = &t2[0]          */

// func addcmul32(d, x, t1, t2 []float32, v float32):
// d[i] = fma(v·t1[i], t2[i], x[i]). In: slices of len(d) elements.
// Needs AVX2 and FMA.
TEXT ·addcmul32(SB), NOSPLIT, $0-100
	ARGS                                     // dPtr, xPtr, aPtr, bPtr, nLeft from the arguments
	VBROADCASTSS v+96(FP), vv                // vv = v everywhere
	ACMLOOP(8, 2, VMULPS, VFMADD231PS, VMASKMOVPS) // the loop

// func addcmul64(d, x, t1, t2 []float64, v float64): as addcmul32.
TEXT ·addcmul64(SB), NOSPLIT, $0-104
	ARGS                                     // dPtr, xPtr, aPtr, bPtr, nLeft from the arguments
	VBROADCASTSD v+96(FP), vv                // vv = v everywhere
	ACMLOOP(4, 3, VMULPD, VFMADD231PD, VMASKMOVPD) // the loop
