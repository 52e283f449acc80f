//go:build !purego

#include "textflag.h"

// The Winograd F(4×4, 3×3) transforms, AVX-512: sixteen channels at a
// time, one per lane, their planes cs elements apart (Z31 holds the lanes'
// offsets, lane·cs, for the gathers and scatters). A tile's positions
// outside the image (WinogradInF32) or the output (WinogradOutF32) are not
// touched: each gather or scatter runs under the block's lane mask (K1)
// when the position's bit of valid is set, under an empty mask otherwise.
// The transforms are winoB and winoA of winograd_generic.go, the same
// operations in the same order: the rows of a tile into the scratch s,
// then its columns.

DATA winoIota<>+0(SB)/4, $0
DATA winoIota<>+4(SB)/4, $1
DATA winoIota<>+8(SB)/4, $2
DATA winoIota<>+12(SB)/4, $3
DATA winoIota<>+16(SB)/4, $4
DATA winoIota<>+20(SB)/4, $5
DATA winoIota<>+24(SB)/4, $6
DATA winoIota<>+28(SB)/4, $7
DATA winoIota<>+32(SB)/4, $8
DATA winoIota<>+36(SB)/4, $9
DATA winoIota<>+40(SB)/4, $10
DATA winoIota<>+44(SB)/4, $11
DATA winoIota<>+48(SB)/4, $12
DATA winoIota<>+52(SB)/4, $13
DATA winoIota<>+56(SB)/4, $14
DATA winoIota<>+60(SB)/4, $15
GLOBL winoIota<>(SB), RODATA|NOPTR, $64

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
// Z28 = -2, Z29 = 8; and Z31 = lane·cs (cs in AX).
#define CONSTS \
	VBROADCASTSS winoConst<>+0(SB), Z24;      /* Z24 = 4                */ \
	VBROADCASTSS winoConst<>+4(SB), Z25;      /* Z25 = -4               */ \
	VBROADCASTSS winoConst<>+8(SB), Z26;      /* Z26 = -5               */ \
	VBROADCASTSS winoConst<>+12(SB), Z27;     /* Z27 = 2                */ \
	VBROADCASTSS winoConst<>+16(SB), Z28;     /* Z28 = -2               */ \
	VBROADCASTSS winoConst<>+20(SB), Z29;     /* Z29 = 8                */ \
	VPBROADCASTD AX, Z31;                     /* Z31 = cs               */ \
	VPMULLD      winoIota<>(SB), Z31, Z31     /* Z31 = lane·cs          */

// LANES sets K1 and R12 to the lanes of the channels left (R8), at most 16.
#define LANES \
	MOVL      $0xffff, R12;                   /* R12 = 16 lanes         */ \
	CMPQ      R8, $16;                        /* 16 or more left?       */ \
	JGE       4(PC);                          /* then all of them       */ \
	MOVL      $1, R12;                        /* R12 = 1                */ \
	SHLXL     R8, R12, R12;                   /* R12 = 1 << left        */ \
	DECL      R12;                            /* R12 = left low bits    */ \
	KMOVW     R12, K1                         /* K1 = those lanes       */

// POSMASK(k) sets K2 to the block's lanes (R12) if bit k of valid (R9) is
// set, else to no lanes (through AX).
#define POSMASK(k) \
	MOVQ      R9, AX;                         /* AX = valid             */ \
	SHRQ      $(k), AX;                       /* bit k at the bottom    */ \
	ANDL      $1, AX;                         /* AX = bit k             */ \
	NEGL      AX;                             /* all ones if set        */ \
	ANDL      R12, AX;                        /* AX = lanes or none     */ \
	KMOVW     AX, K2                          /* K2 = AX                */

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

// GATHER(k, j, d) loads position k (column j of the row at R11) of the
// block's channels into d, zero where the position or lane is out.
#define GATHER(k, j, d) \
	POSMASK(k);                               /* K2 = lanes to read     */ \
	VPXORD     d, d, d;                       /* d = 0                  */ \
	VGATHERDPS (j*4)(R11)(Z31*4), K2, d       /* d = x[lane·cs + j]     */

