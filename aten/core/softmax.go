package core

import "github.com/goaten/goaten/tensor"

// Meta functions of _softmax and _log_softmax.

// _softmax/_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor.
// half_to_float asks for a float32 result (PyTorch's meta allows it for any
// input; kernels that cannot convert reject it).
func softmaxMeta(op *tensor.Op, args []any) any {
	x := T(args, 0)
	tensor.WrapDim(args[1].(int), x.Dim())
	dt := x.DType()
	if args[2].(bool) {
		dt = tensor.Float32
	}
	return Like(op, args, x, dt)
}

func init() {
	defs(softmaxMeta, "aten::_softmax.default", "aten::_log_softmax.default")
}
