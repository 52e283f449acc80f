package core

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the unary family: elementwise math on one tensor
// (exp, sin, abs, ...), the activations (relu, gelu, elu, leaky_relu,
// hardtanh), clamp and fill. Every dtype rule that holds on every device is
// checked here; gaps of one backend's kernels (float16 on the CPU) are the
// backend's business.

// FloatUnaryOps are the unary ops that compute in floating point: integral
// and bool inputs give a float32 result.
var FloatUnaryOps = []string{
	"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp", "expm1",
	"log", "log10", "log1p", "log2", "reciprocal", "rsqrt", "sigmoid", "sin", "sinh", "sqrt",
	"tan", "tanh",
}

// CTypeName is the C++ name PyTorch's dispatch macros print for a dtype, as
// in `"abs_cpu" not implemented for 'Bool'`.
func CTypeName(d tensor.DType) string {
	switch d {
	case tensor.Bool:
		return "Bool"
	case tensor.Uint8:
		return "Byte"
	case tensor.Int8:
		return "Char"
	case tensor.Int16:
		return "Short"
	case tensor.Int32:
		return "Int"
	case tensor.Int64:
		return "Long"
	case tensor.Float16:
		return "Half"
	case tensor.BFloat16:
		return "BFloat16"
	case tensor.Float32:
		return "Float"
	case tensor.Float64:
		return "Double"
	}
	return d.String()
}

// NotImplementedFor panics with the message of a failed ATen dtype dispatch.
func NotImplementedFor(kernel string, d tensor.DType) {
	tensor.Panicf("%q not implemented for '%s'", kernel, CTypeName(d))
}

// cScalarName is the C++ element type c10 names in conversion errors.
func cScalarName(d tensor.DType) string {
	switch d {
	case tensor.Bool:
		return "bool"
	case tensor.Uint8:
		return "uint8_t"
	case tensor.Int8:
		return "int8_t"
	case tensor.Int16:
		return "int16_t"
	case tensor.Int32:
		return "int"
	case tensor.Int64:
		return "int64_t"
	case tensor.Float16:
		return "at::Half"
	case tensor.BFloat16:
		return "at::BFloat16"
	case tensor.Float32:
		return "float"
	case tensor.Float64:
		return "double"
	}
	return d.String()
}

// dtypeRange is the finite range of d as float64 (lowest, max).
func dtypeRange(d tensor.DType) (float64, float64) {
	switch d {
	case tensor.Uint8:
		return 0, math.MaxUint8
	case tensor.Int8:
		return math.MinInt8, math.MaxInt8
	case tensor.Int16:
		return math.MinInt16, math.MaxInt16
	case tensor.Int32:
		return math.MinInt32, math.MaxInt32
	case tensor.Int64:
		return math.MinInt64, math.MaxInt64
	case tensor.Float16:
		return -65504, 65504
	case tensor.BFloat16:
		return -3.3895313892515355e38, 3.3895313892515355e38
	case tensor.Float32:
		return -math.MaxFloat32, math.MaxFloat32
	}
	return -math.MaxFloat64, math.MaxFloat64
}

// ScalarOverflows reports whether converting v to dtype d overflows by
// c10's rule (Scalar::to<T> -> checked_convert): floats must be finite-or-
// infinite within range (NaN and infinities are fine for float dtypes only),
// negative integers may wrap into unsigned types down to -max, and bool
// never overflows.
func ScalarOverflows(v tensor.Scalar, d tensor.DType) bool {
	if d == tensor.Bool || v.IsBool() {
		return false
	}
	lo, hi := dtypeRange(d)
	if v.IsFloat() {
		f := v.Float64()
		if d.IsFloat() && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return false
		}
		if math.IsNaN(f) {
			return true
		}
		return f < lo || f > hi
	}
	i := v.Int64()
	switch d {
	case tensor.Float32, tensor.Float64, tensor.BFloat16:
		return false
	case tensor.Uint8:
		return i > math.MaxUint8 || i < -math.MaxUint8
	case tensor.Int64:
		return false
	}
	return float64(i) < lo || float64(i) > hi
}

// CheckScalarFits panics with c10's message when v cannot be converted to d.
func CheckScalarFits(v tensor.Scalar, d tensor.DType) {
	if ScalarOverflows(v, d) {
		tensor.Panicf("value cannot be converted to type %s without overflow", cScalarName(d))
	}
}

