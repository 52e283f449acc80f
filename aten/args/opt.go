package args

import (
	"strconv"

	"github.com/goaten/goaten/tensor"
)

// Opt is an optional argument that is not a pointer or a slice (int?,
// float?, bool?, str?, Scalar?, ScalarType?, Layout?, Device?,
// MemoryFormat?): V is its value when Ok, and Ok is false for None.
type Opt[T any] struct {
	V  T
	Ok bool
}

// Some is the Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{v, true} }

// Or returns the value, or def for None.
func (o Opt[T]) Or(def T) T {
	if o.Ok {
		return o.V
	}
	return def
}

// box is the canonical boxed value: nil for None.
func (o Opt[T]) box() any {
	if !o.Ok {
		return nil
	}
	return o.V
}

// badLen is the panic of a constructor given another op's argument list.
func badLen(op string, want, got int) string {
	return "args: " + op + " has " + strconv.Itoa(want) + " arguments, the list given has " + strconv.Itoa(got)
}

// The readers below do one type assertion each; nil is None.

func ten(v any) *tensor.Tensor {
	if v == nil {
		return nil
	}
	return v.(*tensor.Tensor)
}

func generator(v any) *tensor.Generator {
	if v == nil {
		return nil
	}
	return v.(*tensor.Generator)
}

func tensors(v any) []*tensor.Tensor {
	if v == nil {
		return nil
	}
	return v.([]*tensor.Tensor)
}

func ints(v any) []int {
	if v == nil {
		return nil
	}
	return v.([]int)
}

func floats(v any) []float64 {
	if v == nil {
		return nil
	}
	return v.([]float64)
}

func bools(v any) []bool {
	if v == nil {
		return nil
	}
	return v.([]bool)
}

func optInt(v any) Opt[int] {
	if v == nil {
		return Opt[int]{}
	}
	return Opt[int]{v.(int), true}
}

func optFloat(v any) Opt[float64] {
	if v == nil {
		return Opt[float64]{}
	}
	return Opt[float64]{v.(float64), true}
}

func optBool(v any) Opt[bool] {
	if v == nil {
		return Opt[bool]{}
	}
	return Opt[bool]{v.(bool), true}
}

func optString(v any) Opt[string] {
	if v == nil {
		return Opt[string]{}
	}
	return Opt[string]{v.(string), true}
}

func optScalar(v any) Opt[tensor.Scalar] {
	if v == nil {
		return Opt[tensor.Scalar]{}
	}
	return Opt[tensor.Scalar]{v.(tensor.Scalar), true}
}

func optDType(v any) Opt[tensor.DType] {
	if v == nil {
		return Opt[tensor.DType]{}
	}
	return Opt[tensor.DType]{v.(tensor.DType), true}
}

func optLayout(v any) Opt[tensor.Layout] {
	if v == nil {
		return Opt[tensor.Layout]{}
	}
	return Opt[tensor.Layout]{v.(tensor.Layout), true}
}

func optDevice(v any) Opt[tensor.Device] {
	if v == nil {
		return Opt[tensor.Device]{}
	}
	return Opt[tensor.Device]{v.(tensor.Device), true}
}

func optMemoryFormat(v any) Opt[tensor.MemoryFormat] {
	if v == nil {
		return Opt[tensor.MemoryFormat]{}
	}
	return Opt[tensor.MemoryFormat]{v.(tensor.MemoryFormat), true}
}

// The boxers give None (a nil interface) for a nil pointer or slice, as Bind
// does for an optional argument.

func boxTensor(t *tensor.Tensor) any {
	if t == nil {
		return nil
	}
	return t
}

func boxGenerator(g *tensor.Generator) any {
	if g == nil {
		return nil
	}
	return g
}

func boxTensors(v []*tensor.Tensor) any {
	if v == nil {
		return nil
	}
	return v
}

func boxInts(v []int) any {
	if v == nil {
		return nil
	}
	return v
}

func boxFloats(v []float64) any {
	if v == nil {
		return nil
	}
	return v
}

func boxBools(v []bool) any {
	if v == nil {
		return nil
	}
	return v
}
