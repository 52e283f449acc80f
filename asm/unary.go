package asm

import "math"

// Unary float32 kernels over contiguous slices: dst[i] = f(x[i]) with
// PyTorch's values at the special points (NaN in, NaN out; the infinities
// and signed zeros as torch gives them). dst and x must have the same
// length (or the call panics) and may be the same slice.
//
// Each doc comment states a bound on the error against the float64 math
// package, in float32 ulps of the exact result, checked over every float32
// bit pattern (GOATEN_ULP_STEP=1 go test -run UlpSweep; the measured maxima
// were exp 1.011, log 0.859, tanh 1.332, sigmoid 2.402, silu 2.443, gelu
// 3.680, gelu_tanh 0.504, erf 0.520, rsqrt 1.490, sin and cos 0.529). The
// default test sweeps every 4093rd pattern and [-320, 320] in steps of
// 1.6e-4 and checks the same bounds. exp, log, tanh, sigmoid, silu and
// gelu compute in float32 (polynomials after range reduction, fused
// multiply-adds; silu as PyTorch's x/(e^-x + 1) on that exp); erf,
// gelu_tanh, sin and cos compute in float64 and round once. On amd64 the kernels are AVX2+FMA,
// and AVX-512 for the compute-bound ones (exp, sigmoid, tanh, erf, gelu,
// silu, sin, cos) where the CPU has it, and relu, abs, neg, sqrt, rsqrt,
// reciprocal, exp, sigmoid and silu (the loops that run near memory speed)
// store results of streamBytes and more with non-temporal stores; on arm64
// NEON runs every one of them (doc.go says how without vector float
// instructions in Go's assembler).
// Every path gives the results of the pure-Go twins in unary_generic.go,
// bit for bit.

// unaryOp names a kernel in the tables.
type unaryOp int

const (
	uExp unaryOp = iota
	uLog
	uTanh
	uSigmoid
	uSilu
	uGelu
	uGeluTanh
	uErf
	uRelu
	uAbs
	uNeg
	uSqrt
	uRsqrt
	uReciprocal
	uSin
	uCos
	numUnaryOps
)

// unaryGo are the twins.
var unaryGo = [numUnaryOps]func(d, x []float32){
	uExp: mapGo(expGo1), uLog: mapGo(logGo1), uTanh: mapGo(tanhGo1), uSigmoid: mapGo(sigmoidGo1),
	uSilu: mapGo(siluGo1), uGelu: mapGo(geluGo1), uGeluTanh: mapGo(geluTanhGo1), uErf: mapGo(erfGo1),
	uRelu: mapGo(reluGo1), uAbs: mapGo(abs32), uNeg: mapGo(negGo1), uSqrt: mapGo(sqrtGo1),
	uRsqrt: mapGo(rsqrtGo1), uReciprocal: mapGo(reciprocalGo1), uSin: mapGo(sinGo1), uCos: mapGo(cosGo1),
}

// un32 are the kernels in use; un32NT the streaming ones (non-temporal
// stores for results of streamBytes and more; nil without any, a nil entry
// for an op without one).
var (
	un32   = unaryKernels()
	un32NT = unaryStreamKernels()
)

func unary(op unaryOp, name string, dst, x []float32) {
	checkLen(name, len(dst), len(x))
	if len(dst) == 0 {
		return
	}
	if un32NT != nil && un32NT[op] != nil {
		if h, ok := streamHead(dst); ok {
			un32[op](dst[:h], x[:h])
			un32NT[op](dst[h:], x[h:])
			return
		}
	}
	un32[op](dst, x)
}

// ExpF32 sets dst[i] = e^x[i]; max error 1.05 ulp (subnormal results
// included: they are rounded once).
func ExpF32(dst, x []float32) { unary(uExp, "ExpF32", dst, x) }

// LogF32 sets dst[i] = ln x[i]; max error 0.9 ulp. log(±0) = -Inf,
// log(x < 0) = NaN, subnormal x are exact inputs.
func LogF32(dst, x []float32) { unary(uLog, "LogF32", dst, x) }

// TanhF32 sets dst[i] = tanh x[i]; max error 1.4 ulp.
func TanhF32(dst, x []float32) { unary(uTanh, "TanhF32", dst, x) }

