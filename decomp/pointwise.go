package decomp

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Elementwise composites: arithmetic with scalars, masks and selections.

func init() {
	def("aten::addcmul", checked(kernelDTypes("addcmul_cpu_out", realsBF), opmath(addcmul)))
	def("aten::addcdiv", checked(addcdivCheck, opmath(addcdiv)))
	def("aten::lerp.Scalar", checked(lerpScalarCheck, opmath(lerpScalar)))
	def("aten::lerp.Tensor", checked(lerpTensorCheck, opmath(lerpTensor)))
	def("aten::masked_fill.Scalar", maskedFillScalar)
	def("aten::masked_fill.Tensor", maskedFillTensor)
	def("aten::where.ScalarOther", whereScalarOther)
	def("aten::where.ScalarSelf", whereScalarSelf)
	def("aten::where.Scalar", whereScalar)
	def("aten::fill.Tensor", fillTensor)
	def("aten::floor_divide", floorDivide)
	def("aten::floor_divide.Scalar", floorDivideScalar)
	def("aten::rsub.Tensor", rsubTensor)
	def("aten::rsub.Scalar", rsubScalar)
	def("aten::bitwise_and.Scalar_Tensor", scalarFirst("aten::bitwise_and.Tensor", args.BitwiseAndScalarTensorOf))
	def("aten::bitwise_or.Scalar_Tensor", scalarFirst("aten::bitwise_or.Tensor", func(a []any) args.BitwiseAndScalarTensor {
		return args.BitwiseAndScalarTensor(args.BitwiseOrScalarTensorOf(a))
	}))
	def("aten::bitwise_xor.Scalar_Tensor", scalarFirst("aten::bitwise_xor.Tensor", func(a []any) args.BitwiseAndScalarTensor {
		return args.BitwiseAndScalarTensor(args.BitwiseXorScalarTensorOf(a))
	}))
	def("aten::remainder.Scalar_Tensor", scalarFirst("aten::remainder.Tensor", func(a []any) args.BitwiseAndScalarTensor {
		return args.BitwiseAndScalarTensor(args.RemainderScalarTensorOf(a))
	}))
	def("aten::clamp_min", clampMin)
	def("aten::clamp_min.Tensor", clampMinTensor)
	def("aten::clamp_max", clampMax)
	def("aten::clamp_max.Tensor", clampMaxTensor)
	def("aten::max.other", maxOther)
	def("aten::min.other", minOther)
	def("aten::fmax", fmax)
	def("aten::fmin", fmin)
	def("aten::round.decimals", checked(kernelDTypes("round_cpu", floatsBF), roundDecimals))
	def("aten::square", square)
	def("aten::frac", frac)
	def("aten::deg2rad", deg2rad)
	def("aten::rad2deg", rad2deg)
	def("aten::sgn", sgn)
	def("aten::heaviside", heaviside)
	def("aten::isneginf", isneginf)
	def("aten::isposinf", isposinf)
	def("aten::nan_to_num", nanToNum)
	def("aten::xlogy.Tensor", opmath(xlogy))
	def("aten::logaddexp", checked(kernelDTypes("logaddexp_cpu", floatsBF), opmath(logaddexp)))
	def("aten::logaddexp2", checked(kernelDTypes("logaddexp2_cpu", floatsBF), opmath(logaddexp2)))
	def("aten::sinc", checked(kernelFloatDTypes("sinc_cpu", floatsBF), sinc))
	def("aten::logit", checked(kernelFloatDTypes("logit_cpu", floatsBF), logit))
	def("aten::type_as", typeAs)
	def("aten::tril", tril)
	def("aten::triu", triu)
}

// common casts the operands to their result type, as TensorIterator does
// before computing, and returns it.
func common(ts ...*T) ([]*T, tensor.DType) {
	ops := make([]any, len(ts))
	for i, t := range ts {
		ops[i] = t
	}
	d := tensor.ResultType(ops...)
	out := make([]*T, len(ts))
	for i, t := range ts {
		out[i] = t.To(d)
	}
	return out, d
}

