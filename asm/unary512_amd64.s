//go:build !purego

#include "textflag.h"
#include "elementwise_amd64.h"

// AVX-512 versions of the compute-bound unary kernels: 16 float32 (or two
// halves of 8 float64) per step, constants broadcast from memory, compares
// into mask registers, and VSCALEF for the 2^n of exp (one rounding, as the
// twins' (y·s1)·s2). Lane for lane they are the AVX2 kernels and the twins
// in unary_generic.go. Only AVX512F instructions are used.

// Register roles.
#define dPtr   DI  // next element of dst
#define xPtr   SI  // next element of x
#define nLeft  CX  // elements left
#define erfMax Z28 // 10.6 in every float64 lane
#define lo64   Z29 // exp64Lo in every float64 lane
#define lo32   Z30 // expLo in every float32 lane
#define hi32   Z31 // expHi in every float32 lane
#define tailK  K7  // lanes of the last partial vector
#define flagK  K6  // sin/cos: lanes left to the caller (|x| ≥ 1e6 or NaN)

// SETUP512 loads the clamp limits (registers, so that x can be the operand
// whose NaN VMAXPS/VMINPS keep).
#define SETUP512 \
	VBROADCASTSD dErfcMax<>(SB), erfMax;     /* erfMax = 10.6          */ \
	VBROADCASTSD dExpLo<>(SB), lo64;         /* lo64 = -700            */ \
	VBROADCASTSS cExpLo<>(SB), lo32;         /* lo32 = -120            */ \
	VBROADCASTSS cExpHi<>(SB), hi32          /* hi32 = 89              */

// UNLOOP512(CORE): CORE maps Z0 to Z0 (clobbering Z1–Z13, K1–K3) for
// func(d, x []float32), 16 elements per step, the last ones masked.
#define UNLOOP512(CORE) UNLOOP512ST(CORE, VMOVUPS)
// UNLOOP512ST stores the whole vectors with ST: VMOVUPS, or VMOVNTPS for
// the streaming kernels (d 64-byte aligned, SFENCE before they return).
#define UNLOOP512ST(CORE, ST) \
	MOVQ       d_base+0(FP), dPtr;           /* dPtr = &d[0]           */ \
	MOVQ       d_len+8(FP), nLeft;           /* nLeft = len(d)         */ \
	MOVQ       x_base+24(FP), xPtr;          /* xPtr = &x[0]           */ \
	CMPQ       nLeft, $16;                   /* a whole vector?        */ \
	JLT        tail;                          /* the last elements */ \
loop: \
	VMOVUPS    (xPtr), Z0;                   /* Z0 = x[0:16]           */ \
	CORE;                                    /* Z0 = f(Z0)             */ \
	ST         Z0, (dPtr);                   /* d[0:16] = Z0           */ \
	ADDQ       $64, xPtr;                    /* next vector            */ \
	ADDQ       $64, dPtr;                     /* advance dPtr too */ \
	SUBQ       $16, nLeft;                   /* 16 done                */ \
	CMPQ       nLeft, $16;                   /* 16 more?               */ \
	JGE        loop;                          /* again */ \
tail: \
	TESTQ      nLeft, nLeft;                 /* anything left?         */ \
	JZ         done;                          /* finished */ \
	MOVL       $1, AX;                        /* AX = 1 */ \
	SHLL       CX, AX;                       /* AX = 1 << nLeft        */ \
	DECL       AX;                           /* AX = nLeft low bits    */ \
	KMOVW      AX, tailK;                    /* tailK = lanes in range */ \
	VMOVUPS.Z  (xPtr), tailK, Z0;            /* Z0 = x, 0 off the end  */ \
	CORE;                                    /* Z0 = f(Z0)             */ \
	VMOVUPS    Z0, tailK, (dPtr);            /* d = Z0, masked         */ \
done:

// HALVES512(CORE64): CORE64(v) maps 8 float64 in v (clobbering Z3–Z13);
// it runs on both halves of Z0, each rounded back to float32 once.
#define HALVES512(CORE64) \
	VEXTRACTF64X4 $1, Z0, Y2;                /* Y2 = lanes 8:16        */ \
	VCVTPS2PD  Y0, Z1;                       /* Z1 = lanes 0:8 widened */ \
	VCVTPS2PD  Y2, Z2;                       /* Z2 = lanes 8:16 widened */ \
	CORE64(Z1);                              /* Z1 = f(Z1)             */ \
	VCVTPD2PS  Z1, Y1;                       /* Y1 = Z1 rounded        */ \
	CORE64(Z2);                              /* Z2 = f(Z2)             */ \
	VCVTPD2PS  Z2, Y2;                       /* Y2 = Z2 rounded        */ \
	VINSERTF64X4 $1, Y2, Z1, Z0              /* Z0 = Y1:Y2             */

// EXPRED512(x, n): n = round(x·log2e), x = r = x - n·ln 2 (expReduce).
#define EXPRED512(x, n) \
	VMULPS.BCST  cLog2e<>(SB), x, n;         /* n = x·log2e            */ \
	VRNDSCALEPS  $0, n, n;                   /* n = nearest even       */ \
	VFNMADD231PS.BCST cLn2Hi<>(SB), n, x;    /* x = x - n·ln2Hi        */ \
	VFNMADD231PS.BCST cLn2Lo<>(SB), n, x     /* x = r                  */

// EXPM1POLY512(r, y, t): y = r + r²·Q(r) = e^r - 1 (expm1Poly); t clobbered.
#define EXPM1POLY512(r, y, t) \
	VBROADCASTSS cExpQ4<>(SB), y;            /* y = Q4                 */ \
	VFMADD213PS.BCST cExpQ3<>(SB), r, y;     /* y = y·r + Q3           */ \
	VFMADD213PS.BCST cExpQ2<>(SB), r, y;     /* y = y·r + Q2           */ \
	VFMADD213PS.BCST cExpQ1<>(SB), r, y;     /* y = y·r + Q1           */ \
	VFMADD213PS.BCST cExpQ0<>(SB), r, y;     /* y = Q(r)               */ \
	VMULPS       r, r, t;                    /* t = r²                 */ \
	VFMADD213PS  r, t, y                     /* y = r²·Q + r           */

