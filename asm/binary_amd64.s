//go:build !purego

#include "textflag.h"
#include "tailmask_amd64.h"

// Elementwise binary kernels, AVX2 (+FMA for axpy), float32 and float64.
// Every routine is BINLOOP over one operation: 4 vectors of 32 bytes per
// step, then one vector per step, then a last partial vector through a
// lane mask (VMASKMOVPS reads and writes only the lanes in range).

DATA cOne32<>+0(SB)/4, $0x3f800000      // float32 1
GLOBL cOne32<>(SB), RODATA|NOPTR, $4

// Register roles.
#define dPtr   DI  // next element of dst
#define xPtr   SI  // next element of x (unused when x is the scalar)
#define yPtr   DX  // next element of y (unused when y is the scalar)
#define nLeft  CX  // elements left
#define mPtr   R8  // into tailMask<>: the lane mask of the last vector
#define bcast  Y14 // the scalar operand (or axpy's a) in every lane
#define mask   Y15 // tail lane mask: all ones in lanes < nLeft


// Operand loaders: L(off, r) loads the vector at byte offset off into r,
// LM(r) the masked last vector. The B forms copy the broadcast scalar.
#define XL(off, r) VMOVUPS off(xPtr), r          /* r = x[off:off+32] */
#define XLM(r)     VMASKMOVPS (xPtr), mask, r    /* r = x[lanes in mask] */
#define YL(off, r) VMOVUPS off(yPtr), r          /* r = y[off:off+32] */
#define YLM(r)     VMASKMOVPS (yPtr), mask, r    /* r = y[lanes in mask] */
#define BL(off, r) VMOVAPS bcast, r              /* r = s in every lane */
#define BLM(r)     VMOVAPS bcast, r              /* r = s in every lane */

// Operations OP(x, y, t, u): x = x op y; t and u are scratch.
#define ADDS(x, y, t, u) VADDPS y, x, x          /* x = x + y */
#define SUBS(x, y, t, u) VSUBPS y, x, x          /* x = x - y */
#define MULS(x, y, t, u) VMULPS y, x, x          /* x = x · y */
#define DIVS(x, y, t, u) VDIVPS y, x, x          /* x = x / y */
#define AXPYS(x, y, t, u) VFMADD213PS y, bcast, x /* x = a·x + y, one rounding */
#define ADDD(x, y, t, u) VADDPD y, x, x          /* x = x + y */
#define SUBD(x, y, t, u) VSUBPD y, x, x          /* x = x - y */
#define MULD(x, y, t, u) VMULPD y, x, x          /* x = x · y */
#define DIVD(x, y, t, u) VDIVPD y, x, x          /* x = x / y */
#define AXPYD(x, y, t, u) VFMADD213PD y, bcast, x /* x = a·x + y, one rounding */

// MAXMIN(MM, CMP, BLEND, x, y, t, u): torch.maximum/minimum. MM(y, x) is
// y if y > x (resp. <), else x: right unless y alone is NaN; the blends
// then put y's NaN, and last x's NaN, on top.
#define MAXMIN(MM, CMP, BLEND, x, y, t, u) \
	MM    x, y, t;                            /* t = y ≷ x ? y : x      */ \
	CMP   $3, y, y, u;                        /* u = y is NaN           */ \
	BLEND u, y, t, t;                         /* t = y NaN ? y : t      */ \
	CMP   $3, x, x, u;                        /* u = x is NaN           */ \
	BLEND u, x, t, x                          /* x = x NaN ? x : t      */
#define MAXS(x, y, t, u) MAXMIN(VMAXPS, VCMPPS, VBLENDVPS, x, y, t, u)
#define MINS(x, y, t, u) MAXMIN(VMINPS, VCMPPS, VBLENDVPS, x, y, t, u)
#define MAXD(x, y, t, u) MAXMIN(VMAXPD, VCMPPD, VBLENDVPD, x, y, t, u)
#define MIND(x, y, t, u) MAXMIN(VMINPD, VCMPPD, VBLENDVPD, x, y, t, u)

