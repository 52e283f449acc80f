//go:build !purego

#include "textflag.h"
#include "elementwise_amd64.h"

// Unary float32 kernels, AVX2+FMA. Each routine is a loop macro over a core
// that maps the vector in Y0 (8 float32) to its result in Y0: UNLOOP for
// the float32 cores, UNLOOP64 for the cores that work in float64 (erf,
// gelu, gelu_tanh, sin, cos: the 8 inputs become two vectors of 4 float64, each
// goes through the core, and each result is rounded to float32 once). The
// cores are, instruction for instruction, the twins in unary_generic.go.

// Register roles of the loops.
#define dPtr   DI  // next element of dst
#define xPtr   SI  // next element of x
#define nLeft  CX  // elements left
#define mPtr   R8  // into tailMask<>: the lane mask of the last vector
#define mask   Y15 // tail lane mask: all ones in lanes < nLeft
#define flags  Y14 // sin/cos: lanes left to the caller (|x| ≥ 1e6 or NaN), OR-ed up

// UNLOOP runs CORE (Y0 in, Y0 out, may clobber Y1–Y13) over len(d)
// elements of func(d, x []float32). UNLOOPST stores the whole vectors with
// ST: VMOVUPS, or VMOVNTPS for the streaming kernels (d 32-byte aligned,
// and SFENCE before they return).
#define UNLOOP(CORE) UNLOOPST(CORE, VMOVUPS)
#define UNLOOPST(CORE, ST) \
	MOVQ       d_base+0(FP), dPtr;           /* dPtr = &d[0]           */ \
	MOVQ       d_len+8(FP), nLeft;           /* nLeft = len(d)         */ \
	MOVQ       x_base+24(FP), xPtr;          /* xPtr = &x[0]           */ \
	CMPQ       nLeft, $8;                    /* a whole vector?        */ \
	JLT        tail;                          /* the last elements */ \
loop: \
	VMOVUPS    (xPtr), Y0;                   /* Y0 = x[0:8]            */ \
	CORE;                                    /* Y0 = f(Y0)             */ \
	ST         Y0, (dPtr);                   /* d[0:8] = Y0            */ \
	ADDQ       $32, xPtr;                    /* next vector            */ \
	ADDQ       $32, dPtr;                     /* advance dPtr too */ \
	SUBQ       $8, nLeft;                    /* 8 done                 */ \
	CMPQ       nLeft, $8;                    /* 8 more?                */ \
	JGE        loop;                          /* again */ \
tail: \
	TESTQ      nLeft, nLeft;                 /* anything left?         */ \
	JZ         done;                          /* finished */ \
	LEAQ       tailMask<>+32(SB), mPtr;      /* mPtr = end of the ones */ \
	SHLQ       $2, nLeft;                    /* bytes left             */ \
	SUBQ       nLeft, mPtr;                  /* back by them           */ \
	VMOVUPS    (mPtr), mask;                 /* mask = lanes in range  */ \
	VMASKMOVPS (xPtr), mask, Y0;             /* Y0 = x, masked (0 out) */ \
	CORE;                                    /* Y0 = f(Y0)             */ \
	VMASKMOVPS Y0, mask, (dPtr);             /* d = Y0, masked         */ \
done:

// HALVES runs the float64 CORE64(v) (v in and out, may clobber Y3–Y13) on
// both halves of Y0: Y1 and Y2 hold them, the results go back to Y0.
#define HALVES(CORE64) \
	VEXTRACTF128 $1, Y0, X2;                 /* X2 = lanes 4:8         */ \
	VCVTPS2PD    X0, Y1;                     /* Y1 = lanes 0:4 widened */ \
	VCVTPS2PD    X2, Y2;                     /* Y2 = lanes 4:8 widened */ \
	CORE64(Y1);                              /* Y1 = f(Y1)             */ \
	VCVTPD2PSY   Y1, X1;                     /* X1 = Y1 rounded        */ \
	CORE64(Y2);                              /* Y2 = f(Y2)             */ \
	VCVTPD2PSY   Y2, X2;                     /* X2 = Y2 rounded        */ \
	VINSERTF128  $1, X2, Y1, Y0              /* Y0 = X1:X2             */

// ---- exp (float32) ----

// ---- log (float32) ----