// EXP512(x, y, n, t): y = e^x as expGo1 (x, n, t clobbered): VSCALEFPS
// gives y·2^n with one rounding, and 0 below expLo as the twin's zeroed y.
#define EXP512(x, y, n, t) \
	VMAXPS       x, lo32, x;                 /* x = max(expLo, x)      */ \
	VMINPS       x, hi32, x;                 /* x = min(expHi, x)      */ \
	EXPRED512(x, n);                         /* n, and x = r           */ \
	EXPM1POLY512(x, y, t);                   /* y = r + r²·Q(r)        */ \
	VADDPS.BCST  cOne<>(SB), y, y;           /* y = e^r                */ \
	VSCALEFPS    n, y, y                     /* y = e^r·2^n            */

#define EXPCORE512 EXP512(Z0, Z1, Z2, Z3); VMOVAPS Z1, Z0

#define SIGMOIDCORE512 \
	VPORD.BCST   cSign<>(SB), Z0, Z1;        /* Z1 = -|x|              */ \
	EXP512(Z1, Z2, Z3, Z4);                  /* Z2 = e = e^-|x|        */ \
	VADDPS.BCST  cOne<>(SB), Z2, Z3;         /* Z3 = 1 + e             */ \
	VPXORD       Z4, Z4, Z4;                 /* Z4 = 0                 */ \
	VCMPPS       $1, Z4, Z0, K1;             /* K1 = x < 0             */ \
	VBROADCASTSS cOne<>(SB), Z4;             /* Z4 = 1                 */ \
	VMOVAPS      Z2, K1, Z4;                 /* Z4 = e where x < 0     */ \
	VDIVPS       Z3, Z4, Z0                  /* Z0 = Z4/(1 + e)        */

// SILUCORE512: x / (e^-x + 1) in float32, as SILUCORE.
#define SILUCORE512 \
	VPXORD.BCST  cSign<>(SB), Z0, Z1;        /* Z1 = -x                */ \
	EXP512(Z1, Z2, Z3, Z4);                  /* Z2 = e^-x              */ \
	VADDPS.BCST  cOne<>(SB), Z2, Z2;         /* Z2 = e^-x + 1          */ \
	VDIVPS       Z2, Z0, Z0                  /* Z0 = x/(e^-x + 1)      */

#define TANHCORE512 \
	VPANDD.BCST  cAbs<>(SB), Z0, Z1;         /* Z1 = a = |x|           */ \
	VMULPS       Z0, Z0, Z2;                 /* Z2 = z = x²            */ \
	VBROADCASTSS cTanhP4<>(SB), Z3;          /* Z3 = P4                */ \
	VFMADD213PS.BCST cTanhP3<>(SB), Z2, Z3;  /* Z3 = Z3·z + P3         */ \
	VFMADD213PS.BCST cTanhP2<>(SB), Z2, Z3;  /* Z3 = Z3·z + P2         */ \
	VFMADD213PS.BCST cTanhP1<>(SB), Z2, Z3;  /* Z3 = Z3·z + P1         */ \
	VFMADD213PS.BCST cTanhP0<>(SB), Z2, Z3;  /* Z3 = P(z)              */ \
	VMULPS       Z2, Z0, Z4;                 /* Z4 = x·z               */ \
	VFMADD213PS  Z0, Z3, Z4;                 /* Z4 = small = x·z·P + x */ \
	VADDPS       Z1, Z1, Z5;                 /* Z5 = 2a                */ \
	EXP512(Z5, Z6, Z7, Z8);                  /* Z6 = e^{2a}            */ \
	VADDPS.BCST  cOne<>(SB), Z6, Z6;         /* Z6 = e + 1             */ \
	VBROADCASTSS cTwo<>(SB), Z7;             /* Z7 = 2                 */ \
	VDIVPS       Z6, Z7, Z7;                 /* Z7 = 2/(e+1)           */ \
	VBROADCASTSS cOne<>(SB), Z8;             /* Z8 = 1                 */ \
	VSUBPS       Z7, Z8, Z8;                 /* Z8 = big               */ \
	VCMPPS.BCST  $1, cTanhSmall<>(SB), Z1, K1; /* K1 = a < 0.625       */ \
	VMOVAPS      Z4, K1, Z8;                 /* Z8 = small there       */ \
	VPANDD.BCST  cAbs<>(SB), Z8, Z8;         /* Z8 = |Z8|              */ \
	VPANDD.BCST  cSign<>(SB), Z0, Z9;        /* Z9 = sign of x         */ \
	VPORD        Z9, Z8, Z0                  /* Z0 = Z8 with x's sign  */

// EXP64512(x, y, n, t): y = exp64(x) for x ≤ 0 (x, n, t clobbered);
// VSCALEFPD is exact here, as the twin's y·2^n.
#define EXP64512(x, y, n, t) \
	VCMPPD       $5, lo64, x, K3;            /* K3 = !(x < lo): kept   */ \
	VMAXPD       x, lo64, x;                 /* x = max(lo, x)         */ \
	VMULPD.BCST  dLog2e<>(SB), x, n;         /* n = x·log2e            */ \
	VRNDSCALEPD  $0, n, n;                   /* n = nearest even       */ \
	VFNMADD231PD.BCST dLn2Hi<>(SB), n, x;    /* x = x - n·ln2Hi        */ \
	VFNMADD231PD.BCST dLn2Lo<>(SB), n, x;    /* x = r                  */ \
	VBROADCASTSD dExpT6<>(SB), y;            /* y = T6                 */ \
	VFMADD213PD.BCST dExpT5<>(SB), x, y;     /* y = y·r + T5           */ \
	VFMADD213PD.BCST dExpT4<>(SB), x, y;     /* y = y·r + T4           */ \
	VFMADD213PD.BCST dExpT3<>(SB), x, y;     /* y = y·r + T3           */ \
	VFMADD213PD.BCST dExpT2<>(SB), x, y;     /* y = y·r + T2           */ \
	VFMADD213PD.BCST dExpT1<>(SB), x, y;     /* y = y·r + T1           */ \
	VFMADD213PD.BCST dExpT0<>(SB), x, y;     /* y = T(r)               */ \
	VMULPD       x, x, t;                    /* t = r²                 */ \
	VFMADD213PD  x, t, y;                    /* y = r²·T + r           */ \
	VADDPD.BCST  dOne<>(SB), y, y;           /* y = e^r                */ \
	VSCALEFPD    n, y, y;                    /* y = e^r·2^n            */ \
	VMOVAPD.Z    y, K3, y                    /* 0 below exp64Lo        */

