//go:build !purego

package asm

// The NEON kernels of the exp family (unary_exp_arm64.s).

//go:noescape
func expF32(d, x []float32)

//go:noescape
func sigmoidF32(d, x []float32)

//go:noescape
func siluF32(d, x []float32)

//go:noescape
func tanhF32(d, x []float32)

//go:noescape
func logF32(d, x []float32)

//go:noescape
func expShiftF32(d, x []float32, m float32)

// expShiftNEON is the reductions table's expShift: expShiftF32 but for a
// NaN m, which the twin takes.
func expShiftNEON(d, x []float32, m float32) {
	if m != m {
		reduceGo.expShift(d, x, m)
		return
	}
	expShiftF32(d, x, m)
}

// expKernelsNEON installs the NEON kernels of the exp family into t: exp,
// sigmoid, silu, tanh and log (the others run their twins).
func expKernelsNEON(t *[numUnaryOps]func(d, x []float32)) {
	t[uExp], t[uSigmoid], t[uSilu], t[uTanh], t[uLog] = expF32, sigmoidF32, siluF32, tanhF32, logF32
}
