//go:build !purego

#include "textflag.h"

// The Winograd F(4×4, 3×3) transforms, AVX-512: up to 16 tiles, one per
// lane, in four quarters of four tiles side by side (WinoTiles), a
// channel at a time. A row of the tiles' input is read as eight masked
// loads (each quarter's columns 0 … 15 and 4 … 19, at the offsets and
// under the masks WinogradInF32 computes: positions outside the image
// read as zero and are not touched), dealt into the tiles' six columns by
// two-table permutes; the outputs are dealt back into a vector of 16
// columns per quarter and row, stored under masks. The tiles' lanes (K1)
// are packed into consecutive columns of v (VCOMPRESSPS) and unpacked
// from m (VEXPANDPS), K4 holding as many lanes as there are tiles. The transforms are winoB and winoA of
// winograd_generic.go, the same operations in the same order: the rows
// of a tile into the scratch s, then its columns.

// winoDeint<>+64j: the permute indices (two tables of 16) that deal
// column j of eight tiles, 4t + j, into lanes t < 8.
DATA winoDeint<>+0(SB)/4, $0
DATA winoDeint<>+4(SB)/4, $4
DATA winoDeint<>+8(SB)/4, $8
DATA winoDeint<>+12(SB)/4, $12
DATA winoDeint<>+16(SB)/4, $16
DATA winoDeint<>+20(SB)/4, $20
DATA winoDeint<>+24(SB)/4, $24
DATA winoDeint<>+28(SB)/4, $28
DATA winoDeint<>+32(SB)/4, $0
DATA winoDeint<>+36(SB)/4, $0
DATA winoDeint<>+40(SB)/4, $0
DATA winoDeint<>+44(SB)/4, $0
DATA winoDeint<>+48(SB)/4, $0
DATA winoDeint<>+52(SB)/4, $0
DATA winoDeint<>+56(SB)/4, $0
DATA winoDeint<>+60(SB)/4, $0
DATA winoDeint<>+64(SB)/4, $1
DATA winoDeint<>+68(SB)/4, $5
DATA winoDeint<>+72(SB)/4, $9
DATA winoDeint<>+76(SB)/4, $13
DATA winoDeint<>+80(SB)/4, $17
DATA winoDeint<>+84(SB)/4, $21
DATA winoDeint<>+88(SB)/4, $25
DATA winoDeint<>+92(SB)/4, $29
DATA winoDeint<>+96(SB)/4, $0
DATA winoDeint<>+100(SB)/4, $0
DATA winoDeint<>+104(SB)/4, $0
DATA winoDeint<>+108(SB)/4, $0
DATA winoDeint<>+112(SB)/4, $0
DATA winoDeint<>+116(SB)/4, $0
DATA winoDeint<>+120(SB)/4, $0
DATA winoDeint<>+124(SB)/4, $0
DATA winoDeint<>+128(SB)/4, $2
DATA winoDeint<>+132(SB)/4, $6
DATA winoDeint<>+136(SB)/4, $10
DATA winoDeint<>+140(SB)/4, $14
DATA winoDeint<>+144(SB)/4, $18
DATA winoDeint<>+148(SB)/4, $22
DATA winoDeint<>+152(SB)/4, $26
DATA winoDeint<>+156(SB)/4, $30
DATA winoDeint<>+160(SB)/4, $0
DATA winoDeint<>+164(SB)/4, $0
DATA winoDeint<>+168(SB)/4, $0
DATA winoDeint<>+172(SB)/4, $0
DATA winoDeint<>+176(SB)/4, $0
DATA winoDeint<>+180(SB)/4, $0
DATA winoDeint<>+184(SB)/4, $0
DATA winoDeint<>+188(SB)/4, $0
DATA winoDeint<>+192(SB)/4, $3
DATA winoDeint<>+196(SB)/4, $7
DATA winoDeint<>+200(SB)/4, $11
DATA winoDeint<>+204(SB)/4, $15
DATA winoDeint<>+208(SB)/4, $19
DATA winoDeint<>+212(SB)/4, $23
DATA winoDeint<>+216(SB)/4, $27
DATA winoDeint<>+220(SB)/4, $31
DATA winoDeint<>+224(SB)/4, $0
DATA winoDeint<>+228(SB)/4, $0
DATA winoDeint<>+232(SB)/4, $0
DATA winoDeint<>+236(SB)/4, $0
DATA winoDeint<>+240(SB)/4, $0
DATA winoDeint<>+244(SB)/4, $0
DATA winoDeint<>+248(SB)/4, $0
DATA winoDeint<>+252(SB)/4, $0
GLOBL winoDeint<>(SB), RODATA|NOPTR, $256