// ERFPOLY512(z, p, w): p = erfPoly64(z).
#define ERFPOLY512(z, p, w) \
	VMULPD       z, z, w;                    /* w = z²                 */ \
	VBROADCASTSD dErfP6<>(SB), p;            /* p = P6                 */ \
	VFMADD213PD.BCST dErfP5<>(SB), w, p;     /* p = p·w + P5           */ \
	VFMADD213PD.BCST dErfP4<>(SB), w, p;     /* p = p·w + P4           */ \
	VFMADD213PD.BCST dErfP3<>(SB), w, p;     /* p = p·w + P3           */ \
	VFMADD213PD.BCST dErfP2<>(SB), w, p;     /* p = p·w + P2           */ \
	VFMADD213PD.BCST dErfP1<>(SB), w, p;     /* p = p·w + P1           */ \
	VFMADD213PD.BCST dErfP0<>(SB), w, p;     /* p = P(z²)              */ \
	VMULPD       z, p, p;                    /* p = z·P                */ \
	VFMADD231PD.BCST dErfC0<>(SB), z, p      /* p = z·C0 + z·P         */

// ERFC512(a, zz, c, t, u, v, w): c = erfc64(a, zz); zz, t, u, v, w clobbered.
#define ERFC512(a, zz, c, t, u, v, w) \
	VPXORQ.BCST  dSign<>(SB), zz, zz;        /* zz = -zz               */ \
	EXP64512(zz, c, u, v);                   /* c = e^{-zz}            */ \
	VADDPD.BCST  dTwo<>(SB), a, u;           /* u = 2 + a              */ \
	VBROADCASTSD dTwo<>(SB), t;              /* t = 2                  */ \
	VDIVPD       u, t, t;                    /* t = 2/(2 + a)          */ \
	VMULPD       t, c, c;                    /* c = e·t                */ \
	VBROADCASTSD dErfcH9<>(SB), w;           /* w = H9                 */ \
	VFMADD213PD.BCST dErfcH8<>(SB), t, w;    /* w = w·t + H8           */ \
	VFMADD213PD.BCST dErfcH7<>(SB), t, w;    /* w = w·t + H7           */ \
	VFMADD213PD.BCST dErfcH6<>(SB), t, w;    /* w = w·t + H6           */ \
	VFMADD213PD.BCST dErfcH5<>(SB), t, w;    /* w = w·t + H5           */ \
	VFMADD213PD.BCST dErfcH4<>(SB), t, w;    /* w = w·t + H4           */ \
	VFMADD213PD.BCST dErfcH3<>(SB), t, w;    /* w = w·t + H3           */ \
	VFMADD213PD.BCST dErfcH2<>(SB), t, w;    /* w = w·t + H2           */ \
	VFMADD213PD.BCST dErfcH1<>(SB), t, w;    /* w = w·t + H1           */ \
	VFMADD213PD.BCST dErfcH0<>(SB), t, w;    /* w = H(t)               */ \
	VMULPD       w, c, c                     /* c = e·t·H(t)           */

#define ERF512(z) \
	ERFPOLY512(z, Z3, Z4);                   /* Z3 = erf by the poly   */ \
	VPANDQ.BCST  dAbs<>(SB), z, Z4;          /* Z4 = |z|               */ \
	VMINPD       Z4, erfMax, Z5;             /* Z5 = a = min(10.6, |z|) */ \
	VMULPD       Z5, Z5, Z6;                 /* Z6 = a²                */ \
	ERFC512(Z5, Z6, Z7, Z8, Z9, Z10, Z11);   /* Z7 = erfc(a)           */ \
	VBROADCASTSD dOne<>(SB), Z8;             /* Z8 = 1                 */ \
	VSUBPD       Z7, Z8, Z8;                 /* Z8 = 1 - erfc          */ \
	VCMPPD.BCST  $1, dOne<>(SB), Z4, K1;     /* K1 = |z| < 1           */ \
	VMOVAPD      Z3, K1, Z8;                 /* the poly there         */ \
	VPANDQ.BCST  dAbs<>(SB), Z8, Z8;         /* Z8 = |Z8|              */ \
	VPANDQ.BCST  dSign<>(SB), z, Z9;         /* Z9 = sign of z         */ \
	VPORQ        Z9, Z8, z                   /* z = Z8 with z's sign   */

