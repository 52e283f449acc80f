package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// CPU kernels of the unary family. Float math is done in float64 and
// rounded to the output dtype; integral math is exact and wraps. The 1.13
// CPU kernels of many of these ops have no float16 version: those gaps are
// reproduced here (checkHalf), with PyTorch's kernel names.

// floatOp is a unary op computed in floating point.
type floatOp struct {
	kernel string // PyTorch's CPU kernel name, for the float16 error ("" when float16 is supported)
	f      func(float64) float64
	f32    func(d, x []float32) // the SIMD kernel for float32 (asm), or nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func rsqrt(x float64) float64 { return 1 / math.Sqrt(x) }

func reciprocal(x float64) float64 { return 1 / x }

var floatOps = map[string]floatOp{
	"acos":       {"acos_vml_cpu", math.Acos, nil},
	"acosh":      {"acosh_cpu", math.Acosh, nil},
	"asin":       {"asin_vml_cpu", math.Asin, nil},
	"asinh":      {"asinh_cpu", math.Asinh, nil},
	"atan":       {"atan_vml_cpu", math.Atan, nil},
	"atanh":      {"atanh_cpu", math.Atanh, nil},
	"cos":        {"cos_vml_cpu", math.Cos, asm.CosF32},
	"cosh":       {"cosh_cpu", math.Cosh, nil},
	"erf":        {"erf_vml_cpu", math.Erf, asm.ErfF32},
	"exp":        {"exp_vml_cpu", math.Exp, asm.ExpF32},
	"expm1":      {"expm1_vml_cpu", math.Expm1, nil},
	"log":        {"log_vml_cpu", math.Log, asm.LogF32},
	"log10":      {"log10_vml_cpu", math.Log10, nil},
	"log1p":      {"log1p_vml_cpu", math.Log1p, nil},
	"log2":       {"log2_vml_cpu", math.Log2, nil},
	"reciprocal": {"", reciprocal, asm.ReciprocalF32},
	"rsqrt":      {"rsqrt_cpu", rsqrt, asm.RsqrtF32},
	"sigmoid":    {"sigmoid_cpu", sigmoid, asm.SigmoidF32},
	"sin":        {"sin_vml_cpu", math.Sin, asm.SinF32},
	"sinh":       {"sinh_cpu", math.Sinh, nil},
	"sqrt":       {"sqrt_vml_cpu", math.Sqrt, asm.SqrtF32},
	"tan":        {"tan_vml_cpu", math.Tan, nil},
	"tanh":       {"tanh_vml_cpu", math.Tanh, asm.TanhF32},
}

// checkHalf rejects float16 for a CPU kernel that 1.13 does not build for it.
func checkHalf(kernel string, dt tensor.DType) {
	if dt == tensor.Float16 && kernel != "" {
		core.NotImplementedFor(kernel, dt)
	}
}

// mapFloat32 is mapFloat with a SIMD kernel k for float32: when out and x
// are float32, k runs on the storage (strided operands go through blocks).
func mapFloat32(out, x *tensor.Tensor, f func(float64) float64, k func(d, x []float32)) {
	if k == nil || out.DType() != tensor.Float32 || x.DType() != tensor.Float32 {
		mapFloat(out, x, f)
		return
	}
	n := out.Numel()
	if n == 0 {
		return
	}
	if x.IsContiguous() && out.IsContiguous() {
		d, s := elems[float32](out), elems[float32](x)
		if n < 2*grain {
			k(d, s)
			return
		}
		parallel.Range(n, grain, 64, func(lo, hi int) { k(d[lo:hi], s[lo:hi]) })
		return
	}
	pointwiseFloat(out, tensor.Float32, []*tensor.Tensor{x}, func(dst []float64, src [][]float64) {
		for i, v := range src[0][:len(dst)] {
			dst[i] = f(v)
		}
	}, func(dst []float32, src [][]float32) { k(dst, src[0][:len(dst)]) })
}

// mapFloat sets out[i] = f(x[i]), with x cast to out's (floating) dtype first.
func mapFloat(out, x *tensor.Tensor, f func(float64) float64) {
	n := out.Numel()
	if n == 0 {
		return
	}
	if x.DType() == out.DType() && x.IsContiguous() && out.IsContiguous() {
		switch out.DType() {
		case tensor.Float32:
			mapSlices(elems[float32](out), elems[float32](x), f)
			return
		case tensor.Float64:
			mapSlices(elems[float64](out), elems[float64](x), f)
			return
		}
	}
	pointwiseF64(out, out.DType(), []*tensor.Tensor{x}, func(dst []float64, src [][]float64) {
		s := src[0][:len(dst)]
		for i, v := range s {
			dst[i] = f(v)
		}
	})
}

// mapSlices sets d[i] = f(s[i]) computed in float64, in parallel pieces
// when the slices are long.
func mapSlices[T float32 | float64](d, s []T, f func(float64) float64) {
	if len(d) < 2*grain {
		mapRange(d, s, f)
		return
	}
	parallel.Range(len(d), grain, 64, func(lo, hi int) { mapRange(d[lo:hi], s[lo:hi], f) })
}

// mapRange is mapSlices on one goroutine.
func mapRange[T float32 | float64](d, s []T, f func(float64) float64) {
	for i, v := range s[:len(d)] {
		d[i] = T(f(float64(v)))
	}
}

// mapFloatTo sets out[i] = f(x[i]) for an output of any dtype, computing in
// float64 from x's own values (isnan, isinf, logical_not).
func mapFloatTo(out, x *tensor.Tensor, f func(float64) float64) {
	pointwiseF64(out, tensor.Invalid, []*tensor.Tensor{x}, func(dst []float64, src [][]float64) {
		s := src[0][:len(dst)]
		for i, v := range s {
			dst[i] = f(v)
		}
	})
}

// mapInt sets out[i] = f(x[i]) in int64 for integral and bool operands; the
// result wraps to out's width.
func mapInt(out, x *tensor.Tensor, f func(int64) int64) {
	n := out.Numel()
	if n == 0 {
		return
	}
	if out.DType() == tensor.Int64 && x.DType() == tensor.Int64 && x.IsContiguous() && out.IsContiguous() {
		d := elems[int64](out)
		s := elems[int64](x)
		for i, v := range s {
			d[i] = f(v)
		}
		return
	}
	pointwiseI64(out, x.DType(), []*tensor.Tensor{x}, func(dst []int64, src [][]int64) {
		s := src[0][:len(dst)]
		for i, v := range s {
			dst[i] = f(v)
		}
	})
}

func floatUnaryKernel(fo floatOp) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, a []any) {
		checkHalf(fo.kernel, out.DType())
		mapFloat32(out, args.Self(a), fo.f, fo.f32)
	}
}