// scaleBy multiplies by a Scalar parameter in x's dtype (an integer dtype
// truncates a float parameter, as value.to<scalar_t>() does).
func scaleBy(x *T, v tensor.Scalar) *T {
	if v.IsBool() || (v.IsInt() && v.Int64() == 1) || (v.IsFloat() && v.Float64() == 1) {
		return x
	}
	if !x.DType().IsFloat() {
		v = tensor.Int(v.Int64())
	}
	return x.MulScalar(v)
}

func addcmul(op *tensor.Op, a []any) any {
	p := args.AddcmulOf(a)
	ts, _ := common(p.Self, p.Tensor1, p.Tensor2)
	return ts[0].Add(scaleBy(ts[1], p.Value).Mul(ts[2]))
}

func addcdivCheck(a []any) {
	p := args.AddcdivOf(a)
	t1, t2 := p.Tensor1, p.Tensor2
	if t1.DType().IsIntegral(true) && t2.DType().IsIntegral(true) {
		tensor.Panicf("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")
	}
	need("addcdiv_cpu_out", tensor.ResultType(p.Self, t1, t2), realsBF)
}

func addcdiv(op *tensor.Op, a []any) any {
	p := args.AddcdivOf(a)
	ts, _ := common(p.Self, p.Tensor1, p.Tensor2)
	return ts[0].Add(scaleBy(ts[1], p.Value).Div(ts[2]))
}

// lerpCheck follows lerp's meta function: one dtype for all operands (a
// nil weight is lerp.Scalar's Scalar weight).
func lerpCheck(kernel string, x, end, weight *T) {
	same := func(o *T, what string) {
		if x.DType() != o.DType() {
			tensor.Panicf("expected dtype %s for `%s` but got dtype %s",
				core.TypeMetaName(x.DType()), what, core.TypeMetaName(o.DType()))
		}
	}
	same(end, "end")
	if weight != nil {
		same(weight, "weight")
	}
	need(kernel, x.DType(), floatsBF)
}

func lerpScalarCheck(a []any) {
	p := args.LerpScalarOf(a)
	lerpCheck("lerp_kernel_scalar", p.Self, p.End, nil)
}

func lerpTensorCheck(a []any) {
	p := args.LerpOf(a)
	lerpCheck("lerp_kernel_tensor", p.Self, p.End, p.Weight)
}

// lerpScalar is self + w*(end-self) for w < 0.5, else end - (end-self)*(1-w),
// the two forms PyTorch uses for accuracy at both ends. The condition is
// 1.13's: zabs of a real weight is the weight itself, so every negative
// weight takes the first form (-5.75 + -4.69·(∞ + 5.75) is -∞, where the
// second form gives ∞ − ∞). The CPU runs its own kernel (lerpKernel), which
// also fuses each form's multiply-add as 1.13's build does.
func lerpScalar(op *tensor.Op, a []any) any {
	p := args.LerpScalarOf(a)
	x, end := p.Self, p.End
	w := opmathScalar(p.Weight.Float64(), x.DType())
	diff := end.Sub(x)
	if w < 0.5 {
		return x.Add(diff.MulScalar(w))
	}
	return end.Sub(diff.MulScalar(1 - w))
}

func lerpTensor(op *tensor.Op, a []any) any {
	p := args.LerpOf(a)
	x, end, w := p.Self, p.End, p.Weight
	diff := end.Sub(x)
	lo := x.Add(w.Mul(diff))
	hi := end.Sub(diff.Mul(rsub(1, w)))
	return tensor.Where(w.LtScalar(0.5), lo, hi)
}

// boolMask accepts bool masks and, as 1.13 still does, uint8 ones.
func boolMask(mask *T, what string) *T {
	switch mask.DType() {
	case tensor.Bool:
		return mask
	case tensor.Uint8:
		return mask.To(tensor.Bool)
	}
	tensor.Panicf("%s only supports boolean masks, but got mask with dtype %s", what, core.TypeMetaName(mask.DType()))
	return nil
}

