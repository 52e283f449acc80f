package autograd

import (
	"math"

	"github.com/goaten/goaten/tensor"
)

// registerDerivatives fills the derivative table: one entry per core op,
// with PyTorch 1.13's derivatives.yaml as the reference for which inputs
// are differentiable and what the formulas compute. Argument numbers are
// positions in the op's schema (quoted above each group).
func registerDerivatives() {
	// ---- unary pointwise: f(Tensor self) ----
	def("aten::abs", fn(func(c *Ctx) { c.Set(0, c.G(0).Mul(c.T(0).Sign())) }))
	def("aten::acos", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Neg().Mul(x).AddScalar(1, 1).Rsqrt().Neg()))
	}))
	def("aten::acosh", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Mul(x).SubScalar(1, 1).Rsqrt()))
	}))
	def("aten::asin", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Neg().Mul(x).AddScalar(1, 1).Rsqrt()))
	}))
	def("aten::asinh", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Mul(x).AddScalar(1, 1).Rsqrt()))
	}))
	def("aten::atan", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Div(x.Mul(x).AddScalar(1, 1)))
	}))
	def("aten::atanh", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).MulScalar(1).Div(x.Mul(x).RsubScalar(1, 1)))
	}))
	zero := &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).ZerosLike()) }}
	for _, n := range []string{"aten::ceil", "aten::floor", "aten::round", "aten::trunc", "aten::sign"} {
		d := *zero
		def(n, &d)
	}
	def("aten::cos", fn(func(c *Ctx) { c.Set(0, c.G(0).Mul(c.T(0).Sin().Neg())) }))
	def("aten::cosh", fn(func(c *Ctx) { c.Set(0, c.G(0).Mul(c.T(0).Sinh())) }))
	def("aten::erf", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, x.Mul(x).Neg().Exp().MulScalar(2.0/math.Sqrt(math.Pi)).Mul(c.G(0)))
	}))
	def("aten::exp", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Mul(c.Out(0))) }})
	def("aten::expm1", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Mul(c.Out(0).AddScalar(1, 1))) }})
	def("aten::log", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0))) }))
	def("aten::log10", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0).MulScalar(math.Ln10))) }))
	def("aten::log1p", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0).AddScalar(1, 1))) }))
	def("aten::log2", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0).MulScalar(math.Ln2))) }))
	def("aten::neg", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Neg()) }})
	def("aten::reciprocal", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		r := c.Out(0)
		c.Set(0, c.G(0).Neg().Mul(r.Mul(r)))
	}})
	def("aten::relu", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, tensor.ThresholdBackward(c.G(0), c.Out(0), 0))
	}})
	def("aten::rsqrt", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		r := c.Out(0)
		c.Set(0, c.G(0).MulScalar(-0.5).Mul(r.PowScalar(3)))
	}})
	def("aten::sigmoid", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, tensor.SigmoidBackward(c.G(0), c.Out(0))) }})
	def("aten::sin", fn(func(c *Ctx) { c.Set(0, c.G(0).Mul(c.T(0).Cos())) }))
	def("aten::sinh", fn(func(c *Ctx) { c.Set(0, c.G(0).Mul(c.T(0).Cosh())) }))
	def("aten::sqrt", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Div(c.Out(0).MulScalar(2))) }})
	def("aten::tan", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		r := c.Out(0)
		c.Set(0, c.G(0).Mul(r.Mul(r).AddScalar(1, 1)))
	}})
	def("aten::tanh", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, tensor.TanhBackward(c.G(0), c.Out(0))) }})
	// gelu(Tensor self, *, str approximate='none')
	def("aten::gelu", fn(func(c *Ctx) {
		c.Set(0, callKwT("aten::gelu_backward", []any{c.G(0), c.T(0)}, map[string]any{"approximate": c.Str(1)}))
	}))
	// elu(Tensor self, Scalar alpha, Scalar scale, Scalar input_scale) and
	// hardtanh(Tensor self, Scalar min_val, Scalar max_val): their backward
	// ops, which give a NaN input 1.13's gradient for its position (the
	// vectorized and the scalar loop of the kernel differ there).
	def("aten::elu", fn(func(c *Ctx) {
		c.Set(0, callT("aten::elu_backward", c.G(0), c.Scalar(1), c.Scalar(2), c.Scalar(3), false, c.T(0)))
	}))
	def("aten::hardtanh", fn(func(c *Ctx) {
		c.Set(0, callT("aten::hardtanh_backward", c.G(0), c.T(0), c.Scalar(1), c.Scalar(2)))
	}))
	// leaky_relu(Tensor self, Scalar negative_slope)
	def("aten::leaky_relu", fn(func(c *Ctx) {
		c.Set(0, tensor.LeakyReluBackward(c.G(0), c.T(0), c.Scalar(1), false))
	}))
	// clamp(Tensor self, Scalar? min, Scalar? max)
	def("aten::clamp", fn(func(c *Ctx) {
		x, g := c.T(0), c.G(0)
		lo, hasLo := c.OptScalar(1)
		hi, hasHi := c.OptScalar(2)
		switch {
		case hasLo && hasHi:
			c.Set(0, where0(x.GeScalar(lo).LogicalAnd(x.LeScalar(hi)), g))
		case hasLo:
			c.Set(0, where0(x.GeScalar(lo), g))
		case hasHi:
			c.Set(0, where0(x.LeScalar(hi), g))
		default:
			c.Set(0, g)
		}
	}))
	// clamp.Tensor(Tensor self, Tensor? min, Tensor? max)
	def("aten::clamp.Tensor", fn(clampTensorBackward))
	// _to_copy(Tensor self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)
	def("aten::_to_copy", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::clone", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::alias", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	// fill.Scalar(Tensor self, Scalar value)
	def("aten::fill.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).ZerosLike()) }})
	// copy(Tensor self, Tensor src, bool non_blocking)
	def("aten::copy", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.ZerosLike())
		}
		c.Set(1, g)
	}})

	// ---- binary pointwise ----
	// add.Tensor(Tensor self, Tensor other, *, Scalar alpha)
	def("aten::add.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0))
		if c.Needs(1) {
			c.Set(1, maybeMul(c.G(0), c.Scalar(2)))
		}
	}})
	def("aten::add.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::sub.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0))
		if c.Needs(1) {
			c.Set(1, maybeMul(c.G(0).Neg(), c.Scalar(2)))
		}
	}})
	def("aten::sub.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::mul.Tensor", fn(func(c *Ctx) {
		if c.Needs(0) {
			c.Set(0, c.G(0).Mul(c.T(1)))
		}
		if c.Needs(1) {
			c.Set(1, c.G(0).Mul(c.T(0)))
		}
	}))
	def("aten::mul.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).MulScalar(c.Scalar(1))) }})
	divTensor := func(c *Ctx) {
		if c.Needs(0) {
			c.Set(0, c.G(0).Div(c.T(1)))
		}
		if c.Needs(1) {
			x, y := c.T(0), c.T(1)
			c.Set(1, c.G(0).Neg().Mul(x.Div(y).Div(y)))
		}
	}
	def("aten::div.Tensor", fn(divTensor))
	// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)
	def("aten::div.Tensor_mode", fn(func(c *Ctx) {
		if c.Arg(2) == nil {
			divTensor(c)
			return
		}
		c.Set(0, c.G(0).ZerosLike())
		if c.Needs(1) {
			c.Set(1, c.G(0).ZerosLike())
		}
	}))
	def("aten::div.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).DivScalar(c.Scalar(1))) }})
	def("aten::div.Scalar_mode", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		if c.Arg(2) == nil {
			c.Set(0, c.G(0).DivScalar(c.Scalar(1)))
		} else {
			c.Set(0, c.G(0).ZerosLike())
		}
	}})
	def("aten::atan2", fn(func(c *Ctx) {
		x, y, g := c.T(0), c.T(1), c.G(0)
		recip := x.Mul(x).Add(y.Mul(y)).Reciprocal()
		if c.Needs(0) {
			c.Set(0, g.Mul(y).Mul(recip))
		}
		if c.Needs(1) {
			c.Set(1, g.Mul(x.Neg()).Mul(recip))
		}
	}))
	def("aten::fmod.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::fmod.Tensor", fn(func(c *Ctx) {
		c.Set(0, c.G(0))
		if c.Needs(1) {
			q := callKwT("aten::div.Tensor_mode", []any{c.T(0), c.T(1)}, map[string]any{"rounding_mode": "trunc"})
			c.Set(1, c.G(0).Neg().Mul(q))
		}
	}))
	def("aten::remainder.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::remainder.Tensor", fn(func(c *Ctx) {
		c.Set(0, c.G(0))
		if c.Needs(1) {
			q := callKwT("aten::div.Tensor_mode", []any{c.T(0), c.T(1)}, map[string]any{"rounding_mode": "floor"})
			c.Set(1, c.G(0).Neg().Mul(q))
		}
	}))
	def("aten::maximum", fn(func(c *Ctx) { minMaxBackward(c, true) }))
	def("aten::minimum", fn(func(c *Ctx) { minMaxBackward(c, false) }))
	// pow.Tensor_Scalar(Tensor self, Scalar exponent)
	def("aten::pow.Tensor_Scalar", fn(func(c *Ctx) {
		e := c.Scalar(1)
		if e.Float64() == 0 {
			c.Set(0, c.G(0).ZerosLike())
			return
		}
		x := c.T(0)
		ef := e.Float64()
		c.Set(0, c.G(0).Mul(x.PowScalar(ef-1).MulScalar(ef)))
	}))
	// pow.Tensor_Tensor(Tensor self, Tensor exponent)
	def("aten::pow.Tensor_Tensor", fn(func(c *Ctx) {
		x, e, g := c.T(0), c.T(1), c.G(0)
		if c.Needs(0) {
			c.Set(0, zeroWhere(e.EqScalar(0.0), g.Mul(e.Mul(x.Pow(e.SubScalar(1, 1))))))
		}
		if c.Needs(1) {
			cond := x.EqScalar(0.0).LogicalAnd(e.GeScalar(0))
			xp := x.To(tensor.ResultType(x, e))
			c.Set(1, g.Mul(zeroWhere(cond, c.Out(0).Mul(xp.Log()))))
		}
	}))
	// pow.Scalar(Scalar self, Tensor exponent)
	def("aten::pow.Scalar", fn(func(c *Ctx) {
		base, g := c.Scalar(0), c.G(0)
		lb := g.FullLike(base).Log()
		if base.Float64() == 0 {
			c.Set(1, g.Mul(zeroWhere(c.T(1).GeScalar(0), c.Out(0).Mul(lb))))
			return
		}
		c.Set(1, g.Mul(c.Out(0).Mul(lb)))
	}))
	// where.self(Tensor condition, Tensor self, Tensor other)
	def("aten::where.self", &Deriv{Backward: func(c *Ctx) {
		cond, g := c.T(0), c.G(0)
		if c.Needs(1) {
			c.Set(1, where0(cond, g))
		}
		if c.Needs(2) {
			c.Set(2, zeroWhere(cond, g))
		}
	}, NonDiff: []int{0}})

	// ---- reductions ----
	// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype)
	def("aten::sum.dim_IntList", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, sumBackward(c.G(0), c.Sizes(0), c.Ints(1), c.Bool(2)))
	}})
	// mean(Tensor self, *, ScalarType? dtype)
	def("aten::mean", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0).Expand(c.Sizes(0)).DivScalar(float64(c.In(0).Numel())))
	}})
	// mean.dim(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype)
	def("aten::mean.dim", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		n := countOf(c.Sizes(0), c.Ints(1))
		c.Set(0, sumBackward(c.G(0), c.Sizes(0), c.Ints(1), c.Bool(2)).DivScalar(float64(n)))
	}})
	def("aten::prod", fn(func(c *Ctx) { c.Set(0, prodBackward(c.G(0), c.T(0).To(c.Out(0).DType()), c.Out(0))) }))
	// prod.dim_int(Tensor self, int dim, bool keepdim, *, ScalarType? dtype)
	def("aten::prod.dim_int", fn(func(c *Ctx) {
		c.Set(0, prodDimBackward(c.G(0), c.T(0).To(c.Out(0).DType()), c.Out(0), c.Int(1), c.Bool(2)))
	}))
	// amax(Tensor self, int[1] dim, bool keepdim)
	amaxBackward := func(c *Ctx) {
		x, dims, keep := c.T(0), c.Ints(1), c.Bool(2)
		g, r := c.G(0), c.Out(0)
		if !keep && x.Dim() > 0 {
			g = unsqueezeDims(g, dims, x.Dim())
			r = unsqueezeDims(r, dims, x.Dim())
		}
		mask := r.Eq(x)
		var cnt *T
		if x.Dim() == 0 {
			cnt = mask.To(g.DType())
		} else {
			cnt = mask.Sum(reduceDims(dims, x.Dim()), true)
		}
		c.Set(0, g.Div(cnt).Mul(mask.To(g.DType())))
	}
	def("aten::amax", fn(amaxBackward))
	def("aten::amin", fn(amaxBackward))
	// var.correction(Tensor self, int[1]? dim, *, Scalar? correction, bool keepdim)
	def("aten::var.correction", fn(func(c *Ctx) {
		corr := 1.0
		if s, ok := c.OptScalar(2); ok {
			corr = s.Float64()
		}
		c.Set(0, varBackward(c.G(0), c.T(0), c.Ints(1), c.Arg(1) == nil, corr, c.Bool(3)))
	}))
	// var.dim(Tensor self, int[1]? dim, bool unbiased, bool keepdim)
	def("aten::var.dim", fn(func(c *Ctx) {
		corr := 0.0
		if c.Bool(2) {
			corr = 1
		}
		c.Set(0, varBackward(c.G(0), c.T(0), c.Ints(1), c.Arg(1) == nil, corr, c.Bool(3)))
	}))
	// cumsum(Tensor self, int dim, *, ScalarType? dtype)
	def("aten::cumsum", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0).To(c.In(0).DType())
		d := tensor.WrapDim(c.Int(1), c.In(0).Dim())
		if g.Numel() <= 1 || g.Dim() == 0 || g.Size(d) == 1 {
			c.Set(0, g)
			return
		}
		c.Set(0, reversedCumsum(g, d))
	}})
	// max.dim / min.dim(Tensor self, int dim, bool keepdim) -> (values, indices)
	maxDim := &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(1), x.Dim())
		c.Set(0, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), c.Bool(2)))
	}}
	def("aten::max.dim", maxDim)
	minDim := *maxDim
	def("aten::min.dim", &minDim)
	// sort(Tensor self, int dim, bool descending) -> (values, indices)
	def("aten::sort", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(1), x.Dim())
		c.Set(0, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), true))
	}})
	// topk(Tensor self, SymInt k, int dim, bool largest, bool sorted) -> (values, indices)
	def("aten::topk", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(2), x.Dim())
		c.Set(0, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), true))
	}})

	// ---- views and shape ----
	// view(Tensor(a) self, SymInt[] size)
	def("aten::view", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Reshape(c.Sizes(0))) }})
	// expand(Tensor(a) self, SymInt[] size, *, bool implicit)
	def("aten::expand", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, sumTo(c.G(0), c.Sizes(0))) }})
	// permute(Tensor(a) self, int[] dims)
	def("aten::permute", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		dims := c.Ints(1)
		inv := make([]int, len(dims))
		for i, d := range dims {
			inv[tensor.WrapDim(d, len(dims))] = i
		}
		c.Set(0, c.G(0).Permute(inv))
	}})
	// select.int(Tensor(a) self, int dim, SymInt index)
	def("aten::select.int", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).SelectScatter(g, c.Int(1), c.Int(2)))
	}})
	// slice.Tensor(Tensor(a) self, int dim, SymInt? start, SymInt? end, SymInt step)
	def("aten::slice.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).SliceScatter(g, c.Int(1), c.Arg(2), c.Arg(3), c.Int(4)))
	}})
	// diagonal(Tensor(a) self, int offset, int dim1, int dim2)
	def("aten::diagonal", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		z := zerosOf(g, c.Sizes(0))
		z.Diagonal(c.Int(1), c.Int(2), c.Int(3)).Copy_(g, false)
		c.Set(0, z)
	}})
	// unsqueeze(Tensor(a) self, int dim)
	def("aten::unsqueeze", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0).Squeeze(tensor.WrapDim(c.Int(1), c.In(0).Dim()+1)))
	}})
	// squeeze.dim(Tensor(a) self, int dim)
	def("aten::squeeze.dim", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g := c.G(0)
		if len(sizes) > 0 {
			d := tensor.WrapDim(c.Int(1), len(sizes))
			if sizes[d] == 1 {
				g = g.Unsqueeze(d)
			}
		}
		c.Set(0, g)
	}})
	// squeeze.dims(Tensor(a) self, int[] dim)
	def("aten::squeeze.dims", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g := c.G(0)
		if len(sizes) > 0 {
			for _, d := range reduceDims(c.Ints(1), len(sizes)) {
				if sizes[d] == 1 {
					g = g.Unsqueeze(d)
				}
			}
		}
		c.Set(0, g)
	}})
	// as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset)
	def("aten::as_strided", &Deriv{SelfUnused: true, Backward: asStridedBackward})
	// split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim)
	def("aten::split_with_sizes", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(2), x.Dim())
		var like *T
		for k := 0; k < c.NumOut(); k++ {
			if c.G(k) != nil {
				like = c.G(k)
				break
			}
		}
		parts := make([]*T, c.NumOut())
		for k := range parts {
			if g := c.G(k); g != nil {
				parts[k] = g
			} else {
				s := x.Shape()
				s[d] = c.Ints(1)[k]
				parts[k] = zerosOf(like, s)
			}
		}
		c.Set(0, tensor.Cat(parts, d))
	}})
	// cat(Tensor[] tensors, int dim)
	def("aten::cat", &Deriv{Backward: catBackward})
	// flip(Tensor self, int[] dims)
	def("aten::flip", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Flip(c.Ints(1))) }})
	// repeat(Tensor self, SymInt[] repeats)
	def("aten::repeat", &Deriv{SelfUnused: true, Backward: repeatBackward})
	// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value)
	def("aten::constant_pad_nd", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		pad := c.Ints(1)
		neg := make([]int, len(pad))
		for i, p := range pad {
			neg[i] = -p
		}
		c.Set(0, c.G(0).ConstantPadNd(neg, 0))
	}})
	// reflection_padNd / replication_padNd(Tensor self, SymInt[] padding)
	def("aten::reflection_pad1d", &Deriv{SelfUnused: true, Backward: padBackward(true)})
	def("aten::reflection_pad2d", &Deriv{SelfUnused: true, Backward: padBackward(true)})
	def("aten::reflection_pad3d", &Deriv{SelfUnused: true, Backward: padBackward(true)})
	def("aten::replication_pad2d", &Deriv{SelfUnused: true, Backward: padBackward(false)})
	def("aten::replication_pad3d", &Deriv{SelfUnused: true, Backward: padBackward(false)})

	// ---- indexing ----
	// index.Tensor(Tensor self, Tensor?[] indices)
	def("aten::index.Tensor", &Deriv{SelfUnused: true, NonDiff: []int{1}, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).IndexPut(c.Ts(1), g, true))
	}})
	// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate)
	def("aten::index_put", &Deriv{SelfUnused: true, NonDiff: []int{1}, Backward: func(c *Ctx) {
		g, idx := c.G(0), c.Ts(1)
		if c.Needs(0) {
			if c.Bool(3) {
				c.Set(0, g)
			} else {
				c.Set(0, g.IndexPut(idx, c.In(2).ZerosLike(), false))
			}
		}
		if c.Needs(2) {
			if !hasData(g) && hasMask(idx) {
				// The indexed shape depends on a boolean mask's values.
				c.Set(2, zerosOf(g, c.Sizes(2)))
				return
			}
			c.Set(2, g.Index(idx))
		}
	}})
	// index_select(Tensor self, int dim, Tensor index)
	def("aten::index_select", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g := c.G(0)
		if len(sizes) == 0 {
			c.Set(0, g.Reshape(nil).Clone())
			return
		}
		c.Set(0, indexAdd(g, sizes, tensor.WrapDim(c.Int(1), len(sizes)), c.T(2)))
	}})
	// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad)
	def("aten::gather", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).ScatterAdd(c.Int(1), c.T(2), g))
	}})
	// scatter.src(Tensor self, int dim, Tensor index, Tensor src)
	def("aten::scatter.src", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g, idx := c.G(0), c.T(2)
		if c.Needs(0) {
			c.Set(0, g.ScatterValue(c.Int(1), idx, 0.0))
		}
		if c.Needs(3) {
			c.Set(3, g.Gather(c.Int(1), idx))
		}
	}})
	// scatter.value(Tensor self, int dim, Tensor index, Scalar value)
	def("aten::scatter.value", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0).ScatterValue(c.Int(1), c.T(2), 0.0))
	}})
	// scatter_add(Tensor self, int dim, Tensor index, Tensor src)
	def("aten::scatter_add", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0))
		if c.Needs(3) {
			c.Set(3, c.G(0).Gather(c.Int(1), c.T(2)))
		}
	}})
	// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self)
	def("aten::scatter_reduce.two", fn(scatterReduceBackward))
	// masked_scatter(Tensor self, Tensor mask, Tensor source)
	def("aten::masked_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g, mask := c.G(0), c.T(1)
		if c.Needs(0) {
			c.Set(0, g.MaskedFillScalar(mask, 0.0))
		}
		if c.Needs(2) {
			sizes := c.Sizes(2)
			if !hasData(g) {
				// Which elements are selected depends on the mask's values.
				c.Set(2, zerosOf(g, sizes))
				return
			}
			sel := g.MaskedSelect(mask)
			if diff := tensor.Numel(sizes) - sel.Numel(); diff > 0 {
				sel = tensor.Cat([]*T{sel, zerosOf(g, []int{diff})}, 0)
			}
			c.Set(2, sel.View(sizes))
		}
	}})
	// select_scatter(Tensor self, Tensor src, int dim, SymInt index)
	def("aten::select_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.SelectScatter(c.In(1).ZerosLike(), c.Int(2), c.Int(3)))
		}
		if c.Needs(1) {
			c.Set(1, g.Select(c.Int(2), c.Int(3)))
		}
	}})
	// slice_scatter(Tensor self, Tensor src, int dim, SymInt? start, SymInt? end, SymInt step)
	def("aten::slice_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.SliceScatter(c.In(1).ZerosLike(), c.Int(2), c.Arg(3), c.Arg(4), c.Int(5)))
		}
		if c.Needs(1) {
			c.Set(1, g.Slice(c.Int(2), c.Arg(3), c.Arg(4), c.Int(5)))
		}
	}})
	// embedding(Tensor weight, Tensor indices, SymInt padding_idx, bool scale_grad_by_freq, bool sparse)
	def("aten::embedding", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, tensor.EmbeddingDenseBackward(c.G(0), c.T(1), c.Sizes(0)[0], c.Int(2), c.Bool(3)))
	}})
	// embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq)
	def("aten::embedding_dense_backward", fn(func(c *Ctx) {
		g, idx := c.G(0), c.T(1)
		gg := g.IndexSelect(0, idx.Reshape([]int{-1}))
		if p := c.Int(3); p >= 0 {
			gg = gg.MaskedFillScalar(idx.EqScalar(p).Reshape([]int{-1, 1}), 0.0)
		}
		c.Set(0, gg.View(append(idx.Shape(), -1)))
	}))
	// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx)
	def("aten::_embedding_bag", &Deriv{Outputs: []int{0}, Backward: embeddingBagBackward})

	// ---- linear algebra ----
	// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta, Scalar alpha)
	def("aten::addmm", fn(func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, maybeMul(g, c.Scalar(3)))
		}
		if c.Needs(1) {
			c.Set(1, maybeMul(mmMat1Backward(g, c.T(2), c.Sizes(1), c.Strides(1)), c.Scalar(4)))
		}
		if c.Needs(2) {
			c.Set(2, maybeMul(mmMat2Backward(g, c.T(1), c.Sizes(2), c.Strides(2)), c.Scalar(4)))
		}
	}))
	def("aten::mm", fn(func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, mmMat1Backward(g, c.T(1), c.Sizes(0), c.Strides(0)))
		}
		if c.Needs(1) {
			c.Set(1, mmMat2Backward(g, c.T(0), c.Sizes(1), c.Strides(1)))
		}
	}))
	def("aten::bmm", fn(func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.Bmm(c.T(1).Transpose(1, 2)))
		}
		if c.Needs(1) {
			c.Set(1, c.T(0).Transpose(1, 2).Bmm(g))
		}
	}))
	// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
	def("aten::convolution", fn(convolutionBackward))
	// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask)
	def("aten::convolution_backward", fn(convolutionDoubleBackward))
	// _cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode)
	def("aten::_cdist_forward", fn(cdistBackward))
	// _pdist_forward(Tensor self, float p)
	def("aten::_pdist_forward", fn(pdistBackward))

	// ---- softmax, norms, dropout ----
	// _softmax(Tensor self, int dim, bool half_to_float)
	def("aten::_softmax", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, callT("aten::_softmax_backward_data", c.G(0), c.Out(0), c.Int(1), c.In(0).DType()))
	}})
	def("aten::_log_softmax", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, callT("aten::_log_softmax_backward_data", c.G(0), c.Out(0), c.Int(1), c.In(0).DType()))
	}})
	// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd)
	def("aten::native_layer_norm", &Deriv{Outputs: []int{0}, Backward: layerNormBackward})
	// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
	def("aten::native_layer_norm_backward", &Deriv{NonDiff: []int{3, 4}, Backward: layerNormDoubleBackward})
	// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd)
	def("aten::native_group_norm", fn(groupNormBackward))
	// _native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps)
	def("aten::_native_batch_norm_legit", &Deriv{Outputs: []int{0}, NonDiff: []int{3, 4}, Backward: func(c *Ctx) {
		batchNormBackward(c, 3, 4, c.Bool(5), c.Float(7))
	}})
	// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
	def("aten::_native_batch_norm_legit.no_stats", &Deriv{Outputs: []int{0}, Backward: func(c *Ctx) {
		batchNormBackward(c, -1, -1, c.Bool(3), c.Float(5))
	}})
	// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps)
	def("aten::_native_batch_norm_legit_no_training", &Deriv{Outputs: []int{0}, NonDiff: []int{3, 4}, Backward: func(c *Ctx) {
		batchNormBackward(c, 3, 4, false, c.Float(6))
	}})
	// native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
	def("aten::native_dropout", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		scale := 1.0
		if train, ok := c.Arg(2).(bool); ok && train {
			if p := c.Float(1); p == 1 {
				scale = 0
			} else {
				scale = 1 / (1 - p)
			}
		}
		g := c.G(0)
		c.Set(0, g.Mul(c.Out(1).To(g.DType()).MulScalar(scale)))
	}})

	// ---- pooling and resampling ----
	// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
	def("aten::max_pool2d_with_indices", &Deriv{Outputs: []int{0}, Backward: func(c *Ctx) {
		c.Set(0, tensor.MaxPool2dWithIndicesBackward(c.G(0), c.T(0), c.Ints(1), c.Ints(2), c.Ints(3), c.Ints(4), c.Bool(5), c.Out(1)))
	}})
	// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
	def("aten::max_pool2d_with_indices_backward", &Deriv{NonDiff: []int{7}, Backward: func(c *Ctx) {
		g, idx := c.G(0), c.T(7)
		if c.Needs(0) {
			c.Set(0, g.Flatten(-2, -1).Gather(-1, idx.Flatten(-2, -1)).View(idx.Shape()))
		}
		if c.Needs(1) {
			c.Set(1, c.In(1).ZerosLike())
		}
	}})
	// max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
	def("aten::max_pool3d_with_indices", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g, idx := c.G(0), c.Out(1)
		flat := append(append([]int(nil), sizes[:len(sizes)-3]...), -1)
		z := zerosOf(g, append(append([]int(nil), sizes[:len(sizes)-3]...), sizes[len(sizes)-3]*sizes[len(sizes)-2]*sizes[len(sizes)-1]))
		c.Set(0, z.ScatterAdd(-1, idx.Reshape(flat), g.Reshape(flat)).View(sizes))
	}})
	// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool2d", fn(func(c *Ctx) {
		c.Set(0, tensor.AvgPool2dBackward(c.G(0), c.T(0), c.Ints(1), c.Ints(2), c.Ints(3), c.Bool(4), c.Bool(5), c.Arg(6)))
	}))
	// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool2d_backward", &Deriv{Backward: func(c *Ctx) {
		if c.Needs(0) {
			c.Set(0, c.G(0).AvgPool2d(c.Ints(2), c.Ints(3), c.Ints(4), c.Bool(5), c.Bool(6), c.Arg(7)))
		}
		if c.Needs(1) {
			c.Set(1, c.In(1).ZerosLike())
		}
	}})
	// avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad)
	def("aten::avg_pool1d", fn(func(c *Ctx) {
		k, s, p := c.Ints(1), c.Ints(2), c.Ints(3)
		if len(s) == 0 {
			s = k
		}
		x := c.T(0).Unsqueeze(-2)
		gi := tensor.AvgPool2dBackward(c.G(0).Unsqueeze(-2), x, []int{1, k[0]}, []int{1, s[0]}, []int{0, p[0]}, c.Bool(4), c.Bool(5), nil)
		c.Set(0, gi.Squeeze(-2))
	}))
	// avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool3d", &Deriv{SelfUnused: true, Backward: avgPool3dBackward})
	// _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)
	def("aten::_adaptive_avg_pool2d", fn(func(c *Ctx) {
		c.Set(0, callT("aten::_adaptive_avg_pool2d_backward", c.G(0), c.T(0)))
	}))
	// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self)
	def("aten::_adaptive_avg_pool2d_backward", fn(func(c *Ctx) {
		if c.Needs(0) {
			go_ := c.In(0)
			c.Set(0, c.G(0).AdaptiveAvgPool2d([]int{go_.Size(-2), go_.Size(-1)}))
		}
		if c.Needs(1) {
			c.Set(1, c.In(1).ZerosLike())
		}
	}))
	// adaptive_avg_pool1d(Tensor self, int[1] output_size)
	def("aten::adaptive_avg_pool1d", fn(func(c *Ctx) {
		gi := callT("aten::_adaptive_avg_pool2d_backward", c.G(0).Unsqueeze(-2), c.T(0).Unsqueeze(-2))
		c.Set(0, gi.Squeeze(-2))
	}))
	// _adaptive_avg_pool3d(Tensor self, SymInt[3] output_size)
	def("aten::_adaptive_avg_pool3d", &Deriv{SelfUnused: true, Backward: adaptiveAvgPool3dBackward})
	// upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
	def("aten::upsample_nearest2d.vec", &Deriv{SelfUnused: true, Backward: upsampleNearestBackward})
	// upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)
	def("aten::upsample_bilinear2d.vec", &Deriv{SelfUnused: true, Backward: upsampleBilinearBackward})
	// grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners)
	def("aten::grid_sampler_2d", fn(gridSamplerBackward))
	// col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride)
	def("aten::col2im", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, im2col(c.G(0), c.Ints(2), c.Ints(3), c.Ints(4), c.Ints(5)))
	}})

	// ---- non-core ops whose decomposition's gradient differs from PyTorch's ----
	// _reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride): its
	// decomposition is an as_strided, but the gradient is a reshape.
	def("aten::_reshape_alias", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Reshape(c.Sizes(0))) }})
	// softplus(Tensor self, Scalar beta, Scalar threshold): the where of the
	// decomposition would send NaN (0 * inf) into the unused branch.
	def("aten::softplus", fn(func(c *Ctx) {
		c.Set(0, tensor.SoftplusBackward(c.G(0), c.T(0), c.Scalar(1), c.Scalar(2)))
	}))

	registerNonCore()

	// ---- ops PyTorch does not differentiate ----
	for _, n := range []string{"aten::eq.Scalar", "aten::eq.Tensor", "aten::ne.Scalar", "aten::ne.Tensor",
		"aten::ge.Scalar", "aten::ge.Tensor", "aten::gt.Scalar", "aten::gt.Tensor", "aten::le.Scalar",
		"aten::le.Tensor", "aten::lt.Scalar", "aten::lt.Tensor", "aten::isinf", "aten::isnan",
		"aten::logical_and", "aten::logical_not", "aten::logical_or", "aten::logical_xor", "aten::any",
		"aten::any.dim", "aten::any.dims"} {
		def(n, nondiff("returns a bool tensor"))
	}
	for _, n := range []string{"aten::bitwise_and.Scalar", "aten::bitwise_and.Tensor", "aten::bitwise_not",
		"aten::bitwise_or.Scalar", "aten::bitwise_or.Tensor", "aten::bitwise_xor.Scalar", "aten::bitwise_xor.Tensor"} {
		def(n, nondiff("bitwise ops take and return integer or bool tensors"))
	}
	for _, n := range []string{"aten::argmax", "aten::argmin", "aten::nonzero"} {
		def(n, nondiff("returns integer indices"))
	}
	for _, n := range []string{"aten::arange.start_step", "aten::empty.memory_format", "aten::empty_strided",
		"aten::full", "aten::rand", "aten::randn", "aten::randperm", "aten::scalar_tensor"} {
		def(n, nondiff("a factory: no tensor inputs"))
	}
	def("aten::full_like", nondiff("the result does not depend on the values of self"))
	def("aten::_local_scalar_dense", nondiff("returns a Scalar, not a tensor"))
	for _, n := range []string{"aten::sym_is_contiguous", "aten::sym_numel", "aten::sym_size.int",
		"aten::sym_storage_offset", "aten::sym_stride.int"} {
		def(n, nondiff("returns metadata, not a tensor"))
	}
	def("aten::resize_", nondiff("in-place resize; refused on tensors that require grad, as in PyTorch"))
	def("aten::atan2.out", nondiff("out= overload: PyTorch refuses autograd on out= calls with inputs that require grad"))
	def("aten::native_group_norm_backward", notImpl("PyTorch 1.13 has no derivative for it (\"derivative for aten::native_group_norm_backward is not implemented\")"))
	def("aten::_fft_r2c", notImpl("goaten has no complex dtypes yet, so the op itself is missing"))
	def("aten::_fft_c2r", notImpl("goaten has no complex dtypes yet, so the op itself is missing"))
}

// notImpl marks an op whose gradient fails, as in PyTorch, with the
// reason recorded in the table.
func notImpl(reason string) *Deriv {
	return &Deriv{Reason: reason, Backward: func(c *Ctx) {
		panic(&tensor.Error{Kind: tensor.NotImplementedError, Msg: "the derivative for '" + c.node.name + "' is not implemented."})
	}}
}