// winoIlvA<>+64q and winoIlvB<>+64q: the permute indices that deal
// columns 0, 1 (A: from Y0, Y1) and 2, 3 (B: from Y2, Y3) of tiles 4q …
// 4q+3 back into lanes 4t' + j of a row's store q.
DATA winoIlvA<>+0(SB)/4, $0
DATA winoIlvA<>+4(SB)/4, $16
DATA winoIlvA<>+8(SB)/4, $0
DATA winoIlvA<>+12(SB)/4, $0
DATA winoIlvA<>+16(SB)/4, $1
DATA winoIlvA<>+20(SB)/4, $17
DATA winoIlvA<>+24(SB)/4, $0
DATA winoIlvA<>+28(SB)/4, $0
DATA winoIlvA<>+32(SB)/4, $2
DATA winoIlvA<>+36(SB)/4, $18
DATA winoIlvA<>+40(SB)/4, $0
DATA winoIlvA<>+44(SB)/4, $0
DATA winoIlvA<>+48(SB)/4, $3
DATA winoIlvA<>+52(SB)/4, $19
DATA winoIlvA<>+56(SB)/4, $0
DATA winoIlvA<>+60(SB)/4, $0
DATA winoIlvA<>+64(SB)/4, $4
DATA winoIlvA<>+68(SB)/4, $20
DATA winoIlvA<>+72(SB)/4, $0
DATA winoIlvA<>+76(SB)/4, $0
DATA winoIlvA<>+80(SB)/4, $5
DATA winoIlvA<>+84(SB)/4, $21
DATA winoIlvA<>+88(SB)/4, $0
DATA winoIlvA<>+92(SB)/4, $0
DATA winoIlvA<>+96(SB)/4, $6
DATA winoIlvA<>+100(SB)/4, $22
DATA winoIlvA<>+104(SB)/4, $0
DATA winoIlvA<>+108(SB)/4, $0
DATA winoIlvA<>+112(SB)/4, $7
DATA winoIlvA<>+116(SB)/4, $23
DATA winoIlvA<>+120(SB)/4, $0
DATA winoIlvA<>+124(SB)/4, $0
DATA winoIlvA<>+128(SB)/4, $8
DATA winoIlvA<>+132(SB)/4, $24
DATA winoIlvA<>+136(SB)/4, $0
DATA winoIlvA<>+140(SB)/4, $0
DATA winoIlvA<>+144(SB)/4, $9
DATA winoIlvA<>+148(SB)/4, $25
DATA winoIlvA<>+152(SB)/4, $0
DATA winoIlvA<>+156(SB)/4, $0
DATA winoIlvA<>+160(SB)/4, $10
DATA winoIlvA<>+164(SB)/4, $26
DATA winoIlvA<>+168(SB)/4, $0
DATA winoIlvA<>+172(SB)/4, $0
DATA winoIlvA<>+176(SB)/4, $11
DATA winoIlvA<>+180(SB)/4, $27
DATA winoIlvA<>+184(SB)/4, $0
DATA winoIlvA<>+188(SB)/4, $0
DATA winoIlvA<>+192(SB)/4, $12
DATA winoIlvA<>+196(SB)/4, $28
DATA winoIlvA<>+200(SB)/4, $0
DATA winoIlvA<>+204(SB)/4, $0
DATA winoIlvA<>+208(SB)/4, $13
DATA winoIlvA<>+212(SB)/4, $29
DATA winoIlvA<>+216(SB)/4, $0
DATA winoIlvA<>+220(SB)/4, $0
DATA winoIlvA<>+224(SB)/4, $14
DATA winoIlvA<>+228(SB)/4, $30
DATA winoIlvA<>+232(SB)/4, $0
DATA winoIlvA<>+236(SB)/4, $0
DATA winoIlvA<>+240(SB)/4, $15
DATA winoIlvA<>+244(SB)/4, $31
DATA winoIlvA<>+248(SB)/4, $0
DATA winoIlvA<>+252(SB)/4, $0
GLOBL winoIlvA<>(SB), RODATA|NOPTR, $256