#define LOGCORE \
	VCMPPS       $1, cMinNorm<>(SB), Y0, Y1; /* Y1 = x < 2^-126        */ \
	VMULPS       c2p23<>(SB), Y0, Y2;        /* Y2 = x·2^23            */ \
	VBLENDVPS    Y1, Y2, Y0, Y2;             /* Y2 = xs: scaled if tiny */ \
	VANDPS       i23<>(SB), Y1, Y1;          /* Y1 = adj: 23 if tiny   */ \
	VPSRLD       $23, Y2, Y3;                /* Y3 = exponent bits     */ \
	VPSUBD       i126<>(SB), Y3, Y3;         /* Y3 = e + 1 - 127       */ \
	VPSUBD       Y1, Y3, Y3;                 /* Y3 = e - adj           */ \
	VANDPS       cMant<>(SB), Y2, Y2;        /* Y2 = mantissa          */ \
	VORPS        cHalfBits<>(SB), Y2, Y2;    /* Y2 = m in [0.5, 1)     */ \
	VCMPPS       $1, cSqrtHalf<>(SB), Y2, Y4; /* Y4 = m < √½           */ \
	VPADDD       Y4, Y3, Y3;                 /* e -= 1 there           */ \
	VANDPS       Y2, Y4, Y4;                 /* Y4 = m there, else 0   */ \
	VADDPS       Y4, Y2, Y2;                 /* m += m there           */ \
	VSUBPS       cOne<>(SB), Y2, Y2;         /* Y2 = f = m - 1         */ \
	VCVTDQ2PS    Y3, Y3;                     /* Y3 = e as float        */ \
	VMULPS       Y2, Y2, Y4;                 /* Y4 = z = f²            */ \
	VMOVUPS      cLogP7<>(SB), Y5;           /* Y5 = P7                */ \
	VFMADD213PS  cLogP6<>(SB), Y2, Y5;       /* Y5 = Y5·f + P6         */ \
	VFMADD213PS  cLogP5<>(SB), Y2, Y5;       /* Y5 = Y5·f + P5         */ \
	VFMADD213PS  cLogP4<>(SB), Y2, Y5;       /* Y5 = Y5·f + P4         */ \
	VFMADD213PS  cLogP3<>(SB), Y2, Y5;       /* Y5 = Y5·f + P3         */ \
	VFMADD213PS  cLogP2<>(SB), Y2, Y5;       /* Y5 = Y5·f + P2         */ \
	VFMADD213PS  cLogP1<>(SB), Y2, Y5;       /* Y5 = Y5·f + P1         */ \
	VFMADD213PS  cLogP0<>(SB), Y2, Y5;       /* Y5 = P(f)              */ \
	VMULPS       Y4, Y5, Y5;                 /* Y5 = P·z               */ \
	VMULPS       Y2, Y5, Y5;                 /* Y5 = y = P·z·f         */ \
	VFMADD231PS  cLn2Lo<>(SB), Y3, Y5;       /* y += e·ln2Lo           */ \
	VFMADD231PS  cMinusHalf<>(SB), Y4, Y5;   /* y -= z/2               */ \
	VADDPS       Y5, Y2, Y5;                 /* Y5 = r = f + y         */ \
	VFMADD231PS  cLn2Hi<>(SB), Y3, Y5;       /* r += e·ln2Hi           */ \
	VXORPS       Y6, Y6, Y6;                 /* Y6 = 0                 */ \
	VCMPPS       $0, Y6, Y0, Y7;             /* Y7 = x == 0            */ \
	VBLENDVPS    Y7, cNegInf<>(SB), Y5, Y5;  /* log(±0) = -Inf         */ \
	VCMPPS       $1, Y6, Y0, Y7;             /* Y7 = x < 0             */ \
	VBLENDVPS    Y7, cNaN<>(SB), Y5, Y5;     /* log(x < 0) = NaN       */ \
	VCMPPS       $5, cPosInf<>(SB), Y0, Y7;  /* Y7 = !(x < +Inf)       */ \
	VBLENDVPS    Y7, Y0, Y5, Y0              /* +Inf and NaN: x itself */

// ---- tanh (float32) ----