// GELUCORE512: Z0 = geluGo1(Z0) in float32: the twin's steps, VSCALEFPS
// for its w·2^(n+64)·2^-64 (one rounding either way), and -(v'·ym) - v'
// for fma(v, ym, v) with v = -v' (the same bits: rounding is symmetric).
#define GELUCORE512 \
	VPANDD.BCST  cAbs<>(SB), Z0, Z1;         /* Z1 = |x|               */ \
	VBROADCASTSS cGeluTMax<>(SB), Z2;        /* Z2 = geluTMax          */ \
	VMINPS       Z1, Z2, Z1;                 /* Z1 = t (a NaN stays)   */ \
	VMULPS       Z1, Z1, Z2;                 /* Z2 = s = t², rounded   */ \
	VMOVAPS      Z2, Z3;                     /* Z3 = s                 */ \
	VFMSUB231PS  Z1, Z1, Z3;                 /* Z3 = e = t·t - s       */ \
	VMULPS.BCST  cMinusHalf<>(SB), Z2, Z2;   /* Z2 = a = -s/2          */ \
	EXPRED512(Z2, Z4);                       /* Z4 = n, Z2 = a - n·ln 2 */ \
	VFMADD231PS.BCST cMinusHalf<>(SB), Z3, Z2; /* Z2 = r = Z2 - e/2    */ \
	EXPM1POLY512(Z2, Z5, Z6);                /* Z5 = ym = e^r - 1      */ \
	VADDPS.BCST  cGeluB4<>(SB), Z1, Z7;      /* Z7 = t + B4            */ \
	VFMADD213PS.BCST cGeluB3<>(SB), Z1, Z7;  /* Z7 = Z7·t + B3         */ \
	VFMADD213PS.BCST cGeluB2<>(SB), Z1, Z7;  /* Z7 = Z7·t + B2         */ \
	VFMADD213PS.BCST cGeluB1<>(SB), Z1, Z7;  /* Z7 = Z7·t + B1         */ \
	VFMADD213PS.BCST cGeluB0<>(SB), Z1, Z7;  /* Z7 = b(t)              */ \
	VBROADCASTSS cGeluA4<>(SB), Z8;          /* Z8 = A4                */ \
	VFMADD213PS.BCST cGeluA3<>(SB), Z1, Z8;  /* Z8 = Z8·t + A3         */ \
	VFMADD213PS.BCST cGeluA2<>(SB), Z1, Z8;  /* Z8 = Z8·t + A2         */ \
	VFMADD213PS.BCST cGeluA1<>(SB), Z1, Z8;  /* Z8 = Z8·t + A1         */ \
	VFMADD213PS.BCST cGeluA0<>(SB), Z1, Z8;  /* Z8 = a(t)              */ \
	VMULPS.BCST  cGeluC<>(SB), Z1, Z9;       /* Z9 = c·t               */ \
	VFMADD213PS  Z8, Z7, Z9;                 /* Z9 = c·t·b + a         */ \
	VDIVPS       Z9, Z7, Z7;                 /* Z7 = q = b/Z9          */ \
	VMULPS       Z1, Z7, Z7;                 /* Z7 = v' = t·q          */ \
	VFNMSUB213PS Z7, Z5, Z7;                 /* Z7 = -(v'·ym) - v'     */ \
	VSCALEFPS    Z4, Z7, Z7;                 /* Z7 = g = gelu(-t)      */ \
	VSUBPS       Z0, Z0, Z9;                 /* Z9 = x - x (NaN: ±Inf) */ \
	VPXORD       Z10, Z10, Z10;              /* Z10 = 0                */ \
	VCMPPS       $1, Z10, Z0, K1;            /* K1 = x < 0             */ \
	VSUBPS       Z9, Z7, K1, Z7;             /* Z7 = g - (x - x) there */ \
	KNOTW        K1, K1;                     /* K1 = !(x < 0)          */ \
	VADDPS       Z0, Z7, K1, Z7;             /* Z7 = x + g there       */ \
	VMOVAPS      Z7, Z0                      /* Z0 = the result        */

// SIGMUL512(x, u): x = sigmoidMul64(x, u) before rounding; Z8–Z12 clobbered.
#define SIGMUL512(x, u) \
	VPORQ.BCST   dSign<>(SB), u, Z8;         /* Z8 = -|u|              */ \
	EXP64512(Z8, Z9, Z10, Z11);              /* Z9 = e = e^{-|u|}      */ \
	VMULPD       Z9, x, Z10;                 /* Z10 = x·e              */ \
	VPXORQ       Z11, Z11, Z11;              /* Z11 = 0                */ \
	VCMPPD       $1, Z11, u, K1;             /* K1 = u < 0             */ \
	VMOVAPD      x, Z12;                     /* Z12 = x                */ \
	VMOVAPD      Z10, K1, Z12;               /* Z12 = x·e where u < 0  */ \
	VADDPD.BCST  dOne<>(SB), Z9, Z9;         /* Z9 = 1 + e             */ \
	VDIVPD       Z9, Z12, x                  /* x = num/(1 + e)        */

#define GELUTANH512(x) \
	VMULPD       x, x, Z3;                   /* Z3 = x²                */ \
	VMULPD       x, Z3, Z3;                  /* Z3 = x³                */ \
	VMOVAPD      x, Z4;                      /* Z4 = x                 */ \
	VFMADD231PD.BCST dKappa<>(SB), Z3, Z4;   /* Z4 = x + κx³           */ \
	VMULPD.BCST  dBeta2<>(SB), Z4, Z4;       /* Z4 = u                 */ \
	SIGMUL512(x, Z4)                         // x = x·σ(Z4)

// SINCOS512(Q, x): x = sinCos64 (Q = SINQ512 or COSQ512); lanes with
// |x| ≥ 1e6 or NaN keep x and are added to flagK.
#define SINQ512(q)
#define COSQ512(q) VPADDQ.BCST iOne64<>(SB), q, q /* cos(x) = sin(x + π/2) */
#define SINCOS512(Q, x) \
	VMULPD.BCST  d2OverPi<>(SB), x, Z3;      /* Z3 = x·2/π             */ \
	VRNDSCALEPD  $0, Z3, Z3;                 /* Z3 = n                 */ \
	VPXORQ       Z4, Z4, Z4;                 /* Z4 = +0                */ \
	VADDPD       Z4, Z3, Z3;                 /* n + 0: -0 becomes +0   */ \
	VMOVAPD      x, Z4;                      /* Z4 = x                 */ \
	VFNMADD231PD.BCST dPio2A<>(SB), Z3, Z4;  /* Z4 = x - n·A (exact)   */ \
	VFNMADD231PD.BCST dPio2B<>(SB), Z3, Z4;  /* Z4 -= n·B              */ \
	VFNMADD231PD.BCST dPio2C<>(SB), Z3, Z4;  /* Z4 = r                 */ \
	VMULPD       Z4, Z4, Z5;                 /* Z5 = r²                */ \
	VBROADCASTSD dSinT3<>(SB), Z6;           /* Z6 = S3                */ \
	VFMADD213PD.BCST dSinT2<>(SB), Z5, Z6;   /* Z6 = Z6·r² + S2        */ \
	VFMADD213PD.BCST dSinT1<>(SB), Z5, Z6;   /* Z6 = Z6·r² + S1        */ \
	VFMADD213PD.BCST dSinT0<>(SB), Z5, Z6;   /* Z6 = S(r²)             */ \
	VMULPD       Z5, Z4, Z7;                 /* Z7 = r³                */ \
	VFMADD213PD  Z4, Z7, Z6;                 /* Z6 = sin r             */ \
	VPANDQ.BCST  dAbs<>(SB), Z6, Z6;         /* Z6 = |sin r|           */ \
	VPANDQ.BCST  dSign<>(SB), Z4, Z8;        /* Z8 = sign of r         */ \
	VPORQ        Z8, Z6, Z6;                 /* sin r gets r's sign    */ \
	VBROADCASTSD dCosT4<>(SB), Z7;           /* Z7 = C4                */ \
	VFMADD213PD.BCST dCosT3<>(SB), Z5, Z7;   /* Z7 = Z7·r² + C3        */ \
	VFMADD213PD.BCST dCosT2<>(SB), Z5, Z7;   /* Z7 = Z7·r² + C2        */ \
	VFMADD213PD.BCST dCosT1<>(SB), Z5, Z7;   /* Z7 = Z7·r² + C1        */ \
	VFMADD213PD.BCST dCosT0<>(SB), Z5, Z7;   /* Z7 = C(r²)             */ \
	VFMADD213PD.BCST dOne<>(SB), Z5, Z7;     /* Z7 = cos r             */ \
	VADDPD.BCST  dMagic<>(SB), Z3, Z3;       /* n into the low bits    */ \
	Q(Z3);                                   /* the quadrant           */ \
	VPTESTMQ.BCST iOne64<>(SB), Z3, K1;      /* K1 = q odd             */ \
	VMOVAPD      Z7, K1, Z6;                 /* Z6 = cos there         */ \
	VPSLLQ       $62, Z3, Z8;                /* Z8 sign = q bit 1      */ \
	VPANDQ.BCST  dSign<>(SB), Z8, Z8;        /* just that bit          */ \
	VPXORQ       Z8, Z6, Z6;                 /* negate in quadrants 2, 3 */ \
	VPANDQ.BCST  dAbs<>(SB), x, Z8;          /* Z8 = |x|               */ \
	VCMPPD.BCST  $0x15, dSinCosMax<>(SB), Z8, K1; /* K1 = !(|x| < 1e6) */ \
	KORW         K1, flagK, flagK;           /* flag those lanes       */ \
	VMOVAPD      x, K1, Z6;                  /* x itself there         */ \
	VMOVAPD      Z6, x                       /* x = the result         */

