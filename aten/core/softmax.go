package core

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of _softmax and _log_softmax.

// _softmax/_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor.
// half_to_float asks for a float32 result (PyTorch's meta allows it for any
// input; kernels that cannot convert reject it).
// _log_softmax's view converts to _softmax's: their arguments are the same.
func softmaxMeta(op *tensor.Op, a []any, p args.InternalSoftmax) any {
	x := p.Self
	tensor.WrapDim(p.Dim, x.Dim())
	dt := x.DType()
	if p.HalfToFloat {
		dt = tensor.Float32
	}
	return Like(op, a, x, dt)
}

func init() {
	def("aten::_softmax.default", func(op *tensor.Op, a []any) any {
		return softmaxMeta(op, a, args.InternalSoftmaxOf(a))
	})
	def("aten::_log_softmax.default", func(op *tensor.Op, a []any) any {
		return softmaxMeta(op, a, args.InternalSoftmax(args.InternalLogSoftmaxOf(a)))
	})
}