func maskedFillScalar(op *tensor.Op, a []any) any {
	p := args.MaskedFillScalarOf(a)
	x, v := p.Self, p.Value
	mask := boolMask(p.Mask, "masked_fill_")
	if !x.DType().IsFloat() && v.IsFloat() && !math.IsNaN(v.Float64()) && !math.IsInf(v.Float64(), 0) {
		v = tensor.Int(int64(v.Float64()))
	}
	core.CheckScalarFits(v, x.DType())
	return tensor.Where(mask, scalarLike(x, v, x.DType()), x)
}

func maskedFillTensor(op *tensor.Op, a []any) any {
	p := args.MaskedFillOf(a)
	x, v := p.Self, p.Value
	if v.Dim() != 0 {
		tensor.Panicf("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", v.Dim())
	}
	mask := boolMask(p.Mask, "masked_fill_")
	return tensor.Where(mask, v.To(x.DType()), x)
}

func whereScalarOther(op *tensor.Op, a []any) any {
	p := args.WhereScalarOtherOf(a)
	return tensor.Where(p.Condition, p.Self, wrap(p.Other))
}

func whereScalarSelf(op *tensor.Op, a []any) any {
	p := args.WhereScalarSelfOf(a)
	return tensor.Where(p.Condition, wrap(p.Self), p.Other)
}

func whereScalar(op *tensor.Op, a []any) any {
	p := args.WhereScalarOf(a)
	return tensor.Where(p.Condition, wrap(p.Self), wrap(p.Other))
}

func fillTensor(op *tensor.Op, a []any) any {
	p := args.FillTensorOf(a)
	x, v := p.Self, p.Value
	if v.Dim() != 0 {
		tensor.Panicf("fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.", v.Dim())
	}
	return x.Copy(v)
}

func floorDivide(op *tensor.Op, a []any) any {
	p := args.FloorDivideOf(a)
	return divMode(p.Self, p.Other, "floor")
}

func floorDivideScalar(op *tensor.Op, a []any) any {
	p := args.FloorDivideScalarOf(a)
	return callKw("aten::div.Scalar_mode", []any{p.Self, p.Other}, map[string]any{"rounding_mode": "floor"})
}

func rsubTensor(op *tensor.Op, a []any) any {
	p := args.RsubOf(a)
	return callKw("aten::sub.Tensor", []any{p.Other, p.Self}, map[string]any{"alpha": p.Alpha})
}

func rsubScalar(op *tensor.Op, a []any) any {
	p := args.RsubScalarOf(a)
	return callKw("aten::sub.Tensor", []any{wrap(p.Other), p.Self}, map[string]any{"alpha": p.Alpha})
}

// scalarFirst decomposes an op(Scalar self, Tensor other) into its
// Tensor-Tensor overload with self as a wrapped number; of reads the op's
// view (the four ops' views convert to bitwise_and's).
func scalarFirst(name string, of func([]any) args.BitwiseAndScalarTensor) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		return call(name, wrap(p.Self), p.Other)
	}
}

func clampMin(op *tensor.Op, a []any) any {
	p := args.ClampMinOf(a)
	return nanFilled(p.Self.Clamp(tensor.WithMin(p.Min)), p.Min)
}
func clampMax(op *tensor.Op, a []any) any {
	p := args.ClampMaxOf(a)
	return nanFilled(p.Self.Clamp(tensor.WithMax(p.Max)), p.Max)
}

// nanFilled is r, or r filled with NaN when the limit is NaN: 1.13's
// clamp_min_out and clamp_max_out fill their result then (clamp with one NaN
// limit leaves x as it is).
func nanFilled(r *T, limit tensor.Scalar) *T {
	if v := limit.Float64(); v != v {
		return fullOn(r, r.Sizes(), math.NaN(), r.DType())
	}
	return r
}

