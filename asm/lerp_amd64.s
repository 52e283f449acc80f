//go:build !purego

#include "textflag.h"

// x·a + y·b, AVX2: eight elements a block, each product rounded (VMULPS)
// before the sum (VADDPS), as the twin.

// func lerpF32AVX2(dst, x []float32, a float32, y []float32, b float32)
// In:  len(dst) = len(x) = len(y), a positive multiple of 8.
// Out: as lerpGo. Y0–Y3 clobbered.
TEXT ·lerpF32AVX2(SB), NOSPLIT, $0-84
	MOVQ         dst_base+0(FP), DI      // DI = &dst[0]
	MOVQ         dst_len+8(FP), CX       // CX = len(dst)
	MOVQ         x_base+24(FP), SI       // SI = &x[0]
	MOVQ         y_base+56(FP), DX       // DX = &y[0]
	VBROADCASTSS a+48(FP), Y2            // Y2 = a everywhere
	VBROADCASTSS b+80(FP), Y3            // Y3 = b everywhere
loop:
	VMULPS       (SI), Y2, Y0            // Y0 = x·a
	VMULPS       (DX), Y3, Y1            // Y1 = y·b
	VADDPS       Y1, Y0, Y0              // Y0 = x·a + y·b
	VMOVUPS      Y0, (DI)                // dst stored
	ADDQ         $32, SI                 // next 8 of x
	ADDQ         $32, DX                 // of y
	ADDQ         $32, DI                 // of dst
	SUBQ         $8, CX                  // 8 done
	JNZ          loop                    // more?
	VZEROUPPER                           // clean AVX state
	RET
