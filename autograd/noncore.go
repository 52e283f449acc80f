package autograd

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Derivatives of non-core ops whose decompositions would give gradients
// that differ from PyTorch's at special points: PyTorch differentiates
// these ops with their own formulas (masking 0/0 at zeros, clamping logs),
// and so does this table.

// normBackward is PyTorch's norm_backward: the gradient of the p-norm over
// dims (all when empty), with result the norm.
func normBackward(g, x *T, p float64, result *T, dims []int, keepdim bool) *T {
	if !keepdim && x.Dim() != 0 {
		g = unsqueezeDims(g, dims, x.Dim())
		result = unsqueezeDims(result, dims, x.Dim())
	}
	switch {
	case p == 0:
		return nil
	case p == 1:
		return x.Sign().Mul(g)
	case p == 2:
		return g.Mul(x.Div(result).MaskedFillScalar(result.EqScalar(0.0), 0.0))
	case math.IsInf(p, 0):
		ax := x.Abs()
		mask := ax.Eq(result).LogicalOr(ax.Isnan())
		var cnt *T
		if x.Dim() == 0 {
			cnt = mask.To(g.DType())
		} else {
			cnt = mask.Sum(reduceDims(dims, x.Dim()), tensor.WithKeepdim(true))
		}
		return x.Sign().Mul(g.Div(cnt).Mul(mask.To(g.DType())))
	case p < 1:
		s := x.Sign().Mul(x.Abs().PowScalar(p-1).MaskedFillScalar(x.EqScalar(0.0), 0.0))
		return s.Mul(g).Mul(result.PowScalar(1 - p))
	case p < 2:
		s := x.Sign().Mul(x.Abs().PowScalar(p - 1))
		v := g.Div(result.PowScalar(p-1)).MaskedFillScalar(result.EqScalar(0.0), 0.0)
		return s.Mul(v)
	}
	s := x.Mul(x.Abs().PowScalar(p - 2))
	v := g.Div(result.PowScalar(p-1)).MaskedFillScalar(result.EqScalar(0.0), 0.0)
	return s.Mul(v)
}

// stdBackward is PyTorch's std_backward: var_backward of g / (2 std),
// with 0 where the std is 0.
func stdBackward(g, x, result *T, dims []int, all bool, corr float64, keepdim bool) *T {
	gv := g.Div(result.MulScalar(2)).MaskedFillScalar(result.EqScalar(0.0), 0.0)
	return varBackward(gv, x, dims, all, corr, keepdim)
}

// optP is a Scalar? p, 2 for None.
func optP(p args.Opt[tensor.Scalar]) float64 {
	if p.Ok {
		return p.V.Float64()
	}
	return 2
}

func unbiasedCorr(unbiased bool) float64 {
	if unbiased {
		return 1
	}
	return 0
}

// optCorr is an int? correction, 1 for None.
func optCorr(v args.Opt[int]) float64 { return float64(v.Or(1)) }

// stdMeanBackward adds the gradients of the std and the mean outputs.
func stdMeanBackward(c *Ctx, self int, dims []int, all bool, corr float64, keepdim bool) {
	x := c.T(self)
	var gi *T
	if g := c.G(0); g != nil {
		gi = stdBackward(g, x, c.Out(0), dims, all, corr, keepdim)
	}
	if g := c.G(1); g != nil {
		var gm *T
		if all {
			gm = g.Expand(x.Sizes()).DivScalar(float64(x.Numel()))
		} else {
			gm = sumBackward(g, x.Sizes(), dims, keepdim).DivScalar(float64(countOf(x.Sizes(), dims)))
		}
		if gi == nil {
			gi = gm
		} else {
			gi = gi.Add(gm)
		}
	}
	c.Set(self, gi)
}

// evenlyDistribute is the gradient of max/min over all elements: split
// equally among the elements equal to the result (the NaNs when it is NaN).
func evenlyDistribute(g, x, value *T) *T {
	var mask *T
	if hasData(value) && value.Isnan().Item().Bool() {
		mask = x.Isnan()
	} else {
		mask = x.Eq(value)
	}
	return g.NewZeros(x.Shape()).MaskedFill(mask, g.Div(mask.SumAll()))
}

