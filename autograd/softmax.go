package autograd

import "github.com/goaten/goaten/aten/args"

// registerSoftmax registers the derivatives of the softmax family
// (aten/core/softmax.go).
func registerSoftmax() {
	// _softmax(Tensor self, int dim, bool half_to_float)
	def("aten::_softmax", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.InternalSoftmaxOf(c.Args()), args.InternalSoftmaxAt()
		c.Set(at.Self, callT("aten::_softmax_backward_data", c.G(0), c.Out(0), p.Dim, c.In(at.Self).DType()))
	}})
	def("aten::_log_softmax", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.InternalLogSoftmaxOf(c.Args()), args.InternalLogSoftmaxAt()
		c.Set(at.Self, callT("aten::_log_softmax_backward_data", c.G(0), c.Out(0), p.Dim, c.In(at.Self).DType()))
	}})
}
