package core

import (
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the binary pointwise family: arithmetic, division modes,
// pow, fmod/remainder, atan2, bitwise, comparison and logical ops,
// maximum/minimum and where.
//
// Type promotion follows TensorIterator: a Scalar operand is a wrapped
// number (int64, float64 or bool) and the common dtype is result_type of the
// inputs, except that when every input already has the same dtype no
// promotion is computed at all. That is why add.Tensor(1.5, 2.5), two wrapped
// float64 numbers, gives float64 and not the default float32.

// binOperandDType is the dtype an operand enters TensorIterator with: a
// tensor's own dtype, or a Scalar's wrapped-number dtype.
func binOperandDType(o any) tensor.DType {
	switch x := o.(type) {
	case *tensor.Tensor:
		if x != nil {
			return x.DType()
		}
	case tensor.Scalar:
		return x.DType()
	}
	return tensor.Invalid
}

// CommonDType is TensorIterator's common dtype of the inputs (tensors, nil
// skipped, and Scalars as wrapped numbers): their shared dtype when they all
// agree, else tensor.ResultType.
func CommonDType(operands ...any) tensor.DType {
	first, same := tensor.Invalid, true
	for _, o := range operands {
		d := binOperandDType(o)
		if d == tensor.Invalid {
			continue
		}
		if first == tensor.Invalid {
			first = d
		} else if d != first {
			same = false
		}
	}
	if same {
		return first
	}
	return tensor.ResultType(operands...)
}

// ScalarEquals is c10::Scalar::equal against a number: a bool Scalar equals no number.
func ScalarEquals(s tensor.Scalar, v float64) bool {
	if s.IsBool() {
		return false
	}
	if s.IsFloat() {
		return s.Float64() == v
	}
	return float64(s.Int64()) == v && int64(v) == s.Int64()
}

// binaryOut is the contiguous output of a binary op with dtype dt.
func binaryOut(op *tensor.Op, list []any, dt tensor.DType, a *tensor.Tensor, b any) *tensor.Tensor {
	bt, _ := b.(*tensor.Tensor)
	return Elementwise(op, list, dt, a, bt)
}

// checkAlpha applies PyTorch's alpha_check.
func checkAlpha(dt tensor.DType, alpha tensor.Scalar) {
	tensor.Check(!alpha.IsBool() || dt == tensor.Bool, "Boolean alpha only supported for Boolean results.")
	tensor.Check(dt.IsFloat() || !alpha.IsFloat(), "For integral input tensors, argument alpha must not be a floating point number.")
}

// checkSub rejects bool operands of sub (check_sub_compat).
func checkSub(a *tensor.Tensor, b any) {
	ab, bb := a.DType() == tensor.Bool, binOperandDType(b) == tensor.Bool
	tensor.Check(!(ab && bb), "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
	tensor.Check(!(ab || bb), "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
}

// NegScalar is -s, the alpha sub passes on to add.
func NegScalar(s tensor.Scalar) tensor.Scalar {
	if s.IsFloat() {
		return tensor.Float(-s.Float64())
	}
	return tensor.Int(-s.Int64())
}

// addSubMeta checks alpha (sub converts -alpha to the common dtype, as it
// runs add's kernel with it) and returns the common-dtype output. alphaOf
// reads alpha from the overload's view.
func addSubMeta(sub bool, alphaOf func([]any) tensor.Scalar) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := args.BinaryOf(a)
		if sub {
			checkSub(p.Self, p.Other)
		}
		dt := CommonDType(p.Self, p.Other)
		alpha := alphaOf(a)
		checkAlpha(dt, alpha)
		if sub && !alpha.IsBool() {
			alpha = NegScalar(alpha)
		}
		if dt != tensor.Bool {
			CheckScalarFits(alpha, dt)
		}
		return binaryOut(op, a, dt, p.Self, p.Other)
	}
}

// commonDTypeMeta is the meta of ops whose output has the common dtype.
func commonDTypeMeta(op *tensor.Op, a []any) any {
	p := args.BinaryOf(a)
	return binaryOut(op, a, CommonDType(p.Self, p.Other), p.Self, p.Other)
}

// DivMode returns the rounding mode of a div overload, or of its in-place
// variant ("" for true division), checking it is one PyTorch knows.
func DivMode(op *tensor.Op, a []any) string {
	var m args.Opt[string]
	switch op.Schema.Overload {
	case "Tensor_mode":
		m = args.DivTensorModeOf(a).RoundingMode
	case "Scalar_mode":
		m = args.DivScalarModeOf(a).RoundingMode
	default:
		return ""
	}
	if m.Ok && m.V != "trunc" && m.V != "floor" {
		tensor.Panicf("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", m.V)
	}
	return m.V
}

func divMeta(op *tensor.Op, a []any) any {
	p := args.BinaryOf(a)
	dt := CommonDType(p.Self, p.Other)
	switch m := DivMode(op, a); m {
	case "":
		if !dt.IsFloat() {
			dt = tensor.DefaultFloat
		}
	default:
		if dt == tensor.Bool {
			NotImplementedFor("div_"+m+"_cpu", dt)
		}
	}
	return binaryOut(op, a, dt, p.Self, p.Other)
}

// intOrFloatMeta is the meta of fmod and remainder: the common dtype, bool rejected.
func intOrFloatMeta(kernel string) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := args.BinaryOf(a)
		dt := CommonDType(p.Self, p.Other)
		if dt == tensor.Bool {
			NotImplementedFor(kernel, dt)
		}
		return binaryOut(op, a, dt, p.Self, p.Other)
	}
}

