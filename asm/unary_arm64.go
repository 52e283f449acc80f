//go:build !purego

package asm

// The NEON unary kernels: abs and neg (unary_arm64.s), relu
// (relu_arm64.s), exp, sigmoid, silu, tanh and log (expKernelsNEON,
// unary_exp_arm64.go), gelu (gelu_arm64.s), reciprocal (recipKernelsNEON,
// div_arm64.go), sqrt and rsqrt (sqrtKernelsNEON, sqrt_arm64.go), sin and
// cos (sincos_arm64.go), gelu_tanh (gelutanh_arm64.go) and erf
// (erf_arm64.go): every op.

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
	recipKernelsNEON(&t)
	sqrtKernelsNEON(&t)
	t[uSin], t[uCos], t[uGeluTanh] = sinF32NEON, cosF32NEON, geluTanhF32NEON
	t[uErf] = erfF32NEON
	return &t
}

// unaryStreamKernels: no streaming (non-temporal) kernels on arm64.
func unaryStreamKernels() *[numUnaryOps]func(d, x []float32) { return nil }