// CLAMPS(x, y, t, u): x = min(max(x, y), hi) for y = lo in every lane and
// hi in Y13, neither NaN: VMAXPS/VMINPS give their first Go operand, x,
// when it is NaN or on ties (±0), as MAXS then MINS do with such bounds.
// t and u are unused (Y13 survives BINLOOP).
#define CLAMPS(x, y, t, u) \
	VMAXPS x, y, x;                           /* x = y > x ? y : x      */ \
	VMINPS x, Y13, x                          /* x = hi < x ? hi : x    */

// CUBES(x, y, t, u): x = (x·x)·x, each product rounded; y and u unused.
#define CUBES(x, y, t, u) \
	VMULPS x, x, t;                           /* t = x·x                */ \
	VMULPS t, x, x                            /* x = t·x                */

// SIGBWDS(x, y, t, u): x = (x·(1 − y))·y with 1 in bcast (sigmoid_backward
// of the gradient x and the output y, as its decomposition rounds it).
#define SIGBWDS(x, y, t, u) \
	VSUBPS y, bcast, t;                       /* t = 1 − y              */ \
	VMULPS t, x, x;                           /* x = g·t                */ \
	VMULPS y, x, x                            /* x = that·y             */

// TANHBWDS(x, y, t, u): x = x·(1 − y·y) with 1 in bcast (tanh_backward).
#define TANHBWDS(x, y, t, u) \
	VMULPS y, y, t;                           /* t = y·y                */ \
	VSUBPS t, bcast, t;                       /* t = 1 − t              */ \
	VMULPS t, x, x                            /* x = g·t                */

// BINLOOP runs OP over nLeft elements of W per vector (8 float32 or 4
// float64, so 32 bytes either way; SH = log2 of the element size). ST
// stores a whole vector: VMOVUPS, or a non-temporal VMOVNTPS/VMOVNTPD (the
// streaming kernels: dPtr 32-byte aligned) with FIN = SFENCE so the
// stores are ordered before the kernel returns (FIN = NOFENCE otherwise).
//
// In:  dPtr, xPtr, yPtr, nLeft ≥ 0, bcast as the loaders need.
// Out: dst written; clobbers CX, SI, DI, DX, R8, Y0–Y13, Y15.
#define BINLOOP(W, SH, LX, LXM, LY, LYM, OP, ST, FIN) \
	CMPQ    nLeft, $(4*W);                    /* 4 vectors left?        */ \
	JLT     one;                              /* no: one at a time      */ \
quad: \
	LX(0, Y0);                                /* Y0:Y3 = x, 4 vectors   */ \
	LX(32, Y1);                               /* next x vector into Y1 */ \
	LX(64, Y2);                               /* next x vector into Y2 */ \
	LX(96, Y3);                               /* next x vector into Y3 */ \
	LY(0, Y4);                                /* Y4:Y7 = y, 4 vectors   */ \
	LY(32, Y5);                               /* next y vector into Y5 */ \
	LY(64, Y6);                               /* next y vector into Y6 */ \
	LY(96, Y7);                               /* next y vector into Y7 */ \
	OP(Y0, Y4, Y8, Y12);                      /* Y0 = x op y            */ \
	OP(Y1, Y5, Y9, Y13);                      /* Y1 = x op y            */ \
	OP(Y2, Y6, Y10, Y4);                      /* Y2 = x op y            */ \
	OP(Y3, Y7, Y11, Y5);                      /* Y3 = x op y            */ \
	ST      Y0, 0(dPtr);                      /* dst = Y0:Y3            */ \
	ST      Y1, 32(dPtr);                     /* store Y1 */ \
	ST      Y2, 64(dPtr);                     /* store Y2 */ \
	ST      Y3, 96(dPtr);                     /* store Y3 */ \
	ADDQ    $128, xPtr;                       /* next 4 vectors         */ \
	ADDQ    $128, yPtr;                       /* advance yPtr too */ \
	ADDQ    $128, dPtr;                       /* advance dPtr too */ \
	SUBQ    $(4*W), nLeft;                    /* 4 vectors done         */ \
	CMPQ    nLeft, $(4*W);                    /* 4 more?                */ \
	JGE     quad;                             /* again while 4 vectors are left */ \