#define TANHCORE \
	VANDPS       cAbs<>(SB), Y0, Y1;         /* Y1 = a = |x|           */ \
	VMULPS       Y0, Y0, Y2;                 /* Y2 = z = x²            */ \
	VMOVUPS      cTanhP4<>(SB), Y3;          /* Y3 = P4                */ \
	VFMADD213PS  cTanhP3<>(SB), Y2, Y3;      /* Y3 = Y3·z + P3         */ \
	VFMADD213PS  cTanhP2<>(SB), Y2, Y3;      /* Y3 = Y3·z + P2         */ \
	VFMADD213PS  cTanhP1<>(SB), Y2, Y3;      /* Y3 = Y3·z + P1         */ \
	VFMADD213PS  cTanhP0<>(SB), Y2, Y3;      /* Y3 = P(z)              */ \
	VMULPS       Y2, Y0, Y4;                 /* Y4 = x·z               */ \
	VFMADD213PS  Y0, Y3, Y4;                 /* Y4 = small = x·z·P + x */ \
	VADDPS       Y1, Y1, Y5;                 /* Y5 = 2a                */ \
	EXPPARTS(Y5, Y6, Y7, Y8, Y9, Y10);       /* e^{2a} = Y6·Y7·Y8      */ \
	VMULPS       Y7, Y6, Y6;                 /* Y6 = y·s1              */ \
	VMULPS       Y8, Y6, Y6;                 /* Y6 = e = y·s1·s2       */ \
	VADDPS       cOne<>(SB), Y6, Y6;         /* Y6 = e + 1             */ \
	VMOVUPS      cTwo<>(SB), Y7;             /* Y7 = 2                 */ \
	VDIVPS       Y6, Y7, Y7;                 /* Y7 = 2/(e+1)           */ \
	VMOVUPS      cOne<>(SB), Y8;             /* Y8 = 1                 */ \
	VSUBPS       Y7, Y8, Y8;                 /* Y8 = big = 1 - 2/(e+1) */ \
	VCMPPS       $1, cTanhSmall<>(SB), Y1, Y9; /* Y9 = a < 0.625       */ \
	VBLENDVPS    Y9, Y4, Y8, Y8;             /* Y8 = small or big      */ \
	VANDPS       cAbs<>(SB), Y8, Y8;         /* Y8 = |Y8|              */ \
	VANDPS       cSign<>(SB), Y0, Y9;        /* Y9 = sign of x         */ \
	VORPS        Y9, Y8, Y0                  /* Y0 = Y8 with x's sign  */

// ---- sigmoid (float32) ----

#define SIGMOIDCORE \
	VORPS        cSign<>(SB), Y0, Y1;        /* Y1 = -|x|              */ \
	EXPPARTS(Y1, Y2, Y3, Y4, Y5, Y6);        /* e = Y2·Y3·Y4           */ \
	VMULPS       Y3, Y2, Y2;                 /* Y2 = y·s1              */ \
	VMULPS       Y4, Y2, Y2;                 /* Y2 = e                 */ \
	VADDPS       cOne<>(SB), Y2, Y3;         /* Y3 = 1 + e             */ \
	VXORPS       Y5, Y5, Y5;                 /* Y5 = 0                 */ \
	VCMPPS       $1, Y5, Y0, Y5;             /* Y5 = x < 0             */ \
	VMOVUPS      cOne<>(SB), Y4;             /* Y4 = 1                 */ \
	VBLENDVPS    Y5, Y2, Y4, Y4;             /* Y4 = x < 0 ? e : 1     */ \
	VDIVPS       Y3, Y4, Y0                  /* Y0 = Y4/(1 + e)        */

// SILUCORE: x / (e^-x + 1) in float32, the operations of PyTorch's
// kernel (and of goaten's decomposition) with EXPCORE's e^-x.
#define SILUCORE \
	VXORPS       cSign<>(SB), Y0, Y1;        /* Y1 = -x                */ \
	EXPPARTS(Y1, Y2, Y3, Y4, Y5, Y6);        /* e = Y2·Y3·Y4           */ \
	VMULPS       Y3, Y2, Y2;                 /* Y2 = y·s1              */ \
	VMULPS       Y4, Y2, Y2;                 /* Y2 = e^-x              */ \
	VADDPS       cOne<>(SB), Y2, Y2;         /* Y2 = e^-x + 1          */ \
	VDIVPS       Y2, Y0, Y0                  /* Y0 = x/(e^-x + 1)      */

// ---- the plain ones (float32) ----

#define RELUCORE \
	VXORPS       Y1, Y1, Y1;                 /* Y1 = 0                 */ \
	VCMPPS       $1, Y1, Y0, Y2;             /* Y2 = x < 0             */ \
	VANDNPS      Y0, Y2, Y0                  /* Y0 = x, 0 where x < 0  */
