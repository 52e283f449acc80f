// Shared by the amd64 elementwise .s files (#include "elementwise_amd64.h"):
// the tail lane mask (tailmask_amd64.h), the constant macros, and the float32 exp core.

#include "tailmask_amd64.h"

// C32 and C64 define a 32-byte constant: 8 float32 or 4 float64 lanes of bits.
#define C32(name, bits) \
	DATA name<>+0(SB)/4, bits; \
	DATA name<>+4(SB)/4, bits; \
	DATA name<>+8(SB)/4, bits; \
	DATA name<>+12(SB)/4, bits; \
	DATA name<>+16(SB)/4, bits; \
	DATA name<>+20(SB)/4, bits; \
	DATA name<>+24(SB)/4, bits; \
	DATA name<>+28(SB)/4, bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32
#define C64(name, bits) \
	DATA name<>+0(SB)/8, bits; \
	DATA name<>+8(SB)/8, bits; \
	DATA name<>+16(SB)/8, bits; \
	DATA name<>+24(SB)/8, bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

// float32 exp constants (values as in unary_generic.go).
C32(cOne, $0x3f800000)       // 1
C32(cExpHi, $0x42b20000)     // expHi = 89
C32(cExpLo, $0xc2f00000)     // expLo = -120
C32(cLog2e, $0x3fb8aa3b)     // log2(e)
C32(cLn2Hi, $0x3f318000)     // ln2Hi
C32(cLn2Lo, $0xb95e8083)     // ln2Lo
C32(cExpQ0, $0x3efffffe)     // expQ[0..4]
C32(cExpQ1, $0x3e2aaa49)
C32(cExpQ2, $0x3d2aac56)
C32(cExpQ3, $0x3c091cbd)
C32(cExpQ4, $0x3ab528b3)
C32(iBias, $0x0000007f)      // int32 127

// More float32 constants (values as in unary_generic.go).
C32(cTwo, $0x40000000)       // 2
C32(cLogP0, $0x3eaaaaaa)     // logP[0..7]
C32(cLogP1, $0xbe800113)
C32(cLogP2, $0x3e4cd00f)
C32(cLogP3, $0xbe2a3946)
C32(cLogP4, $0x3e116c7c)
C32(cLogP5, $0xbe06c0f9)
C32(cLogP6, $0x3e02b017)
C32(cLogP7, $0xbd9c6790)
C32(cTanhP0, $0xbeaaaa99)    // tanhP[0..4]
C32(cTanhP1, $0x3e08837c)
C32(cTanhP2, $0xbd5c1b08)
C32(cTanhP3, $0x3ca8fe27)
C32(cTanhP4, $0xbbba8f8d)
C32(cTanhSmall, $0x3f200000) // 0.625
C32(cMinNorm, $0x00800000)   // 2^-126
C32(c2p23, $0x4b000000)      // 2^23
C32(cSqrtHalf, $0x3f3504f3)  // √½
C32(cMinusHalf, $0xbf000000) // -0.5
C32(cNegInf, $0xff800000)    // -Inf
C32(cPosInf, $0x7f800000)    // +Inf
C32(cNaN, $0x7fc00000)       // NaN
C32(cAbs, $0x7fffffff)       // all bits but the sign
C32(cSign, $0x80000000)      // the sign bit
C32(cMant, $0x007fffff)      // the mantissa bits
C32(cLsb, $0x00000001)       // the lowest bit
C32(cHalfBits, $0x3f000000)  // exponent bits of 0.5
C32(i23, $0x00000017)        // int32 23
C32(i126, $0x0000007e)       // int32 126
C32(cGeluTMax, $0x41680000)    // geluTMax = 14.5
C32(cGeluNegTMax, $0xc1680000) // -geluTMax
C32(cGeluC, $0x40206c99)       // geluC = √(2π)
C32(cGeluA0, $0x4447fb5a)      // geluA[0..4]
C32(cGeluA1, $0x43fc3a5e)
C32(cGeluA2, $0x4326b340)
C32(cGeluA3, $0x41efab1a)
C32(cGeluA4, $0x4020709e)
C32(cGeluB0, $0x43c7fb5a)      // geluB[0..4] (geluB[5] = 1)
C32(cGeluB1, $0x43d93110)
C32(cGeluB2, $0x436289b4)
C32(cGeluB3, $0x4288cac8)
C32(cGeluB4, $0x413f4e76)
C32(cGeluMagic, $0x4b4000bf)   // 1.5·2^23 + 191: n + it has n + 191 in its low bits
C32(c2m64, $0x1f800000)        // 2^-64