// intOrFloat builds a kernel for a dtype-preserving op given its float and
// integral element functions and its float32 SIMD kernel (or nil); half is
// the kernel name for the float16 check.
func intOrFloat(half string, ff func(float64) float64, f32 func(d, x []float32), fi func(int64) int64) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, a []any) {
		checkHalf(half, out.DType())
		x := args.Self(a)
		if out.DType().IsFloat() {
			mapFloat32(out, x, ff, f32)
		} else {
			mapInt(out, x, fi)
		}
	}
}

func absI(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func negF(x float64) float64 { return -x }
func negI(x int64) int64     { return -x }

// signF is PyTorch's (0 < x) - (x < 0): NaN and both zeros give +0.
func signF(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func signI(x int64) int64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// reluF is clamp_min(x, 0): NaN stays NaN.
func reluF(x float64) float64 {
	if x < 0 {
		return 0
	}
	return x
}

func reluI(x int64) int64 { return max(x, 0) }

// roundingKernel: ceil, floor, round, trunc; identity on integral dtypes.
func roundingKernel(half string, f func(float64) float64) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		m := meta(op, a)
		checkHalf(half, m.DType())
		out := alloc(m)
		x := args.Self(a)
		if out.DType().IsFloat() {
			mapFloat(out, x, f)
		} else {
			copyInto(out, x)
		}
		return out
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func isnanKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	x := args.IsnanOf(a).Self
	if x.DType().IsFloat() {
		mapFloatTo(out, x, func(v float64) float64 { return b2f(v != v) })
	} else {
		fillValue(out, tensor.BoolScalar(false))
	}
	return out
}

func isinfKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	x := args.IsinfOf(a).Self
	if x.DType().IsFloat() {
		mapFloatTo(out, x, func(v float64) float64 { return b2f(math.IsInf(v, 0)) })
	} else {
		fillValue(out, tensor.BoolScalar(false))
	}
	return out
}

func logicalNotKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	x := args.LogicalNotOf(a).Self
	if x.DType().IsFloat() {
		mapFloatTo(out, x, func(v float64) float64 { return b2f(v == 0) })
	} else {
		pointwiseI64(out, tensor.Invalid, []*tensor.Tensor{x}, func(dst []int64, src [][]int64) {
			s := src[0][:len(dst)]
			for i, v := range s {
				if v == 0 {
					dst[i] = 1
				} else {
					dst[i] = 0
				}
			}
		})
	}
	return out
}

func bitwiseNotKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	x := args.BitwiseNotOf(a).Self
	if x.DType() == tensor.Bool {
		mapInt(out, x, func(v int64) int64 { return 1 - v })
	} else {
		mapInt(out, x, func(v int64) int64 { return ^v })
	}
	return out
}

// geluF is x·Φ(x); geluTanhF is its tanh approximation.
func geluF(x float64) float64 { return 0.5 * x * (1 + math.Erf(x*(1/math.Sqrt2))) }

func geluTanhF(x float64) float64 {
	const beta = 0.7978845608028654 // sqrt(2/pi)
	const kappa = 0.044715
	return 0.5 * x * (1 + math.Tanh(beta*(x+kappa*x*x*x)))
}

// bf16 rounds to bfloat16, as each arithmetic step of a bfloat16 kernel does.
func bf16(x float64) float64 {
	return float64(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(x))))
}

// geluBF16 and geluTanhBF16 follow 1.13's bfloat16 gelu, which runs the
// float formula in bfloat16 arithmetic: every step is rounded to bfloat16.
// The golden records (pip 1.13) show this rounding; Debian's 1.13.1 build
// rounds less and differs by a few percent where 1+erf cancels.
func geluBF16(x float64) float64 {
	alpha := bf16(1 / math.Sqrt2)
	return bf16(bf16(x*0.5) * bf16(1+bf16(math.Erf(bf16(x*alpha)))))
}

func geluTanhBF16(x float64) float64 {
	beta := bf16(0.7978845608028654)
	kappa := bf16(0.044715)
	cube := bf16(bf16(x*x) * x)
	inner := bf16(beta * bf16(x+bf16(kappa*cube)))
	return bf16(bf16(0.5*x) * bf16(1+bf16(math.Tanh(inner))))
}

func geluKernel(op *tensor.Op, a []any) any {
	m := meta(op, a)
	checkHalf("GeluKernelImpl", m.DType())
	out := allocUninit(m) // mapFloat32 writes every element
	p := args.GeluOf(a)
	tanh := core.GeluApproximate(p.Approximate)
	f, k := geluF, asm.GeluF32
	switch {
	case tanh && out.DType() == tensor.BFloat16:
		f = geluTanhBF16
	case tanh:
		f, k = geluTanhF, asm.GeluTanhF32
	case out.DType() == tensor.BFloat16:
		f = geluBF16
	}
	mapFloat32(out, p.Self, f, k)
	return out
}

func eluKernel(op *tensor.Op, a []any) any {
	m := meta(op, a)
	checkHalf("elu_cpu", m.DType())
	out := alloc(m)
	dt := out.DType()
	p := args.EluOf(a)
	negcoef := roundScalar(p.Alpha.Float64()*p.Scale.Float64(), dt)
	poscoef := roundScalar(p.Scale.Float64(), dt)
	inscale := roundScalar(p.InputScale.Float64(), dt)
	mapFloat(out, p.Self, func(x float64) float64 {
		if x <= 0 {
			return math.Expm1(x*inscale) * negcoef
		}
		return x * poscoef
	})
	return out
}

func leakyReluKernel(op *tensor.Op, a []any) any {
	m := meta(op, a)
	checkHalf("leaky_relu_cpu", m.DType())
	out := alloc(m)
	p := args.LeakyReluOf(a)
	slope := roundScalar(p.NegativeSlope.Float64(), out.DType())
	mapFloat(out, p.Self, func(x float64) float64 {
		if x > 0 {
			return x
		}
		return x * slope
	})
	return out
}

// roundScalar rounds v as a conversion to dtype dt and back would.
func roundScalar(v float64, dt tensor.DType) float64 {
	b := [1]float64{v}
	roundF64(b[:], dt)
	return b[0]
}

