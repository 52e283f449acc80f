package autograd

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerUnary registers the derivatives of the unary family
// (aten/core/unary.go): elementwise math on one tensor, the activations, clamp
// and fill.
func registerUnary() {
	def("aten::abs", fn(func(c *Ctx) {
		at := args.AbsAt()
		c.Set(at.Self, c.G(0).Mul(c.T(at.Self).Sign()))
	}))
	def("aten::acos", fn(func(c *Ctx) {
		at := args.AcosAt()
		x := c.T(at.Self)
		c.Set(at.Self, c.G(0).Mul(x.Neg().Mul(x).AddScalar(1).Rsqrt().Neg()))
	}))
	def("aten::acosh", fn(func(c *Ctx) {
		at := args.AcoshAt()
		x := c.T(at.Self)
		c.Set(at.Self, c.G(0).Mul(x.Mul(x).SubScalar(1).Rsqrt()))
	}))
	def("aten::asin", fn(func(c *Ctx) {
		at := args.AsinAt()
		x := c.T(at.Self)
		c.Set(at.Self, c.G(0).Mul(x.Neg().Mul(x).AddScalar(1).Rsqrt()))
	}))
	def("aten::asinh", fn(func(c *Ctx) {
		at := args.AsinhAt()
		x := c.T(at.Self)
		c.Set(at.Self, c.G(0).Mul(x.Mul(x).AddScalar(1).Rsqrt()))
	}))
	def("aten::atan", fn(func(c *Ctx) {
		at := args.AtanAt()
		x := c.T(at.Self)
		c.Set(at.Self, c.G(0).Div(x.Mul(x).AddScalar(1)))
	}))
	def("aten::atanh", fn(func(c *Ctx) {
		at := args.AtanhAt()
		x := c.T(at.Self)
		c.Set(at.Self, c.G(0).MulScalar(1).Div(x.Mul(x).RsubScalar(1)))
	}))
	zero := &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.SelfAt, c.G(0).ZerosLike()) }}
	for _, n := range []string{"aten::ceil", "aten::floor", "aten::round", "aten::trunc", "aten::sign"} {
		d := *zero
		def(n, &d)
	}
	def("aten::cos", fn(func(c *Ctx) {
		at := args.CosAt()
		c.Set(at.Self, c.G(0).Mul(c.T(at.Self).Sin().Neg()))
	}))
	def("aten::cosh", fn(func(c *Ctx) {
		at := args.CoshAt()
		c.Set(at.Self, c.G(0).Mul(c.T(at.Self).Sinh()))
	}))
	def("aten::erf", fn(func(c *Ctx) {
		at := args.ErfAt()
		x := c.T(at.Self)
		c.Set(at.Self, x.Mul(x).Neg().Exp().MulScalar(2.0/math.Sqrt(math.Pi)).Mul(c.G(0)))
	}))
	def("aten::exp", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.ExpAt()
		c.Set(at.Self, c.G(0).Mul(c.Out(0)))
	}})
	def("aten::expm1", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.Expm1At()
		c.Set(at.Self, c.G(0).Mul(c.Out(0).AddScalar(1)))
	}})
	def("aten::log", fn(func(c *Ctx) {
		at := args.LogAt()
		c.Set(at.Self, c.G(0).Div(c.T(at.Self)))
	}))
	def("aten::log10", fn(func(c *Ctx) {
		at := args.Log10At()
		c.Set(at.Self, c.G(0).Div(c.T(at.Self).MulScalar(math.Ln10)))
	}))
	def("aten::log1p", fn(func(c *Ctx) {
		at := args.Log1pAt()
		c.Set(at.Self, c.G(0).Div(c.T(at.Self).AddScalar(1)))
	}))
	def("aten::log2", fn(func(c *Ctx) {
		at := args.Log2At()
		c.Set(at.Self, c.G(0).Div(c.T(at.Self).MulScalar(math.Ln2)))
	}))
	def("aten::neg", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.NegAt()
		c.Set(at.Self, c.G(0).Neg())
	}})
	def("aten::reciprocal", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.ReciprocalAt()
		r := c.Out(0)
		c.Set(at.Self, c.G(0).Neg().Mul(r.Mul(r)))
	}})
	def("aten::relu", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.ReluAt()
		c.Set(at.Self, tensor.ThresholdBackward(c.G(0), c.Out(0), 0))
	}})
	def("aten::rsqrt", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.RsqrtAt()
		r := c.Out(0)
		c.Set(at.Self, c.G(0).MulScalar(-0.5).Mul(r.PowScalar(3)))
	}})
	def("aten::sigmoid", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.SigmoidAt()
		c.Set(at.Self, tensor.SigmoidBackward(c.G(0), c.Out(0)))
	}})
	def("aten::sin", fn(func(c *Ctx) {
		at := args.SinAt()
		c.Set(at.Self, c.G(0).Mul(c.T(at.Self).Cos()))
	}))
	def("aten::sinh", fn(func(c *Ctx) {
		at := args.SinhAt()
		c.Set(at.Self, c.G(0).Mul(c.T(at.Self).Cosh()))
	}))
	def("aten::sqrt", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.SqrtAt()
		c.Set(at.Self, c.G(0).Div(c.Out(0).MulScalar(2)))
	}})
	def("aten::tan", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.TanAt()
		r := c.Out(0)
		c.Set(at.Self, c.G(0).Mul(r.Mul(r).AddScalar(1)))
	}})
	def("aten::tanh", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.TanhAt()
		c.Set(at.Self, tensor.TanhBackward(c.G(0), c.Out(0)))
	}})
	// gelu(Tensor self, *, str approximate='none')
	def("aten::gelu", fn(func(c *Ctx) {
		p, at := args.GeluOf(c.Args()), args.GeluAt()
		c.Set(at.Self, callKwT("aten::gelu_backward", []any{c.G(0), c.T(at.Self)}, map[string]any{"approximate": p.Approximate}))
	}))
	// elu(Tensor self, Scalar alpha, Scalar scale, Scalar input_scale) and
	// hardtanh(Tensor self, Scalar min_val, Scalar max_val): their backward
	// ops, which give a NaN input 1.13's gradient for its position (the
	// vectorized and the scalar loop of the kernel differ there).
	def("aten::elu", fn(func(c *Ctx) {
		p, at := args.EluOf(c.Args()), args.EluAt()
		c.Set(at.Self, callT("aten::elu_backward", c.G(0), p.Alpha, p.Scale, p.InputScale, false, c.T(at.Self)))
	}))
	def("aten::hardtanh", fn(func(c *Ctx) {
		p, at := args.HardtanhOf(c.Args()), args.HardtanhAt()
		c.Set(at.Self, callT("aten::hardtanh_backward", c.G(0), c.T(at.Self), p.MinVal, p.MaxVal))
	}))
	// leaky_relu(Tensor self, Scalar negative_slope)
	def("aten::leaky_relu", fn(func(c *Ctx) {
		p, at := args.LeakyReluOf(c.Args()), args.LeakyReluAt()
		c.Set(at.Self, tensor.LeakyReluBackward(c.G(0), c.T(at.Self), p.NegativeSlope, false))
	}))
	// clamp(Tensor self, Scalar? min, Scalar? max)
	def("aten::clamp", fn(func(c *Ctx) {
		p, at := args.ClampOf(c.Args()), args.ClampAt()
		x, g := c.T(at.Self), c.G(0)
		lo, hi := p.Min, p.Max
		switch {
		case lo.Ok && hi.Ok:
			c.Set(at.Self, where0(x.GeScalar(lo.V).LogicalAnd(x.LeScalar(hi.V)), g))
		case lo.Ok:
			c.Set(at.Self, where0(x.GeScalar(lo.V), g))
		case hi.Ok:
			c.Set(at.Self, where0(x.LeScalar(hi.V), g))
		default:
			c.Set(at.Self, g)
		}
	}))
	// clamp.Tensor(Tensor self, Tensor? min, Tensor? max)
	def("aten::clamp.Tensor", fn(clampTensorBackward))
	// fill.Scalar(Tensor self, Scalar value)
	def("aten::fill.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.FillAt()
		c.Set(at.Self, c.G(0).ZerosLike())
	}})
	// PyTorch does not differentiate these.
	for _, n := range []string{"aten::isinf", "aten::isnan", "aten::logical_not"} {
		def(n, nondiff("returns a bool tensor"))
	}
	def("aten::bitwise_not", nondiff("bitwise ops take and return integer or bool tensors"))
}

