//go:build !purego

#include "textflag.h"

// Register roles.
#define dRow  DI  // dst row r
#define sRow  SI  // src row r
#define dStep R8  // dst row stride in bytes (ldd)
#define sStep R9  // src row stride in bytes (lds)
#define rLeft CX  // rows left
#define width DX  // bytes per row (n), a multiple of 32
#define dPtr  R10 // next 32 bytes of the dst row
#define sPtr  R11 // next 32 bytes of the src row
#define bLeft AX  // bytes left in the row

// func copyRowsAVX(dst []byte, ldd int, src []byte, lds int, rows, n int)
// In: dst 32-byte aligned, ldd and n multiples of 32, rows ≥ 1.
// Out: the rows copied with non-temporal stores, fenced; clobbers Y0–Y3.
TEXT ·copyRowsAVX(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), dRow           // dRow = &dst[0]
	MOVQ ldd+24(FP), dStep              // dStep = ldd
	MOVQ src_base+32(FP), sRow          // sRow = &src[0]
	MOVQ lds+56(FP), sStep              // sStep = lds
	MOVQ rows+64(FP), rLeft             // rLeft = rows
	MOVQ n+72(FP), width                // width = n

row:
	MOVQ dRow, dPtr                     // dPtr = dst row
	MOVQ sRow, sPtr                     // sPtr = src row
	MOVQ width, bLeft                   // bLeft = n

quad:
	CMPQ     bLeft, $128                // 4 vectors left?
	JLT      one                        // no: one at a time
	VMOVDQU  0(sPtr), Y0                // Y0:Y3 = the next 128 source bytes
	VMOVDQU  32(sPtr), Y1               // next vector into Y1
	VMOVDQU  64(sPtr), Y2               // next vector into Y2
	VMOVDQU  96(sPtr), Y3               // next vector into Y3
	VMOVNTDQ Y0, 0(dPtr)                // dst = Y0:Y3, past the caches
	VMOVNTDQ Y1, 32(dPtr)               // store Y1
	VMOVNTDQ Y2, 64(dPtr)               // store Y2
	VMOVNTDQ Y3, 96(dPtr)               // store Y3
	ADDQ     $128, sPtr                 // next 128 bytes
	ADDQ     $128, dPtr                 // advance dPtr too
	SUBQ     $128, bLeft                // 128 done
	JMP      quad                       // again

one:
	TESTQ    bLeft, bLeft               // a vector left?
	JZ       next                       // no: the row is done
	VMOVDQU  (sPtr), Y0                 // Y0 = the next 32 source bytes
	VMOVNTDQ Y0, (dPtr)                 // dst = Y0
	ADDQ     $32, sPtr                  // next 32 bytes
	ADDQ     $32, dPtr                  // advance dPtr too
	SUBQ     $32, bLeft                 // 32 done
	JMP      one                        // again

next:
	ADDQ dStep, dRow                    // dRow = next dst row
	ADDQ sStep, sRow                    // sRow = next src row
	DECQ rLeft                          // a row done
	JNZ  row                            // until none left
	SFENCE                              // order the stores before returning
	VZEROUPPER                          // clean AVX state
	RET