// clampScalar clamps x into out (dtype = the common dtype) with optional
// scalar limits, as clamp_scalar / clamp_min_scalar / clamp_max_scalar do:
// std::min/std::max, so a NaN input stays NaN and a lone NaN limit is
// ignored, while two limits of which one is NaN give NaN everywhere.
// clampFast clamps a contiguous float32 or float64 x into out of its dtype
// with the SIMD torch.maximum and torch.minimum against the limits (not
// for a NaN limit): max(x, lo) then min(·, hi) keep x's NaN and, on a tie
// of zeros, x's sign, as the loops below do. It reports whether it could.
func clampFast(out, x *tensor.Tensor, lo, hi *tensor.Scalar) bool {
	n := out.Numel()
	if n == 0 || x.DType() != out.DType() || !x.IsContiguous() || !out.IsContiguous() ||
		lo != nil && lo.IsNaN() || hi != nil && hi.IsNaN() {
		return false // a NaN limit alone compares false and keeps x, unlike torch.maximum
	}
	// A result of asm.StreamBytes and more is stored non-temporally in
	// every piece the goroutines share, as one core's whole call stores
	// it (binFast does the same).
	stream := n*out.DType().ItemSize() >= asm.StreamBytes()
	switch out.DType() {
	case tensor.Float32:
		d, s := elems[float32](out), elems[float32](x)
		clamp := asm.ClampScalarF32
		if stream {
			clamp = asm.ClampScalarStreamF32
		}
		clampSlices(d, s, lo, hi, asm.MaximumScalarF32, asm.MinimumScalarF32, clamp)
	case tensor.Float64:
		d, s := elems[float64](out), elems[float64](x)
		clamp := asm.ClampScalarF64
		if stream {
			clamp = asm.ClampScalarStreamF64
		}
		clampSlices(d, s, lo, hi, asm.MaximumScalarF64, asm.MinimumScalarF64, clamp)
	default:
		return false
	}
	return true
}

func clampSlices[T float32 | float64](d, s []T, lo, hi *tensor.Scalar, maxS, minS func(d, x []T, v T), clamp func(d, x []T, lo, hi T)) {
	ct := tensor.Float32
	if _, ok := any(d).([]float64); ok {
		ct = tensor.Float64
	}
	parallel.Range(len(d), grain, 64, func(a, b int) {
		src := s[a:b]
		if lo != nil && hi != nil {
			clamp(d[a:b], src, T(roundScalar(lo.Float64(), ct)), T(roundScalar(hi.Float64(), ct)))
			return
		}
		if lo != nil {
			maxS(d[a:b], src, T(roundScalar(lo.Float64(), ct)))
			src = d[a:b]
		}
		if hi != nil {
			minS(d[a:b], src, T(roundScalar(hi.Float64(), ct)))
		}
	})
}

func clampScalar(out, x *tensor.Tensor, lo, hi *tensor.Scalar) {
	ct := out.DType()
	if ct.IsFloat() {
		if nanLimits(lo, hi) {
			fillValue(out, tensor.Float(math.NaN()))
			return
		}
		if clampFast(out, x, lo, hi) {
			return
		}
		switch {
		case lo != nil && hi != nil:
			l, h := roundScalar(lo.Float64(), ct), roundScalar(hi.Float64(), ct)
			mapFloat(out, x, func(v float64) float64 {
				if v < l {
					v = l
				}
				if h < v {
					v = h
				}
				return v
			})
		case lo != nil:
			l := roundScalar(lo.Float64(), ct)
			mapFloat(out, x, func(v float64) float64 {
				if v < l {
					return l
				}
				return v
			})
		default:
			h := roundScalar(hi.Float64(), ct)
			mapFloat(out, x, func(v float64) float64 {
				if h < v {
					return h
				}
				return v
			})
		}
		return
	}
	l, h := int64(math.MinInt64), int64(math.MaxInt64)
	if lo != nil {
		l = wrapInt(lo.Int64(), ct)
	}
	if hi != nil {
		h = wrapInt(hi.Int64(), ct)
	}
	pointwiseI64(out, ct, []*tensor.Tensor{x}, func(dst []int64, src [][]int64) {
		s := src[0][:len(dst)]
		for i, v := range s {
			dst[i] = min(max(v, l), h)
		}
	})
}

// nanLimits reports whether clamp gets two limits one of which is NaN: it
// then fills its output with NaN without running a dtype-specific kernel.
func nanLimits(lo, hi *tensor.Scalar) bool {
	return lo != nil && hi != nil && (lo.IsNaN() || hi.IsNaN())
}

func clampKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.ClampOf(a)
	lo, hi := core.ScalarPtr(p.Min), core.ScalarPtr(p.Max)
	if !nanLimits(lo, hi) {
		checkHalf(core.ClampScalarKernelName(lo, hi), out.DType())
	}
	clampScalar(out, p.Self, lo, hi)
}

func hardtanhKernel(op *tensor.Op, a []any) any {
	m := meta(op, a)
	p := args.HardtanhOf(a)
	x := p.Self
	lo, hi := core.HardtanhLimits(x, p.MinVal, p.MaxVal)
	if !nanLimits(&lo, &hi) {
		checkHalf("clamp_scalar_cpu", m.DType())
	}
	out := alloc(m)
	clampScalar(out, x, &lo, &hi)
	return out
}

