//go:build !purego

package asm

// The AVX2+FMA unary kernels (unary_amd64.s).

//go:noescape
func expF32(d, x []float32)

//go:noescape
func logF32(d, x []float32)

//go:noescape
func tanhF32(d, x []float32)

//go:noescape
func sigmoidF32(d, x []float32)

//go:noescape
func siluF32(d, x []float32)

//go:noescape
func geluF32(d, x []float32)

//go:noescape
func geluTanhF32(d, x []float32)

//go:noescape
func erfF32(d, x []float32)

//go:noescape
func reluF32(d, x []float32)

//go:noescape
func absF32(d, x []float32)

//go:noescape
func negF32(d, x []float32)

//go:noescape
func sqrtF32(d, x []float32)

//go:noescape
func rsqrtF32(d, x []float32)

//go:noescape
func reciprocalF32(d, x []float32)

//go:noescape
func sinF32(d, x []float32) int

//go:noescape
func cosF32(d, x []float32) int

func sinAVX(d, x []float32) {
	if sinF32(d, x) != 0 {
		finishSinCos(d, false)
	}
}

func cosAVX(d, x []float32) {
	if cosF32(d, x) != 0 {
		finishSinCos(d, true)
	}
}

func unaryKernels() *[numUnaryOps]func(d, x []float32) {
	if !useAVX2FMA {
		return &unaryGo
	}
	return &[numUnaryOps]func(d, x []float32){
		uExp: expF32, uLog: logF32, uTanh: tanhF32, uSigmoid: sigmoidF32,
		uSilu: siluF32, uGelu: geluF32, uGeluTanh: geluTanhF32, uErf: erfF32,
		uRelu: reluF32, uAbs: absF32, uNeg: negF32, uSqrt: sqrtF32,
		uRsqrt: rsqrtF32, uReciprocal: reciprocalF32, uSin: sinAVX, uCos: cosAVX,
	}
}