#define ABSCORE VANDPS cAbs<>(SB), Y0, Y0    /* clear the sign         */
#define NEGCORE VXORPS cSign<>(SB), Y0, Y0   /* flip the sign          */
#define SQRTCORE VSQRTPS Y0, Y0              /* Y0 = √x                */
// RSQRTCORE is 1/s, s = √x, rounded once as the twin's (and PyTorch's)
// division, with one divider instruction (the VSQRTPS) instead of two: the
// 12-bit VRCPPS seed y0 = (1+ε)/s, |ε| ≤ 1.5·2^-12, is refined by one
// second-order step y1 = y0 + y0·(r + r²), r = 1 - s·y0, to within
// 0.5 ulp + 2^-33 relative of 1/s, so y1 is one of the two float32
// neighbours of 1/s whatever the vendor's seed table; then Markstein's
// correction r1 = 1 - s·y1 (exact), y1 + y1·r1 rounds to 1/s correctly:
// TestRecipCorrection checks that last step for every float32 significand
// and both neighbours: it holds for all but the significand of all ones,
// s = (2 - 2^-23)·2^k, where from the lower neighbour 2^-(k+1) the exact
// y1 + y1·r1 is a tie and rounds to even, though 1/s lies just above it;
// 1/s rounds to 2^-(k+1)·(1 + 2^-23) there, so setting the lowest bit of
// those lanes' results makes them right. s = ±0, ±Inf or NaN make r NaN;
// those lanes take the seed, which is then exact (±Inf, ±0, the NaN).
#define RSQRTCORE \
	VSQRTPS      Y0, Y1;                     /* Y1 = s = √x            */ \
	VRCPPS       Y1, Y2;                     /* Y2 = y0 ≈ 1/s          */ \
	VMOVUPS      cOne<>(SB), Y3;             /* Y3 = 1                 */ \
	VMOVAPS      Y3, Y4;                     /* Y4 = 1                 */ \
	VFNMADD231PS Y2, Y1, Y4;                 /* Y4 = r = 1 - s·y0      */ \
	VFMADD213PS  Y4, Y4, Y4;                 /* Y4 = t = r·r + r       */ \
	VMOVAPS      Y2, Y0;                     /* Y0 = y0                */ \
	VFMADD231PS  Y4, Y2, Y0;                 /* Y0 = y1 = y0·t + y0    */ \
	VFNMADD231PS Y0, Y1, Y3;                 /* Y3 = r1 = 1 - s·y1     */ \
	VFMADD231PS  Y3, Y0, Y0;                 /* Y0 = y1·r1 + y1        */ \
	VCMPPS       $3, Y4, Y4, Y5;             /* Y5 = t is NaN          */ \
	VBLENDVPS    Y5, Y2, Y0, Y0;             /* there: Y0 = y0         */ \
	VPAND        cMant<>(SB), Y1, Y6;        /* Y6 = s's significand   */ \
	VPCMPEQD     cMant<>(SB), Y6, Y6;        /* Y6 = all ones there    */ \
	VPSRLD       $31, Y6, Y6;                /* Y6 = 1 there, else 0   */ \
	VPOR         Y6, Y0, Y0                  /* their lowest bit set   */
#define RECIPCORE \
	VMOVUPS      cOne<>(SB), Y1;             /* Y1 = 1                 */ \
	VDIVPS       Y0, Y1, Y0                  /* Y0 = 1/x               */

// ---- float64 cores ----

// EXP64(x, y, t, u, v): y = exp64(x) for x ≤ 0, as the twin. Clobbers x,
// t, u, v.
#define EXP64(x, y, t, u, v) \
	VCMPPD       $1, dExpLo<>(SB), x, t;     /* t = x < exp64Lo        */ \
	VMOVUPD      dExpLo<>(SB), u;            /* u = exp64Lo            */ \
	VMAXPD       x, u, x;                    /* x = max(lo, x)         */ \
	VMULPD       dLog2e<>(SB), x, u;         /* u = x·log2e            */ \
	VROUNDPD     $0, u, u;                   /* u = n                  */ \
	VFNMADD231PD dLn2Hi<>(SB), u, x;         /* x = x - n·ln2Hi        */ \
	VFNMADD231PD dLn2Lo<>(SB), u, x;         /* x = r                  */ \
	VMOVUPD      dExpT6<>(SB), y;            /* y = T6                 */ \
	VFMADD213PD  dExpT5<>(SB), x, y;         /* y = y·r + T5           */ \
	VFMADD213PD  dExpT4<>(SB), x, y;         /* y = y·r + T4           */ \
	VFMADD213PD  dExpT3<>(SB), x, y;         /* y = y·r + T3           */ \
	VFMADD213PD  dExpT2<>(SB), x, y;         /* y = y·r + T2           */ \
	VFMADD213PD  dExpT1<>(SB), x, y;         /* y = y·r + T1           */ \
	VFMADD213PD  dExpT0<>(SB), x, y;         /* y = T(r)               */ \
	VMULPD       x, x, v;                    /* v = r²                 */ \
	VFMADD213PD  x, v, y;                    /* y = r²·T + r           */ \
	VADDPD       dOne<>(SB), y, y;           /* y = e^r                */ \
	VADDPD       dMagic<>(SB), u, u;         /* n into the low bits    */ \
	VPADDQ       iBias64<>(SB), u, u;        /* + 1023                 */ \
	VPSLLQ       $52, u, u;                  /* u = 2^n                */ \
	VMULPD       u, y, y;                    /* y = e^r·2^n            */ \
	VANDNPD      y, t, y                     /* 0 below exp64Lo        */