DATA winoIlvB<>+0(SB)/4, $0
DATA winoIlvB<>+4(SB)/4, $0
DATA winoIlvB<>+8(SB)/4, $0
DATA winoIlvB<>+12(SB)/4, $16
DATA winoIlvB<>+16(SB)/4, $0
DATA winoIlvB<>+20(SB)/4, $0
DATA winoIlvB<>+24(SB)/4, $1
DATA winoIlvB<>+28(SB)/4, $17
DATA winoIlvB<>+32(SB)/4, $0
DATA winoIlvB<>+36(SB)/4, $0
DATA winoIlvB<>+40(SB)/4, $2
DATA winoIlvB<>+44(SB)/4, $18
DATA winoIlvB<>+48(SB)/4, $0
DATA winoIlvB<>+52(SB)/4, $0
DATA winoIlvB<>+56(SB)/4, $3
DATA winoIlvB<>+60(SB)/4, $19
DATA winoIlvB<>+64(SB)/4, $0
DATA winoIlvB<>+68(SB)/4, $0
DATA winoIlvB<>+72(SB)/4, $4
DATA winoIlvB<>+76(SB)/4, $20
DATA winoIlvB<>+80(SB)/4, $0
DATA winoIlvB<>+84(SB)/4, $0
DATA winoIlvB<>+88(SB)/4, $5
DATA winoIlvB<>+92(SB)/4, $21
DATA winoIlvB<>+96(SB)/4, $0
DATA winoIlvB<>+100(SB)/4, $0
DATA winoIlvB<>+104(SB)/4, $6
DATA winoIlvB<>+108(SB)/4, $22
DATA winoIlvB<>+112(SB)/4, $0
DATA winoIlvB<>+116(SB)/4, $0
DATA winoIlvB<>+120(SB)/4, $7
DATA winoIlvB<>+124(SB)/4, $23
DATA winoIlvB<>+128(SB)/4, $0
DATA winoIlvB<>+132(SB)/4, $0
DATA winoIlvB<>+136(SB)/4, $8
DATA winoIlvB<>+140(SB)/4, $24
DATA winoIlvB<>+144(SB)/4, $0
DATA winoIlvB<>+148(SB)/4, $0
DATA winoIlvB<>+152(SB)/4, $9
DATA winoIlvB<>+156(SB)/4, $25
DATA winoIlvB<>+160(SB)/4, $0
DATA winoIlvB<>+164(SB)/4, $0
DATA winoIlvB<>+168(SB)/4, $10
DATA winoIlvB<>+172(SB)/4, $26
DATA winoIlvB<>+176(SB)/4, $0
DATA winoIlvB<>+180(SB)/4, $0
DATA winoIlvB<>+184(SB)/4, $11
DATA winoIlvB<>+188(SB)/4, $27
DATA winoIlvB<>+192(SB)/4, $0
DATA winoIlvB<>+196(SB)/4, $0
DATA winoIlvB<>+200(SB)/4, $12
DATA winoIlvB<>+204(SB)/4, $28
DATA winoIlvB<>+208(SB)/4, $0
DATA winoIlvB<>+212(SB)/4, $0
DATA winoIlvB<>+216(SB)/4, $13
DATA winoIlvB<>+220(SB)/4, $29
DATA winoIlvB<>+224(SB)/4, $0
DATA winoIlvB<>+228(SB)/4, $0
DATA winoIlvB<>+232(SB)/4, $14
DATA winoIlvB<>+236(SB)/4, $30
DATA winoIlvB<>+240(SB)/4, $0
DATA winoIlvB<>+244(SB)/4, $0
DATA winoIlvB<>+248(SB)/4, $15
DATA winoIlvB<>+252(SB)/4, $31
GLOBL winoIlvB<>(SB), RODATA|NOPTR, $256

// The constants of the transforms: 4, -4, -5, 2, -2, 8 and -0 (adding -0
// leaves every value as it is: the bias of a call without one).
DATA winoConst<>+0(SB)/4, $0x40800000
DATA winoConst<>+4(SB)/4, $0xc0800000
DATA winoConst<>+8(SB)/4, $0xc0a00000
DATA winoConst<>+12(SB)/4, $0x40000000
DATA winoConst<>+16(SB)/4, $0xc0000000
DATA winoConst<>+20(SB)/4, $0x41000000
DATA winoConst<>+24(SB)/4, $0x80000000
GLOBL winoConst<>(SB), RODATA|NOPTR, $28

