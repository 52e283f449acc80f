package asm

// Conversions between float32 and the 16-bit float formats, over slices of
// equal length (else the call panics). float16 is IEEE binary16 and
// bfloat16 the top half of a float32; narrowing rounds to nearest even,
// overflows to ±Inf, and keeps NaN a NaN (float16: quieted, the top of the
// payload kept, as F16C and x448/float16 do; bfloat16: 0x7fc0, as
// c10::BFloat16 does). The kernels convert 8 elements per step; the last
// len%8 elements go through the twins in convert_generic.go, which give
// the same bits as the assembly.

// cvtTable holds the conversion kernels in use; each takes a length that
// is a multiple of 8.
type cvtTable struct {
	f16to32, bf16to32 func(d []float32, s []uint16)
	f32to16, f32tobf  func(d []uint16, s []float32)
}

var cvt32 = cvtKernels()

// F16ToF32 sets dst[i] to the float16 src[i] (exact).
func F16ToF32(dst []float32, src []uint16) {
	checkLen("F16ToF32", len(dst), len(src))
	n := len(dst) &^ 7
	if n > 0 {
		cvt32.f16to32(dst[:n], src[:n])
	}
	f16to32Go(dst[n:], src[n:])
}

// F32ToF16 sets dst[i] to src[i] rounded to float16.
func F32ToF16(dst []uint16, src []float32) {
	checkLen("F32ToF16", len(dst), len(src))
	n := len(dst) &^ 7
	if n > 0 {
		cvt32.f32to16(dst[:n], src[:n])
	}
	f32to16Go(dst[n:], src[n:])
}

// BF16ToF32 sets dst[i] to the bfloat16 src[i] (exact).
func BF16ToF32(dst []float32, src []uint16) {
	checkLen("BF16ToF32", len(dst), len(src))
	n := len(dst) &^ 7
	if n > 0 {
		cvt32.bf16to32(dst[:n], src[:n])
	}
	bf16to32Go(dst[n:], src[n:])
}

// F32ToBF16 sets dst[i] to src[i] rounded to bfloat16.
func F32ToBF16(dst []uint16, src []float32) {
	checkLen("F32ToBF16", len(dst), len(src))
	n := len(dst) &^ 7
	if n > 0 {
		cvt32.f32tobf(dst[:n], src[:n])
	}
	f32tobfGo(dst[n:], src[n:])
}
