package decomp

import (
	"github.com/goaten/goaten/tensor"
)

// Small helpers shared by the decompositions. They only build argument
// lists and call ops through the dispatcher.

type T = tensor.Tensor

// call runs an op by name with positional arguments and returns its tensor.
func call(name string, args ...any) *T { return tensor.Call(name, args...).(*T) }

// invoke runs an op by name on its canonical argument list (a view's Box:
// every argument, keyword-only ones included, in schema order).
func invoke(name string, a []any) any { return tensor.MustOp(name).Invoke(a) }

// callKw runs an op by name with keyword arguments and returns its tensor.
func callKw(name string, args []any, kw map[string]any) *T {
	return tensor.CallKw(name, args, kw).(*T)
}

// wrap makes a Python-number-like 0-d tensor: it takes part in type
// promotion as a scalar and acts as one on any device.
func wrap(v any) *T {
	s, ok := tensor.ToScalar(v)
	if !ok {
		panic("decomp: wrap of a non-number")
	}
	return tensor.WrappedNumber(s)
}

// scalarLike is a 0-d tensor holding v with dtype d on x's device.
func scalarLike(x *T, v any, d tensor.DType) *T {
	return callKw("aten::scalar_tensor", []any{v}, map[string]any{"dtype": d, "device": x.Device()})
}

// zero0 is a 0-d zero of x's dtype on x's device.
func zero0(x *T) *T { return scalarLike(x, 0, x.DType()) }

// rsub is v - x with PyTorch's promotion of a Python number v.
func rsub(v any, x *T) *T { return wrap(v).Sub(x) }

// arangeOn is arange(n) as int64 on x's device.
func arangeOn(x *T, n int) *T {
	return callKw("aten::arange.start_step", []any{0, n, 1}, map[string]any{"dtype": tensor.Int64, "device": x.Device()})
}

// fullOn is full(sizes, v) with dtype d on x's device.
func fullOn(x *T, sizes []int, v any, d tensor.DType) *T {
	return callKw("aten::full", []any{sizes, v}, map[string]any{"dtype": d, "device": x.Device()})
}

// sumDType is x.sum(dims, keepdim) with an explicit result dtype.
func sumDType(x *T, dims []int, keepdim bool, d tensor.DType) *T {
	return callKw("aten::sum.dim_IntList", []any{x, dims, keepdim}, map[string]any{"dtype": d})
}

// sumAll sums every element (dims=None).
func sumAll(x *T) *T { return tensor.Call("aten::sum.dim_IntList", x, nil).(*T) }

// divMode is div with a rounding mode ("trunc" or "floor").
func divMode(x, y *T, mode string) *T {
	return callKw("aten::div.Tensor_mode", []any{x, y}, map[string]any{"rounding_mode": mode})
}

// cloneContig copies x into a fresh contiguous tensor.
func cloneContig(x *T) *T {
	return callKw("aten::clone", []any{x}, map[string]any{"memory_format": tensor.ContiguousFormat})
}

// wrapDim wraps a possibly negative dim for a tensor of the given rank,
// with PyTorch's IndexError when out of range.
func wrapDim(d, rank int) int { return tensor.WrapDim(d, rank) }

func prod(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func iota(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Loss reductions (at::Reduction).
const (
	reduceNone = 0
	reduceMean = 1
	reduceSum  = 2
)

// applyReduction is ATen's apply_loss_reduction.
func applyReduction(loss *T, reduction int) *T {
	switch reduction {
	case reduceMean:
		return loss.Mean()
	case reduceSum:
		return sumAll(loss)
	}
	return loss
}
