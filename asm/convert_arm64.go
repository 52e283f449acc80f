//go:build !purego

package asm

// The NEON bfloat16 kernels (convert_arm64.s); float16 runs its twins.
// len(d) must be a positive multiple of 8.

//go:noescape
func bf16to32NEON(d []float32, s []uint16)

//go:noescape
func f32tobfNEON(d []uint16, s []float32)

func cvtKernels() *cvtTable {
	t := cvtGo
	if useNEON {
		t.bf16to32, t.f32tobf = bf16to32NEON, f32tobfNEON
	}
	return &t
}
