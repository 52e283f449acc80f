//go:build !purego

package asm

// The amd64 conversion kernels (convert_amd64.s): F16C for float16, AVX2
// for bfloat16. len(d) must be a positive multiple of 8.

//go:noescape
func f16to32F16C(d []float32, s []uint16)

//go:noescape
func f32to16F16C(d []uint16, s []float32)

//go:noescape
func bf16to32AVX2(d []float32, s []uint16)

//go:noescape
func f32tobfAVX2(d []uint16, s []float32)

func cvtKernels() *cvtTable {
	t := cvtGo
	if useF16C {
		t.f16to32, t.f32to16 = f16to32F16C, f32to16F16C
	}
	if useAVX2FMA {
		t.bf16to32, t.f32tobf = bf16to32AVX2, f32tobfAVX2
	}
	return &t
}