// ERFPOLY(z, p, w): p = erfPoly64(z) (w scratch).
#define ERFPOLY(z, p, w) \
	VMULPD       z, z, w;                    /* w = z²                 */ \
	VMOVUPD      dErfP6<>(SB), p;            /* p = P6                 */ \
	VFMADD213PD  dErfP5<>(SB), w, p;         /* p = p·w + P5           */ \
	VFMADD213PD  dErfP4<>(SB), w, p;         /* p = p·w + P4           */ \
	VFMADD213PD  dErfP3<>(SB), w, p;         /* p = p·w + P3           */ \
	VFMADD213PD  dErfP2<>(SB), w, p;         /* p = p·w + P2           */ \
	VFMADD213PD  dErfP1<>(SB), w, p;         /* p = p·w + P1           */ \
	VFMADD213PD  dErfP0<>(SB), w, p;         /* p = P(z²)              */ \
	VMULPD       z, p, p;                    /* p = z·P                */ \
	VFMADD231PD  dErfC0<>(SB), z, p          /* p = z·C0 + z·P         */

// ERFC(a, zz, c, t, u, v, w): c = erfc64(a, zz) = e^{-zz}·t·H(t),
// t = 2/(2+a). Clobbers zz, t, u, v, w.
#define ERFC(a, zz, c, t, u, v, w) \
	VXORPD       dSign<>(SB), zz, zz;        /* zz = -zz               */ \
	EXP64(zz, c, t, u, v);                   /* c = e^{-zz}            */ \
	VADDPD       dTwo<>(SB), a, u;           /* u = 2 + a              */ \
	VMOVUPD      dTwo<>(SB), t;              /* t = 2                  */ \
	VDIVPD       u, t, t;                    /* t = 2/(2 + a)          */ \
	VMULPD       t, c, c;                    /* c = e·t                */ \
	VMOVUPD      dErfcH9<>(SB), w;           /* w = H9                 */ \
	VFMADD213PD  dErfcH8<>(SB), t, w;        /* w = w·t + H8           */ \
	VFMADD213PD  dErfcH7<>(SB), t, w;        /* w = w·t + H7           */ \
	VFMADD213PD  dErfcH6<>(SB), t, w;        /* w = w·t + H6           */ \
	VFMADD213PD  dErfcH5<>(SB), t, w;        /* w = w·t + H5           */ \
	VFMADD213PD  dErfcH4<>(SB), t, w;        /* w = w·t + H4           */ \
	VFMADD213PD  dErfcH3<>(SB), t, w;        /* w = w·t + H3           */ \
	VFMADD213PD  dErfcH2<>(SB), t, w;        /* w = w·t + H2           */ \
	VFMADD213PD  dErfcH1<>(SB), t, w;        /* w = w·t + H1           */ \
	VFMADD213PD  dErfcH0<>(SB), t, w;        /* w = H(t)               */ \
	VMULPD       w, c, c                     /* c = e·t·H(t)           */

// ERF64(z): z = erf(z), as erfGo1 (in float64). Clobbers Y3–Y13.
#define ERF64(z) \
	ERFPOLY(z, Y3, Y4);                      /* Y3 = erf by the poly   */ \
	VANDPD       dAbs<>(SB), z, Y4;          /* Y4 = |z|               */ \
	VMOVUPD      dErfcMax<>(SB), Y5;         /* Y5 = 10.6              */ \
	VMINPD       Y4, Y5, Y5;                 /* Y5 = a = min(10.6, |z|) */ \
	VMULPD       Y5, Y5, Y6;                 /* Y6 = a²                */ \
	ERFC(Y5, Y6, Y7, Y8, Y9, Y10, Y11);      /* Y7 = erfc(a)           */ \
	VMOVUPD      dOne<>(SB), Y8;             /* Y8 = 1                 */ \
	VSUBPD       Y7, Y8, Y8;                 /* Y8 = 1 - erfc          */ \
	VCMPPD       $1, dOne<>(SB), Y4, Y4;     /* Y4 = |z| < 1           */ \
	VBLENDVPD    Y4, Y3, Y8, Y8;             /* Y8 = poly or 1 - erfc  */ \
	VANDPD       dAbs<>(SB), Y8, Y8;         /* Y8 = |Y8|              */ \
	VANDPD       dSign<>(SB), z, Y9;         /* Y9 = sign of z         */ \
	VORPD        Y9, Y8, z                   /* z = Y8 with z's sign   */

