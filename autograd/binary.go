package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerBinary registers the derivatives of the binary family
// (aten/core/binary.go): arithmetic on two operands, pow, atan2,
// maximum/minimum and where.
func registerBinary() {
	// add.Tensor(Tensor self, Tensor other, *, Scalar alpha)
	def("aten::add.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.AddOf(c.Args()), args.AddAt()
		c.Set(at.Self, c.G(0))
		if c.Needs(at.Other) {
			c.Set(at.Other, maybeMul(c.G(0), p.Alpha))
		}
	}})
	def("aten::add.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.AddScalarAt().Self, c.G(0)) }})
	def("aten::sub.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SubOf(c.Args()), args.SubAt()
		c.Set(at.Self, c.G(0))
		if c.Needs(at.Other) {
			c.Set(at.Other, maybeMul(c.G(0).Neg(), p.Alpha))
		}
	}})
	def("aten::sub.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.SubScalarAt().Self, c.G(0)) }})
	def("aten::mul.Tensor", fn(func(c *Ctx) {
		at := args.MulAt()
		if c.Needs(at.Self) {
			c.Set(at.Self, c.G(0).Mul(c.T(at.Other)))
		}
		if c.Needs(at.Other) {
			c.Set(at.Other, c.G(0).Mul(c.T(at.Self)))
		}
	}))
	def("aten::mul.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.MulScalarOf(c.Args()), args.MulScalarAt()
		c.Set(at.Self, c.G(0).MulScalar(p.Other))
	}})
	// div.Tensor(Tensor self, Tensor other), and div.Tensor_mode without a
	// rounding mode, at the positions of its own tensor arguments.
	divTensor := func(c *Ctx, at struct{ Self, Other int }) {
		if c.Needs(at.Self) {
			c.Set(at.Self, c.G(0).Div(c.T(at.Other)))
		}
		if c.Needs(at.Other) {
			x, y := c.T(at.Self), c.T(at.Other)
			c.Set(at.Other, c.G(0).Neg().Mul(x.Div(y).Div(y)))
		}
	}
	def("aten::div.Tensor", fn(func(c *Ctx) { divTensor(c, args.DivAt()) }))
	// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)
	def("aten::div.Tensor_mode", fn(func(c *Ctx) {
		p, at := args.DivTensorModeOf(c.Args()), args.DivTensorModeAt()
		if !p.RoundingMode.Ok {
			divTensor(c, at)
			return
		}
		c.Set(at.Self, c.G(0).ZerosLike())
		if c.Needs(at.Other) {
			c.Set(at.Other, c.G(0).ZerosLike())
		}
	}))
	def("aten::div.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.DivScalarOf(c.Args()), args.DivScalarAt()
		c.Set(at.Self, c.G(0).DivScalar(p.Other))
	}})
	def("aten::div.Scalar_mode", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.DivScalarModeOf(c.Args()), args.DivScalarModeAt()
		if !p.RoundingMode.Ok {
			c.Set(at.Self, c.G(0).DivScalar(p.Other))
		} else {
			c.Set(at.Self, c.G(0).ZerosLike())
		}
	}})
	def("aten::atan2", fn(func(c *Ctx) {
		at := args.Atan2At()
		x, y, g := c.T(at.Self), c.T(at.Other), c.G(0)
		recip := x.Mul(x).Add(y.Mul(y)).Reciprocal()
		if c.Needs(at.Self) {
			c.Set(at.Self, g.Mul(y).Mul(recip))
		}
		if c.Needs(at.Other) {
			c.Set(at.Other, g.Mul(x.Neg()).Mul(recip))
		}
	}))
	def("aten::fmod.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.FmodScalarAt().Self, c.G(0)) }})
	def("aten::fmod.Tensor", fn(func(c *Ctx) {
		at := args.FmodAt()
		c.Set(at.Self, c.G(0))
		if c.Needs(at.Other) {
			q := callKwT("aten::div.Tensor_mode", []any{c.T(at.Self), c.T(at.Other)}, map[string]any{"rounding_mode": "trunc"})
			c.Set(at.Other, c.G(0).Neg().Mul(q))
		}
	}))
	def("aten::remainder.Scalar", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.RemainderScalarAt().Self, c.G(0)) }})
	def("aten::remainder.Tensor", fn(func(c *Ctx) {
		at := args.RemainderAt()
		c.Set(at.Self, c.G(0))
		if c.Needs(at.Other) {
			q := callKwT("aten::div.Tensor_mode", []any{c.T(at.Self), c.T(at.Other)}, map[string]any{"rounding_mode": "floor"})
			c.Set(at.Other, c.G(0).Neg().Mul(q))
		}
	}))
	def("aten::maximum", fn(func(c *Ctx) { minMaxBackward(c, args.MaximumAt(), true) }))
	def("aten::minimum", fn(func(c *Ctx) { minMaxBackward(c, args.MinimumAt(), false) }))
	// pow.Tensor_Scalar(Tensor self, Scalar exponent)
	def("aten::pow.Tensor_Scalar", fn(func(c *Ctx) {
		p, at := args.PowScalarOf(c.Args()), args.PowScalarAt()
		e := p.Exponent
		if e.Float64() == 0 {
			c.Set(at.Self, c.G(0).ZerosLike())
			return
		}
		x := c.T(at.Self)
		ef := e.Float64()
		c.Set(at.Self, c.G(0).Mul(x.PowScalar(ef-1).MulScalar(ef)))
	}))
	// pow.Tensor_Tensor(Tensor self, Tensor exponent)
	def("aten::pow.Tensor_Tensor", fn(func(c *Ctx) {
		at := args.PowAt()
		x, e, g := c.T(at.Self), c.T(at.Exponent), c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, zeroWhere(e.EqScalar(0.0), g.Mul(e.Mul(x.Pow(e.SubScalar(1))))))
		}
		if c.Needs(at.Exponent) {
			cond := x.EqScalar(0.0).LogicalAnd(e.GeScalar(0))
			xp := x.To(tensor.ResultType(x, e))
			c.Set(at.Exponent, g.Mul(zeroWhere(cond, c.Out(0).Mul(xp.Log()))))
		}
	}))
	// pow.Scalar(Scalar self, Tensor exponent)
	def("aten::pow.Scalar", fn(func(c *Ctx) {
		p, at := args.PowScalarBaseOf(c.Args()), args.PowScalarBaseAt()
		base, g := p.Self, c.G(0)
		lb := g.FullLike(base).Log()
		if base.Float64() == 0 {
			c.Set(at.Exponent, g.Mul(zeroWhere(c.T(at.Exponent).GeScalar(0), c.Out(0).Mul(lb))))
			return
		}
		c.Set(at.Exponent, g.Mul(c.Out(0).Mul(lb)))
	}))
	// where.self(Tensor condition, Tensor self, Tensor other)
	def("aten::where.self", &Deriv{Backward: func(c *Ctx) {
		at := args.WhereAt()
		cond, g := c.T(at.Condition), c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, where0(cond, g))
		}
		if c.Needs(at.Other) {
			c.Set(at.Other, zeroWhere(cond, g))
		}
	}, NonDiff: []int{args.WhereAt().Condition}})
	// PyTorch does not differentiate these.
	for _, n := range []string{"aten::eq.Scalar", "aten::eq.Tensor", "aten::ne.Scalar", "aten::ne.Tensor",
		"aten::ge.Scalar", "aten::ge.Tensor", "aten::gt.Scalar", "aten::gt.Tensor", "aten::le.Scalar",
		"aten::le.Tensor", "aten::lt.Scalar", "aten::lt.Tensor", "aten::logical_and", "aten::logical_or",
		"aten::logical_xor"} {
		def(n, nondiff("returns a bool tensor"))
	}
	for _, n := range []string{"aten::bitwise_and.Scalar", "aten::bitwise_and.Tensor",
		"aten::bitwise_or.Scalar", "aten::bitwise_or.Tensor", "aten::bitwise_xor.Scalar",
		"aten::bitwise_xor.Tensor"} {
		def(n, nondiff("bitwise ops take and return integer or bool tensors"))
	}
	def("aten::atan2.out", nondiff("out= overload: PyTorch refuses autograd on out= calls with inputs that require grad"))
}

// minMaxBackward is maximum/minimum(Tensor self, Tensor other): ties split
// the gradient in half.
func minMaxBackward(c *Ctx, at struct{ Self, Other int }, isMax bool) {
	x, y, g := c.T(at.Self), c.T(at.Other), c.G(0)
	half := tensor.Where(x.Eq(y), g.DivScalar(2), g)
	lt, gt := x.Lt(y), x.Gt(y)
	if !isMax {
		lt, gt = gt, lt
	}
	if c.Needs(at.Self) {
		c.Set(at.Self, half.MaskedFillScalar(lt, 0.0))
	}
	if c.Needs(at.Other) {
		c.Set(at.Other, half.MaskedFillScalar(gt, 0.0))
	}
}
