package autograd

import (
	"github.com/goaten/goaten/tensor"
)

// registerSort registers the derivatives of the sort family
// (aten/core/sort.go): sort and topk.
func registerSort() {
	// sort(Tensor self, int dim, bool descending) -> (values, indices)
	def("aten::sort", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(1), x.Dim())
		c.Set(0, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), true))
	}})
	// topk(Tensor self, SymInt k, int dim, bool largest, bool sorted) -> (values, indices)
	def("aten::topk", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(2), x.Dim())
		c.Set(0, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), true))
	}})
}
