package decomp

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// dtypes is the set of dtypes a PyTorch 1.13 CPU kernel dispatches over.
// Decompositions reject the others with PyTorch's message, so a model
// behaves the same on every device.
type dtypes uint16

func dtypeSet(ds ...tensor.DType) dtypes {
	var s dtypes
	for _, d := range ds {
		s |= 1 << d
	}
	return s
}

func (s dtypes) has(d tensor.DType) bool { return s&(1<<d) != 0 }

var (
	// AT_DISPATCH_FLOATING_TYPES
	floatsOnly = dtypeSet(tensor.Float32, tensor.Float64)
	// AT_DISPATCH_FLOATING_TYPES_AND_HALF
	floatsHalf = dtypeSet(tensor.Float32, tensor.Float64, tensor.Float16)
	// AT_DISPATCH_FLOATING_TYPES_AND(BFloat16, ...)
	floatsBF = dtypeSet(tensor.Float32, tensor.Float64, tensor.BFloat16)
	// AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half, ...)
	floatsAll = dtypeSet(tensor.Float32, tensor.Float64, tensor.BFloat16, tensor.Float16)
	// AT_DISPATCH_ALL_TYPES_AND(BFloat16, ...): integers and floats but Half and Bool
	realsBF = floatsBF | dtypeSet(tensor.Uint8, tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64)
)

// need panics with PyTorch's `"kernel" not implemented for 'Type'` when the
// kernel does not support d.
func need(kernel string, d tensor.DType, s dtypes) {
	if !s.has(d) {
		core.NotImplementedFor(kernel, d)
	}
}

// floatDType is the dtype of ops that promote integer inputs to the
// default float (xlogy, sinc, logit, ...): the result type of the operands
// when floating, else float32.
func floatDType(operands ...any) tensor.DType {
	d := tensor.ResultType(operands...)
	if !d.IsFloat() {
		return tensor.DefaultFloat
	}
	return d
}

// opmathScalar rounds a float parameter the way a kernel computing in d's
// opmath type sees it: float32 for float32 and the 16-bit floats.
func opmathScalar(v float64, d tensor.DType) float64 {
	if d == tensor.Float64 {
		return v
	}
	return float64(float32(v))
}