// SigmoidF32 sets dst[i] = 1/(1 + e^-x[i]); max error 2.5 ulp (computed as
// e/(1+e) with e = e^-|x| for x < 0, so it does not overflow and the
// left tail keeps its precision down to subnormal results).
func SigmoidF32(dst, x []float32) { unary(uSigmoid, "SigmoidF32", dst, x) }

// SiluF32 sets dst[i] = x[i]/(e^-x[i] + 1) with PyTorch's float32
// operations (ExpF32's e^-x, an add, a division); max error 2.5 ulp, and
// -0 below x ≈ -88.72, where e^-x overflows, as in PyTorch. silu(-Inf) is
// NaN, as PyTorch computes it.
func SiluF32(dst, x []float32) { unary(uSilu, "SiluF32", dst, x) }

// GeluF32 sets dst[i] = x[i]·Φ(x[i]) = ½x·(1 + erf(x/√2)), PyTorch's
// gelu(approximate='none'); max error 3.7 ulp, the steep left tail
// included: it is computed in float32 as -|x|·Φ(-|x|) (plus x for x ≥ 0),
// Φ(-t) as e^{-t²/2} (t² split exactly) times a rational Mills ratio, not
// as 1 + erf, so that the relative error stays bounded down to underflow.
// gelu(-Inf) is NaN, as in PyTorch.
func GeluF32(dst, x []float32) { unary(uGelu, "GeluF32", dst, x) }

// GeluTanhF32 sets dst[i] = ½x·(1 + tanh(√(2/π)·(x + 0.044715x³))),
// PyTorch's gelu(approximate='tanh'); max error 0.51 ulp (as x·σ(2u), so
// the left tail does not cancel). gelu_tanh(-Inf) is NaN, as in PyTorch.
func GeluTanhF32(dst, x []float32) { unary(uGeluTanh, "GeluTanhF32", dst, x) }

// ErfF32 sets dst[i] = erf x[i]; max error 0.53 ulp.
func ErfF32(dst, x []float32) { unary(uErf, "ErfF32", dst, x) }

// ReluF32 sets dst[i] = max(x[i], 0), keeping NaN and -0 (clamp_min).
func ReluF32(dst, x []float32) { unary(uRelu, "ReluF32", dst, x) }

// AbsF32 sets dst[i] = |x[i]| (exact).
func AbsF32(dst, x []float32) { unary(uAbs, "AbsF32", dst, x) }

// NegF32 sets dst[i] = -x[i] (exact; NaN's sign flips too).
func NegF32(dst, x []float32) { unary(uNeg, "NegF32", dst, x) }

// SqrtF32 sets dst[i] = √x[i], correctly rounded (0.5 ulp).
func SqrtF32(dst, x []float32) { unary(uSqrt, "SqrtF32", dst, x) }

// RsqrtF32 sets dst[i] = 1/√x[i], as PyTorch does it (a rounded square
// root, then a division); max error 1.5 ulp.
func RsqrtF32(dst, x []float32) { unary(uRsqrt, "RsqrtF32", dst, x) }

// ReciprocalF32 sets dst[i] = 1/x[i], correctly rounded (0.5 ulp).
func ReciprocalF32(dst, x []float32) { unary(uReciprocal, "ReciprocalF32", dst, x) }

// SinF32 sets dst[i] = sin x[i]; max error 0.53 ulp. |x| < 1e6 is reduced
// in float64 with a three-part π/2; larger arguments go to math.Sin.
func SinF32(dst, x []float32) { unary(uSin, "SinF32", dst, x) }

// CosF32 sets dst[i] = cos x[i]; max error 0.53 ulp, as SinF32.
func CosF32(dst, x []float32) { unary(uCos, "CosF32", dst, x) }

// finishSinCos recomputes the lanes a sin/cos kernel left to its caller:
// they hold x itself, |x| ≥ sinCosMax, infinite or NaN (math.Cos gives
// its own NaN, not x's), while every other result is in [-1, 1].
func finishSinCos(d []float32, cos bool) {
	for i, v := range d {
		if a := math.Abs(float64(v)); !(a < sinCosMax) {
			if cos {
				d[i] = float32(math.Cos(float64(v)))
			} else {
				d[i] = float32(math.Sin(float64(v)))
			}
		}
	}
}