one: \
	CMPQ    nLeft, $W;                        /* a whole vector left?   */ \
	JLT     tail;                             /* no: the masked tail    */ \
	LX(0, Y0);                                /* Y0 = x                 */ \
	LY(0, Y4);                                /* Y4 = y                 */ \
	OP(Y0, Y4, Y8, Y12);                      /* Y0 = x op y            */ \
	ST      Y0, (dPtr);                       /* dst = Y0               */ \
	ADDQ    $32, xPtr;                        /* next vector            */ \
	ADDQ    $32, yPtr;                        /* advance yPtr too */ \
	ADDQ    $32, dPtr;                        /* advance dPtr too */ \
	SUBQ    $W, nLeft;                        /* one vector done        */ \
	JMP     one;                              /* the single vectors */ \
tail: \
	TESTQ   nLeft, nLeft;                     /* anything left?         */ \
	JZ      done;                             /* finished */ \
	LEAQ    tailMask<>+32(SB), mPtr;          /* mPtr = end of the ones */ \
	SHLQ    $SH, nLeft;                       /* nLeft = bytes left     */ \
	SUBQ    nLeft, mPtr;                      /* back by the bytes left */ \
	VMOVUPS (mPtr), mask;                     /* mask = lanes in range  */ \
	LXM(Y0);                                  /* Y0 = x, masked         */ \
	LYM(Y4);                                  /* Y4 = y, masked         */ \
	OP(Y0, Y4, Y8, Y12);                      /* Y0 = x op y            */ \
	VMASKMOVPS Y0, mask, (dPtr);              /* dst = Y0, masked       */ \
done: \
	FIN;                                      /* order the stores       */ \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// FIN of the kernels with ordinary stores: nothing to order.
#define NOFENCE MOVQ nLeft, nLeft

// Argument loading, by signature.
// Register roles beyond BINLOOP's, for the row kernels (ROWLOOP).
#define yRow  R9  // &y[0], where each row starts again
#define width R10 // elements per row, len(y)
#define rLeft R11 // rows left

#define ARGSROWS \
	MOVQ d_base+0(FP), dPtr;                  /* dPtr = &d[0]           */ \
	MOVQ x_base+24(FP), xPtr;                 /* xPtr = &x[0]           */ \
	MOVQ y_base+48(FP), yRow;                 /* yRow = &y[0]           */ \
	MOVQ y_len+56(FP), width;                 /* width = len(y)         */ \
	MOVQ rows+72(FP), rLeft                   /* rLeft = rows           */

#define ARGSVV \
	MOVQ d_base+0(FP), dPtr;                  /* dPtr = &d[0]           */ \
	MOVQ d_len+8(FP), nLeft;                  /* nLeft = len(d)         */ \
	MOVQ x_base+24(FP), xPtr;                 /* xPtr = &x[0]           */ \
	MOVQ y_base+48(FP), yPtr                  /* yPtr = &y[0]           */
#define ARGSVS(BC) \
	MOVQ d_base+0(FP), dPtr;                  /* dPtr = &d[0]           */ \
	MOVQ d_len+8(FP), nLeft;                  /* nLeft = len(d)         */ \
	MOVQ x_base+24(FP), xPtr;                 /* xPtr = &x[0]           */ \
	BC   s+48(FP), bcast                      /* bcast = s everywhere   */
#define ARGSSV(BC) \
	MOVQ d_base+0(FP), dPtr;                  /* dPtr = &d[0]           */ \
	MOVQ d_len+8(FP), nLeft;                  /* nLeft = len(d)         */ \
	BC   s+24(FP), bcast;                     /* bcast = s everywhere   */ \
	MOVQ y_base+32(FP), yPtr                  /* yPtr = &y[0]           */

