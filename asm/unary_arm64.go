//go:build !purego

package asm

// The NEON unary kernels: abs and neg (unary_arm64.s), relu
// (relu_arm64.s), exp, sigmoid, silu, tanh and log (expKernelsNEON,
// unary_exp_arm64.go) and gelu (gelu_arm64.s); the others run their twins
// (Go's arm64 assembler lacks the vector float instructions: no FDIV,
// FSQRT, float compare or conversion; see doc.go).

//go:noescape
func absF32(d, x []float32)

//go:noescape
func negF32(d, x []float32)

func unaryKernels() *[numUnaryOps]func(d, x []float32) {
	if !useNEON {
		return &unaryGo
	}
	t := unaryGo
	t[uAbs], t[uNeg], t[uRelu] = absF32, negF32, reluF32NEON
	expKernelsNEON(&t)
	t[uGelu] = geluF32
	return &t
}

// unaryStreamKernels: no streaming (non-temporal) kernels on arm64.
func unaryStreamKernels() *[numUnaryOps]func(d, x []float32) { return nil }
