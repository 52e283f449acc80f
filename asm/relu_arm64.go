//go:build !purego

package asm

// reluF32NEON sets d[i] = reluGo1(x[i]) (relu_arm64.s).
//
//go:noescape
func reluF32NEON(d, x []float32)

// reluKernelNEON returns the NEON relu kernel for unaryKernels (the twin
// without NEON).
func reluKernelNEON() func(d, x []float32) {
	if !useNEON {
		return unaryGo[uRelu]
	}
	return reluF32NEON
}