func powTensorTensorMeta(op *tensor.Op, a []any) any {
	p := args.PowOf(a)
	dt := CommonDType(p.Self, p.Exponent)
	if dt == tensor.Bool {
		NotImplementedFor("pow", dt)
	}
	return binaryOut(op, a, dt, p.Self, p.Exponent)
}

// PowScalarExponentKind classifies pow.Tensor_Scalar's exponent: 0 (the
// result is all ones), 1 (a copy), or -1 for the general kernel.
func PowScalarExponentKind(exp tensor.Scalar) int {
	switch {
	case ScalarEquals(exp, 0):
		return 0
	case ScalarEquals(exp, 1):
		return 1
	}
	return -1
}

func powTensorScalarMeta(op *tensor.Op, a []any) any {
	p := args.PowScalarOf(a)
	x, exp := p.Self, p.Exponent
	tensor.Check(!(x.DType().IsIntegral(true) && !exp.IsFloat() && exp.Int64() < 0),
		"Integers to negative integer powers are not allowed.")
	dt := tensor.ResultType(x, exp)
	if PowScalarExponentKind(exp) < 0 {
		switch {
		case dt == tensor.Bool:
			NotImplementedFor("pow", dt)
		case dt.IsIntegral(false), dt == tensor.Float16:
			CheckScalarFits(exp, dt)
		case dt == tensor.BFloat16:
			if !ScalarEquals(exp, 0.5) && !ScalarEquals(exp, -0.5) && !ScalarEquals(exp, -1) {
				CheckScalarFits(exp, dt)
			}
		}
	}
	return Like(op, a, x, dt)
}

func powScalarMeta(op *tensor.Op, a []any) any {
	p := args.PowScalarBaseOf(a)
	dt := tensor.ResultType(p.Self, p.Exponent)
	if dt == tensor.Bool && !ScalarEquals(p.Self, 1) {
		NotImplementedFor("pow", dt)
	}
	return Like(op, a, p.Exponent, dt)
}

// FloatOpDType is the compute dtype of ops that promote integer inputs to the default float.
func FloatOpDType(a *tensor.Tensor, b any) tensor.DType {
	dt := CommonDType(a, b)
	if !dt.IsFloat() {
		dt = tensor.DefaultFloat
	}
	return dt
}

// atan2DType is atan2's compute dtype; 1.13's CPU kernel has no float16.
func atan2DType(a *tensor.Tensor, b any) tensor.DType {
	dt := FloatOpDType(a, b)
	if dt == tensor.Float16 {
		NotImplementedFor("atan2_cpu", dt)
	}
	return dt
}

func atan2Meta(op *tensor.Op, a []any) any {
	p := args.Atan2Of(a)
	return binaryOut(op, a, atan2DType(p.Self, p.Other), p.Self, p.Other)
}

// OutResized is the metadata an out= tensor has after PyTorch's
// resize_output to sizes: unchanged when the sizes already match, else
// contiguous at the same storage offset.
func OutResized(out *tensor.Tensor, sizes []int) *tensor.Tensor {
	if slices.Equal(out.Sizes(), sizes) {
		return tensor.NewMeta(out.Sizes(), out.Strides(), out.StorageOffset(), out.DType(), out.Device())
	}
	return tensor.NewMeta(sizes, tensor.ContiguousStrides(sizes), out.StorageOffset(), out.DType(), out.Device())
}