// CONSTS loads the constants: Z24 = 4, Z25 = -4, Z26 = -5, Z27 = 2,
// Z28 = -2, Z29 = 8.
#define CONSTS \
	VBROADCASTSS winoConst<>+0(SB), Z24;      /* Z24 = 4                */ \
	VBROADCASTSS winoConst<>+4(SB), Z25;      /* Z25 = -4               */ \
	VBROADCASTSS winoConst<>+8(SB), Z26;      /* Z26 = -5               */ \
	VBROADCASTSS winoConst<>+12(SB), Z27;     /* Z27 = 2                */ \
	VBROADCASTSS winoConst<>+16(SB), Z28;     /* Z28 = -2               */ \
	VBROADCASTSS winoConst<>+20(SB), Z29      /* Z29 = 8                */

// LANES sets K1 to the tiles' lanes and K4 to as many lanes from 0
// (winoKernelArgs at R15).
#define LANES \
	KMOVW     160(R15), K1;                   /* K1 = the tiles' lanes  */ \
	KMOVW     162(R15), K4                    /* K4 = packed            */

// WINOB is winoB: Z6…Z11 = Bᵀ·(Z0…Z5), through Z12…Z15.
#define WINOB \
	VMOVAPS     Z4, Z12;                      /* a = d4                 */ \
	VFMADD231PS Z25, Z2, Z12;                 /* a = d4 - 4·d2          */ \
	VMOVAPS     Z3, Z13;                      /* b = d3                 */ \
	VFMADD231PS Z25, Z1, Z13;                 /* b = d3 - 4·d1          */ \
	VADDPS      Z13, Z12, Z7;                 /* r1 = a + b             */ \
	VSUBPS      Z13, Z12, Z8;                 /* r2 = a - b             */ \
	VSUBPS      Z2, Z4, Z14;                  /* c = d4 - d2            */ \
	VSUBPS      Z1, Z3, Z15;                  /* e = d3 - d1            */ \
	VMOVAPS     Z14, Z9;                      /* r3 = c                 */ \
	VFMADD231PS Z27, Z15, Z9;                 /* r3 = c + 2·e           */ \
	VMOVAPS     Z14, Z10;                     /* r4 = c                 */ \
	VFMADD231PS Z28, Z15, Z10;                /* r4 = c - 2·e           */ \
	VMOVAPS     Z4, Z6;                       /* r0 = d4                */ \
	VFMADD231PS Z26, Z2, Z6;                  /* r0 = d4 - 5·d2         */ \
	VFMADD231PS Z24, Z0, Z6;                  /* r0 += 4·d0             */ \
	VMOVAPS     Z5, Z11;                      /* r5 = d5                */ \
	VFMADD231PS Z26, Z3, Z11;                 /* r5 = d5 - 5·d3         */ \
	VFMADD231PS Z24, Z1, Z11                  /* r5 += 4·d1             */

// WINOA is winoA: Z6…Z9 = Aᵀ·(Z0…Z5), through Z12…Z15.
#define WINOA \
	VADDPS      Z2, Z1, Z12;                  /* s12 = m1 + m2          */ \
	VSUBPS      Z2, Z1, Z13;                  /* d12 = m1 - m2          */ \
	VADDPS      Z4, Z3, Z14;                  /* s34 = m3 + m4          */ \
	VSUBPS      Z4, Z3, Z15;                  /* d34 = m3 - m4          */ \
	VADDPS      Z12, Z0, Z6;                  /* y0 = m0 + s12          */ \
	VADDPS      Z14, Z6, Z6;                  /* y0 += s34              */ \
	VMOVAPS     Z13, Z7;                      /* y1 = d12               */ \
	VFMADD231PS Z27, Z15, Z7;                 /* y1 += 2·d34            */ \
	VMOVAPS     Z12, Z8;                      /* y2 = s12               */ \
	VFMADD231PS Z24, Z14, Z8;                 /* y2 += 4·s34            */ \
	VMOVAPS     Z13, Z9;                      /* y3 = d12               */ \
	VFMADD231PS Z29, Z15, Z9;                 /* y3 += 8·d34            */ \
	VADDPS      Z5, Z9, Z9                    /* y3 += m5               */

// LOAD(k, d) loads 16 columns of the row at R11 from load k's offset
// (R15) under mask k of the row (R9 at the row's masks), zero where the
// mask is clear.
#define LOAD(k, d) \
	KMOVW     (k*2)(R9), K2;                  /* K2 = the columns in    */ \
	MOVQ      (k*8)(R15), AX;                 /* AX = load k's offset   */ \
	VMOVUPS.Z (R11)(AX*1), K2, d              /* d = the columns, or 0  */