// func addVV32(d, x, y []float32) and the rest of the slice-by-slice
// kernels: d[i] = x[i] op y[i]. In: slices of len(d) elements. Needs AVX2.
TEXT ·addVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, ADDS, VMOVUPS, NOFENCE)    // the loop: d = x + y

TEXT ·subVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, SUBS, VMOVUPS, NOFENCE)    // the loop: d = x - y

TEXT ·mulVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, MULS, VMOVUPS, NOFENCE)    // the loop: d = x · y

TEXT ·divVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, DIVS, VMOVUPS, NOFENCE)    // the loop: d = x / y

TEXT ·maxVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, MAXS, VMOVUPS, NOFENCE)    // the loop: d = x max y

TEXT ·minVV32(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, MINS, VMOVUPS, NOFENCE)    // the loop: d = x min y

// func addVS32(d, x []float32, s float32) and the rest: d[i] = x[i] op s.
TEXT ·addVS32(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, ADDS, VMOVUPS, NOFENCE)    // the loop: d = x + y

TEXT ·subVS32(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, SUBS, VMOVUPS, NOFENCE)    // the loop: d = x - y

TEXT ·mulVS32(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, MULS, VMOVUPS, NOFENCE)    // the loop: d = x · y

TEXT ·divVS32(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, DIVS, VMOVUPS, NOFENCE)    // the loop: d = x / y

TEXT ·maxVS32(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, MAXS, VMOVUPS, NOFENCE)    // the loop: d = x max y

TEXT ·minVS32(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, MINS, VMOVUPS, NOFENCE)    // the loop: d = x min y

// func subSV32(d []float32, s float32, y []float32) and the rest:
// d[i] = s op y[i].
TEXT ·subSV32(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, SUBS, VMOVUPS, NOFENCE)    // the loop: d = x - y

TEXT ·divSV32(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, DIVS, VMOVUPS, NOFENCE)    // the loop: d = x / y

TEXT ·maxSV32(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, MAXS, VMOVUPS, NOFENCE)    // the loop: d = x max y

TEXT ·minSV32(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, MINS, VMOVUPS, NOFENCE)    // the loop: d = x min y

// func axpy32(d []float32, a float32, x, y []float32): d[i] = a·x[i] + y[i].
// Needs AVX2 and FMA.
TEXT ·axpy32(SB), NOSPLIT, $0-80
	MOVQ         d_base+0(FP), dPtr       // dPtr = &d[0]
	MOVQ         d_len+8(FP), nLeft       // nLeft = len(d)
	VBROADCASTSS a+24(FP), bcast          // bcast = a everywhere
	MOVQ         x_base+32(FP), xPtr      // xPtr = &x[0]
	MOVQ         y_base+56(FP), yPtr      // yPtr = &y[0]
	BINLOOP(8, 2, XL, XLM, YL, YLM, AXPYS, VMOVUPS, NOFENCE)   // the loop: d = x axpy y

// The float64 kernels, as the float32 ones.
TEXT ·addVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, ADDD, VMOVUPS, NOFENCE)    // the loop: d = x + y

TEXT ·subVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, SUBD, VMOVUPS, NOFENCE)    // the loop: d = x - y

TEXT ·mulVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, MULD, VMOVUPS, NOFENCE)    // the loop: d = x · y

TEXT ·divVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, DIVD, VMOVUPS, NOFENCE)    // the loop: d = x / y

TEXT ·maxVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, MAXD, VMOVUPS, NOFENCE)    // the loop: d = x max y

TEXT ·minVV64(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, MIND, VMOVUPS, NOFENCE)    // the loop: d = x min y

TEXT ·addVS64(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, ADDD, VMOVUPS, NOFENCE)    // the loop: d = x + y

TEXT ·subVS64(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, SUBD, VMOVUPS, NOFENCE)    // the loop: d = x - y

TEXT ·mulVS64(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, MULD, VMOVUPS, NOFENCE)    // the loop: d = x · y

TEXT ·divVS64(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, DIVD, VMOVUPS, NOFENCE)    // the loop: d = x / y