// float64 constants.
C64(dOne, $0x3ff0000000000000)       // 1
C64(dTwo, $0x4000000000000000)       // 2
C64(dSign, $0x8000000000000000)      // the sign bit
C64(dAbs, $0x7fffffffffffffff)       // all bits but the sign
C64(iBias64, $0x00000000000003ff)    // int64 1023
C64(iOne64, $0x0000000000000001)     // int64 1
C64(dExpLo, $0xc085e00000000000)     // exp64Lo = -700
C64(dLog2e, $0x3ff71547652b82fe)     // log2(e)
C64(dLn2Hi, $0x3fe62e42fee00000)     // ln2Hi64
C64(dLn2Lo, $0x3dea39ef35793c76)     // ln2Lo64
C64(dExpT0, $0x3fe0000000000000)     // expT[0..6]: 1/2! … 1/8!
C64(dExpT1, $0x3fc5555555555555)
C64(dExpT2, $0x3fa5555555555555)
C64(dExpT3, $0x3f81111111111111)
C64(dExpT4, $0x3f56c16c16c16c17)
C64(dExpT5, $0x3f2a01a01a01a01a)
C64(dExpT6, $0x3efa01a01a01a01a)
C64(dMagic, $0x4338000000000000)     // 1.5·2^52: integers land in the low bits
C64(dErfC0, $0x3ff20dd760000000)     // erfC0
C64(dErfP0, $0xbe701b2b80000000)     // erfP[0..6]
C64(dErfP1, $0xbfd81273e0000000)
C64(dErfP2, $0x3fbce2cfa0000000)
C64(dErfP3, $0xbf9b7f92a0000000)
C64(dErfP4, $0x3f754062e0000000)
C64(dErfP5, $0xbf4a3f8620000000)
C64(dErfP6, $0x3f149698e0000000)
C64(dErfcH0, $0x3fd20db8e0000000)    // erfcH[0..9]
C64(dErfcH1, $0x3fd2111980000000)
C64(dErfcH2, $0x3fcf4c1640000000)
C64(dErfcH3, $0x3fc8803e60000000)
C64(dErfcH4, $0x3f98c80260000000)
C64(dErfcH5, $0x3fc1d51d20000000)
C64(dErfcH6, $0xbfd03190e0000000)
C64(dErfcH7, $0x3fa76b6560000000)
C64(dErfcH8, $0x3fb3687780000000)
C64(dErfcH9, $0xbfa0941380000000)
C64(dErfcMax, $0x4025333333333333)   // 10.6
C64(dBeta2, $0x3ff9884533d43651)     // 2·√(2/π)
C64(dKappa, $0x3fa6e4e26d4801f7)     // 0.044715
C64(d2OverPi, $0x3fe45f306dc9c883)   // 2/π
C64(dPio2A, $0x3ff921fb54400000)     // π/2 in three parts
C64(dPio2B, $0x3dd0b4611a626331)
C64(dPio2C, $0x3a71701b839a2520)
C64(dSinT0, $0xbfc5555555555555)     // sinT[0..3]
C64(dSinT1, $0x3f81111111111111)
C64(dSinT2, $0xbf2a01a01a01a01a)
C64(dSinT3, $0x3ec71de3a556c734)
C64(dCosT0, $0xbfe0000000000000)     // cosT[0..4]
C64(dCosT1, $0x3fa5555555555555)
C64(dCosT2, $0xbf56c16c16c16c17)
C64(dCosT3, $0x3efa01a01a01a01a)
C64(dCosT4, $0xbe927e4fb7789f5c)
C64(dSinCosMax, $0x412e848000000000) // sinCosMax = 1e6