// GELUCORE: Y0 = geluGo1(Y0) in float32, the twin's steps (fma(v, ym, v)
// with v = -v' as -(v'·ym) - v', the same bits). Clobbers Y1–Y9.
#define GELUCORE \
	VANDPS       cAbs<>(SB), Y0, Y1;         /* Y1 = |x|               */ \
	VMOVUPS      cGeluTMax<>(SB), Y2;        /* Y2 = geluTMax          */ \
	VMINPS       Y1, Y2, Y1;                 /* Y1 = t (a NaN stays)   */ \
	VMULPS       Y1, Y1, Y2;                 /* Y2 = s = t², rounded   */ \
	VMOVAPS      Y2, Y3;                     /* Y3 = s                 */ \
	VFMSUB231PS  Y1, Y1, Y3;                 /* Y3 = e = t·t - s       */ \
	VMULPS       cMinusHalf<>(SB), Y2, Y2;   /* Y2 = a = -s/2          */ \
	EXPRED(Y2, Y4);                          /* Y4 = n, Y2 = a - n·ln 2 */ \
	VFMADD231PS  cMinusHalf<>(SB), Y3, Y2;   /* Y2 = r = Y2 - e/2      */ \
	EXPM1POLY(Y2, Y5, Y6);                   /* Y5 = ym = e^r - 1      */ \
	VADDPS       cGeluB4<>(SB), Y1, Y7;      /* Y7 = t + B4            */ \
	VFMADD213PS  cGeluB3<>(SB), Y1, Y7;      /* Y7 = Y7·t + B3         */ \
	VFMADD213PS  cGeluB2<>(SB), Y1, Y7;      /* Y7 = Y7·t + B2         */ \
	VFMADD213PS  cGeluB1<>(SB), Y1, Y7;      /* Y7 = Y7·t + B1         */ \
	VFMADD213PS  cGeluB0<>(SB), Y1, Y7;      /* Y7 = b(t)              */ \
	VMOVUPS      cGeluA4<>(SB), Y8;          /* Y8 = A4                */ \
	VFMADD213PS  cGeluA3<>(SB), Y1, Y8;      /* Y8 = Y8·t + A3         */ \
	VFMADD213PS  cGeluA2<>(SB), Y1, Y8;      /* Y8 = Y8·t + A2         */ \
	VFMADD213PS  cGeluA1<>(SB), Y1, Y8;      /* Y8 = Y8·t + A1         */ \
	VFMADD213PS  cGeluA0<>(SB), Y1, Y8;      /* Y8 = a(t)              */ \
	VMULPS       cGeluC<>(SB), Y1, Y9;       /* Y9 = c·t               */ \
	VFMADD213PS  Y8, Y7, Y9;                 /* Y9 = c·t·b + a         */ \
	VDIVPS       Y9, Y7, Y7;                 /* Y7 = q = b/Y9          */ \
	VMULPS       Y1, Y7, Y7;                 /* Y7 = v' = t·q          */ \
	VFNMSUB213PS Y7, Y5, Y7;                 /* Y7 = w = -(v'·ym) - v' */ \
	VADDPS       cGeluMagic<>(SB), Y4, Y4;   /* Y4 low bits = n + 191  */ \
	VPSLLD       $23, Y4, Y4;                /* Y4 = 2^(n+64)          */ \
	VMULPS       Y4, Y7, Y7;                 /* Y7 = w·2^(n+64), exact */ \
	VMULPS       c2m64<>(SB), Y7, Y7;        /* Y7 = g = gelu(-t)      */ \
	VADDPS       Y0, Y7, Y8;                 /* Y8 = x + g             */ \
	VSUBPS       Y0, Y0, Y9;                 /* Y9 = x - x (NaN: ±Inf) */ \
	VSUBPS       Y9, Y7, Y7;                 /* Y7 = g - (x - x)       */ \
	VBLENDVPS    Y0, Y7, Y8, Y0              /* Y0 = x's sign ? Y7 : Y8 */

// SIGMUL64(x, u): x = sigmoidMul64(x, u) before the rounding. Clobbers u,
// Y8–Y13.
#define SIGMUL64(x, u) \
	VORPD        dSign<>(SB), u, Y8;         /* Y8 = -|u|              */ \
	EXP64(Y8, Y9, Y10, Y11, Y12);            /* Y9 = e = e^{-|u|}      */ \
	VMULPD       Y9, x, Y10;                 /* Y10 = x·e              */ \
	VXORPD       Y11, Y11, Y11;              /* Y11 = 0                */ \
	VCMPPD       $1, Y11, u, Y11;            /* Y11 = u < 0            */ \
	VBLENDVPD    Y11, Y10, x, Y10;           /* Y10 = u < 0 ? x·e : x  */ \
	VADDPD       dOne<>(SB), Y9, Y9;         /* Y9 = 1 + e             */ \
	VDIVPD       Y9, Y10, x                  /* x = num/(1 + e)        */

// GELUTANH64(x): x = x·σ(u), u = 2·√(2/π)·(x + κx³).
#define GELUTANH64(x) \
	VMULPD       x, x, Y3;                   /* Y3 = x²                */ \
	VMULPD       x, Y3, Y3;                  /* Y3 = x³                */ \
	VMOVAPD      x, Y4;                      /* Y4 = x                 */ \
	VFMADD231PD  dKappa<>(SB), Y3, Y4;       /* Y4 = x + κx³           */ \
	VMULPD       dBeta2<>(SB), Y4, Y4;       /* Y4 = u                 */ \
	SIGMUL64(x, Y4)                          // x = x·σ(Y4)