// CheckOutCast rejects an out= tensor that the common dtype cannot be cast to.
func CheckOutCast(common, out tensor.DType) {
	if !tensor.CanCast(common, out) {
		tensor.Panicf("result type %s can't be cast to the desired output type %s",
			CTypeName(common), CTypeName(out))
	}
}

// atan2OutMeta describes the out= tensor after the call: atan2's broadcast
// shape, out's own dtype.
func atan2OutMeta(op *tensor.Op, a []any) any {
	p := args.Atan2OutOf(a)
	dt := atan2DType(p.Self, p.Other)
	CheckOutCast(dt, p.Out.DType())
	shape := tensor.BroadcastShapes(p.Self.Sizes(), p.Other.Sizes())
	return OutResized(p.Out, shape)
}

// bitwiseMeta rejects floating common dtypes.
func bitwiseMeta(kernel string) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := args.BinaryOf(a)
		dt := CommonDType(p.Self, p.Other)
		if dt.IsFloat() {
			NotImplementedFor(kernel, dt)
		}
		return binaryOut(op, a, dt, p.Self, p.Other)
	}
}

// boolOutMeta is the meta of comparison and logical ops: a bool result of the broadcast shape.
func boolOutMeta(op *tensor.Op, a []any) any {
	p := args.BinaryOf(a)
	return binaryOut(op, a, tensor.Bool, p.Self, p.Other)
}

func whereMeta(op *tensor.Op, a []any) any {
	p := args.WhereOf(a)
	c := p.Condition
	if c.DType() != tensor.Bool && c.DType() != tensor.Uint8 {
		tensor.Panicf("where expected condition to be a boolean tensor, but got a tensor with dtype %s", CTypeName(c.DType()))
	}
	return Elementwise(op, a, tensor.ResultType(p.Self, p.Other), c, p.Self, p.Other)
}

func init() {
	def("aten::add.Tensor", addSubMeta(false, func(a []any) tensor.Scalar { return args.AddOf(a).Alpha }))
	def("aten::add.Scalar", addSubMeta(false, func(a []any) tensor.Scalar { return args.AddScalarOf(a).Alpha }))
	def("aten::sub.Tensor", addSubMeta(true, func(a []any) tensor.Scalar { return args.SubOf(a).Alpha }))
	def("aten::sub.Scalar", addSubMeta(true, func(a []any) tensor.Scalar { return args.SubScalarOf(a).Alpha }))
	defs(commonDTypeMeta, "aten::mul.Tensor", "aten::mul.Scalar", "aten::maximum.default", "aten::minimum.default")
	defs(divMeta, "aten::div.Tensor", "aten::div.Scalar", "aten::div.Tensor_mode", "aten::div.Scalar_mode")
	defs(intOrFloatMeta("fmod_cpu"), "aten::fmod.Tensor", "aten::fmod.Scalar")
	defs(intOrFloatMeta("remainder_cpu"), "aten::remainder.Tensor", "aten::remainder.Scalar")
	def("aten::pow.Tensor_Tensor", powTensorTensorMeta)
	def("aten::pow.Tensor_Scalar", powTensorScalarMeta)
	def("aten::pow.Scalar", powScalarMeta)
	def("aten::atan2.default", atan2Meta)
	def("aten::atan2.out", atan2OutMeta)
	defs(bitwiseMeta("bitwise_and_cpu"), "aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar")
	defs(bitwiseMeta("bitwise_or_cpu"), "aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar")
	defs(bitwiseMeta("bitwise_xor_cpu"), "aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar")
	defs(boolOutMeta, "aten::eq.Tensor", "aten::eq.Scalar", "aten::ne.Tensor", "aten::ne.Scalar",
		"aten::lt.Tensor", "aten::lt.Scalar", "aten::le.Tensor", "aten::le.Scalar",
		"aten::gt.Tensor", "aten::gt.Scalar", "aten::ge.Tensor", "aten::ge.Scalar",
		"aten::logical_and.default", "aten::logical_or.default", "aten::logical_xor.default")
	def("aten::where.self", whereMeta)
}