TEXT ·maxVS64(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, MAXD, VMOVUPS, NOFENCE)    // the loop: d = x max y

TEXT ·minVS64(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, MIND, VMOVUPS, NOFENCE)    // the loop: d = x min y

TEXT ·subSV64(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, SUBD, VMOVUPS, NOFENCE)    // the loop: d = x - y

TEXT ·divSV64(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, DIVD, VMOVUPS, NOFENCE)    // the loop: d = x / y

TEXT ·maxSV64(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, MAXD, VMOVUPS, NOFENCE)    // the loop: d = x max y

TEXT ·minSV64(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, MIND, VMOVUPS, NOFENCE)    // the loop: d = x min y

TEXT ·axpy64(SB), NOSPLIT, $0-80
	MOVQ         d_base+0(FP), dPtr       // dPtr = &d[0]
	MOVQ         d_len+8(FP), nLeft       // nLeft = len(d)
	VBROADCASTSD a+24(FP), bcast          // bcast = a everywhere
	MOVQ         x_base+32(FP), xPtr      // xPtr = &x[0]
	MOVQ         y_base+56(FP), yPtr      // yPtr = &y[0]
	BINLOOP(4, 3, XL, XLM, YL, YLM, AXPYD, VMOVUPS, NOFENCE)   // the loop: d = x axpy y

// The streaming kernels: the same loops with non-temporal stores of the
// whole vectors (dst 32-byte aligned; see streamBytes in binary.go).

TEXT ·addVV32NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, ADDS, VMOVNTPS, SFENCE)    // the loop: d = x + y

TEXT ·subVV32NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, SUBS, VMOVNTPS, SFENCE)    // the loop: d = x - y

TEXT ·mulVV32NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, MULS, VMOVNTPS, SFENCE)    // the loop: d = x · y

TEXT ·divVV32NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, DIVS, VMOVNTPS, SFENCE)    // the loop: d = x / y

TEXT ·maxVV32NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, MAXS, VMOVNTPS, SFENCE)    // the loop: d = x max y

TEXT ·minVV32NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(8, 2, XL, XLM, YL, YLM, MINS, VMOVNTPS, SFENCE)    // the loop: d = x min y

TEXT ·addVS32NT(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, ADDS, VMOVNTPS, SFENCE)    // the loop: d = x + y

TEXT ·subVS32NT(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, SUBS, VMOVNTPS, SFENCE)    // the loop: d = x - y

TEXT ·mulVS32NT(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, MULS, VMOVNTPS, SFENCE)    // the loop: d = x · y

TEXT ·divVS32NT(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, DIVS, VMOVNTPS, SFENCE)    // the loop: d = x / y

// func clampVS32(d, x []float32, lo, hi float32) and clampVS32NT: d[i] =
// min(max(x[i], lo), hi) in one pass, lo and hi not NaN.
TEXT ·clampVS32(SB), NOSPLIT, $0-56
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ x_base+24(FP), xPtr                 // xPtr = &x[0]
	VBROADCASTSS lo+48(FP), bcast            // bcast = lo everywhere
	VBROADCASTSS hi+52(FP), Y13              // Y13 = hi everywhere
	BINLOOP(8, 2, XL, XLM, BL, BLM, CLAMPS, VMOVUPS, NOFENCE)  // the loop: d = clamp(x)

TEXT ·clampVS32NT(SB), NOSPLIT, $0-56
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ x_base+24(FP), xPtr                 // xPtr = &x[0]
	VBROADCASTSS lo+48(FP), bcast            // bcast = lo everywhere
	VBROADCASTSS hi+52(FP), Y13              // Y13 = hi everywhere
	BINLOOP(8, 2, XL, XLM, BL, BLM, CLAMPS, VMOVNTPS, SFENCE)  // the loop: d = clamp(x)

// func cubeV32(d, x []float32) and cubeV32NT: d[i] = (x[i]·x[i])·x[i].
TEXT ·cubeV32(SB), NOSPLIT, $0-48
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ x_base+24(FP), xPtr                 // xPtr = &x[0]
	BINLOOP(8, 2, XL, XLM, BL, BLM, CUBES, VMOVUPS, NOFENCE)   // the loop: d = x³

