// Shared by the amd64 elementwise .s files (#include "elementwise_amd64.h"):
// the tail lane mask, the constant macros, and the float32 exp core.

// tailMask<> is 8 dwords of ones then 8 of zeros (see binary_amd64.s).
DATA tailMask<>+0(SB)/8, $-1
DATA tailMask<>+8(SB)/8, $-1
DATA tailMask<>+16(SB)/8, $-1
DATA tailMask<>+24(SB)/8, $-1
DATA tailMask<>+32(SB)/8, $0
DATA tailMask<>+40(SB)/8, $0
DATA tailMask<>+48(SB)/8, $0
DATA tailMask<>+56(SB)/8, $0
GLOBL tailMask<>(SB), RODATA|NOPTR, $64

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

// EXPPARTS(x, y, s1, s2, t, u): y, s1, s2 with e^x = (y·s1)·s2, as
// expParts. Clobbers x, t, u.
#define EXPPARTS(x, y, s1, s2, t, u) \
	VCMPPS       $1, cExpLo<>(SB), x, t;     /* t = x < expLo          */ \
	VMOVUPS      cExpLo<>(SB), u;            /* u = expLo              */ \
	VMAXPS       x, u, x;                    /* x = max(expLo, x)      */ \
	VMOVUPS      cExpHi<>(SB), u;            /* u = expHi              */ \
	VMINPS       x, u, x;                    /* x = min(expHi, x)      */ \
	VMULPS       cLog2e<>(SB), x, s2;        /* s2 = x·log2e           */ \
	VROUNDPS     $0, s2, s2;                 /* s2 = n, nearest even   */ \
	VFNMADD231PS cLn2Hi<>(SB), s2, x;        /* x = x - n·ln2Hi        */ \
	VFNMADD231PS cLn2Lo<>(SB), s2, x;        /* x = r = x - n·ln2Lo    */ \
	VMOVUPS      cExpQ4<>(SB), y;            /* y = Q4                 */ \
	VFMADD213PS  cExpQ3<>(SB), x, y;         /* y = y·r + Q3           */ \
	VFMADD213PS  cExpQ2<>(SB), x, y;         /* y = y·r + Q2           */ \
	VFMADD213PS  cExpQ1<>(SB), x, y;         /* y = y·r + Q1           */ \
	VFMADD213PS  cExpQ0<>(SB), x, y;         /* y = Q(r)               */ \
	VMULPS       x, x, u;                    /* u = r²                 */ \
	VFMADD213PS  x, u, y;                    /* y = r²·Q + r           */ \
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