// ROWIN(i) transforms row i of the tile (R11) into s[6i …] and steps
// R11 to the next row.
#define ROWIN(i) \
	GATHER(6*i+0, 0, Z0); \
	GATHER(6*i+1, 1, Z1); \
	GATHER(6*i+2, 2, Z2); \
	GATHER(6*i+3, 3, Z3); \
	GATHER(6*i+4, 4, Z4); \
	GATHER(6*i+5, 5, Z5); \
	WINOB; \
	VMOVUPS Z6, ((6*i+0)*64)(R10); \
	VMOVUPS Z7, ((6*i+1)*64)(R10); \
	VMOVUPS Z8, ((6*i+2)*64)(R10); \
	VMOVUPS Z9, ((6*i+3)*64)(R10); \
	VMOVUPS Z10, ((6*i+4)*64)(R10); \
	VMOVUPS Z11, ((6*i+5)*64)(R10); \
	ADDQ    BX, R11

// COLIN(j) transforms column j of s into v's rows 6ξr + j (R14: row j;
// CX: six rows in bytes) and steps R14 to row j+1.
#define COLIN(j) \
	VMOVUPS ((0*6+j)*64)(R10), Z0; \
	VMOVUPS ((1*6+j)*64)(R10), Z1; \
	VMOVUPS ((2*6+j)*64)(R10), Z2; \
	VMOVUPS ((3*6+j)*64)(R10), Z3; \
	VMOVUPS ((4*6+j)*64)(R10), Z4; \
	VMOVUPS ((5*6+j)*64)(R10), Z5; \
	WINOB; \
	MOVQ    R14, R11; \
	VMOVUPS Z6, K1, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z7, K1, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z8, K1, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z9, K1, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z10, K1, (R11); \
	ADDQ    CX, R11; \
	VMOVUPS Z11, K1, (R11); \
	ADDQ    DX, R14

// func winoInF32AVX512(v []float32, ldv int, x []float32, xoff, cs, ldx, n int, valid uint64, s []float32)
//
// DI: v at the block's first channel; SI: x at the tile's corner in the
// block's first channel; DX: ldv in bytes; CX: 6·ldv in bytes; BX: ldx in
// bytes; R8: channels left; R9: valid; R10: s (36 vectors); R11: the row
// or v row in hand; R12: the block's lanes; R13: 16 planes in bytes; R14:
// v at column j's rows.
TEXT ·winoInF32AVX512(SB), NOSPLIT, $0-120
	MOVQ    cs+64(FP), AX                     // AX = cs
	CONSTS
	MOVQ    v_base+0(FP), DI                  // DI = v
	MOVQ    ldv+24(FP), DX
	SHLQ    $2, DX                            // DX = ldv in bytes
	LEAQ    (DX)(DX*2), CX
	SHLQ    $1, CX                            // CX = 6·ldv in bytes
	MOVQ    x_base+32(FP), SI
	MOVQ    xoff+56(FP), R11
	LEAQ    (SI)(R11*4), SI                   // SI = x + xoff
	MOVQ    ldx+72(FP), BX
	SHLQ    $2, BX                            // BX = ldx in bytes
	MOVQ    n+80(FP), R8                      // R8 = channels left
	MOVQ    valid+88(FP), R9                  // R9 = valid
	MOVQ    s_base+96(FP), R10                // R10 = s
	MOVQ    AX, R13
	SHLQ    $6, R13                           // R13 = 16 planes in bytes

inBlock:
	TESTQ   R8, R8
	JLE     inDone                            // no channels left
	LANES
	MOVQ    SI, R11                           // R11 = row 0
	ROWIN(0)
	ROWIN(1)
	ROWIN(2)
	ROWIN(3)
	ROWIN(4)
	ROWIN(5)
	MOVQ    DI, R14                           // R14 = v row 0
	COLIN(0)
	COLIN(1)
	COLIN(2)
	COLIN(3)
	COLIN(4)
	COLIN(5)
	ADDQ    $64, DI                           // next 16 channels of v
	ADDQ    R13, SI                           // and of x
	SUBQ    $16, R8
	JMP     inBlock

inDone:
	VZEROUPPER
	RET

// COLOUT(j) transforms column j of M (rows 6ξr + j of m from R11 = m row
// j, CX apart) into s[6k + j], k < 4.
#define COLOUT(j) \
	MOVQ      SI, R11; \
	ADDQ      R14, R11;                       /* R11 = m row j          */ \
	VMOVUPS.Z (R11), K1, Z0; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K1, Z1; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K1, Z2; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K1, Z3; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K1, Z4; \
	ADDQ      CX, R11; \
	VMOVUPS.Z (R11), K1, Z5; \
	WINOA; \
	VMOVUPS   Z6, ((0*6+j)*64)(R10); \
	VMOVUPS   Z7, ((1*6+j)*64)(R10); \
	VMOVUPS   Z8, ((2*6+j)*64)(R10); \
	VMOVUPS   Z9, ((3*6+j)*64)(R10); \
	ADDQ      DX, R14                         /* R14 = row j+1 offset   */