// clampTensorKernel: with both limits, a NaN limit gives NaN and otherwise
// std::min(std::max(x, lo), hi); with one, torch.maximum / torch.minimum,
// which propagate NaN from either side.
func clampTensorKernel(op *tensor.Op, list []any) any {
	p := args.ClampTensorOf(list)
	x, lo, hi := p.Self, p.Min, p.Max
	m := meta(op, list)
	if lo != nil && hi != nil {
		checkHalf("clamp_cpu", m.DType())
	}
	out := alloc(m)
	ct := out.DType()
	ins := []*tensor.Tensor{x}
	for _, t := range []*tensor.Tensor{lo, hi} {
		if t != nil {
			ins = append(ins, t)
		}
	}
	if ct.IsFloat() {
		var f func(dst []float64, src [][]float64)
		switch {
		case lo != nil && hi != nil:
			f = func(dst []float64, src [][]float64) {
				a, l, h := src[0][:len(dst)], src[1][:len(dst)], src[2][:len(dst)]
				for i, v := range a {
					switch {
					case l[i] != l[i] || h[i] != h[i]:
						v = math.NaN()
					default:
						if v < l[i] {
							v = l[i]
						}
						if h[i] < v {
							v = h[i]
						}
					}
					dst[i] = v
				}
			}
		case lo != nil:
			f = func(dst []float64, src [][]float64) {
				a, l := src[0][:len(dst)], src[1][:len(dst)]
				for i, v := range a {
					if v == v && (l[i] != l[i] || v < l[i]) {
						v = l[i]
					}
					dst[i] = v
				}
			}
		default:
			f = func(dst []float64, src [][]float64) {
				a, h := src[0][:len(dst)], src[1][:len(dst)]
				for i, v := range a {
					if v == v && (h[i] != h[i] || h[i] < v) {
						v = h[i]
					}
					dst[i] = v
				}
			}
		}
		pointwiseF64(out, ct, ins, f)
		return out
	}
	var f func(dst []int64, src [][]int64)
	switch {
	case lo != nil && hi != nil:
		f = func(dst []int64, src [][]int64) {
			a, l, h := src[0][:len(dst)], src[1][:len(dst)], src[2][:len(dst)]
			for i, v := range a {
				dst[i] = min(max(v, l[i]), h[i])
			}
		}
	case lo != nil:
		f = func(dst []int64, src [][]int64) {
			a, l := src[0][:len(dst)], src[1][:len(dst)]
			for i, v := range a {
				dst[i] = max(v, l[i])
			}
		}
	default:
		f = func(dst []int64, src [][]int64) {
			a, h := src[0][:len(dst)], src[1][:len(dst)]
			for i, v := range a {
				dst[i] = min(v, h[i])
			}
		}
	}
	pointwiseI64(out, ct, ins, f)
	return out
}

func init() {
	for _, name := range core.FloatUnaryOps {
		fo, ok := floatOps[name]
		if !ok {
			panic("cpu: no float kernel for " + name)
		}
		implsOut(floatUnaryKernel(fo), "aten::"+name+".default")
	}
	implsOut(intOrFloat("", math.Abs, asm.AbsF32, absI), "aten::abs.default")
	implsOut(intOrFloat("", negF, asm.NegF32, negI), "aten::neg.default")
	implsOut(intOrFloat("", signF, nil, signI), "aten::sign.default")
	implsOut(intOrFloat("clamp_min_cpu", reluF, asm.ReluF32, reluI), "aten::relu.default")
	impl("aten::ceil.default", roundingKernel("ceil_vml_cpu", math.Ceil))
	impl("aten::floor.default", roundingKernel("floor_vml_cpu", math.Floor))
	impl("aten::round.default", roundingKernel("round_vml_cpu", math.RoundToEven))
	impl("aten::trunc.default", roundingKernel("trunc_vml_cpu", math.Trunc))
	impl("aten::isnan.default", isnanKernel)
	impl("aten::isinf.default", isinfKernel)
	impl("aten::logical_not.default", logicalNotKernel)
	impl("aten::bitwise_not.default", bitwiseNotKernel)
	impl("aten::gelu.default", geluKernel)
	impl("aten::elu.default", eluKernel)
	impl("aten::leaky_relu.default", leakyReluKernel)
	impl("aten::hardtanh.default", hardtanhKernel)
	implsOut(clampKernel, "aten::clamp.default")
	impl("aten::clamp.Tensor", clampTensorKernel)
}