// SINCOS64(Q, x): x = sin (Q = SINQ) or cos (Q = COSQ) of x as sinCos64;
// lanes with |x| ≥ 1e6 or NaN keep x and are flagged in flags. Clobbers Y3–Y13.
#define SINQ(q)
#define COSQ(q) VPADDQ iOne64<>(SB), q, q    /* cos(x) = sin(x + π/2)  */
#define SINCOS64(Q, x) \
	VMULPD       d2OverPi<>(SB), x, Y3;      /* Y3 = x·2/π             */ \
	VROUNDPD     $0, Y3, Y3;                 /* Y3 = n                 */ \
	VXORPD       Y4, Y4, Y4;                 /* Y4 = +0                */ \
	VADDPD       Y4, Y3, Y3;                 /* n + 0: -0 becomes +0   */ \
	VMOVAPD      x, Y4;                      /* Y4 = x                 */ \
	VFNMADD231PD dPio2A<>(SB), Y3, Y4;       /* Y4 = x - n·A (exact)   */ \
	VFNMADD231PD dPio2B<>(SB), Y3, Y4;       /* Y4 -= n·B              */ \
	VFNMADD231PD dPio2C<>(SB), Y3, Y4;       /* Y4 = r = … - n·C       */ \
	VMULPD       Y4, Y4, Y5;                 /* Y5 = r²                */ \
	VMOVUPD      dSinT3<>(SB), Y6;           /* Y6 = S3                */ \
	VFMADD213PD  dSinT2<>(SB), Y5, Y6;       /* Y6 = Y6·r² + S2        */ \
	VFMADD213PD  dSinT1<>(SB), Y5, Y6;       /* Y6 = Y6·r² + S1        */ \
	VFMADD213PD  dSinT0<>(SB), Y5, Y6;       /* Y6 = S(r²)             */ \
	VMULPD       Y5, Y4, Y7;                 /* Y7 = r³                */ \
	VFMADD213PD  Y4, Y7, Y6;                 /* Y6 = sin r = r³·S + r  */ \
	VANDPD       dAbs<>(SB), Y6, Y6;         /* Y6 = |sin r|           */ \
	VANDPD       dSign<>(SB), Y4, Y8;        /* Y8 = sign of r         */ \
	VORPD        Y8, Y6, Y6;                 /* sin r gets r's sign (-0) */ \
	VMOVUPD      dCosT4<>(SB), Y7;           /* Y7 = C4                */ \
	VFMADD213PD  dCosT3<>(SB), Y5, Y7;       /* Y7 = Y7·r² + C3        */ \
	VFMADD213PD  dCosT2<>(SB), Y5, Y7;       /* Y7 = Y7·r² + C2        */ \
	VFMADD213PD  dCosT1<>(SB), Y5, Y7;       /* Y7 = Y7·r² + C1        */ \
	VFMADD213PD  dCosT0<>(SB), Y5, Y7;       /* Y7 = C(r²)             */ \
	VFMADD213PD  dOne<>(SB), Y5, Y7;         /* Y7 = cos r = r²·C + 1  */ \
	VADDPD       dMagic<>(SB), Y3, Y3;       /* n into the low bits    */ \
	Q(Y3);                                   /* the quadrant           */ \
	VPSLLQ       $63, Y3, Y8;                /* Y8 sign = q bit 0      */ \
	VBLENDVPD    Y8, Y7, Y6, Y6;             /* Y6 = q odd ? cos : sin */ \
	VPSLLQ       $62, Y3, Y8;                /* Y8 sign = q bit 1      */ \
	VANDPD       dSign<>(SB), Y8, Y8;        /* just that bit          */ \
	VXORPD       Y8, Y6, Y6;                 /* negate in quadrants 2, 3 */ \
	VANDPD       dAbs<>(SB), x, Y8;          /* Y8 = |x|               */ \
	VCMPPD       $0x15, dSinCosMax<>(SB), Y8, Y8; /* Y8 = !(|x| < 1e6) */ \
	VORPD        Y8, flags, flags;           /* flag those lanes       */ \
	VBLENDVPD    Y8, x, Y6, x                /* x = result, or x there */

#define ERFH    HALVES(ERF64)
#define GELUTH  HALVES(GELUTANH64)
#define SIN64(x) SINCOS64(SINQ, x)
#define COS64(x) SINCOS64(COSQ, x)
#define SINH    HALVES(SIN64)
#define COSH    HALVES(COS64)