#define ERFH512    HALVES512(ERF512)
#define GELUTH512  HALVES512(GELUTANH512)
#define SIN512(x)  SINCOS512(SINQ512, x)
#define COS512(x)  SINCOS512(COSQ512, x)
#define SINH512    HALVES512(SIN512)
#define COSH512    HALVES512(COS512)

// UNARY512(CORE) is a whole kernel func(d, x []float32): the clamp
// limits, the loop, the return.
#define UNARY512(CORE) \
	SETUP512;                                /* clamp limits           */ \
	UNLOOP512(CORE);                         /* d[i] = f(x[i])         */ \
	VZEROUPPER; \
	RET

// func expF32AVX512(d, x []float32) and the others: d[i] = f(x[i]) for
// i < len(d), as the AVX2 kernels. Need AVX512F.
TEXT ·expF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(EXPCORE512)                     // d[i] = f(x[i]) for every i

TEXT ·sigmoidF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(SIGMOIDCORE512)                 // d[i] = f(x[i]) for every i

TEXT ·tanhF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(TANHCORE512)                    // d[i] = f(x[i]) for every i

TEXT ·erfF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(ERFH512)                        // d[i] = f(x[i]) for every i

TEXT ·geluF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(GELUCORE512)                    // d[i] = f(x[i]) for every i

TEXT ·siluF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(SILUCORE512)                    // d[i] = f(x[i]) for every i

TEXT ·geluTanhF32AVX512(SB), NOSPLIT, $0-48
	UNARY512(GELUTH512)                      // d[i] = f(x[i]) for every i

// func sinF32AVX512(d, x []float32) int and cosF32AVX512: as sinF32.
TEXT ·sinF32AVX512(SB), NOSPLIT, $0-56
	KXORW        flagK, flagK, flagK         // no lanes flagged yet
	UNLOOP512(SINH512)                       // d[i] = f(x[i]) for every i
	KMOVW        flagK, AX                   // AX = a bit per flagged lane
	MOVQ         AX, ret+48(FP)              // return it
	VZEROUPPER
	RET

TEXT ·cosF32AVX512(SB), NOSPLIT, $0-56
	KXORW        flagK, flagK, flagK         // no lanes flagged yet
	UNLOOP512(COSH512)                       // d[i] = f(x[i]) for every i
	KMOVW        flagK, AX                   // AX = a bit per flagged lane
	MOVQ         AX, ret+48(FP)              // return it
	VZEROUPPER
	RET

// func expShiftF32AVX512(d, x []float32, m float32): as expShiftF32.
TEXT ·expShiftF32AVX512(SB), NOSPLIT, $0-52
	SETUP512                                 // clamp limits
	MOVQ         d_base+0(FP), dPtr          // dPtr = &d[0]
	MOVQ         d_len+8(FP), nLeft          // nLeft = len(d)
	MOVQ         x_base+24(FP), xPtr         // xPtr = &x[0]
	VBROADCASTSS m+48(FP), Z14               // Z14 = m everywhere
	CMPQ         nLeft, $16                  // 16 left?
	JLT          tail                        // the last elements
loop:
	VMOVUPS      (xPtr), Z0                  // Z0 = x[0:16]
	VSUBPS       Z14, Z0, Z0                 // Z0 = x - m
	EXP512(Z0, Z1, Z2, Z3)                   // Z1 = e^(x-m)
	VMOVUPS      Z1, (dPtr)                  // d[0:16] = Z1
	ADDQ         $64, xPtr                   // next 16
	ADDQ         $64, dPtr                   // advance dPtr too
	SUBQ         $16, nLeft                  // 16 done
	CMPQ         nLeft, $16                  // 16 more?
	JGE          loop                        // again
tail:
	TESTQ        nLeft, nLeft                // anything left?
	JZ           done                        // finished
	MOVL         $1, AX                      // AX = 1
	SHLL         CX, AX                      // AX = 1 << nLeft
	DECL         AX                          // AX = nLeft low bits
	KMOVW        AX, tailK                   // tailK = lanes in range
	VMOVUPS.Z    (xPtr), tailK, Z0           // Z0 = x, 0 off the end
	VSUBPS       Z14, Z0, Z0                 // Z0 = x - m
	EXP512(Z0, Z1, Z2, Z3)                   // Z1 = e^(x-m)
	VMOVUPS      Z1, tailK, (dPtr)           // d = Z1, masked
done:
	VZEROUPPER
	RET