func clampMinTensor(op *tensor.Op, a []any) any {
	p := args.ClampMinTensorOf(a)
	return p.Self.ClampTensor(tensor.WithMin(p.Min))
}
func clampMaxTensor(op *tensor.Op, a []any) any {
	p := args.ClampMaxTensorOf(a)
	return p.Self.ClampTensor(tensor.WithMax(p.Max))
}
func maxOther(op *tensor.Op, a []any) any {
	p := args.MaxOtherOf(a)
	return p.Self.Maximum(p.Other)
}
func minOther(op *tensor.Op, a []any) any {
	p := args.MinOtherOf(a)
	return p.Self.Minimum(p.Other)
}

// fmax and fmin are the maximum and minimum that ignore NaN, as C's fmax and
// fmin: where one operand is NaN the result is the other (NaN only where
// both are). On a tie the result is self, so self takes the gradient there,
// as in 1.13's derivatives.yaml (self: grad where self >= other or other is
// NaN, other: grad elsewhere).
func fmax(op *tensor.Op, a []any) any {
	p := args.FmaxOf(a)
	ts, _ := common(p.Self, p.Other)
	x, y := ts[0], ts[1]
	return tensor.Where(y.Isnan().LogicalOr(x.Ge(y)), x, y)
}

func fmin(op *tensor.Op, a []any) any {
	p := args.FminOf(a)
	ts, _ := common(p.Self, p.Other)
	x, y := ts[0], ts[1]
	return tensor.Where(y.Isnan().LogicalOr(x.Le(y)), x, y)
}

// roundDecimals is nearbyint(x*10^d)/10^d, or nearbyint(x/10^-d)*10^-d for
// negative d, with 10^d in the kernel's opmath type.
func roundDecimals(op *tensor.Op, a []any) any {
	v := args.RoundDecimalsOf(a)
	x, d := v.Self, v.Decimals
	if d == 0 {
		return x.Round()
	}
	p := opmathScalar(math.Pow(10, float64(abs(d))), x.DType())
	if d < 0 {
		return x.DivScalar(p).Round().MulScalar(p)
	}
	return x.MulScalar(p).Round().DivScalar(p)
}

func square(op *tensor.Op, a []any) any { return args.SquareOf(a).Self.PowScalar(2) }

func frac(op *tensor.Op, a []any) any {
	x := args.FracOf(a).Self
	need("frac_cpu", x.DType(), floatsAll)
	return x.Sub(x.Trunc())
}

func deg2rad(op *tensor.Op, a []any) any {
	return args.Deg2radOf(a).Self.MulScalar(0.017453292519943295769236907684886127134428718885417)
}

func rad2deg(op *tensor.Op, a []any) any {
	return args.Rad2degOf(a).Self.MulScalar(57.295779513082320876798154814105170332405472466564)
}

func sgn(op *tensor.Op, a []any) any { return args.SgnOf(a).Self.Sign() }

func heaviside(op *tensor.Op, a []any) any {
	p := args.HeavisideOf(a)
	x, v := p.Self, p.Values
	tensor.Check(x.DType() == v.DType(), "heaviside is not yet implemented for tensors with different dtypes.")
	return tensor.Where(x.EqScalar(0), v, x.GtScalar(0).To(x.DType()))
}

func isneginf(op *tensor.Op, a []any) any { return args.IsneginfOf(a).Self.EqScalar(math.Inf(-1)) }
func isposinf(op *tensor.Op, a []any) any { return args.IsposinfOf(a).Self.EqScalar(math.Inf(1)) }

