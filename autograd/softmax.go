package autograd

// registerSoftmax registers the derivatives of the softmax family
// (aten/core/softmax.go).
func registerSoftmax() {
	// _softmax(Tensor self, int dim, bool half_to_float)
	def("aten::_softmax", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, callT("aten::_softmax_backward_data", c.G(0), c.Out(0), c.Int(1), c.In(0).DType()))
	}})
	def("aten::_log_softmax", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, callT("aten::_log_softmax_backward_data", c.G(0), c.Out(0), c.Int(1), c.In(0).DType()))
	}})
}
