package newdevice

import (
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
)

// Pointwise ops: one function per element, computed in float64 on values
// rounded to the op's compute dtype, the result rounded to the output dtype.

// opRound rounds an operand to the dtype an op computes in: float16 and
// bfloat16 compute in float32, as PyTorch's CPU kernels do.
func opRound(d gt.DType, v float64) float64 {
	if d == gt.Float16 || d == gt.BFloat16 {
		return float64(float32(v))
	}
	return round(d, v)
}

// operand returns argument i (a tensor or a Scalar) broadcast to shape and
// rounded to the compute dtype d.
func operand(c *device.Call, i int, d gt.DType, shape []int) []float64 {
	switch x := c.Args[i].(type) {
	case *gt.Tensor:
		v := expand(x, shape)
		if x.DType() == d {
			return v
		}
		out := make([]float64, len(v))
		for j, e := range v {
			out[j] = opRound(d, e)
		}
		return out
	case gt.Scalar:
		v := make([]float64, numel(shape))
		s := opRound(d, x.Float64())
		for j := range v {
			v[j] = s
		}
		return v
	}
	return nil
}

// computeDType is the dtype a pointwise op computes in: its output's, or
// for ops returning bool (comparisons, logical ops) the inputs' common dtype.
func computeDType(c *device.Call, n int) gt.DType {
	d := c.Out[0].DType()
	if d != gt.Bool {
		return d
	}
	ops := make([]any, n)
	copy(ops, c.Args[:n])
	return gt.ResultType(ops...)
}

// unary maps f over argument 0, computed in the output dtype.
func unary(f func(x float64) float64) device.Lowering {
	return func(c *device.Call) any {
		out := c.Out[0]
		x := operand(c, 0, out.DType(), out.Sizes())
		r := make([]float64, len(x))
		for i, v := range x {
			r[i] = f(v)
		}
		return store(out, r)
	}
}

// unaryIn maps f over argument 0 in its own dtype (isnan, logical_not, ...).
func unaryIn(f func(x float64) float64) device.Lowering {
	return func(c *device.Call) any {
		x := vals(c.Tensor(0))
		r := make([]float64, len(x))
		for i, v := range x {
			r[i] = f(v)
		}
		return store(c.Out[0], r)
	}
}

// binary maps f over arguments 0 and 1 (tensors or Scalars), broadcast.
func binary(f func(a, b float64) float64) device.Lowering {
	return func(c *device.Call) any {
		out := c.Out[0]
		d := computeDType(c, 2)
		a := operand(c, 0, d, out.Sizes())
		b := operand(c, 1, d, out.Sizes())
		r := make([]float64, len(a))
		for i := range a {
			r[i] = f(a[i], b[i])
		}
		return store(out, r)
	}
}