// clampTensorBackward is clamp.Tensor(self, min?, max?): the gradient goes
// to self inside [min, max] and to the bound that was applied outside.
func clampTensorBackward(c *Ctx) {
	at := args.ClampTensorAt()
	x, g := c.T(at.Self), c.G(0)
	lo, hi := c.T(at.Min), c.T(at.Max)
	if c.Needs(at.Self) {
		switch {
		case lo != nil && hi != nil:
			c.Set(at.Self, where0(x.Ge(lo).LogicalAnd(x.Le(hi)), g))
		case lo != nil:
			c.Set(at.Self, where0(x.Ge(lo), g))
		case hi != nil:
			c.Set(at.Self, where0(x.Le(hi), g))
		default:
			c.Set(at.Self, g)
		}
	}
	switch {
	case lo != nil && hi != nil:
		if c.Needs(at.Min) {
			c.Set(at.Min, where0(x.Lt(lo).LogicalAnd(lo.Lt(hi)), g))
		}
		if c.Needs(at.Max) {
			c.Set(at.Max, where0(x.Gt(hi).LogicalOr(hi.Lt(lo)), g))
		}
	case lo != nil:
		if c.Needs(at.Min) {
			c.Set(at.Min, where0(x.Lt(lo), g))
		}
	case hi != nil:
		if c.Needs(at.Max) {
			c.Set(at.Max, where0(x.Gt(hi), g))
		}
	}
}
