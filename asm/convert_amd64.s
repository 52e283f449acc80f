//go:build !purego

#include "textflag.h"
#include "elementwise_amd64.h"

// Conversions between float32 and float16 (F16C) or bfloat16 (AVX2
// integer ops), 8 elements per step; the caller converts the last len%8.

// Register roles.
#define dPtr  DI // next element of dst
#define sPtr  SI // next element of src
#define nLeft CX // elements left, a multiple of 8

C32(iRound, $0x00007fff)  // bfloat16 rounding: 0x7fff + the lowest kept bit
C32(iOneBit, $0x00000001) // that bit, after the shift
C32(iBFNaN, $0x00007fc0)  // bfloat16 NaN

#define ARGS \
	MOVQ d_base+0(FP), dPtr;          /* dPtr = &d[0]           */ \
	MOVQ d_len+8(FP), nLeft;          /* nLeft = len(d)         */ \
	MOVQ s_base+24(FP), sPtr          /* sPtr = &s[0]           */

// func f16to32F16C(d []float32, s []uint16): d[i] = float32(s[i]). Needs F16C.
TEXT ·f16to32F16C(SB), NOSPLIT, $0-48
	ARGS                                     // dPtr, xPtr/sPtr, nLeft from the arguments
loop:
	VCVTPH2PS (sPtr), Y0                  // Y0 = s[0:8] widened, exactly
	VMOVUPS   Y0, (dPtr)                  // d[0:8] = Y0
	ADDQ      $16, sPtr                   // next 8
	ADDQ      $32, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
	JNZ       loop                        // until none left
	VZEROUPPER
	RET

// func f32to16F16C(d []uint16, s []float32): d[i] = float16(s[i]), to
// nearest even. Needs F16C.
TEXT ·f32to16F16C(SB), NOSPLIT, $0-48
	ARGS                                     // dPtr, xPtr/sPtr, nLeft from the arguments
loop:
	VMOVUPS   (sPtr), Y0                  // Y0 = s[0:8]
	VCVTPS2PH $0, Y0, (dPtr)              // d[0:8] = Y0 to nearest even
	ADDQ      $32, sPtr                   // next 8
	ADDQ      $16, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
	JNZ       loop                        // until none left
	VZEROUPPER
	RET

// func bf16to32AVX2(d []float32, s []uint16): d[i] = s[i] << 16.
TEXT ·bf16to32AVX2(SB), NOSPLIT, $0-48
	ARGS                                     // dPtr, xPtr/sPtr, nLeft from the arguments
loop:
	VPMOVZXWD (sPtr), Y0                  // Y0 = s[0:8] as dwords
	VPSLLD    $16, Y0, Y0                 // into the top halves
	VMOVUPS   Y0, (dPtr)                  // d[0:8] = Y0
	ADDQ      $16, sPtr                   // next 8
	ADDQ      $32, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
	JNZ       loop                        // until none left
	VZEROUPPER
	RET

// func f32tobfAVX2(d []uint16, s []float32): d[i] = bfloat16(s[i]) as
// f32tobfGo.
TEXT ·f32tobfAVX2(SB), NOSPLIT, $0-48
	ARGS                                     // dPtr, xPtr/sPtr, nLeft from the arguments
	VMOVUPS   iRound<>(SB), Y4            // Y4 = 0x7fff
	VMOVUPS   iOneBit<>(SB), Y5           // Y5 = 1
	VMOVUPS   iBFNaN<>(SB), Y6            // Y6 = 0x7fc0
loop:
	VMOVUPS   (sPtr), Y0                  // Y0 = s[0:8] (bits u)
	VPSRLD    $16, Y0, Y1                 // Y1 = u >> 16
	VPAND     Y5, Y1, Y1                  // Y1 = the lowest kept bit
	VPADDD    Y4, Y1, Y1                  // Y1 = 0x7fff + it
	VPADDD    Y1, Y0, Y1                  // Y1 = u + 0x7fff + bit
	VPSRLD    $16, Y1, Y1                 // Y1 = the rounded top half
	VCMPPS    $3, Y0, Y0, Y2              // Y2 = s is NaN
	VBLENDVPS Y2, Y6, Y1, Y1              // NaN: 0x7fc0
	VEXTRACTI128 $1, Y1, X3               // X3 = dwords 4:8
	VPACKUSDW X3, X1, X1                  // X1 = the 8 as words
	VMOVDQU   X1, (dPtr)                  // d[0:8] = X1
	ADDQ      $32, sPtr                   // next 8
	ADDQ      $16, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
	JNZ       loop                        // until none left
	VZEROUPPER
	RET
