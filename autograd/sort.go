package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerSort registers the derivatives of the sort family
// (aten/core/sort.go): sort and topk.
func registerSort() {
	// sort(Tensor self, int dim, bool descending) -> (values, indices)
	def("aten::sort", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SortOf(c.Args()), args.SortAt()
		x := c.In(at.Self)
		d := tensor.WrapDim(p.Dim, x.Dim())
		c.Set(at.Self, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), true))
	}})
	// topk(Tensor self, SymInt k, int dim, bool largest, bool sorted) -> (values, indices)
	def("aten::topk", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.TopkOf(c.Args()), args.TopkAt()
		x := c.In(at.Self)
		d := tensor.WrapDim(p.Dim, x.Dim())
		c.Set(at.Self, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), true))
	}})
}