TEXT ·cubeV32NT(SB), NOSPLIT, $0-48
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ x_base+24(FP), xPtr                 // xPtr = &x[0]
	BINLOOP(8, 2, XL, XLM, BL, BLM, CUBES, VMOVNTPS, SFENCE)   // the loop: d = x³

// func sigmoidBwd32(d, g, y []float32): d[i] = (g[i]·(1 − y[i]))·y[i].
TEXT ·sigmoidBwd32(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ g_base+24(FP), xPtr                 // xPtr = &g[0]
	MOVQ y_base+48(FP), yPtr                 // yPtr = &y[0]
	VBROADCASTSS cOne32<>(SB), bcast         // bcast = 1 everywhere
	BINLOOP(8, 2, XL, XLM, YL, YLM, SIGBWDS, VMOVUPS, NOFENCE)   // the loop

// func sigmoidBwd32NT(d, g, y []float32): d[i] = (g[i]·(1 − y[i]))·y[i].
TEXT ·sigmoidBwd32NT(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ g_base+24(FP), xPtr                 // xPtr = &g[0]
	MOVQ y_base+48(FP), yPtr                 // yPtr = &y[0]
	VBROADCASTSS cOne32<>(SB), bcast         // bcast = 1 everywhere
	BINLOOP(8, 2, XL, XLM, YL, YLM, SIGBWDS, VMOVNTPS, SFENCE)   // the loop

// func tanhBwd32(d, g, y []float32): d[i] = g[i]·(1 − y[i]·y[i]).
TEXT ·tanhBwd32(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ g_base+24(FP), xPtr                 // xPtr = &g[0]
	MOVQ y_base+48(FP), yPtr                 // yPtr = &y[0]
	VBROADCASTSS cOne32<>(SB), bcast         // bcast = 1 everywhere
	BINLOOP(8, 2, XL, XLM, YL, YLM, TANHBWDS, VMOVUPS, NOFENCE)   // the loop

// func tanhBwd32NT(d, g, y []float32): d[i] = g[i]·(1 − y[i]·y[i]).
TEXT ·tanhBwd32NT(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), dPtr                  // dPtr = &d[0]
	MOVQ d_len+8(FP), nLeft                  // nLeft = len(d)
	MOVQ g_base+24(FP), xPtr                 // xPtr = &g[0]
	MOVQ y_base+48(FP), yPtr                 // yPtr = &y[0]
	VBROADCASTSS cOne32<>(SB), bcast         // bcast = 1 everywhere
	BINLOOP(8, 2, XL, XLM, YL, YLM, TANHBWDS, VMOVNTPS, SFENCE)   // the loop

TEXT ·maxVS32NT(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, MAXS, VMOVNTPS, SFENCE)    // the loop: d = x max y

TEXT ·minVS32NT(SB), NOSPLIT, $0-52
	ARGSVS(VBROADCASTSS)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(8, 2, XL, XLM, BL, BLM, MINS, VMOVNTPS, SFENCE)    // the loop: d = x min y

TEXT ·subSV32NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, SUBS, VMOVNTPS, SFENCE)    // the loop: d = x - y

TEXT ·divSV32NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, DIVS, VMOVNTPS, SFENCE)    // the loop: d = x / y

TEXT ·maxSV32NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, MAXS, VMOVNTPS, SFENCE)    // the loop: d = x max y

TEXT ·minSV32NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSS)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(8, 2, BL, BLM, YL, YLM, MINS, VMOVNTPS, SFENCE)    // the loop: d = x min y

TEXT ·axpy32NT(SB), NOSPLIT, $0-80
	MOVQ         d_base+0(FP), dPtr       // dPtr = &d[0]
	MOVQ         d_len+8(FP), nLeft       // nLeft = len(d)
	VBROADCASTSS a+24(FP), bcast          // bcast = a everywhere
	MOVQ         x_base+32(FP), xPtr      // xPtr = &x[0]
	MOVQ         y_base+56(FP), yPtr      // yPtr = &y[0]
	BINLOOP(8, 2, XL, XLM, YL, YLM, AXPYS, VMOVNTPS, SFENCE)   // the loop: d = x axpy y