// binaryD is binary for ops whose function depends on the compute dtype.
func binaryD(f func(d gt.DType) func(a, b float64) float64) device.Lowering {
	return func(c *device.Call) any {
		return binary(f(computeDType(c, 2)))(c)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sign(x float64) float64 { return b2f(x > 0) - b2f(x < 0) }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// floorDiv is Python's floor division on floats, as PyTorch computes it.
func floorDiv(a, b float64) float64 {
	if b == 0 {
		return a / b
	}
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div--
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	fd := math.Floor(div)
	if div-fd > 0.5 {
		fd++
	}
	return fd
}

func zeroDiv(d gt.DType, b float64) {
	if !d.IsFloat() && b == 0 {
		fail("ZeroDivisionError")
	}
}

// remainder is Python's modulo (the sign of the divisor).
func remainder(d gt.DType) func(a, b float64) float64 {
	return func(a, b float64) float64 {
		zeroDiv(d, b)
		m := math.Mod(a, b)
		if m != 0 && (b < 0) != (m < 0) {
			m += b
		}
		return m
	}
}

func fmod(d gt.DType) func(a, b float64) float64 {
	return func(a, b float64) float64 {
		zeroDiv(d, b)
		return math.Mod(a, b)
	}
}

func divMode(c *device.Call) any {
	mode := c.String(2, "")
	d := computeDType(c, 2)
	return binary(func(a, b float64) float64 {
		switch mode {
		case "trunc":
			zeroDiv(d, b)
			return math.Trunc(a / b)
		case "floor":
			zeroDiv(d, b)
			if !d.IsFloat() {
				return math.Floor(a / b)
			}
			return floorDiv(a, b)
		}
		return a / b
	})(c)
}

// addSub computes a + alpha*b (sign -1 for sub).
func addSub(sign float64) device.Lowering {
	return func(c *device.Call) any {
		alpha, _ := c.Scalar(2)
		al := sign * alpha.Float64()
		return binary(func(a, b float64) float64 { return a + al*b })(c)
	}
}

func powF(d gt.DType) func(a, b float64) float64 {
	return func(a, b float64) float64 {
		if !d.IsFloat() && b < 0 {
			if a == 1 {
				return 1
			}
			if a == -1 {
				return 1 - 2*math.Abs(math.Mod(b, 2))
			}
			fail("Integers to negative integer powers are not allowed.")
		}
		return math.Pow(a, b)
	}
}

func bitwise(f func(a, b int64) int64) func(a, b float64) float64 {
	return func(a, b float64) float64 { return float64(f(int64(a), int64(b))) }
}

func nanMax(a, b float64) float64 {
	if a != a || b != b {
		return math.NaN()
	}
	return math.Max(a, b)
}

func nanMin(a, b float64) float64 {
	if a != a || b != b {
		return math.NaN()
	}
	return math.Min(a, b)
}

// clampVals clamps x with optional limits as PyTorch does: a NaN input stays
// NaN, two limits of which one is NaN give NaN.
func clampVals(x, lo, hi []float64) []float64 {
	r := make([]float64, len(x))
	for i, v := range x {
		switch {
		case lo != nil && hi != nil && (lo[i] != lo[i] || hi[i] != hi[i]):
			v = math.NaN()
		case lo != nil && hi != nil:
			if v < lo[i] {
				v = lo[i]
			}
			if hi[i] < v {
				v = hi[i]
			}
		case lo != nil:
			v = nanMax(v, lo[i])
		case hi != nil:
			v = nanMin(v, hi[i])
		}
		r[i] = v
	}
	return r
}

func clamp(c *device.Call) any {
	out := c.Out[0]
	d, shape := out.DType(), out.Sizes()
	x := operand(c, 0, d, shape)
	var lo, hi []float64
	if c.Args[1] != nil {
		lo = operand(c, 1, d, shape)
	}
	if c.Args[2] != nil {
		hi = operand(c, 2, d, shape)
	}
	if c.Name() == "aten::clamp" {
		// clamp with Scalar limits: a lone NaN limit is ignored.
		if lo != nil && hi == nil && lo[0] != lo[0] {
			lo = nil
		}
		if hi != nil && lo == nil && hi[0] != hi[0] {
			hi = nil
		}
		if lo != nil && hi == nil {
			r := make([]float64, len(x))
			for i, v := range x {
				r[i] = v
				if v < lo[i] {
					r[i] = lo[i]
				}
			}
			return store(out, r)
		}
		if hi != nil && lo == nil {
			r := make([]float64, len(x))
			for i, v := range x {
				r[i] = v
				if hi[i] < v {
					r[i] = hi[i]
				}
			}
			return store(out, r)
		}
	}
	return store(out, clampVals(x, lo, hi))
}

func hardtanh(c *device.Call) any {
	lo, _ := c.Scalar(1)
	hi, _ := c.Scalar(2)
	out := c.Out[0]
	x := operand(c, 0, out.DType(), out.Sizes())
	l, h := opRound(out.DType(), lo.Float64()), opRound(out.DType(), hi.Float64())
	r := make([]float64, len(x))
	for i, v := range x {
		if l != l || h != h {
			v = math.NaN()
		}
		if v < l {
			v = l
		}
		if h < v {
			v = h
		}
		r[i] = v
	}
	return store(out, r)
}

func where(c *device.Call) any {
	out := c.Out[0]
	cond := expand(c.Tensor(0), out.Sizes())
	a := operand(c, 1, out.DType(), out.Sizes())
	b := operand(c, 2, out.DType(), out.Sizes())
	r := make([]float64, len(a))
	for i := range r {
		if cond[i] != 0 {
			r[i] = a[i]
		} else {
			r[i] = b[i]
		}
	}
	return store(out, r)
}

func gelu(c *device.Call) any {
	f := func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
	tanh, reduced := c.String(1, "none") == "tanh", c.Out[0].DType() == gt.BFloat16
	switch {
	case tanh && reduced:
		f = func(x float64) float64 {
			beta, kappa := bf16(0.7978845608028654), bf16(0.044715)
			inner := bf16(beta * bf16(x+bf16(kappa*bf16(bf16(x*x)*x))))
			return bf16(bf16(0.5*x) * bf16(1+bf16(math.Tanh(inner))))
		}
	case tanh:
		f = func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(0.7978845608028654*(x+0.044715*x*x*x)))
		}
	case reduced:
		// PyTorch 1.13 runs bfloat16 gelu in bfloat16 arithmetic: every
		// step rounds.
		f = func(x float64) float64 {
			return bf16(bf16(x*0.5) * bf16(1+bf16(math.Erf(bf16(x*bf16(1/math.Sqrt2))))))
		}
	}
	return unary(f)(c)
}

func elu(c *device.Call) any {
	alpha, _ := c.Scalar(1)
	scale, _ := c.Scalar(2)
	in, _ := c.Scalar(3)
	neg, pos, is := alpha.Float64()*scale.Float64(), scale.Float64(), in.Float64()
	return unary(func(x float64) float64 {
		if x <= 0 {
			return math.Expm1(x*is) * neg
		}
		return x * pos
	})(c)
}