// DEINT(j, p0, p1, p2, p3, d) deals column j of the 16 tiles of the 64
// columns in p0…p3 into d, through Z12 and Z13.
#define DEINT(j, p0, p1, p2, p3, d) \
	VMOVUPS      winoDeint<>+(64*j)(SB), Z12; /* indices 4t + j         */ \
	VPERMI2PS    p1, p0, Z12;                 /* tiles 0…7 from p0, p1  */ \
	VMOVUPS      winoDeint<>+(64*j)(SB), Z13; \
	VPERMI2PS    p3, p2, Z13;                 /* tiles 8…15 from p2, p3 */ \
	VINSERTF64X4 $1, Y13, Z12, d              /* d = both halves        */

// SROW(i) stores a transformed row, Z6–Z11, into s[6i …] (R10).
#define SROW(i) \
	VMOVUPS Z6, ((6*i+0)*64)(R10); \
	VMOVUPS Z7, ((6*i+1)*64)(R10); \
	VMOVUPS Z8, ((6*i+2)*64)(R10); \
	VMOVUPS Z9, ((6*i+3)*64)(R10); \
	VMOVUPS Z10, ((6*i+4)*64)(R10); \
	VMOVUPS Z11, ((6*i+5)*64)(R10)

// VPLANES stores a transformed column, Z6–Z11, the tiles' lanes packed
// (K1) and masked (K4), into six planes of v CX bytes apart from R14, and
// steps R14 to the next column's plane (DX on).
#define VPLANES \
	VCOMPRESSPS Z6, K1, Z6;                   /* the tiles' lanes packed */ \
	VCOMPRESSPS Z7, K1, Z7; \
	VCOMPRESSPS Z8, K1, Z8; \
	VCOMPRESSPS Z9, K1, Z9; \
	VCOMPRESSPS Z10, K1, Z10; \
	VCOMPRESSPS Z11, K1, Z11; \
	MOVQ    R14, R11; \
	VMOVUPS Z6, K4, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z7, K4, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z8, K4, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z9, K4, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z10, K4, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z11, K4, (R11); \
	ADDQ    DX, R14

// ROWIN(i) transforms row i of the tiles (R11) into s[6i …] and steps R11
// to the next row, R9 to the next row's masks.
#define ROWIN(i) \
	LOAD(0, Z20); \
	LOAD(1, Z21); \
	LOAD(2, Z22); \
	LOAD(3, Z23); \
	LOAD(4, Z30); \
	LOAD(5, Z31); \
	LOAD(6, Z14); \
	LOAD(7, Z15); \
	DEINT(0, Z20, Z21, Z22, Z23, Z0); \
	DEINT(1, Z20, Z21, Z22, Z23, Z1); \
	DEINT(2, Z20, Z21, Z22, Z23, Z2); \
	DEINT(3, Z20, Z21, Z22, Z23, Z3); \
	DEINT(0, Z30, Z31, Z14, Z15, Z4); \
	DEINT(1, Z30, Z31, Z14, Z15, Z5); \
	WINOB; \
	SROW(i); \
	ADDQ    BX, R11; \
	ADDQ    $16, R9

// COLIN(j) transforms column j of s into v's planes 6ξr + j (R14: plane
// j; CX: six planes in bytes), the tiles' lanes packed, and steps R14 to
// plane j+1.
#define COLIN(j) \
	VMOVUPS ((0*6+j)*64)(R10), Z0; \
	VMOVUPS ((1*6+j)*64)(R10), Z1; \
	VMOVUPS ((2*6+j)*64)(R10), Z2; \
	VMOVUPS ((3*6+j)*64)(R10), Z3; \
	VMOVUPS ((4*6+j)*64)(R10), Z4; \
	VMOVUPS ((5*6+j)*64)(R10), Z5; \
	WINOB; \
	VPLANES

