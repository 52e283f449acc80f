//go:build !purego

package asm

// The NEON unary kernels (unary_arm64.s): abs and neg; the others run
// their twins (Go's arm64 assembler lacks the vector float instructions).

//go:noescape
func absF32(d, x []float32)

//go:noescape
func negF32(d, x []float32)

func unaryKernels() *[numUnaryOps]func(d, x []float32) {
	if !useNEON {
		return &unaryGo
	}
	t := unaryGo
	t[uAbs], t[uNeg] = absF32, negF32
	expKernelsNEON(&t)
	return &t
}

// unaryStreamKernels: no streaming (non-temporal) kernels on arm64.
func unaryStreamKernels() *[numUnaryOps]func(d, x []float32) { return nil }