func leakyRelu(c *device.Call) any {
	s, _ := c.Scalar(1)
	slope := opRound(c.Out[0].DType(), s.Float64())
	return unary(func(x float64) float64 {
		if x > 0 {
			return x
		}
		return x * slope
	})(c)
}

func pointwise() table {
	t := table{}
	for name, f := range map[string]func(float64) float64{
		"abs": math.Abs, "acos": math.Acos, "acosh": math.Acosh, "asin": math.Asin, "asinh": math.Asinh,
		"atan": math.Atan, "atanh": math.Atanh, "ceil": math.Ceil, "cos": math.Cos, "cosh": math.Cosh,
		"erf": math.Erf, "exp": math.Exp, "expm1": math.Expm1, "floor": math.Floor, "log": math.Log,
		"log10": math.Log10, "log1p": math.Log1p, "log2": math.Log2, "neg": func(x float64) float64 { return -x },
		"reciprocal": func(x float64) float64 { return 1 / x }, "round": math.RoundToEven,
		"rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) }, "sigmoid": sigmoid, "sign": sign,
		"sin": math.Sin, "sinh": math.Sinh, "sqrt": math.Sqrt, "tan": math.Tan, "tanh": math.Tanh,
		"trunc": math.Trunc, "relu": func(x float64) float64 {
			if x < 0 {
				return 0
			}
			return x
		},
	} {
		t["aten::"+name+".default"] = unary(f)
	}
	t.add(unaryIn(func(x float64) float64 { return b2f(x != x) }), "aten::isnan.default")
	t.add(unaryIn(func(x float64) float64 { return b2f(math.IsInf(x, 0)) }), "aten::isinf.default")
	t.add(unaryIn(func(x float64) float64 { return b2f(x == 0) }), "aten::logical_not.default")
	t.add(func(c *device.Call) any {
		if c.Tensor(0).DType() == gt.Bool {
			return unaryIn(func(x float64) float64 { return 1 - x })(c)
		}
		return unaryIn(func(x float64) float64 { return float64(^int64(x)) })(c)
	}, "aten::bitwise_not.default")
	t.add(gelu, "aten::gelu.default")
	t.add(elu, "aten::elu.default")
	t.add(leakyRelu, "aten::leaky_relu.default")
	t.add(hardtanh, "aten::hardtanh.default")
	t.add(clamp, "aten::clamp.default", "aten::clamp.Tensor")
	t.add(where, "aten::where.self")

	t.add(addSub(1), "aten::add.Tensor", "aten::add.Scalar")
	t.add(addSub(-1), "aten::sub.Tensor", "aten::sub.Scalar")
	t.add(binary(func(a, b float64) float64 { return a * b }), "aten::mul.Tensor", "aten::mul.Scalar")
	t.add(binary(func(a, b float64) float64 { return a / b }), "aten::div.Tensor", "aten::div.Scalar")
	t.add(divMode, "aten::div.Tensor_mode", "aten::div.Scalar_mode")
	t.add(binaryD(powF), "aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar", "aten::pow.Scalar")
	t.add(binary(math.Atan2), "aten::atan2.default")
	t.add(binaryD(fmod), "aten::fmod.Tensor", "aten::fmod.Scalar")
	t.add(binaryD(remainder), "aten::remainder.Tensor", "aten::remainder.Scalar")
	t.add(binary(nanMax), "aten::maximum.default")
	t.add(binary(nanMin), "aten::minimum.default")
	t.add(binary(bitwise(func(a, b int64) int64 { return a & b })), "aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar")
	t.add(binary(bitwise(func(a, b int64) int64 { return a | b })), "aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar")
	t.add(binary(bitwise(func(a, b int64) int64 { return a ^ b })), "aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar")
	t.add(binary(func(a, b float64) float64 { return b2f(a != 0 && b != 0) }), "aten::logical_and.default")
	t.add(binary(func(a, b float64) float64 { return b2f(a != 0 || b != 0) }), "aten::logical_or.default")
	t.add(binary(func(a, b float64) float64 { return b2f((a != 0) != (b != 0)) }), "aten::logical_xor.default")
	t.add(binary(func(a, b float64) float64 { return b2f(a == b) }), "aten::eq.Tensor", "aten::eq.Scalar")
	t.add(binary(func(a, b float64) float64 { return b2f(a != b) }), "aten::ne.Tensor", "aten::ne.Scalar")
	t.add(binary(func(a, b float64) float64 { return b2f(a < b) }), "aten::lt.Tensor", "aten::lt.Scalar")
	t.add(binary(func(a, b float64) float64 { return b2f(a <= b) }), "aten::le.Tensor", "aten::le.Scalar")
	t.add(binary(func(a, b float64) float64 { return b2f(a > b) }), "aten::gt.Tensor", "aten::gt.Scalar")
	t.add(binary(func(a, b float64) float64 { return b2f(a >= b) }), "aten::ge.Tensor", "aten::ge.Scalar")
	return t
}