TEXT ·addVV64NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, ADDD, VMOVNTPD, SFENCE)    // the loop: d = x + y

TEXT ·subVV64NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, SUBD, VMOVNTPD, SFENCE)    // the loop: d = x - y

TEXT ·mulVV64NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, MULD, VMOVNTPD, SFENCE)    // the loop: d = x · y

TEXT ·divVV64NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, DIVD, VMOVNTPD, SFENCE)    // the loop: d = x / y

TEXT ·maxVV64NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, MAXD, VMOVNTPD, SFENCE)    // the loop: d = x max y

TEXT ·minVV64NT(SB), NOSPLIT, $0-72
	ARGSVV                                   // dPtr, xPtr, yPtr, nLeft from the arguments
	BINLOOP(4, 3, XL, XLM, YL, YLM, MIND, VMOVNTPD, SFENCE)    // the loop: d = x min y

TEXT ·addVS64NT(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, ADDD, VMOVNTPD, SFENCE)    // the loop: d = x + y

TEXT ·subVS64NT(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, SUBD, VMOVNTPD, SFENCE)    // the loop: d = x - y

TEXT ·mulVS64NT(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, MULD, VMOVNTPD, SFENCE)    // the loop: d = x · y

TEXT ·divVS64NT(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, DIVD, VMOVNTPD, SFENCE)    // the loop: d = x / y

TEXT ·maxVS64NT(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, MAXD, VMOVNTPD, SFENCE)    // the loop: d = x max y

TEXT ·minVS64NT(SB), NOSPLIT, $0-56
	ARGSVS(VBROADCASTSD)                     // dPtr, xPtr, nLeft; bcast = s
	BINLOOP(4, 3, XL, XLM, BL, BLM, MIND, VMOVNTPD, SFENCE)    // the loop: d = x min y

TEXT ·subSV64NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, SUBD, VMOVNTPD, SFENCE)    // the loop: d = x - y

TEXT ·divSV64NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, DIVD, VMOVNTPD, SFENCE)    // the loop: d = x / y

TEXT ·maxSV64NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, MAXD, VMOVNTPD, SFENCE)    // the loop: d = x max y

TEXT ·minSV64NT(SB), NOSPLIT, $0-56
	ARGSSV(VBROADCASTSD)                     // dPtr, yPtr, nLeft; bcast = s
	BINLOOP(4, 3, BL, BLM, YL, YLM, MIND, VMOVNTPD, SFENCE)    // the loop: d = x min y

TEXT ·axpy64NT(SB), NOSPLIT, $0-80
	MOVQ         d_base+0(FP), dPtr       // dPtr = &d[0]
	MOVQ         d_len+8(FP), nLeft       // nLeft = len(d)
	VBROADCASTSD a+24(FP), bcast          // bcast = a everywhere
	MOVQ         x_base+32(FP), xPtr      // xPtr = &x[0]
	MOVQ         y_base+56(FP), yPtr      // yPtr = &y[0]
	BINLOOP(4, 3, XL, XLM, YL, YLM, AXPYD, VMOVNTPD, SFENCE)   // the loop: d = x axpy y

// The row kernels: d = x op y over rows rows of len(y) elements, y the
// same row each time (a bias down a matrix), with non-temporal stores and
// one fence at the end. See RowsStream in binary.go.

// ROWLOOP runs OP over the rows: W elements per 32-byte vector, ST the
// non-temporal store (VMOVNTPS or VMOVNTPD).
//
// In:  dPtr 32-byte aligned, xPtr, yRow, width a positive multiple of W,
//      rLeft ≥ 1.
// Out: the rows written; clobbers CX, DX, SI, DI, R11, Y0–Y13.
#define ROWLOOP(W, OP, ST) \
row: \
	MOVQ    yRow, yPtr;                       /* y from its start       */ \
	MOVQ    width, nLeft;                     /* a row's elements left  */ \