func registerNonCore() {
	// _reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride): its
	// decomposition is an as_strided, but the gradient is a reshape.
	def("aten::_reshape_alias", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.InternalReshapeAliasAt()
		c.Set(at.Self, c.G(0).Reshape(c.Sizes(at.Self)))
	}})
	// softplus(Tensor self, Scalar beta, Scalar threshold): the where of the
	// decomposition would send NaN (0 * inf) into the unused branch.
	def("aten::softplus", fn(func(c *Ctx) {
		p, at := args.SoftplusOf(c.Args()), args.SoftplusAt()
		c.Set(at.Self, tensor.SoftplusBackward(c.G(0), c.T(at.Self), p.Beta, p.Threshold))
	}))
	// max(Tensor self) / min(Tensor self): the gradient is shared by ties.
	for _, n := range []string{"aten::max", "aten::min"} {
		def(n, fn(func(c *Ctx) { c.Set(args.SelfAt, evenlyDistribute(c.G(0), c.T(args.SelfAt), c.Out(0))) }))
	}
	// hardshrink(Tensor self, Scalar lambd=0.5): the gradient passes where
	// |x| > lambd; not at NaN (the rule of 1.13's vectorized kernel).
	def("aten::hardshrink", fn(func(c *Ctx) {
		p, at := args.HardshrinkOf(c.Args()), args.HardshrinkAt()
		x, l := c.T(at.Self), p.Lambd.Float64()
		c.Set(at.Self, where0(x.LtScalar(-l).LogicalOr(x.GtScalar(l)), c.G(0)))
	}))
	// hardswish(Tensor self): hardswish_backward, as 1.13's derivatives.yaml
	// says (through the decomposition's clamp, x = 3 would get 1.5·grad
	// everywhere instead of the vectorized kernel's grad).
	def("aten::hardswish", fn(func(c *Ctx) {
		at := args.HardswishAt()
		c.Set(at.Self, callT("aten::hardswish_backward", c.G(0), c.T(at.Self)))
	}))
	// sinc(Tensor self): 0 at x = 0.
	def("aten::sinc", fn(func(c *Ctx) {
		at := args.SincAt()
		x := c.T(at.Self)
		p := x.MulScalar(math.Pi)
		d := p.Mul(p.Cos()).Sub(p.Sin()).Div(p.Mul(x))
		c.Set(at.Self, d.MaskedFillScalar(x.EqScalar(0.0), 0.0).Mul(c.G(0)))
	}))
	// logit(Tensor self, float? eps=None): NaN outside [0, 1] without eps,
	// 0 outside [eps, 1-eps] with it.
	def("aten::logit", fn(func(c *Ctx) {
		p, at := args.LogitOf(c.Args()), args.LogitAt()
		x, g := c.T(at.Self), c.G(0)
		d := g.Div(x.Mul(x.RsubScalar(1)))
		if eps := p.Eps; eps.Ok && eps.V >= 0 {
			c.Set(at.Self, zeroWhere(x.LtScalar(eps.V).LogicalOr(x.GtScalar(1-eps.V)), d))
			return
		}
		out := x.LtScalar(0.0).LogicalOr(x.GtScalar(1.0))
		c.Set(at.Self, tensor.Where(out, g.FullLike(math.NaN()), d))
	}))
	// cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08):
	// the gradient of sum(x1/max(|x1|, eps) * x2/max(|x2|, eps)), with the
	// norm's own (masked) gradient.
	def("aten::cosine_similarity", fn(func(c *Ctx) {
		p, at := args.CosineSimilarityOf(c.Args()), args.CosineSimilarityAt()
		dim, eps := p.Dim, p.Eps
		f := func(in []*T) []*T {
			x1, x2 := in[0], in[1]
			d := tensor.ResultType(x1, x2)
			x1, x2 = x1.To(d), x2.To(d)
			shape := tensor.BroadcastShapes(x1.Sizes(), x2.Sizes())
			x1, x2 = x1.Expand(shape), x2.Expand(shape)
			n1 := x1.LinalgVectorNorm(tensor.WithDim([]int{dim}), tensor.WithKeepdim(true)).ClampMin(eps)
			n2 := x2.LinalgVectorNorm(tensor.WithDim([]int{dim}), tensor.WithKeepdim(true)).ClampMin(eps)
			return []*T{x1.Div(n1).Mul(x2.Div(n2)).Sum([]int{dim})}
		}
		r := vjp(f, []*T{c.T(at.X1), c.T(at.X2)}, []bool{c.Needs(at.X1), c.Needs(at.X2)}, []*T{c.G(0)}, c.Create())
		c.Set(at.X1, r[0])
		c.Set(at.X2, r[1])
	}))
	// norm.Scalar(Tensor self, Scalar p=2)
	def("aten::norm.Scalar", fn(func(c *Ctx) {
		p, at := args.NormAllOf(c.Args()), args.NormAllAt()
		c.Set(at.Self, normBackward(c.G(0), c.T(at.Self), p.P.Float64(), c.Out(0), nil, false))
	}))
	// norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim)
	def("aten::norm.ScalarOpt_dim", fn(func(c *Ctx) {
		p, at := args.NormOf(c.Args()), args.NormAt()
		c.Set(at.Self, normBackward(c.G(0), c.T(at.Self), optP(p.P), c.Out(0), p.Dim, p.Keepdim))
	}))
	// norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype)
	def("aten::norm.ScalarOpt_dim_dtype", fn(func(c *Ctx) {
		p, at := args.NormScalarOptDimDtypeOf(c.Args()), args.NormScalarOptDimDtypeAt()
		c.Set(at.Self, normBackward(c.G(0), c.T(at.Self), optP(p.P), c.Out(0), p.Dim, p.Keepdim))
	}))
	// norm.ScalarOpt_dtype(Tensor self, Scalar? p, *, ScalarType dtype)
	def("aten::norm.ScalarOpt_dtype", fn(func(c *Ctx) {
		p, at := args.NormScalarOptDtypeOf(c.Args()), args.NormScalarOptDtypeAt()
		c.Set(at.Self, normBackward(c.G(0), c.T(at.Self), optP(p.P), c.Out(0), nil, false))
	}))
	// linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
	def("aten::linalg_vector_norm", fn(func(c *Ctx) {
		p, at := args.LinalgVectorNormOf(c.Args()), args.LinalgVectorNormAt()
		c.Set(at.Self, normBackward(c.G(0), c.T(at.Self), p.Ord.Float64(), c.Out(0), p.Dim, p.Keepdim))
	}))
	// frobenius_norm.dim(Tensor self, int[1] dim, bool keepdim=False)
	def("aten::frobenius_norm.dim", fn(func(c *Ctx) {
		p, at := args.FrobeniusNormOf(c.Args()), args.FrobeniusNormAt()
		c.Set(at.Self, normBackward(c.G(0), c.T(at.Self), 2, c.Out(0), p.Dim, p.Keepdim))
	}))
	// std(Tensor self, bool unbiased=True)
	def("aten::std", fn(func(c *Ctx) {
		p, at := args.StdAllOf(c.Args()), args.StdAllAt()
		c.Set(at.Self, stdBackward(c.G(0), c.T(at.Self), c.Out(0), nil, true, unbiasedCorr(p.Unbiased), false))
	}))
	// std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
	def("aten::std.dim", fn(func(c *Ctx) {
		p, at := args.StdDimOf(c.Args()), args.StdDimAt()
		c.Set(at.Self, stdBackward(c.G(0), c.T(at.Self), c.Out(0), p.Dim, p.Dim == nil, unbiasedCorr(p.Unbiased), p.Keepdim))
	}))
	// std.correction(Tensor self, int[1]? dim=None, *, int? correction=None, bool keepdim=False)
	def("aten::std.correction", fn(func(c *Ctx) {
		p, at := args.StdOf(c.Args()), args.StdAt()
		c.Set(at.Self, stdBackward(c.G(0), c.T(at.Self), c.Out(0), p.Dim, p.Dim == nil, optCorr(p.Correction), p.Keepdim))
	}))
	// std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
	def("aten::std_mean", fn(func(c *Ctx) {
		p, at := args.StdMeanAllOf(c.Args()), args.StdMeanAllAt()
		stdMeanBackward(c, at.Self, nil, true, unbiasedCorr(p.Unbiased), false)
	}))
	// std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
	def("aten::std_mean.dim", fn(func(c *Ctx) {
		p, at := args.StdMeanDimOf(c.Args()), args.StdMeanDimAt()
		stdMeanBackward(c, at.Self, p.Dim, p.Dim == nil, unbiasedCorr(p.Unbiased), p.Keepdim)
	}))
	// std_mean.correction(Tensor self, int[1]? dim=None, *, int? correction=None, bool keepdim=False)
	def("aten::std_mean.correction", fn(func(c *Ctx) {
		p, at := args.StdMeanOf(c.Args()), args.StdMeanAt()
		stdMeanBackward(c, at.Self, p.Dim, p.Dim == nil, optCorr(p.Correction), p.Keepdim)
	}))
	// log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)
	def("aten::log_sigmoid_forward", &Deriv{Outputs: []int{0}, Backward: func(c *Ctx) {
		at := args.LogSigmoidForwardAt()
		c.Set(at.Self, tensor.LogSigmoidBackward(c.G(0), c.T(at.Self), c.Out(1)))
	}})
	// xlogy.Tensor(Tensor self, Tensor other)
	def("aten::xlogy.Tensor", fn(func(c *Ctx) {
		at := args.XlogyAt()
		x, y, g := c.T(at.Self), c.T(at.Other), c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.Mul(x.NeScalar(0.0).To(g.DType()).Xlogy(y)))
		}
		if c.Needs(at.Other) {
			c.Set(at.Other, g.Mul(x).Div(y))
		}
	}))
	// binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean)
	def("aten::binary_cross_entropy", &Deriv{NonDiff: []int{args.BinaryCrossEntropyAt().Weight}, Backward: func(c *Ctx) {
		p, at := args.BinaryCrossEntropyOf(c.Args()), args.BinaryCrossEntropyAt()
		x, t, w, g := c.T(at.Self), c.T(at.Target), c.T(at.Weight), c.G(0)
		red := p.Reduction
		scale := func(v *T) *T {
			if w != nil {
				v = v.Mul(w)
			}
			if red == 1 {
				v = v.DivScalar(float64(x.Numel()))
			}
			return v
		}
		if c.Needs(at.Self) {
			d := x.Sub(t).Div(x.RsubScalar(1).Mul(x).ClampMin(1e-12))
			c.Set(at.Self, scale(g.Mul(d)))
		}
		if c.Needs(at.Target) {
			c.Set(at.Target, scale(x.Logit().Neg()).Mul(g))
		}
	}})
}