// func winoInF32AVX512(v []float32, ldp, ldc int, x []float32, cs, ldx, n int, k *winoKernelArgs, s []float32)
//
// DI: v at the channel's row; SI: x at the channel; DX: ldp in bytes; CX:
// 6·ldp in bytes; BX: ldx in bytes; R8: channels left; R9: the row's
// masks; R10: s (36 vectors); R11: the row or v plane in hand; R12: ldc
// in bytes; R13: cs in bytes; R14: v at column j's planes; R15: k (the
// loads' offsets at 0, the masks at 64); AX: a load's offset.
TEXT ·winoInF32AVX512(SB), NOSPLIT, $0-120
	CONSTS
	MOVQ    k+88(FP), R15                     // R15 = k
	LANES
	MOVQ    v_base+0(FP), DI                  // DI = v
	MOVQ    ldp+24(FP), DX
	SHLQ    $2, DX                            // DX = ldp in bytes
	LEAQ    (DX)(DX*2), CX
	SHLQ    $1, CX                            // CX = 6·ldp in bytes
	MOVQ    ldc+32(FP), R12
	SHLQ    $2, R12                           // R12 = ldc in bytes
	MOVQ    x_base+40(FP), SI                 // SI = x
	MOVQ    cs+64(FP), R13
	SHLQ    $2, R13                           // R13 = cs in bytes
	MOVQ    ldx+72(FP), BX
	SHLQ    $2, BX                            // BX = ldx in bytes
	MOVQ    n+80(FP), R8                      // R8 = channels left
	MOVQ    s_base+96(FP), R10                // R10 = s

inChannel:
	MOVQ    SI, R11                           // R11 = row 0
	LEAQ    64(R15), R9                       // R9 = row 0's masks
	ROWIN(0)
	ROWIN(1)
	ROWIN(2)
	ROWIN(3)
	ROWIN(4)
	ROWIN(5)
	MOVQ    DI, R14                           // R14 = v plane 0
	COLIN(0)
	COLIN(1)
	COLIN(2)
	COLIN(3)
	COLIN(4)
	COLIN(5)
	ADDQ    R12, DI                           // next channel of v
	ADDQ    R13, SI                           // and of x
	DECQ    R8
	JNZ     inChannel
	VZEROUPPER
	RET

// COLOUT(j) transforms column j of M (planes 6ξr + j of m at SI + AX, CX
// apart; the tiles' packed columns unpacked into their lanes) into
// s[6k + j], k < 4, and steps AX to plane j+1.
#define COLOUT(j) \
	LEAQ      (SI)(AX*1), R11;                /* R11 = m plane j        */ \
	VMOVUPS.Z (R11), K4, Z0; \
	VEXPANDPS.Z Z0, K1, Z0; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K4, Z1; \
	VEXPANDPS.Z Z1, K1, Z1; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K4, Z2; \
	VEXPANDPS.Z Z2, K1, Z2; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K4, Z3; \
	VEXPANDPS.Z Z3, K1, Z3; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K4, Z4; \
	VEXPANDPS.Z Z4, K1, Z4; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K4, Z5; \
	VEXPANDPS.Z Z5, K1, Z5; \
	WINOA; \
	VMOVUPS   Z6, ((0*6+j)*64)(R10); \
	VMOVUPS   Z7, ((1*6+j)*64)(R10); \
	VMOVUPS   Z8, ((2*6+j)*64)(R10); \
	VMOVUPS   Z9, ((3*6+j)*64)(R10); \
	ADDQ      DX, AX

// ILV(q, d) deals columns 0…3 (Z6…Z9) of tiles 4q … 4q+3 into the 16
// columns of the row's store q, through Z12, Z13 (K3: columns 2 and 3).
#define ILV(q, d) \
	VMOVUPS   winoIlvA<>+(64*q)(SB), Z12;     /* columns 0, 1           */ \
	VPERMI2PS Z7, Z6, Z12; \
	VMOVUPS   winoIlvB<>+(64*q)(SB), Z13;     /* columns 2, 3           */ \
	VPERMI2PS Z9, Z8, Z13; \
	VBLENDMPS Z13, Z12, K3, d                 /* d = both               */

// STORE(q, d) stores d to quarter q's row (R11 plus its offset, R15)
// under mask q of the row (R9 at the row's masks).
#define STORE(q, d) \
	KMOVW     (q*2)(R9), K2;                  /* K2 = the columns in    */ \
	MOVQ      (q*8)(R15), AX;                 /* AX = quarter q's offset */ \
	VMOVUPS   d, K2, (R11)(AX*1)              /* the row's columns = d  */