// The unary metas below serve every op of a family (floatUnaryMeta every op
// of FloatUnaryOps): they read self, the first argument of all of them.

// floatUnaryMeta: result is self's dtype if floating, else float32.
func floatUnaryMeta(op *tensor.Op, a []any) any {
	x := args.Self(a)
	return Like(op, a, x, FloatResult(x.DType()))
}

// sameDTypeMeta: result has self's dtype, any dtype allowed (sign).
func sameDTypeMeta(op *tensor.Op, a []any) any {
	return Like(op, a, args.Self(a), tensor.Invalid)
}

// boolResultMeta: isnan, isinf, logical_not.
func boolResultMeta(op *tensor.Op, a []any) any {
	return Like(op, a, args.Self(a), tensor.Bool)
}

func absMeta(op *tensor.Op, a []any) any {
	x := args.AbsOf(a).Self
	if x.DType() == tensor.Bool {
		NotImplementedFor("abs_cpu", x.DType())
	}
	return Like(op, a, x, tensor.Invalid)
}

func negMeta(op *tensor.Op, a []any) any {
	x := args.NegOf(a).Self
	tensor.Check(x.DType() != tensor.Bool, "Negation, the `-` operator, on a bool tensor is not supported. "+
		"If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
	return Like(op, a, x, tensor.Invalid)
}

// roundingMeta: ceil, floor, round, trunc keep the dtype; bool is rejected.
func roundingMeta(op *tensor.Op, a []any) any {
	x := args.Self(a)
	if x.DType() == tensor.Bool {
		NotImplementedFor(op.Schema.Name+"_vml_cpu", x.DType())
	}
	return Like(op, a, x, tensor.Invalid)
}

func bitwiseNotMeta(op *tensor.Op, a []any) any {
	x := args.BitwiseNotOf(a).Self
	if x.DType().IsFloat() {
		NotImplementedFor("bitwise_not_cpu", x.DType())
	}
	return Like(op, a, x, tensor.Invalid)
}

func reluMeta(op *tensor.Op, a []any) any {
	x := args.ReluOf(a).Self
	tensor.Check(x.DType() != tensor.Bool, "Boolean inputs not supported for relu")
	return Like(op, a, x, tensor.Invalid)
}

// GeluApproximate validates gelu's approximate argument and reports whether it is "tanh".
func GeluApproximate(s string) bool {
	tensor.Check(s == "none" || s == "tanh", "approximate argument must be either none or tanh.")
	return s == "tanh"
}

func geluMeta(op *tensor.Op, a []any) any {
	p := args.GeluOf(a)
	x := p.Self
	GeluApproximate(p.Approximate)
	if !x.DType().IsFloat() {
		NotImplementedFor("GeluKernelImpl", x.DType())
	}
	return Like(op, a, x, tensor.Invalid)
}

// floatOnlyMeta: elu and leaky_relu accept floating dtypes only.
func floatOnlyMeta(op *tensor.Op, a []any) any {
	x := args.Self(a)
	if !x.DType().IsFloat() {
		NotImplementedFor(op.Schema.Name+"_cpu", x.DType())
	}
	return Like(op, a, x, tensor.Invalid)
}

// HardtanhLimits checks hardtanh's arguments and returns the clamp limits it
// uses: for integral inputs the limits are truncated to integers first.
func HardtanhLimits(x *tensor.Tensor, minV, maxV tensor.Scalar) (tensor.Scalar, tensor.Scalar) {
	dt := x.DType()
	tensor.Check(dt != tensor.Bool, "Bool inputs not supported for hardtanh")
	if dt.IsIntegral(false) {
		CheckScalarFits(minV, tensor.Int64)
		CheckScalarFits(maxV, tensor.Int64)
		lo, hi := scalarToLong(minV), scalarToLong(maxV)
		tensor.Check(dt != tensor.Uint8 || (lo >= 0 && hi >= 0),
			"cannot do hardtanh on an unsigned type with negative limits")
		minV, maxV = tensor.Int(lo), tensor.Int(hi)
	}
	return minV, maxV
}

func scalarToLong(v tensor.Scalar) int64 {
	if v.IsFloat() {
		return tensor.FloatToInt64(v.Float64())
	}
	return v.Int64()
}

func hardtanhMeta(op *tensor.Op, a []any) any {
	p := args.HardtanhOf(a)
	x := p.Self
	lo, hi := HardtanhLimits(x, p.MinVal, p.MaxVal)
	checkClampScalars(x.DType(), &lo, &hi)
	return Like(op, a, x, tensor.Invalid)
}

// ClampScalarDType is the result dtype of clamp.default: self's dtype if
// floating, else the promotion of self with the given limits.
func ClampScalarDType(x *tensor.Tensor, lo, hi *tensor.Scalar) tensor.DType {
	dt := x.DType()
	if dt.IsFloat() {
		return dt
	}
	ops := []any{x}
	if lo != nil {
		ops = append(ops, *lo)
	}
	if hi != nil {
		ops = append(ops, *hi)
	}
	return tensor.ResultType(ops...)
}

// ClampScalarKernelName is the name of the CPU kernel clamp.default runs.
func ClampScalarKernelName(lo, hi *tensor.Scalar) string {
	switch {
	case lo != nil && hi != nil:
		return "clamp_scalar_cpu"
	case lo != nil:
		return "clamp_min_cpu"
	}
	return "clamp_max_scalar_cpu"
}

// checkClampScalars checks what clamp's kernel does with its limits in
// common dtype dt: bool is not supported, and each limit must convert to dt
// (not checked when both are given and one is NaN: the result is all NaN).
func checkClampScalars(dt tensor.DType, lo, hi *tensor.Scalar) {
	if dt == tensor.Bool {
		NotImplementedFor(ClampScalarKernelName(lo, hi), dt)
	}
	if lo != nil && hi != nil && (lo.IsNaN() || hi.IsNaN()) {
		return
	}
	if lo != nil {
		CheckScalarFits(*lo, dt)
	}
	if hi != nil {
		CheckScalarFits(*hi, dt)
	}
}

// ScalarPtr returns a pointer to an optional Scalar argument's value, nil
// for None.
func ScalarPtr(o args.Opt[tensor.Scalar]) *tensor.Scalar {
	if !o.Ok {
		return nil
	}
	return &o.V
}

const clampNoneMsg = "torch.clamp: At least one of 'min' or 'max' must not be None"

func clampMeta(op *tensor.Op, a []any) any {
	p := args.ClampOf(a)
	x := p.Self
	lo, hi := ScalarPtr(p.Min), ScalarPtr(p.Max)
	tensor.Check(lo != nil || hi != nil, clampNoneMsg)
	dt := ClampScalarDType(x, lo, hi)
	checkClampScalars(dt, lo, hi)
	return Like(op, a, x, dt)
}

func clampTensorMeta(op *tensor.Op, a []any) any {
	p := args.ClampTensorOf(a)
	x, lo, hi := p.Self, p.Min, p.Max
	tensor.Check(lo != nil || hi != nil, clampNoneMsg)
	dt := tensor.ResultType(x, lo, hi)
	out := Elementwise(op, a, dt, x, lo, hi)
	if dt == tensor.Bool && lo != nil && hi != nil {
		NotImplementedFor("clamp_cpu", dt)
	}
	return out
}

func fillScalarMeta(op *tensor.Op, a []any) any {
	p := args.FillOf(a)
	CheckScalarFits(p.Value, p.Self.DType())
	return Like(op, a, p.Self, tensor.Invalid)
}

func init() {
	for _, n := range FloatUnaryOps {
		def("aten::"+n+".default", floatUnaryMeta)
	}
	def("aten::abs.default", absMeta)
	def("aten::neg.default", negMeta)
	def("aten::sign.default", sameDTypeMeta)
	defs(roundingMeta, "aten::ceil.default", "aten::floor.default", "aten::round.default", "aten::trunc.default")
	defs(boolResultMeta, "aten::isnan.default", "aten::isinf.default", "aten::logical_not.default")
	def("aten::bitwise_not.default", bitwiseNotMeta)
	def("aten::relu.default", reluMeta)
	def("aten::gelu.default", geluMeta)
	defs(floatOnlyMeta, "aten::elu.default", "aten::leaky_relu.default")
	def("aten::hardtanh.default", hardtanhMeta)
	def("aten::clamp.default", clampMeta)
	def("aten::clamp.Tensor", clampTensorMeta)
	def("aten::fill.Scalar", fillScalarMeta)
}
