package autograd

import (
	"github.com/goaten/goaten/tensor"
)

// registerBinary registers the derivatives of the binary family
// (aten/core/binary.go): arithmetic on two operands, pow, atan2,
// maximum/minimum and where.
func registerBinary() {
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
			c.Set(0, zeroWhere(e.EqScalar(0.0), g.Mul(e.Mul(x.Pow(e.SubScalar(1))))))
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

// minMaxBackward is maximum/minimum: ties split the gradient in half.
func minMaxBackward(c *Ctx, isMax bool) {
	x, y, g := c.T(0), c.T(1), c.G(0)
	half := tensor.Where(x.Eq(y), g.DivScalar(2), g)
	lt, gt := x.Lt(y), x.Gt(y)
	if !isMax {
		lt, gt = gt, lt
	}
	if c.Needs(0) {
		c.Set(0, half.MaskedFillScalar(lt, 0.0))
	}
	if c.Needs(1) {
		c.Set(1, half.MaskedFillScalar(gt, 0.0))
	}
}