// ROWOUT(k) transforms row k of s into output row k (R11), adds the bias
// (Z30), folds the outputs into the finiteness check (Z22) and stores
// them; it steps R11 to the next output row, R9 to its masks.
#define ROWOUT(k) \
	VMOVUPS     ((6*k+0)*64)(R10), Z0; \
	VMOVUPS     ((6*k+1)*64)(R10), Z1; \
	VMOVUPS     ((6*k+2)*64)(R10), Z2; \
	VMOVUPS     ((6*k+3)*64)(R10), Z3; \
	VMOVUPS     ((6*k+4)*64)(R10), Z4; \
	VMOVUPS     ((6*k+5)*64)(R10), Z5; \
	WINOA; \
	VADDPS      Z30, Z6, Z6;                  /* + bias                 */ \
	VADDPS      Z30, Z7, Z7; \
	VADDPS      Z30, Z8, Z8; \
	VADDPS      Z30, Z9, Z9; \
	VFMADD231PS Z23, Z6, Z22;                 /* check += y·0: NaN if y is not finite */ \
	VFMADD231PS Z23, Z7, Z22; \
	VFMADD231PS Z23, Z8, Z22; \
	VFMADD231PS Z23, Z9, Z22; \
	ILV(0, Z0); \
	ILV(1, Z1); \
	ILV(2, Z2); \
	ILV(3, Z3); \
	STORE(0, Z0); \
	STORE(1, Z1); \
	STORE(2, Z2); \
	STORE(3, Z3); \
	ADDQ        BX, R11; \
	ADDQ        $8, R9

// func winoOutF32AVX512(y []float32, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, hasBias int, k *winoKernelArgs, s []float32) bool
//
// DI: y at the channel; SI: m at the channel's row; DX: ldp in bytes; CX:
// 6·ldp in bytes; BX: ldy in bytes; R8: channels left; R9: the row's
// masks; R10: s (24 vectors); R11: the m plane or y row in hand; R12: ldc
// in bytes; R13: cs in bytes; R14: bias; R15: k (the stores' offsets at
// 0, the masks at 64); AX: plane j's offset, then a store's. K3: columns
// 2, 3 of each tile. Z22: the finiteness check; Z23: zero; Z30: the
// channel's bias (-0 without one).
TEXT ·winoOutF32AVX512(SB), NOSPLIT, $0-153
	CONSTS
	MOVQ         k+120(FP), R15               // R15 = k
	LANES
	MOVL         $0xcccc, R11
	KMOVW        R11, K3                      // K3 = columns 2, 3
	MOVQ         y_base+0(FP), DI             // DI = y
	MOVQ         cs+24(FP), R13
	SHLQ         $2, R13                      // R13 = cs in bytes
	MOVQ         ldy+32(FP), BX
	SHLQ         $2, BX                       // BX = ldy in bytes
	MOVQ         m_base+40(FP), SI            // SI = m
	MOVQ         ldp+64(FP), DX
	SHLQ         $2, DX                       // DX = ldp in bytes
	LEAQ         (DX)(DX*2), CX
	SHLQ         $1, CX                       // CX = 6·ldp in bytes
	MOVQ         ldc+72(FP), R12
	SHLQ         $2, R12                      // R12 = ldc in bytes
	MOVQ         n+80(FP), R8                 // R8 = channels left
	MOVQ         bias_base+88(FP), R14        // R14 = bias
	MOVQ         s_base+128(FP), R10          // R10 = s
	VPXORD       Z22, Z22, Z22                // check = 0
	VPXORD       Z23, Z23, Z23                // Z23 = 0
	VBROADCASTSS winoConst<>+24(SB), Z30      // Z30 = -0: no bias

outChannel:
	CMPQ         hasBias+112(FP), $0
	JEQ          outTransform                 // no bias
	VBROADCASTSS (R14), Z30                   // Z30 = the channel's bias
	ADDQ         $4, R14

outTransform:
	XORQ    AX, AX                            // AX = plane 0's offset
	COLOUT(0)
	COLOUT(1)
	COLOUT(2)
	COLOUT(3)
	COLOUT(4)
	COLOUT(5)
	MOVQ    DI, R11                           // R11 = output row 0
	LEAQ    64(R15), R9                       // R9 = row 0's masks
	ROWOUT(0)
	ROWOUT(1)
	ROWOUT(2)
	ROWOUT(3)
	ADDQ    R12, SI                           // next channel of m
	ADDQ    R13, DI                           // and of y
	DECQ    R8
	JNZ     outChannel

	VCMPPS  $3, Z22, Z22, K2                  // K2 = lanes whose check is NaN
	KMOVW   K2, AX
	TESTL   AX, AX
	SETEQ   ret+152(FP)                       // finite when none is
	VZEROUPPER
	RET

