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

// The AVX-512 kernels (unary512_amd64.s) of the compute-bound ops.

//go:noescape
func expF32AVX512(d, x []float32)

//go:noescape
func sigmoidF32AVX512(d, x []float32)

//go:noescape
func tanhF32AVX512(d, x []float32)

//go:noescape
func erfF32AVX512(d, x []float32)

//go:noescape
func geluF32AVX512(d, x []float32)

//go:noescape
func siluF32AVX512(d, x []float32)

//go:noescape
func geluTanhF32AVX512(d, x []float32)

//go:noescape
func sinF32AVX512(d, x []float32) int

//go:noescape
func cosF32AVX512(d, x []float32) int

//go:noescape
func reluF32AVX512(d, x []float32)

//go:noescape
func absF32AVX512(d, x []float32)

//go:noescape
func negF32AVX512(d, x []float32)

//go:noescape
func sqrtF32AVX512(d, x []float32)

//go:noescape
func rsqrtF32AVX512(d, x []float32)

//go:noescape
func reciprocalF32AVX512(d, x []float32)

func sinAVX512(d, x []float32) {
	if sinF32AVX512(d, x) != 0 {
		finishSinCos(d, false)
	}
}

func cosAVX512(d, x []float32) {
	if cosF32AVX512(d, x) != 0 {
		finishSinCos(d, true)
	}
}

// unaryAVX2 and unaryAVX512 are the kernel tables of the two paths (log
// has no AVX-512 version).
var (
	unaryAVX2 = [numUnaryOps]func(d, x []float32){
		uExp: expF32, uLog: logF32, uTanh: tanhF32, uSigmoid: sigmoidF32,
		uSilu: siluF32, uGelu: geluF32, uGeluTanh: geluTanhF32, uErf: erfF32,
		uRelu: reluF32, uAbs: absF32, uNeg: negF32, uSqrt: sqrtF32,
		uRsqrt: rsqrtF32, uReciprocal: reciprocalF32, uSin: sinAVX, uCos: cosAVX,
	}
	unaryAVX512 = func() [numUnaryOps]func(d, x []float32) {
		t := unaryAVX2
		t[uExp], t[uSigmoid], t[uTanh] = expF32AVX512, sigmoidF32AVX512, tanhF32AVX512
		t[uErf], t[uGelu], t[uSilu], t[uGeluTanh] = erfF32AVX512, geluF32AVX512, siluF32AVX512, geluTanhF32AVX512
		t[uSin], t[uCos] = sinAVX512, cosAVX512
		t[uRelu], t[uAbs], t[uNeg] = reluF32AVX512, absF32AVX512, negF32AVX512
		t[uSqrt], t[uRsqrt], t[uReciprocal] = sqrtF32AVX512, rsqrtF32AVX512, reciprocalF32AVX512
		return t
	}()
)

// The streaming kernels of the memory-bound ops (non-temporal stores; d
// 32-byte aligned).

//go:noescape
func reluF32NT(d, x []float32)

//go:noescape
func absF32NT(d, x []float32)

//go:noescape
func negF32NT(d, x []float32)

//go:noescape
func sqrtF32NT(d, x []float32)

//go:noescape
func rsqrtF32NT(d, x []float32)

//go:noescape
func reciprocalF32NT(d, x []float32)

//go:noescape
func expF32NT(d, x []float32)

//go:noescape
func sigmoidF32NT(d, x []float32)

//go:noescape
func siluF32NT(d, x []float32)

//go:noescape
func reluF32AVX512NT(d, x []float32)

//go:noescape
func absF32AVX512NT(d, x []float32)

//go:noescape
func negF32AVX512NT(d, x []float32)

//go:noescape
func sqrtF32AVX512NT(d, x []float32)

//go:noescape
func rsqrtF32AVX512NT(d, x []float32)

//go:noescape
func reciprocalF32AVX512NT(d, x []float32)

//go:noescape
func expF32AVX512NT(d, x []float32)

//go:noescape
func sigmoidF32AVX512NT(d, x []float32)

//go:noescape
func siluF32AVX512NT(d, x []float32)

// The streaming tables: the memory-bound ops, and exp, sigmoid and silu,
// whose loops run near memory speed (16M float32, one core: exp 3.3-3.9 ->
// 4.6-5.9, silu 3.7-4.0 -> 4.8-5.6 Gelem/s; tanh, at 3.3, gained nothing).
var (
	unaryStreamAVX2 = [numUnaryOps]func(d, x []float32){
		uRelu: reluF32NT, uAbs: absF32NT, uNeg: negF32NT, uSqrt: sqrtF32NT,
		uRsqrt: rsqrtF32NT, uReciprocal: reciprocalF32NT,
		uExp: expF32NT, uSigmoid: sigmoidF32NT, uSilu: siluF32NT,
	}
	unaryStreamAVX512 = func() [numUnaryOps]func(d, x []float32) {
		t := unaryStreamAVX2
		t[uExp], t[uSigmoid], t[uSilu] = expF32AVX512NT, sigmoidF32AVX512NT, siluF32AVX512NT
		t[uRelu], t[uAbs], t[uNeg] = reluF32AVX512NT, absF32AVX512NT, negF32AVX512NT
		t[uSqrt], t[uRsqrt], t[uReciprocal] = sqrtF32AVX512NT, rsqrtF32AVX512NT, reciprocalF32AVX512NT
		return t
	}()
)

// unaryStreamKernels returns the streaming kernels (nil entries for ops
// without one), or nil without AVX2.
func unaryStreamKernels() *[numUnaryOps]func(d, x []float32) {
	switch {
	case useAVX512:
		return &unaryStreamAVX512
	case useAVX2FMA:
		return &unaryStreamAVX2
	}
	return nil
}

func unaryKernels() *[numUnaryOps]func(d, x []float32) {
	switch {
	case useAVX512:
		return &unaryAVX512
	case useAVX2FMA:
		return &unaryAVX2
	}
	return &unaryGo
}
