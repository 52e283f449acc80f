//go:build !purego

package asm

// The NEON conversion kernels (convert_arm64.s).
// len(d) must be a positive multiple of 8.

//go:noescape
func f16to32NEON(d []float32, s []uint16)

//go:noescape
func f32to16NEON(d []uint16, s []float32)

//go:noescape
func bf16to32NEON(d []float32, s []uint16)

//go:noescape
func f32tobfNEON(d []uint16, s []float32)

func cvtKernels() *cvtTable {
	t := cvtGo
	if useNEON {
		t.f16to32, t.f32to16 = f16to32NEON, f32to16NEON
		t.bf16to32, t.f32tobf = bf16to32NEON, f32tobfNEON
	}
	return &t
}