// SIMPLE512(OP): the memory-bound ops, 4 vectors of 16 per step (the loop
// overhead would otherwise limit them), then single vectors, then a masked
// one. OP(r) maps Z register r in place (Z8 scratch, Z9 = 0, Z10 = 1).
#define SIMPLE512(OP) \
	MOVQ       d_base+0(FP), dPtr;           /* dPtr = &d[0]           */ \
	MOVQ       d_len+8(FP), nLeft;           /* nLeft = len(d)         */ \
	MOVQ       x_base+24(FP), xPtr;          /* xPtr = &x[0]           */ \
	VPXORD     Z9, Z9, Z9;                   /* Z9 = 0                 */ \
	VBROADCASTSS cOne<>(SB), Z10;            /* Z10 = 1                */ \
	CMPQ       nLeft, $64;                   /* 4 vectors left?        */ \
	JLT        one; \
quad: \
	VMOVUPS    (xPtr), Z0;                   /* Z0:Z3 = x[0:64]        */ \
	VMOVUPS    64(xPtr), Z1;                 /* second vector          */ \
	VMOVUPS    128(xPtr), Z2;                /* third vector           */ \
	VMOVUPS    192(xPtr), Z3;                /* fourth vector          */ \
	OP(Z0);                                  /* each mapped in place   */ \
	OP(Z1);                                  /* second                 */ \
	OP(Z2);                                  /* third                  */ \
	OP(Z3);                                  /* fourth                 */ \
	VMOVUPS    Z0, (dPtr);                   /* d[0:64] = Z0:Z3        */ \
	VMOVUPS    Z1, 64(dPtr);                 /* second vector          */ \
	VMOVUPS    Z2, 128(dPtr);                /* third vector           */ \
	VMOVUPS    Z3, 192(dPtr);                /* fourth vector          */ \
	ADDQ       $256, xPtr;                   /* next 64                */ \
	ADDQ       $256, dPtr;                   /* advance dPtr too       */ \
	SUBQ       $64, nLeft;                   /* 64 done                */ \
	CMPQ       nLeft, $64;                   /* 64 more?               */ \
	JGE        quad;                         /* again                  */ \
one: \
	CMPQ       nLeft, $16;                   /* a whole vector left?   */ \
	JLT        tail;                         /* no: the masked tail    */ \
	VMOVUPS    (xPtr), Z0;                   /* Z0 = x[0:16]           */ \
	OP(Z0);                                  /* mapped in place        */ \
	VMOVUPS    Z0, (dPtr);                   /* d[0:16] = Z0           */ \
	ADDQ       $64, xPtr;                    /* next vector            */ \
	ADDQ       $64, dPtr;                    /* advance dPtr too       */ \
	SUBQ       $16, nLeft;                   /* 16 done                */ \
	JMP        one;                          /* the next one           */ \
tail: \
	TESTQ      nLeft, nLeft;                 /* anything left?         */ \
	JZ         done;                         /* finished               */ \
	MOVL       $1, AX;                       /* AX = 1                 */ \
	SHLL       CX, AX;                       /* AX = 1 << nLeft        */ \
	DECL       AX;                           /* AX = nLeft low bits    */ \
	KMOVW      AX, tailK;                    /* tailK = lanes in range */ \
	VMOVUPS.Z  (xPtr), tailK, Z0;            /* Z0 = x, 0 off the end  */ \
	OP(Z0);                                  /* mapped in place        */ \
	VMOVUPS    Z0, tailK, (dPtr);            /* d = Z0, masked         */ \
done: \
	VZEROUPPER;                              /* clean AVX state        */ \
	RET

// SIMPLE512NT(OP) is SIMPLE512's streaming form: UNLOOP512ST's one vector
// per step with non-temporal stores (d 64-byte aligned). It runs on results
// of streamBytes and more, where memory sets the pace, not the loop.
#define SIMPLE512NT(OP) \
	VPXORD     Z9, Z9, Z9;                   /* Z9 = 0                 */ \
	VBROADCASTSS cOne<>(SB), Z10;            /* Z10 = 1                */ \
	UNLOOP512ST(OP(Z0), VMOVNTPS);           /* d[i] = f(x[i])         */ \
	SFENCE;                                  /* order the stores       */ \
	VZEROUPPER; \
	RET

#define RELU512(r) \
	VCMPPS     $1, Z9, r, K1;                /* K1 = r < 0             */ \
	VMOVAPS    Z9, K1, r                     /* 0 there (NaN, -0 stay) */
#define ABS512(r)   VPANDD.BCST cAbs<>(SB), r, r  /* clear the sign      */
#define NEG512(r)   VPXORD.BCST cSign<>(SB), r, r /* flip the sign       */
#define SQRT512(r)  VSQRTPS r, r                  /* r = √r              */
// RSQRT512 is RSQRTCORE (unary_amd64.s) with the 14-bit VRCP14PS seed;
// Z11, Z12, Z13, K2 and K3 scratch.
#define RSQRT512(r) \
	VSQRTPS    r, Z8;                        /* Z8 = s = √r            */ \
	VRCP14PS   Z8, Z11;                      /* Z11 = y0 ≈ 1/s         */ \
	VMOVAPS    Z10, Z12;                     /* Z12 = 1                */ \
	VFNMADD231PS Z11, Z8, Z12;               /* Z12 = r = 1 - s·y0     */ \
	VFMADD213PS Z12, Z12, Z12;               /* Z12 = t = r·r + r      */ \
	VCMPPS     $3, Z12, Z12, K2;             /* K2 = t is NaN          */ \
	VMOVAPS    Z11, r;                       /* r = y0                 */ \
	VFMADD231PS Z12, Z11, r;                 /* r = y1 = y0·t + y0     */ \
	VMOVAPS    Z10, Z13;                     /* Z13 = 1                */ \
	VFNMADD231PS r, Z8, Z13;                 /* Z13 = r1 = 1 - s·y1    */ \
	VFMADD231PS Z13, r, r;                   /* r = y1·r1 + y1         */ \
	VMOVAPS    Z11, K2, r;                   /* NaN t: r = y0          */ \
	VPANDD.BCST cMant<>(SB), Z8, Z13;        /* Z13 = s's significand  */ \
	VPCMPEQD.BCST cMant<>(SB), Z13, K3;      /* K3 = all ones there    */ \
	VPORD.BCST cLsb<>(SB), r, K3, r          /* their lowest bit set   */
#define RECIP512(r) VDIVPS r, Z10, r             /* r = 1/r             */