// finiteLimit is the largest finite value of a float dtype.
func finiteLimit(d tensor.DType) float64 {
	switch d {
	case tensor.Float16:
		return 65504
	case tensor.BFloat16:
		return 3.3895313892515355e38
	case tensor.Float32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

func nanToNum(op *tensor.Op, a []any) any {
	p := args.NanToNumOf(a)
	x := p.Self
	d := x.DType()
	if !d.IsFloat() {
		return x.Clone()
	}
	nan := p.Nan.Or(0)
	pos := p.Posinf.Or(finiteLimit(d))
	neg := p.Neginf.Or(-finiteLimit(d))
	r := tensor.Where(x.Isnan(), scalarLike(x, nan, d), x)
	r = tensor.Where(x.EqScalar(math.Inf(1)), scalarLike(x, pos, d), r)
	return tensor.Where(x.EqScalar(math.Inf(-1)), scalarLike(x, neg, d), r)
}

// xlogy is x*log(y), 0 where x == 0, NaN where y is NaN.
func xlogy(op *tensor.Op, a []any) any {
	p := args.XlogyOf(a)
	x, y := p.Self, p.Other
	d := floatDType(x, y)
	xf, yf := x.To(d), y.To(d)
	r := tensor.Where(xf.EqScalar(0), scalarLike(xf, 0, d), xf.Mul(yf.Log()))
	return tensor.Where(yf.Isnan(), scalarLike(xf, math.NaN(), d), r)
}

// logaddexp is m + log1p(exp(-|a-b|)) with m = max(a, b), and a itself where
// a == b is infinite.
func logaddexp(op *tensor.Op, a []any) any {
	p := args.LogaddexpOf(a)
	ts, _ := common(p.Self, p.Other)
	x, y := ts[0], ts[1]
	r := x.Maximum(y).Add(x.Sub(y).Abs().Neg().Exp().Log1p())
	return tensor.Where(x.Isinf().LogicalAnd(x.Eq(y)), x, r)
}

func logaddexp2(op *tensor.Op, a []any) any {
	p := args.Logaddexp2Of(a)
	ts, d := common(p.Self, p.Other)
	x, y := ts[0], ts[1]
	e := tensor.PowScalarBase(2, x.Sub(y).Abs().Neg())
	r := x.Maximum(y).Add(e.Log1p().MulScalar(opmathScalar(1/math.Ln2, d)))
	return tensor.Where(x.Isinf().LogicalAnd(x.Eq(y)), x, r)
}

// sinc is sin(pi x)/(pi x), 1 at 0; pi x is rounded to x's dtype, the
// rest computed in float (the 1.13 kernel's scalar arithmetic).
func sinc(op *tensor.Op, a []any) any {
	x := args.SincOf(a).Self
	d := floatDType(x)
	xf := x.To(d)
	p := xf.MulScalar(math.Pi)
	r := inOpmath(p, func(p *T) *T { return p.Sin().Div(p) })
	return tensor.Where(xf.EqScalar(0), scalarLike(xf, 1, d), r)
}

// logit is log(x/(1-x)), with x clamped to [eps, 1-eps] when eps is given.
func logit(op *tensor.Op, a []any) any {
	p := args.LogitOf(a)
	d := floatDType(p.Self)
	xf := p.Self.To(d)
	if p.Eps.Ok {
		if eps := p.Eps.V; eps >= 0 {
			xf = xf.Clamp(tensor.WithMin(eps), tensor.WithMax(1-eps))
		}
	}
	return xf.Div(rsub(1, xf)).Log()
}

func typeAs(op *tensor.Op, a []any) any {
	p := args.TypeAsOf(a)
	return p.Self.To(p.Other.DType())
}

// triangle keeps the elements with col - row on the kept side of diagonal.
func triangle(x *T, diagonal int, lower bool) *T {
	r, c := x.Size(-2), x.Size(-1)
	diff := arangeOn(x, c).Unsqueeze(0).Sub(arangeOn(x, r).Unsqueeze(1))
	var keep *T
	if lower {
		keep = diff.LeScalar(diagonal)
	} else {
		keep = diff.GeScalar(diagonal)
	}
	return tensor.Where(keep, x, zero0(x))
}

func tril(op *tensor.Op, a []any) any {
	p := args.TrilOf(a)
	return triangle(p.Self, p.Diagonal, true)
}
func triu(op *tensor.Op, a []any) any {
	p := args.TriuOf(a)
	return triangle(p.Self, p.Diagonal, false)
}
