package autograd

import (
	"math"

	"github.com/goaten/goaten/tensor"
)

// registerUnary registers the derivatives of the unary family
// (aten/core/unary.go): elementwise math on one tensor, the activations, clamp
// and fill.
func registerUnary() {
	def("aten::abs", fn(func(c *Ctx) { c.Set(0, c.G(0).Mul(c.T(0).Sign())) }))
	def("aten::acos", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Neg().Mul(x).AddScalar(1).Rsqrt().Neg()))
	}))
	def("aten::acosh", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Mul(x).SubScalar(1).Rsqrt()))
	}))
	def("aten::asin", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Neg().Mul(x).AddScalar(1).Rsqrt()))
	}))
	def("aten::asinh", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Mul(x.Mul(x).AddScalar(1).Rsqrt()))
	}))
	def("aten::atan", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).Div(x.Mul(x).AddScalar(1)))
	}))
	def("aten::atanh", fn(func(c *Ctx) {
		x := c.T(0)
		c.Set(0, c.G(0).MulScalar(1).Div(x.Mul(x).RsubScalar(1)))
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
	def("aten::expm1", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Mul(c.Out(0).AddScalar(1))) }})
	def("aten::log", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0))) }))
	def("aten::log10", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0).MulScalar(math.Ln10))) }))
	def("aten::log1p", fn(func(c *Ctx) { c.Set(0, c.G(0).Div(c.T(0).AddScalar(1))) }))
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
		c.Set(0, c.G(0).Mul(r.Mul(r).AddScalar(1)))
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
	// fill.Scalar(Tensor self, Scalar value)
	def("aten::fill.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).ZerosLike()) }})
	// PyTorch does not differentiate these.
	for _, n := range []string{"aten::isinf", "aten::isnan", "aten::logical_not"} {
		def(n, nondiff("returns a bool tensor"))
	}
	def("aten::bitwise_not", nondiff("bitwise ops take and return integer or bool tensors"))
}

// clampTensorBackward is clamp.Tensor(self, min?, max?): the gradient goes
// to self inside [min, max] and to the bound that was applied outside.
func clampTensorBackward(c *Ctx) {
	x, g := c.T(0), c.G(0)
	lo, hi := c.T(1), c.T(2)
	if c.Needs(0) {
		switch {
		case lo != nil && hi != nil:
			c.Set(0, where0(x.Ge(lo).LogicalAnd(x.Le(hi)), g))
		case lo != nil:
			c.Set(0, where0(x.Ge(lo), g))
		case hi != nil:
			c.Set(0, where0(x.Le(hi), g))
		default:
			c.Set(0, g)
		}
	}
	switch {
	case lo != nil && hi != nil:
		if c.Needs(1) {
			c.Set(1, where0(x.Lt(lo).LogicalAnd(lo.Lt(hi)), g))
		}
		if c.Needs(2) {
			c.Set(2, where0(x.Gt(hi).LogicalOr(hi.Lt(lo)), g))
		}
	case lo != nil:
		if c.Needs(1) {
			c.Set(1, where0(x.Lt(lo), g))
		}
	case hi != nil:
		if c.Needs(2) {
			c.Set(2, where0(x.Gt(hi), g))
		}
	}
}