// EXPRED(x, n): n = round(x·log2e) and x = r = x - n·ln 2, as expReduce.
#define EXPRED(x, n) \
	VMULPS       cLog2e<>(SB), x, n;         /* n = x·log2e            */ \
	VROUNDPS     $0, n, n;                   /* n = nearest even       */ \
	VFNMADD231PS cLn2Hi<>(SB), n, x;         /* x = x - n·ln2Hi        */ \
	VFNMADD231PS cLn2Lo<>(SB), n, x          /* x = r = x - n·ln2Lo    */

// EXPM1POLY(r, y, t): y = r + r²·Q(r) = e^r - 1, as expm1Poly; t clobbered.
#define EXPM1POLY(r, y, t) \
	VMOVUPS      cExpQ4<>(SB), y;            /* y = Q4                 */ \
	VFMADD213PS  cExpQ3<>(SB), r, y;         /* y = y·r + Q3           */ \
	VFMADD213PS  cExpQ2<>(SB), r, y;         /* y = y·r + Q2           */ \
	VFMADD213PS  cExpQ1<>(SB), r, y;         /* y = y·r + Q1           */ \
	VFMADD213PS  cExpQ0<>(SB), r, y;         /* y = Q(r)               */ \
	VMULPS       r, r, t;                    /* t = r²                 */ \
	VFMADD213PS  r, t, y                     /* y = r²·Q + r           */

// EXPPARTS(x, y, s1, s2, t, u): y, s1, s2 with e^x = (y·s1)·s2, as
// expParts. Clobbers x, t, u.
#define EXPPARTS(x, y, s1, s2, t, u) \
	VCMPPS       $1, cExpLo<>(SB), x, t;     /* t = x < expLo          */ \
	VMOVUPS      cExpLo<>(SB), u;            /* u = expLo              */ \
	VMAXPS       x, u, x;                    /* x = max(expLo, x)      */ \
	VMOVUPS      cExpHi<>(SB), u;            /* u = expHi              */ \
	VMINPS       x, u, x;                    /* x = min(expHi, x)      */ \
	EXPRED(x, s2);                           /* s2 = n, x = r          */ \
	EXPM1POLY(x, y, u);                      /* y = r + r²·Q(r)        */ \
	VADDPS       cOne<>(SB), y, y;           /* y = 1 + r + r²·Q       */ \
	VCVTPS2DQ    s2, s2;                     /* s2 = n as int32        */ \
	VPSRAD       $1, s2, s1;                 /* s1 = k1 = n >> 1       */ \
	VPSUBD       s1, s2, s2;                 /* s2 = k2 = n - k1       */ \
	VPADDD       iBias<>(SB), s1, s1;        /* s1 = k1 + 127          */ \
	VPSLLD       $23, s1, s1;                /* s1 = 2^k1              */ \
	VPADDD       iBias<>(SB), s2, s2;        /* s2 = k2 + 127          */ \
	VPSLLD       $23, s2, s2;                /* s2 = 2^k2              */ \
	VANDNPS      y, t, y                     /* y = 0 below expLo      */

// EXPCORE: Y0 = e^Y0 (as expGo1); clobbers Y1–Y5.
#define EXPCORE \
	EXPPARTS(Y0, Y1, Y2, Y3, Y4, Y5);        /* e^x = Y1·Y2·Y3         */ \
	VMULPS       Y2, Y1, Y1;                 /* Y1 = y·s1              */ \
	VMULPS       Y3, Y1, Y0                  /* Y0 = y·s1·s2           */