// WINOAT is winoAt: Z6…Z11 = A·(Z0…Z3), through Z12…Z15.
#define WINOAT \
	VADDPS      Z2, Z0, Z12;                  /* s02 = d0 + d2          */ \
	VADDPS      Z3, Z1, Z13;                  /* s13 = d1 + d3          */ \
	VMOVAPS     Z0, Z14;                      /* p = d0                 */ \
	VFMADD231PS Z24, Z2, Z14;                 /* p = d0 + 4·d2          */ \
	VMOVAPS     Z1, Z15;                      /* q = d1                 */ \
	VFMADD231PS Z24, Z3, Z15;                 /* q = d1 + 4·d3          */ \
	VMOVAPS     Z0, Z6;                       /* r0 = d0                */ \
	VADDPS      Z13, Z12, Z7;                 /* r1 = s02 + s13         */ \
	VSUBPS      Z13, Z12, Z8;                 /* r2 = s02 - s13         */ \
	VMOVAPS     Z14, Z9;                      /* r3 = p                 */ \
	VFMADD231PS Z27, Z15, Z9;                 /* r3 = p + 2·q           */ \
	VMOVAPS     Z14, Z10;                     /* r4 = p                 */ \
	VFMADD231PS Z28, Z15, Z10;                /* r4 = p - 2·q           */ \
	VMOVAPS     Z3, Z11                       /* r5 = d3                */

// ROWGRAD(r) transforms row r of the tiles (R11) into s[6r …] and steps
// R11 to the next row, R9 to the next row's masks.
#define ROWGRAD(r) \
	LOAD(0, Z20); \
	LOAD(1, Z21); \
	LOAD(2, Z22); \
	LOAD(3, Z23); \
	DEINT(0, Z20, Z21, Z22, Z23, Z0); \
	DEINT(1, Z20, Z21, Z22, Z23, Z1); \
	DEINT(2, Z20, Z21, Z22, Z23, Z2); \
	DEINT(3, Z20, Z21, Z22, Z23, Z3); \
	WINOAT; \
	SROW(r); \
	ADDQ    BX, R11; \
	ADDQ    $8, R9

// COLGRAD(j) transforms column j of s into v's planes 6ξr + j (R14: plane
// j; CX: six planes in bytes), the tiles' lanes packed, and steps R14 to
// plane j+1.
#define COLGRAD(j) \
	VMOVUPS ((0*6+j)*64)(R10), Z0; \
	VMOVUPS ((1*6+j)*64)(R10), Z1; \
	VMOVUPS ((2*6+j)*64)(R10), Z2; \
	VMOVUPS ((3*6+j)*64)(R10), Z3; \
	WINOAT; \
	VPLANES

// func winoGradF32AVX512(v []float32, ldp, ldc int, y []float32, cs, ldy, n int, k *winoKernelArgs, s []float32)
//
// Registers as in winoInF32AVX512 (y for x, ldy for ldx; four loads a
// row, one per quarter, their masks 8 bytes a row); s holds 24 vectors.
TEXT ·winoGradF32AVX512(SB), NOSPLIT, $0-120
	CONSTS
	MOVQ    k+88(FP), R15                     // R15 = k
	LANES
	MOVQ    v_base+0(FP), DI                  // DI = v
	MOVQ    ldp+24(FP), DX
	SHLQ    $2, DX                            // DX = ldp in bytes
	LEAQ    (DX)(DX*2), CX
	SHLQ    $1, CX                            // CX = 6·ldp in bytes
	MOVQ    ldc+32(FP), R12
	SHLQ    $2, R12                           // R12 = ldc in bytes
	MOVQ    y_base+40(FP), SI                 // SI = y
	MOVQ    cs+64(FP), R13
	SHLQ    $2, R13                           // R13 = cs in bytes
	MOVQ    ldy+72(FP), BX
	SHLQ    $2, BX                            // BX = ldy in bytes
	MOVQ    n+80(FP), R8                      // R8 = channels left
	MOVQ    s_base+96(FP), R10                // R10 = s

gradChannel:
	MOVQ    SI, R11                           // R11 = row 0
	LEAQ    64(R15), R9                       // R9 = row 0's masks
	ROWGRAD(0)
	ROWGRAD(1)
	ROWGRAD(2)
	ROWGRAD(3)
	MOVQ    DI, R14                           // R14 = v plane 0
	COLGRAD(0)
	COLGRAD(1)
	COLGRAD(2)
	COLGRAD(3)
	COLGRAD(4)
	COLGRAD(5)
	ADDQ    R12, DI                           // next channel of v
	ADDQ    R13, SI                           // and of y
	DECQ    R8
	JNZ     gradChannel
	VZEROUPPER
	RET