// func reluF32AVX512(d, x []float32) and the other memory-bound ones.
TEXT ·reluF32AVX512(SB), NOSPLIT, $0-48
	SIMPLE512(RELU512)                       // d = max(x, 0)

TEXT ·absF32AVX512(SB), NOSPLIT, $0-48
	SIMPLE512(ABS512)                        // d = |x|

TEXT ·negF32AVX512(SB), NOSPLIT, $0-48
	SIMPLE512(NEG512)                        // d = -x

TEXT ·sqrtF32AVX512(SB), NOSPLIT, $0-48
	SIMPLE512(SQRT512)                       // d = √x

TEXT ·rsqrtF32AVX512(SB), NOSPLIT, $0-48
	SIMPLE512(RSQRT512)                      // d = 1/√x

TEXT ·reciprocalF32AVX512(SB), NOSPLIT, $0-48
	SIMPLE512(RECIP512)                      // d = 1/x

// The streaming kernels of the ops whose loops run near memory speed:
// non-temporal stores (d 64-byte aligned; see streamBytes in binary.go).
TEXT ·reluF32AVX512NT(SB), NOSPLIT, $0-48
	SIMPLE512NT(RELU512)                     // d = max(x, 0), streamed

TEXT ·absF32AVX512NT(SB), NOSPLIT, $0-48
	SIMPLE512NT(ABS512)                      // d = |x|, streamed

TEXT ·negF32AVX512NT(SB), NOSPLIT, $0-48
	SIMPLE512NT(NEG512)                      // d = -x, streamed

TEXT ·sqrtF32AVX512NT(SB), NOSPLIT, $0-48
	SIMPLE512NT(SQRT512)                     // d = √x, streamed

TEXT ·rsqrtF32AVX512NT(SB), NOSPLIT, $0-48
	SIMPLE512NT(RSQRT512)                    // d = 1/√x, streamed

TEXT ·reciprocalF32AVX512NT(SB), NOSPLIT, $0-48
	SIMPLE512NT(RECIP512)                    // d = 1/x, streamed

#define UNARY512NT(CORE) \
	SETUP512;                                /* clamp limits           */ \
	UNLOOP512ST(CORE, VMOVNTPS);             /* d[i] = f(x[i])         */ \
	SFENCE;                                  /* order the stores       */ \
	VZEROUPPER; \
	RET

TEXT ·expF32AVX512NT(SB), NOSPLIT, $0-48
	UNARY512NT(EXPCORE512)                   // d[i] = f(x[i]) for every i, streamed

TEXT ·sigmoidF32AVX512NT(SB), NOSPLIT, $0-48
	UNARY512NT(SIGMOIDCORE512)               // d[i] = f(x[i]) for every i, streamed

TEXT ·siluF32AVX512NT(SB), NOSPLIT, $0-48
	UNARY512NT(SILUCORE512)                  // d[i] = f(x[i]) for every i, streamed

// ---- gelu_backward (approximate='none') ----

C32(cGeluAlpha, $0x3ecc422a)    // geluAlpha = 2/√π·√½·½, rounded

#define gPtr   DX  // next element of g
#define tPtr   R10 // next element of t
#define cPtr   R8  // next packed element of c
#define packed R9  // elements packed into c so far
#define xKeep  Z20 // x
#define gKeep  Z21 // g
#define polyK  K2  // lanes with |x·√½| < 1: erf by its polynomial
#define bigK   K4  // the others (NaN included): erf by 1 − erfc

// ERFPOLYH512(z): z = erf(z) of ERF512 where |z| < 1: the polynomial,
// its magnitude with z's sign. Clobbers Z3, Z4.
#define ERFPOLYH512(z) \
	ERFPOLY512(z, Z3, Z4);                   /* Z3 = erf by the poly   */ \
	VPANDQ.BCST  dAbs<>(SB), Z3, Z3;         /* Z3 = |Z3|              */ \
	VPANDQ.BCST  dSign<>(SB), z, Z4;         /* Z4 = sign of z         */ \
	VPORQ        Z4, Z3, z                   /* z = Z3 with z's sign   */

// GELUSPLIT512: Z0 = x·√½ from xKeep, polyK and bigK its lanes by |Z0| < 1.
#define GELUSPLIT512 \
	VMULPS.BCST  cSqrtHalf<>(SB), xKeep, Z0; /* Z0 = z = x·√½          */ \
	VPANDD.BCST  cAbs<>(SB), Z0, Z1;         /* Z1 = |z|               */ \
	VCMPPS.BCST  $1, cOne<>(SB), Z1, polyK;  /* polyK = |z| < 1        */ \
	KNOTW        polyK, bigK                 /* bigK = the others      */

// GELUREST512: Z0 = geluBwdGo1(gKeep, xKeep) given Z0 = erf(x·√½): t =
// (erf + 1)·½, u = x·((e^(x·x·-½))·α), g·(t + u), in the decomposition's
// order. EXP512 is ExpF32's core; clobbers Z22–Z25.
#define GELUREST512 \
	VADDPS.BCST  cOne<>(SB), Z0, Z0;         /* Z0 = erf + 1           */ \
	VMULPS.BCST  cHalfBits<>(SB), Z0, Z0;    /* Z0 = t = cdf           */ \
	VMULPS       xKeep, xKeep, Z22;          /* Z22 = x·x              */ \
	VMULPS.BCST  cMinusHalf<>(SB), Z22, Z22; /* Z22 = x·x·-½           */ \
	EXP512(Z22, Z23, Z24, Z25);              /* Z23 = e^(x·x·-½)       */ \
	VMULPS.BCST  cGeluAlpha<>(SB), Z23, Z23; /* Z23 = pdf              */ \
	VMULPS       Z23, xKeep, Z23;            /* Z23 = u = x·pdf        */ \
	VADDPS       Z23, Z0, Z0;                /* Z0 = t + u             */ \
	VMULPS       Z0, gKeep, Z0               /* Z0 = g·(t + u)         */

