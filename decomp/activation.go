package decomp

import (
	"math"
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Activations, softmax and the backward formulas of the pointwise
// activations. The formulas follow the 1.13 CPU kernels operation by
// operation, so float32 results round the same way.

const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

func init() {
	def("aten::silu", checked(kernelDTypes("silu_cpu", floatsBF), opmath(silu)))
	def("aten::mish", checked(kernelDTypes("mish_cpu", floatsOnly), opmath(mish)))
	def("aten::hardswish", checked(kernelDTypes("hardswish_cpu", floatsBF), opmath(hardswish)))
	def("aten::hardsigmoid", checked(kernelDTypes("hardsigmoid_cpu", floatsBF), opmath(hardsigmoid)))
	def("aten::softplus", checked(kernelDTypes("softplus_cpu", floatsBF), opmath(softplus)))
	def("aten::selu", selu)
	def("aten::celu", celu)
	def("aten::glu", glu)
	def("aten::relu6", relu6)
	def("aten::hardshrink", checked(kernelDTypes("hardshrink_cpu", floatsBF), hardshrink))
	def("aten::softshrink", checked(kernelDTypes("softshrink_cpu", floatsBF), softshrink))
	def("aten::threshold", checked(kernelDTypes("threshold_cpu", realsBF), threshold))
	def("aten::log_sigmoid", logSigmoid)
	def("aten::log_sigmoid_forward", checked(kernelDTypes("log_sigmoid_cpu", floatsBF), opmath(logSigmoidForward)))
	def("aten::prelu", prelu)
	def("aten::softmax.int", softmaxInt)
	def("aten::log_softmax.int", logSoftmaxInt)
	def("aten::dropout", dropout)
	def("aten::feature_dropout", featureDropout)
	def("aten::alpha_dropout", alphaDropout)

	def("aten::gelu_backward", geluBackward)
	def("aten::sigmoid_backward", opmath(sigmoidBackward))
	def("aten::tanh_backward", opmath(tanhBackward))
	def("aten::threshold_backward", thresholdBackward)
	def("aten::silu_backward", opmath(siluBackward))
	def("aten::hardtanh_backward", opmath(hardtanhBackward))
	def("aten::leaky_relu_backward", opmath(leakyReluBackward))
	def("aten::elu_backward", opmath(eluBackward))
	def("aten::hardsigmoid_backward", opmath(hardsigmoidBackward))
	def("aten::hardswish_backward", opmath(hardswishBackward))
	def("aten::softplus_backward", opmath(softplusBackward))
	def("aten::log_sigmoid_backward", opmath(logSigmoidBackward))
	def("aten::_softmax_backward_data", softmaxBackward)
	def("aten::_log_softmax_backward_data", logSoftmaxBackward)
}

// scalarAs converts a Scalar parameter to what a kernel over dtype d sees:
// integer dtypes truncate floats (Scalar::to<int>).
func scalarAs(v tensor.Scalar, d tensor.DType) tensor.Scalar {
	switch {
	case d.IsFloat():
		return tensor.Float(opmathScalar(v.Float64(), d))
	case v.IsFloat():
		return tensor.Int(int64(v.Float64()))
	}
	return v
}

// fparam is a float parameter rounded to x's opmath type.
func fparam(v tensor.Scalar, x *T) float64 { return opmathScalar(v.Float64(), x.DType()) }

// silu is x / (1 + exp(-x)).
func silu(op *tensor.Op, a []any) any {
	x := args.SiluOf(a).Self
	return x.Div(x.Neg().Exp().AddScalar(1))
}

// mish is x * tanh(log1p(exp(x))).
func mish(op *tensor.Op, a []any) any {
	x := args.MishOf(a).Self
	return x.Mul(x.Exp().Log1p().Tanh())
}

// hardswish is x * min(max(x + 3, 0), 6) / 6.
func hardswish(op *tensor.Op, a []any) any {
	x := args.HardswishOf(a).Self
	return x.Mul(x.AddScalar(3).Clamp(tensor.WithMin(0), tensor.WithMax(6))).DivScalar(6)
}

// hardsigmoid is min(max(x + 3, 0), 6) / 6.
func hardsigmoid(op *tensor.Op, a []any) any {
	return args.HardsigmoidOf(a).Self.AddScalar(3).Clamp(tensor.WithMin(0), tensor.WithMax(6)).DivScalar(6)
}

// softplus is x where x*beta > threshold, else log1p(exp(x*beta)) / beta.
func softplus(op *tensor.Op, a []any) any {
	p := args.SoftplusOf(a)
	x := p.Self
	beta, th := fparam(p.Beta, x), fparam(p.Threshold, x)
	xb := x.MulScalar(beta)
	return tensor.Where(xb.GtScalar(th), x, xb.Exp().Log1p().DivScalar(beta))
}

func selu(op *tensor.Op, a []any) any {
	return args.SeluOf(a).Self.Elu(tensor.WithAlpha(seluAlpha), tensor.WithScale(seluScale))
}

func celu(op *tensor.Op, a []any) any {
	p := args.CeluOf(a)
	alpha := p.Alpha.Float64()
	tensor.Check(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU")
	return p.Self.Elu(tensor.WithAlpha(p.Alpha), tensor.WithInputScale(1/alpha))
}

// glu splits dim in halves a, b and returns a * sigmoid(b).
func glu(op *tensor.Op, a []any) any {
	p := args.GluOf(a)
	x := p.Self
	tensor.Check(x.Dim() > 0, "glu does not support scalars because halving size must be even")
	d := wrapDim(p.Dim, x.Dim())
	n := x.Size(d)
	if n%2 != 0 {
		tensor.Panicf("Halving dimension must be even, but dimension %d is size %d", d, n)
	}
	h := n / 2
	return x.Slice(tensor.WithDim(d), tensor.WithStart(0), tensor.WithEnd(h)).Mul(x.Slice(tensor.WithDim(d), tensor.WithStart(h), tensor.WithEnd(n)).Sigmoid())
}

func relu6(op *tensor.Op, a []any) any {
	return args.Relu6Of(a).Self.Hardtanh(tensor.WithMinVal(0), tensor.WithMaxVal(6))
}

// hardshrink is 0 for -lambd <= x <= lambd, else x.
func hardshrink(op *tensor.Op, a []any) any {
	p := args.HardshrinkOf(a)
	x := p.Self
	l := fparam(p.Lambd, x)
	inside := x.GeScalar(-l).LogicalAnd(x.LeScalar(l))
	return tensor.Where(inside, zero0(x), x)
}

// softshrink is x - lambd above lambd, x + lambd below -lambd, else 0
// (NaN included).
func softshrink(op *tensor.Op, a []any) any {
	p := args.SoftshrinkOf(a)
	x := p.Self
	l := fparam(p.Lambd, x)
	return tensor.Where(x.GtScalar(l), x.SubScalar(l),
		tensor.Where(x.LtScalar(-l), x.AddScalar(l), zero0(x)))
}

// threshold is value where x <= threshold, else x.
func threshold(op *tensor.Op, a []any) any {
	p := args.ThresholdOf(a)
	x := p.Self
	d := x.DType()
	return tensor.Where(x.LeScalar(scalarAs(p.Threshold, d)), scalarLike(x, scalarAs(p.Value, d), d), x)
}

func logSigmoid(op *tensor.Op, a []any) any {
	return tensor.Call("aten::log_sigmoid_forward", args.LogSigmoidOf(a).Self).([]*T)[0]
}

// logSigmoidForward is min(x, 0) - log1p(exp(-|x|)), with exp(-|x|) as the buffer.
func logSigmoidForward(op *tensor.Op, a []any) any {
	x := args.LogSigmoidForwardOf(a).Self
	z := x.Abs().Neg().Exp()
	return []*T{x.Clamp(tensor.WithMax(0)).Sub(z.Log1p()), z}
}

// prelu is x where x > 0, else weight*x, weight broadcast along dim 1.
func prelu(op *tensor.Op, a []any) any {
	p := args.PreluOf(a)
	x, w := p.Self, p.Weight
	if n := w.Numel(); n != 1 {
		tensor.Check(x.Dim() > 0, "Not allow zero-dim input tensor.")
		c := 1
		if x.Dim() > 1 {
			c = x.Size(1)
		}
		if c != n {
			tensor.Panicf("Mismatch of parameter numbers and input channel size. Found parameter numbers = %d and channel size = %d.", n, c)
		}
	}
	if w.Dim() > 1 {
		tensor.Panicf("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = %d", w.Dim())
	}
	if x.Dim() >= 2 {
		shape := ones(x.Dim())
		shape[1] = w.Numel()
		w = reshape(w, shape)
	} else {
		w = reshape(w, []int{})
	}
	return tensor.Where(x.GtScalar(0), x, w.Mul(x))
}

func softmaxInt(op *tensor.Op, a []any) any {
	p := args.SoftmaxOf(a)
	x := p.Self
	if p.Dtype.Ok {
		x = x.To(p.Dtype.V)
	}
	return call("aten::_softmax", x, p.Dim, false)
}

func logSoftmaxInt(op *tensor.Op, a []any) any {
	p := args.LogSoftmaxOf(a)
	x := p.Self
	if p.Dtype.Ok {
		x = x.To(p.Dtype.V)
	}
	return call("aten::_log_softmax", x, p.Dim, false)
}

func checkDropoutP(p float64) {
	if !(p >= 0 && p <= 1) {
		tensor.Panicf("dropout probability has to be between 0 and 1, but got %v", p)
	}
}

// dropout is ATen's CPU _dropout (is_fused_kernel_acceptable, and with it
// native_dropout, is for CUDA only): noise = bernoulli_(1-p) in x's dtype,
// divided by 1-p, times x; the input itself when not training.
func dropout(op *tensor.Op, a []any) any {
	v := args.DropoutOf(a)
	x, p, train := v.Input, v.P, v.Train
	checkDropoutP(p)
	if p == 0 || !train || x.Numel() == 0 {
		return x
	}
	if p == 1 {
		return x.Mul(zero0(x))
	}
	return x.Mul(keepMask(x, p, false).DivScalar(1 - p))
}

// keepMask draws a mask of x's dtype that is 1 with probability 1-p
// (empty(...).bernoulli_(1-p)), one value per (N, C) plane when feature is
// set (make_feature_noise).
func keepMask(x *T, p float64, feature bool) *T {
	shape := x.Shape()
	if feature {
		tensor.Check(x.Dim() >= 2, "Feature dropout requires at least 2 dimensions in the input")
		for i := 2; i < len(shape); i++ {
			shape[i] = 1
		}
	}
	noise := callKw("aten::empty.memory_format", []any{shape}, map[string]any{"dtype": x.DType(), "device": x.Device()})
	return noise.Bernoulli_(tensor.WithP(1 - p))
}

func featureDropout(op *tensor.Op, a []any) any {
	v := args.FeatureDropoutOf(a)
	x, p, train := v.Input, v.P, v.Train
	checkDropoutP(p)
	if p == 0 || !train || x.Numel() == 0 {
		return x
	}
	if p == 1 {
		return x.Mul(zero0(x))
	}
	return x.Mul(keepMask(x, p, true).DivScalar(1 - p))
}

// alphaDropout keeps SELU's mean and variance: dropped units go to the
// negative saturation value, then an affine map restores the moments.
func alphaDropout(op *tensor.Op, a []any) any {
	v := args.AlphaDropoutOf(a)
	x, p, train := v.Input, v.P, v.Train
	checkDropoutP(p)
	if p == 0 || !train || x.Numel() == 0 {
		return x
	}
	if p == 1 {
		return x.Mul(zero0(x))
	}
	const alpha = 1.7580993408473766
	k := 1 / math.Sqrt((alpha*alpha*p+1)*(1-p))
	noise := keepMask(x, p, false)
	b := noise.AddScalar(-1).MulScalar(alpha * k).AddScalar(alpha * k * p)
	return x.Mul(noise.MulScalar(k)).Add(b)
}

func geluBackward(op *tensor.Op, a []any) any {
	p := args.GeluBackwardOf(a)
	g, x := p.GradOutput, p.Self
	if d := tensor.ResultType(g, x); !d.IsReduced() {
		g, x = g.To(d), x.To(d) // computed in the common dtype
	}
	const (
		sqrt2    = 1.41421356237309504880
		sqrt1_2  = 0.70710678118654752440
		twoSqrtP = 1.12837916709551257390
	)
	if core.GeluApproximate(p.Approximate) {
		const beta, kappa = sqrt2 * twoSqrtP * 0.5, 0.044715
		xsq := x.Mul(x)
		inner := x.Add(xsq.Mul(x).MulScalar(kappa)).MulScalar(beta)
		th := inner.Tanh()
		left := x.MulScalar(0.5)
		leftD := th.AddScalar(1).MulScalar(0.5)
		thD := rsub(1, th.Mul(th))
		innerD := xsq.MulScalar(3 * kappa).AddScalar(1).MulScalar(beta)
		return g.Mul(leftD.Add(left.Mul(thD).Mul(innerD)))
	}
	const alpha = twoSqrtP * sqrt1_2 * 0.5
	cdf := x.MulScalar(sqrt1_2).Erf().AddScalar(1).MulScalar(0.5)
	pdf := x.Mul(x).MulScalar(-0.5).Exp().MulScalar(alpha)
	return g.Mul(cdf.Add(x.Mul(pdf)))
}

// sigmoidBackward is grad * (1 - y) * y.
func sigmoidBackward(op *tensor.Op, a []any) any {
	p := args.SigmoidBackwardOf(a)
	g, y := p.GradOutput, p.Output
	return g.Mul(rsub(1, y)).Mul(y)
}

// tanhBackward is grad * (1 - y*y).
func tanhBackward(op *tensor.Op, a []any) any {
	p := args.TanhBackwardOf(a)
	g, y := p.GradOutput, p.Output
	return g.Mul(rsub(1, y.Mul(y)))
}

// thresholdBackward is 0 where self <= threshold, else grad.
func thresholdBackward(op *tensor.Op, a []any) any {
	p := args.ThresholdBackwardOf(a)
	ts, d := common(p.GradOutput, p.Self)
	g, x := ts[0], ts[1]
	return tensor.Where(x.LeScalar(scalarAs(p.Threshold, d)), zero0(g), g)
}

func siluBackward(op *tensor.Op, a []any) any {
	p := args.SiluBackwardOf(a)
	g, x := p.GradOutput, p.Self
	s := x.Neg().Exp().AddScalar(1).Reciprocal()
	return g.Mul(s).Mul(x.Mul(rsub(1, s)).AddScalar(1))
}

// The backward kernels of hardtanh, elu and hardswish are written twice in
// 1.13's CPU kernel, once for its vectorized loop and once for its scalar
// loop, and the two disagree at special inputs (NaN; 3 for hardswish). The
// decompositions follow the scalar loop's rule, as torch._decomp's do, on
// every device; the CPU's kernels (device/cpu, loopRuleKernel) give the
// vectorized loop's value at the elements that loop computes.

// hardtanhBackward is 0 where x <= min or x >= max, else the gradient (so
// the gradient at NaN; 1.13's vectorized loop gives 0 there).
func hardtanhBackward(op *tensor.Op, a []any) any {
	p := args.HardtanhBackwardOf(a)
	g, x := p.GradOutput, p.Self
	out := x.LeScalar(fparam(p.MinVal, x)).LogicalOr(x.GeScalar(fparam(p.MaxVal, x)))
	return tensor.Where(out, zero0(g), g)
}

func leakyReluBackward(op *tensor.Op, a []any) any {
	p := args.LeakyReluBackwardOf(a)
	g, x := p.GradOutput, p.Self
	return tensor.Where(x.GtScalar(0), g, g.MulScalar(fparam(p.NegativeSlope, x)))
}

// eluBackward takes the negative branch where x <= 0, else the positive
// one (so the positive branch at NaN; 1.13's vectorized loop takes the
// negative branch's NaN there).
func eluBackward(op *tensor.Op, a []any) any {
	p := args.EluBackwardOf(a)
	g, x := p.GradOutput, p.SelfOrResult
	alpha, scale, iscale := p.Alpha.Float64(), p.Scale.Float64(), p.InputScale.Float64()
	neg, pos := opmathScalar(alpha*scale, x.DType()), opmathScalar(scale, x.DType())
	in := opmathScalar(iscale, x.DType())
	var negBranch *T
	if p.IsResult { // x is the result
		tensor.Check(alpha >= 0, "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead.")
		negBranch = g.MulScalar(in).Mul(x.AddScalar(neg))
	} else {
		negBranch = g.MulScalar(in).MulScalar(neg).Mul(x.MulScalar(in).Exp())
	}
	return tensor.Where(x.LeScalar(0), negBranch, g.MulScalar(pos))
}

func hardsigmoidBackward(op *tensor.Op, a []any) any {
	p := args.HardsigmoidBackwardOf(a)
	g, x := p.GradOutput, p.Self
	inside := x.GtScalar(-3).LogicalAnd(x.LtScalar(3))
	return tensor.Where(inside, g.MulScalar(opmathScalar(1.0/6.0, x.DType())), zero0(g))
}

// hardswishBackward is 0 below -3, g·(x/3 + 1/2) up to 3, g above (so
// 1.5·g at 3 and g at NaN; 1.13's vectorized loop gives g at 3 and NaN at
// NaN).
func hardswishBackward(op *tensor.Op, a []any) any {
	p := args.HardswishBackwardOf(a)
	g, x := p.GradOutput, p.Self
	mid := g.Mul(x.DivScalar(3).AddScalar(0.5))
	return tensor.Where(x.LtScalar(-3), zero0(g), tensor.Where(x.LeScalar(3), mid, g))
}

func softplusBackward(op *tensor.Op, a []any) any {
	p := args.SoftplusBackwardOf(a)
	g, x := p.GradOutput, p.Self
	beta, th := fparam(p.Beta, x), fparam(p.Threshold, x)
	xb := x.MulScalar(beta)
	z := xb.Exp()
	return tensor.Where(xb.GtScalar(th), g, g.Mul(z).Div(z.AddScalar(1)))
}

// logSigmoidBackward is (max' - sign * z/(1+z)) * grad with z = exp(-|x|),
// taken from the forward's buffer when it has one (the CPU kernel's form).
func logSigmoidBackward(op *tensor.Op, a []any) any {
	p := args.LogSigmoidBackwardOf(a)
	g, x, z := p.GradOutput, p.Self, p.Buffer
	neg := x.LtScalar(0)
	maxD := tensor.Where(neg, scalarLike(x, 1, x.DType()), zero0(x))
	sign := tensor.Where(neg, scalarLike(x, 1, x.DType()), scalarLike(x, -1, x.DType()))
	if z == nil || !slices.Equal(z.Sizes(), x.Sizes()) {
		z = x.Abs().Neg().Exp()
	}
	return maxD.Sub(sign.Mul(z.Div(z.AddScalar(1)))).Mul(g)
}

// softmaxBackward is out * (grad - sum(grad*out, dim)).
func softmaxBackward(op *tensor.Op, a []any) any {
	p := args.InternalSoftmaxBackwardDataOf(a)
	g, out, dim, d := p.GradOutput, p.Output, p.Dim, p.InputDtype
	gi := out.Mul(g.Sub(g.Mul(out).Sum([]int{dim}, tensor.WithKeepdim(true))))
	return gi.To(d)
}

// logSoftmaxBackward is grad - exp(out) * sum(grad, dim).
func logSoftmaxBackward(op *tensor.Op, a []any) any {
	p := args.InternalLogSoftmaxBackwardDataOf(a)
	g, out, dim, d := p.GradOutput, p.Output, p.Dim, p.InputDtype
	gi := g.Sub(out.Exp().Mul(g.Sum([]int{dim}, tensor.WithKeepdim(true))))
	return gi.To(d)
}
