//go:build !purego

#include "textflag.h"

// Deal and merge, AVX2: eight pairs a block. VSHUFPS picks the even (or
// odd) elements of two vectors within each 128-bit half, VPERMPD puts the
// halves' pairs in order; merging unpacks the two vectors' low and high
// elements and swaps the middle 128-bit halves.

// Register roles.
#define ePtr  DI // even
#define oPtr  DX // odd
#define xPtr  SI // x
#define nBlk  CX // blocks left

// func dealF32AVX2(even, odd, x []float32, blocks int)
TEXT ·dealF32AVX2(SB), NOSPLIT, $0-80
	MOVQ    even_base+0(FP), ePtr  // ePtr = even
	MOVQ    odd_base+24(FP), oPtr  // oPtr = odd
	MOVQ    x_base+48(FP), xPtr    // xPtr = x
	MOVQ    blocks+72(FP), nBlk    // nBlk = blocks
	TESTQ   nBlk, nBlk             // none?
	JZ      dealDone               // then done
dealLoop:
	VMOVUPS (xPtr), Y0             // Y0 = x0 … x7
	VMOVUPS 32(xPtr), Y1           // Y1 = x8 … x15
	VSHUFPS $0x88, Y1, Y0, Y2      // Y2 = x0 x2 x8 x10 | x4 x6 x12 x14
	VSHUFPS $0xDD, Y1, Y0, Y3      // Y3 = x1 x3 x9 x11 | x5 x7 x13 x15
	VPERMPD $0xD8, Y2, Y2          // Y2 = x0 x2 x4 x6 x8 x10 x12 x14
	VPERMPD $0xD8, Y3, Y3          // Y3 = x1 x3 … x15
	VMOVUPS Y2, (ePtr)             // even = Y2
	VMOVUPS Y3, (oPtr)             // odd = Y3
	ADDQ    $64, xPtr              // next 16 of x
	ADDQ    $32, ePtr              // next 8 even
	ADDQ    $32, oPtr              // next 8 odd
	DECQ    nBlk                   // a block done
	JNZ     dealLoop               // more?
	VZEROUPPER                     // clean AVX state
dealDone:
	RET

// func mergeF32AVX2(x, even, odd []float32, blocks int)
TEXT ·mergeF32AVX2(SB), NOSPLIT, $0-80
	MOVQ       x_base+0(FP), xPtr      // xPtr = x
	MOVQ       even_base+24(FP), ePtr  // ePtr = even
	MOVQ       odd_base+48(FP), oPtr   // oPtr = odd
	MOVQ       blocks+72(FP), nBlk     // nBlk = blocks
	TESTQ      nBlk, nBlk              // none?
	JZ         mergeDone               // then done
mergeLoop:
	VMOVUPS    (ePtr), Y0              // Y0 = e0 … e7
	VMOVUPS    (oPtr), Y1              // Y1 = o0 … o7
	VUNPCKLPS  Y1, Y0, Y2              // Y2 = e0 o0 e1 o1 | e4 o4 e5 o5
	VUNPCKHPS  Y1, Y0, Y3              // Y3 = e2 o2 e3 o3 | e6 o6 e7 o7
	VPERM2F128 $0x20, Y3, Y2, Y4       // Y4 = e0 o0 … e3 o3
	VPERM2F128 $0x31, Y3, Y2, Y5       // Y5 = e4 o4 … e7 o7
	VMOVUPS    Y4, (xPtr)              // x0 … x7
	VMOVUPS    Y5, 32(xPtr)            // x8 … x15
	ADDQ       $64, xPtr               // next 16 of x
	ADDQ       $32, ePtr               // next 8 even
	ADDQ       $32, oPtr               // next 8 odd
	DECQ       nBlk                    // a block done
	JNZ        mergeLoop               // more?
	VZEROUPPER                         // clean AVX state
mergeDone:
	RET

// Register roles of mergeRowsF32AVX2.
#define ldX   R8  // row stride of x in bytes
#define nRow  R9  // rows left
#define rowW  R10 // pairs per row
#define jPair R11 // pairs of the row done
#define lastB R12 // the last block's first pair: w − 8

// MERGEBLOCK(j) merges the eight pairs from pair j of the row: even
// (ePtr) and odd (oPtr) elements j … j+7 into x (xPtr) elements 2j …
// 2j+15.
#define MERGEBLOCK(j) \
	VMOVUPS    (ePtr)(j*4), Y0;   /* Y0 = e[j] … e[j+7]        */ \
	VMOVUPS    (oPtr)(j*4), Y1;   /* Y1 = o[j] … o[j+7]        */ \
	VUNPCKLPS  Y1, Y0, Y2;        /* Y2 = e0 o0 e1 o1 | e4 o4 … */ \
	VUNPCKHPS  Y1, Y0, Y3;        /* Y3 = e2 o2 e3 o3 | e6 o6 … */ \
	VPERM2F128 $0x20, Y3, Y2, Y4; /* Y4 = e0 o0 … e3 o3        */ \
	VPERM2F128 $0x31, Y3, Y2, Y5; /* Y5 = e4 o4 … e7 o7        */ \
	VMOVUPS    Y4, (xPtr)(j*8);   /* x[2j] … x[2j+7]           */ \
	VMOVUPS    Y5, 32(xPtr)(j*8)  /* x[2j+8] … x[2j+15]        */

// func mergeRowsF32AVX2(x []float32, ldx int, even, odd []float32, rows, w int)
// Rows of w ≥ 8 pairs: whole blocks of eight, then, when w is not a
// multiple of eight, the block ending at the last pair (it writes again
// pairs already written, with the same values).
TEXT ·mergeRowsF32AVX2(SB), NOSPLIT, $0-96
	MOVQ x_base+0(FP), xPtr     // xPtr = x
	MOVQ ldx+24(FP), ldX        // ldX = ldx
	SHLQ $2, ldX                // in bytes
	MOVQ even_base+32(FP), ePtr // ePtr = even
	MOVQ odd_base+56(FP), oPtr  // oPtr = odd
	MOVQ rows+80(FP), nRow      // nRow = rows
	MOVQ w+88(FP), rowW         // rowW = w
	MOVQ rowW, lastB            // lastB = w
	SUBQ $8, lastB              // − 8
rowLoop:
	XORQ jPair, jPair           // jPair = 0
blockLoop:
	MERGEBLOCK(jPair)           // pairs jPair … jPair+7
	ADDQ $8, jPair              // jPair += 8
	CMPQ jPair, lastB           // another whole block?
	JLE  blockLoop              // jPair ≤ w − 8: yes
	CMPQ jPair, rowW            // pairs left?
	JEQ  rowDone                // jPair = w: none
	MERGEBLOCK(lastB)           // pairs w−8 … w−1
rowDone:
	ADDQ ldX, xPtr              // next row of x
	LEAQ (ePtr)(rowW*4), ePtr   // next row of even
	LEAQ (oPtr)(rowW*4), oPtr   // next row of odd
	DECQ nRow                   // a row done
	JNZ  rowLoop                // more?
	VZEROUPPER                  // clean AVX state
	RET