// GELUPOLYSTEP512: one vector of geluErfSplitAVX512 (xKeep loaded): its
// big lanes' z packed into c at packed, the polynomial's erf of every lane
// into Z0.
#define GELUPOLYSTEP512 \
	GELUSPLIT512;                            /* Z0 = z, polyK, bigK    */ \
	VCOMPRESSPS  Z0, bigK, Z1;               /* Z1 = the big lanes' z  */ \
	VMOVUPS      Z1, (cPtr)(packed*4);       /* c[packed:] = them      */ \
	KMOVW        bigK, AX;                   /* AX = their lanes       */ \
	POPCNTL      AX, AX;                     /* AX = how many          */ \
	ADDQ         AX, packed;                 /* packed += AX           */ \
	HALVES512(ERFPOLYH512)                   // Z0 = the poly's erf

// func geluErfSplitAVX512(t, c, x []float32) (n int)
//
// In:  len(t) = len(x) ≤ len(c) − 16. Out: t[i] = erf(x[i]·√½) where
// |x[i]·√½| < 1 (ErfF32's polynomial branch; other elements unspecified);
// c[0:n] = x[i]·√½ of the other elements (NaN included), in order.
// Clobbers AX, CX, SI, DI, R8, R9, Z0–Z11, Z20, K2, K4, K7.
TEXT ·geluErfSplitAVX512(SB), NOSPLIT, $0-80
	MOVQ       t_base+0(FP), dPtr            // dPtr = &t[0]
	MOVQ       c_base+24(FP), cPtr           // cPtr = &c[0]
	MOVQ       x_base+48(FP), xPtr           // xPtr = &x[0]
	MOVQ       x_len+56(FP), nLeft           // nLeft = len(x)
	XORQ       packed, packed                // packed = 0
	CMPQ       nLeft, $16                    // a whole vector?
	JLT        gstail                        // the last elements
gsloop:
	VMOVUPS    (xPtr), xKeep                 // xKeep = x[0:16]
	GELUPOLYSTEP512                          // pack; Z0 = poly's erf
	VMOVUPS    Z0, (dPtr)                    // t[0:16] = Z0
	ADDQ       $64, xPtr                     // next vector
	ADDQ       $64, dPtr                     // of t
	SUBQ       $16, nLeft                    // 16 done
	CMPQ       nLeft, $16                    // 16 more?
	JGE        gsloop                        // again
gstail:
	TESTQ      nLeft, nLeft                  // anything left?
	JZ         gsdone                        // finished
	MOVL       $1, AX                        // AX = 1
	SHLL       CX, AX                        // AX = 1 << nLeft
	DECL       AX                            // AX = nLeft low bits
	KMOVW      AX, tailK                     // tailK = lanes in range
	VMOVUPS.Z  (xPtr), tailK, xKeep          // xKeep = x, 0 (poly lanes) off the end
	GELUPOLYSTEP512                          // pack; Z0 = poly's erf
	VMOVUPS    Z0, tailK, (dPtr)             // t = Z0, masked
gsdone:
	MOVQ       packed, n+72(FP)              // n = packed
	VZEROUPPER
	RET

// GELUFINISHSTEP512: one vector of geluBwdFinishAVX512 (xKeep, gKeep
// loaded): t's erf with the next packed values of c in its big lanes,
// then Z0 = the gradient.
#define GELUFINISHSTEP512 \
	GELUSPLIT512;                            /* polyK, bigK            */ \
	VMOVUPS      (tPtr), Z0;                 /* Z0 = t's lanes         */ \
	VMOVUPS      (cPtr), Z1;                 /* Z1 = the next packed   */ \
	VEXPANDPS    Z1, bigK, Z0;               /* into the big lanes     */ \
	KMOVW        bigK, AX;                   /* AX = those lanes       */ \
	POPCNTL      AX, AX;                     /* AX = how many          */ \
	LEAQ         (cPtr)(AX*4), cPtr;         /* past them              */ \
	GELUREST512                              // Z0 = the gradient

// func geluBwdFinishAVX512(d, g, x, t, c []float32)
//
// In:  len(d) = len(g) = len(x) = len(t); t and c as geluErfSplitAVX512
// left them, c[0:n] overwritten with erf of its values (ErfF32). Out:
// d[i] = geluBwdGo1(g[i], x[i]). Clobbers AX, CX, DX, SI, DI, R8, R10,
// Z0, Z1, Z20–Z25, Z30, Z31 and SETUP512's, K2, K4, K7.
TEXT ·geluBwdFinishAVX512(SB), NOSPLIT, $0-120
	SETUP512                                 // clamp limits
	MOVQ       d_base+0(FP), dPtr            // dPtr = &d[0]
	MOVQ       d_len+8(FP), nLeft            // nLeft = len(d)
	MOVQ       g_base+24(FP), gPtr           // gPtr = &g[0]
	MOVQ       x_base+48(FP), xPtr           // xPtr = &x[0]
	MOVQ       t_base+72(FP), tPtr           // tPtr = &t[0]
	MOVQ       c_base+96(FP), cPtr           // cPtr = &c[0]
	CMPQ       nLeft, $16                    // a whole vector?
	JLT        gftail                        // the last elements
gfloop:
	VMOVUPS    (xPtr), xKeep                 // xKeep = x[0:16]
	VMOVUPS    (gPtr), gKeep                 // gKeep = g[0:16]
	GELUFINISHSTEP512                        // Z0 = the gradient
	VMOVUPS    Z0, (dPtr)                    // d[0:16] = Z0
	ADDQ       $64, xPtr                     // next vector
	ADDQ       $64, gPtr                     // of g
	ADDQ       $64, tPtr                     // of t
	ADDQ       $64, dPtr                     // of d
	SUBQ       $16, nLeft                    // 16 done
	CMPQ       nLeft, $16                    // 16 more?
	JGE        gfloop                        // again
gftail:
	TESTQ      nLeft, nLeft                  // anything left?
	JZ         gfdone                        // finished
	MOVL       $1, AX                        // AX = 1
	SHLL       CX, AX                        // AX = 1 << nLeft
	DECL       AX                            // AX = nLeft low bits
	KMOVW      AX, tailK                     // tailK = lanes in range
	VMOVUPS.Z  (xPtr), tailK, xKeep          // xKeep = x, 0 off the end
	VMOVUPS.Z  (gPtr), tailK, gKeep          // gKeep = g, 0 off the end
	GELUFINISHSTEP512                        // Z0 = the gradient
	VMOVUPS    Z0, tailK, (dPtr)             // d = Z0, masked
gfdone:
	VZEROUPPER
	RET