quad: \
	CMPQ    nLeft, $(4*W);                    /* 4 vectors left?        */ \
	JLT     one;                              /* no: one at a time      */ \
	XL(0, Y0);                                /* Y0:Y3 = x, 4 vectors   */ \
	XL(32, Y1);                               /* next x vector into Y1 */ \
	XL(64, Y2);                               /* next x vector into Y2 */ \
	XL(96, Y3);                               /* next x vector into Y3 */ \
	YL(0, Y4);                                /* Y4:Y7 = y, 4 vectors   */ \
	YL(32, Y5);                               /* next y vector into Y5 */ \
	YL(64, Y6);                               /* next y vector into Y6 */ \
	YL(96, Y7);                               /* next y vector into Y7 */ \
	OP(Y0, Y4, Y8, Y12);                      /* Y0 = x op y            */ \
	OP(Y1, Y5, Y9, Y13);                      /* Y1 = x op y            */ \
	OP(Y2, Y6, Y10, Y4);                      /* Y2 = x op y            */ \
	OP(Y3, Y7, Y11, Y5);                      /* Y3 = x op y            */ \
	ST      Y0, 0(dPtr);                      /* dst = Y0:Y3, streamed  */ \
	ST      Y1, 32(dPtr);                     /* store Y1 */ \
	ST      Y2, 64(dPtr);                     /* store Y2 */ \
	ST      Y3, 96(dPtr);                     /* store Y3 */ \
	ADDQ    $128, xPtr;                       /* next 4 vectors         */ \
	ADDQ    $128, yPtr;                       /* advance yPtr too */ \
	ADDQ    $128, dPtr;                       /* advance dPtr too */ \
	SUBQ    $(4*W), nLeft;                    /* 4 vectors done         */ \
	JMP     quad;                             /* again */ \
one: \
	TESTQ   nLeft, nLeft;                     /* a vector left?         */ \
	JZ      next;                             /* no: the row is done    */ \
	XL(0, Y0);                                /* Y0 = x                 */ \
	YL(0, Y4);                                /* Y4 = y                 */ \
	OP(Y0, Y4, Y8, Y12);                      /* Y0 = x op y            */ \
	ST      Y0, (dPtr);                       /* dst = Y0, streamed     */ \
	ADDQ    $32, xPtr;                        /* next vector            */ \
	ADDQ    $32, yPtr;                        /* advance yPtr too */ \
	ADDQ    $32, dPtr;                        /* advance dPtr too */ \
	SUBQ    $W, nLeft;                        /* one vector done        */ \
	JMP     one;                              /* again */ \
next: \
	DECQ    rLeft;                            /* a row done             */ \
	JNZ     row;                              /* until none left        */ \
	SFENCE;                                   /* order the stores       */ \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// func addRows32NT(d, x, y []float32, rows int) and the rest: d[r·n+i] =
// x[r·n+i] op y[i], n = len(y). Needs AVX.
TEXT ·addRows32NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(8, ADDS, VMOVNTPS)               // the rows: d = x + y

TEXT ·subRows32NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(8, SUBS, VMOVNTPS)               // the rows: d = x - y

TEXT ·mulRows32NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(8, MULS, VMOVNTPS)               // the rows: d = x · y

TEXT ·divRows32NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(8, DIVS, VMOVNTPS)               // the rows: d = x / y

TEXT ·addRows64NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(4, ADDD, VMOVNTPD)               // the rows: d = x + y

TEXT ·subRows64NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(4, SUBD, VMOVNTPD)               // the rows: d = x - y

TEXT ·mulRows64NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(4, MULD, VMOVNTPD)               // the rows: d = x · y

TEXT ·divRows64NT(SB), NOSPLIT, $0-80
	ARGSROWS                                 // the pointers, width and rows
	ROWLOOP(4, DIVD, VMOVNTPD)               // the rows: d = x / y
