//go:build !purego

package asm

// The NEON kernels of sqrt and rsqrt (sqrt_arm64.s).

//go:noescape
func sqrtF32(d, x []float32)

//go:noescape
func rsqrtF32(d, x []float32)

// sqrtKernelsNEON installs the NEON kernels of sqrt and rsqrt into t.
func sqrtKernelsNEON(t *[numUnaryOps]func(d, x []float32)) {
	t[uSqrt], t[uRsqrt] = sqrtF32, rsqrtF32
}