// SCATTER(k, j, d) stores d to position k (column j of the output row at
// R11) of the block's channels when the position is in.
#define SCATTER(k, j, d) \
	POSMASK(k);                               /* K2 = lanes to write    */ \
	VSCATTERDPS d, K2, (j*4)(R11)(Z31*4)      /* y[lane·cs + j] = d     */

// ROWOUT(k) transforms row k of s into output row k (R11), adds the bias
// (Z30), folds the outputs into the finiteness check (Z22) and stores
// them; it steps R11 to the next output row.
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
	SCATTER(4*k+0, 0, Z6); \
	SCATTER(4*k+1, 1, Z7); \
	SCATTER(4*k+2, 2, Z8); \
	SCATTER(4*k+3, 3, Z9); \
	ADDQ        BX, R11

// func winoOutF32AVX512(y []float32, yoff, cs, ldy int, m []float32, ldm, n int, bias []float32, hasBias int, valid uint64, s []float32) bool
//
// DI: y at the tile's corner in the block's first channel; SI: m at the
// block's first channel; DX: ldm in bytes; CX: 6·ldm in bytes; BX: ldy in
// bytes; R8: channels left; R9: valid; R10: s (24 vectors); R11: the m or
// y row in hand; R12: the block's lanes; R13: 16 planes in bytes; R14: m
// row j's offset, then bias; R15: hasBias. Z22: the finiteness check; Z23:
// zero; Z30: the block's bias (-0 without one).
TEXT ·winoOutF32AVX512(SB), NOSPLIT, $0-153
	MOVQ         cs+32(FP), AX                // AX = cs
	CONSTS
	MOVQ         y_base+0(FP), DI
	MOVQ         yoff+24(FP), R11
	LEAQ         (DI)(R11*4), DI              // DI = y + yoff
	MOVQ         ldy+40(FP), BX
	SHLQ         $2, BX                       // BX = ldy in bytes
	MOVQ         m_base+48(FP), SI            // SI = m
	MOVQ         ldm+72(FP), DX
	SHLQ         $2, DX                       // DX = ldm in bytes
	LEAQ         (DX)(DX*2), CX
	SHLQ         $1, CX                       // CX = 6·ldm in bytes
	MOVQ         n+80(FP), R8                 // R8 = channels left
	MOVQ         valid+120(FP), R9            // R9 = valid
	MOVQ         s_base+128(FP), R10          // R10 = s
	MOVQ         AX, R13
	SHLQ         $6, R13                      // R13 = 16 planes in bytes
	VPXORD       Z22, Z22, Z22                // check = 0
	VPXORD       Z23, Z23, Z23                // Z23 = 0
	VBROADCASTSS winoConst<>+24(SB), Z30      // Z30 = -0: no bias
	MOVQ         hasBias+112(FP), R15

outBlock:
	TESTQ   R8, R8
	JLE     outDone                           // no channels left
	LANES
	TESTQ   R15, R15
	JEQ     outTransform                      // no bias
	MOVQ    bias_base+88(FP), R14
	VMOVUPS.Z (R14), K1, Z30                  // Z30 = the block's bias
	ADDQ    $64, R14
	MOVQ    R14, bias_base+88(FP)             // next block's bias

outTransform:
	XORQ    R14, R14                          // R14 = m row 0's offset
	COLOUT(0)
	COLOUT(1)
	COLOUT(2)
	COLOUT(3)
	COLOUT(4)
	COLOUT(5)
	MOVQ    DI, R11                           // R11 = output row 0
	ROWOUT(0)
	ROWOUT(1)
	ROWOUT(2)
	ROWOUT(3)
	ADDQ    $64, SI                           // next 16 channels of m
	ADDQ    R13, DI                           // and of y
	SUBQ    $16, R8
	JMP     outBlock

outDone:
	VCMPPS  $3, Z22, Z22, K3                  // K3 = lanes whose check is NaN
	KMOVW   K3, AX
	TESTL   AX, AX
	SETEQ   ret+152(FP)                       // finite when none is
	VZEROUPPER
	RET