// func expF32(d, x []float32) and the others: d[i] = f(x[i]) for
// i < len(d). Needs AVX2 and FMA.
TEXT ·expF32(SB), NOSPLIT, $0-48
	UNLOOP(EXPCORE)                          // d[i] = f(x[i]) for every i (EXPCORE)
	VZEROUPPER
	RET

TEXT ·logF32(SB), NOSPLIT, $0-48
	UNLOOP(LOGCORE)                          // d[i] = f(x[i]) for every i (LOGCORE)
	VZEROUPPER
	RET

TEXT ·tanhF32(SB), NOSPLIT, $0-48
	UNLOOP(TANHCORE)                         // d[i] = f(x[i]) for every i (TANHCORE)
	VZEROUPPER
	RET

TEXT ·sigmoidF32(SB), NOSPLIT, $0-48
	UNLOOP(SIGMOIDCORE)                      // d[i] = f(x[i]) for every i (SIGMOIDCORE)
	VZEROUPPER
	RET

TEXT ·reluF32(SB), NOSPLIT, $0-48
	UNLOOP(RELUCORE)                         // d[i] = f(x[i]) for every i (RELUCORE)
	VZEROUPPER
	RET

TEXT ·absF32(SB), NOSPLIT, $0-48
	UNLOOP(ABSCORE)                          // d[i] = f(x[i]) for every i (ABSCORE)
	VZEROUPPER
	RET

TEXT ·negF32(SB), NOSPLIT, $0-48
	UNLOOP(NEGCORE)                          // d[i] = f(x[i]) for every i (NEGCORE)
	VZEROUPPER
	RET

TEXT ·sqrtF32(SB), NOSPLIT, $0-48
	UNLOOP(SQRTCORE)                         // d[i] = f(x[i]) for every i (SQRTCORE)
	VZEROUPPER
	RET

TEXT ·rsqrtF32(SB), NOSPLIT, $0-48
	UNLOOP(RSQRTCORE)                        // d[i] = f(x[i]) for every i (RSQRTCORE)
	VZEROUPPER
	RET

TEXT ·reciprocalF32(SB), NOSPLIT, $0-48
	UNLOOP(RECIPCORE)                        // d[i] = f(x[i]) for every i (RECIPCORE)
	VZEROUPPER
	RET

TEXT ·erfF32(SB), NOSPLIT, $0-48
	UNLOOP(ERFH)                             // d[i] = f(x[i]) for every i (ERFH)
	VZEROUPPER
	RET

TEXT ·geluF32(SB), NOSPLIT, $0-48
	UNLOOP(GELUCORE)                         // d[i] = f(x[i]) for every i
	VZEROUPPER
	RET

TEXT ·siluF32(SB), NOSPLIT, $0-48
	UNLOOP(SILUCORE)                         // d[i] = f(x[i]) for every i (SILUCORE)
	VZEROUPPER
	RET

TEXT ·geluTanhF32(SB), NOSPLIT, $0-48
	UNLOOP(GELUTH)                           // d[i] = f(x[i]) for every i (GELUTH)
	VZEROUPPER
	RET

// func sinF32(d, x []float32) int and cosF32: as the others, but lanes with
// |x| ≥ 1e6 (±Inf, NaN) get x itself, and the result is non-zero when there
// were any: the caller finishes those in scalar code.
TEXT ·sinF32(SB), NOSPLIT, $0-56
	VXORPD       flags, flags, flags         // no lanes flagged yet
	UNLOOP(SINH)                             // d[i] = f(x[i]) for every i (SINH)
	VMOVMSKPD    flags, AX                   // AX = a bit per flagged lane
	MOVQ         AX, ret+48(FP)              // return it
	VZEROUPPER
	RET

TEXT ·cosF32(SB), NOSPLIT, $0-56
	VXORPD       flags, flags, flags         // no lanes flagged yet
	UNLOOP(COSH)                             // d[i] = f(x[i]) for every i (COSH)
	VMOVMSKPD    flags, AX                   // AX = a bit per flagged lane
	MOVQ         AX, ret+48(FP)              // return it
	VZEROUPPER
	RET

// The streaming kernels of the ops whose loops run near memory speed:
// non-temporal stores (d 32-byte aligned; see streamBytes in binary.go).
TEXT ·reluF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(RELUCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·absF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(ABSCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·negF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(NEGCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·sqrtF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(SQRTCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·rsqrtF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(RSQRTCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·reciprocalF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(RECIPCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·expF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(EXPCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·sigmoidF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(SIGMOIDCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET

TEXT ·siluF32NT(SB), NOSPLIT, $0-48
	UNLOOPST(SILUCORE, VMOVNTPS)          // d[i] = f(x[i]) for every i, streamed
	SFENCE                                   // order the stores
	VZEROUPPER
	RET
