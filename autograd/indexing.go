package autograd

import (
	"github.com/goaten/goaten/tensor"
)

// registerIndexing registers the derivatives of the indexing family
// (aten/core/indexing.go): index, index_put, index_select, gather, the scatters
// and masked_scatter.
func registerIndexing() {
	// index.Tensor(Tensor self, Tensor?[] indices)
	def("aten::index.Tensor", &Deriv{SelfUnused: true, NonDiff: []int{1}, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).IndexPut(c.Ts(1), g, tensor.WithAccumulate(true)))
	}})
	// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate)
	def("aten::index_put", &Deriv{SelfUnused: true, NonDiff: []int{1}, Backward: func(c *Ctx) {
		g, idx := c.G(0), c.Ts(1)
		if c.Needs(0) {
			if c.Bool(3) {
				c.Set(0, g)
			} else {
				c.Set(0, g.IndexPut(idx, c.In(2).ZerosLike()))
			}
		}
		if c.Needs(2) {
			if !hasData(g) && hasMask(idx) {
				// The indexed shape depends on a boolean mask's values.
				c.Set(2, zerosOf(g, c.Sizes(2)))
				return
			}
			c.Set(2, g.Index(idx))
		}
	}})
	// index_select(Tensor self, int dim, Tensor index)
	def("aten::index_select", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g := c.G(0)
		if len(sizes) == 0 {
			c.Set(0, g.Reshape(nil).Clone())
			return
		}
		c.Set(0, indexAdd(g, sizes, tensor.WrapDim(c.Int(1), len(sizes)), c.T(2)))
	}})
	// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad)
	def("aten::gather", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).ScatterAdd(c.Int(1), c.T(2), g))
	}})
	// scatter.src(Tensor self, int dim, Tensor index, Tensor src)
	def("aten::scatter.src", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g, idx := c.G(0), c.T(2)
		if c.Needs(0) {
			c.Set(0, g.ScatterValue(c.Int(1), idx, 0.0))
		}
		if c.Needs(3) {
			c.Set(3, g.Gather(c.Int(1), idx))
		}
	}})
	// scatter.value(Tensor self, int dim, Tensor index, Scalar value)
	def("aten::scatter.value", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0).ScatterValue(c.Int(1), c.T(2), 0.0))
	}})
	// scatter_add(Tensor self, int dim, Tensor index, Tensor src)
	def("aten::scatter_add", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0))
		if c.Needs(3) {
			c.Set(3, c.G(0).Gather(c.Int(1), c.T(2)))
		}
	}})
	// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self)
	def("aten::scatter_reduce.two", fn(scatterReduceBackward))
	// masked_scatter(Tensor self, Tensor mask, Tensor source)
	def("aten::masked_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g, mask := c.G(0), c.T(1)
		if c.Needs(0) {
			c.Set(0, g.MaskedFillScalar(mask, 0.0))
		}
		if c.Needs(2) {
			sizes := c.Sizes(2)
			if !hasData(g) {
				// Which elements are selected depends on the mask's values.
				c.Set(2, zerosOf(g, sizes))
				return
			}
			sel := g.MaskedSelect(mask)
			if diff := tensor.Numel(sizes) - sel.Numel(); diff > 0 {
				sel = tensor.Cat([]*T{sel, zerosOf(g, []int{diff})})
			}
			c.Set(2, sel.View(sizes))
		}
	}})
	// PyTorch does not differentiate these.
	def("aten::nonzero", nondiff("returns integer indices"))
}

// scatterReduceBackward follows PyTorch's scatter_reduce_backward.
func scatterReduceBackward(c *Ctx) {
	x, idx, src, g, res := c.T(0), c.T(2), c.T(3), c.G(0), c.Out(0)
	dim, reduce, incl := c.Int(1), c.Str(4), c.Bool(5)
	var gs, gsrc *T
	switch reduce {
	case "sum":
		gs = g
		gsrc = g.Gather(dim, idx)
	case "prod":
		mx := x.MaskedFillScalar(x.EqScalar(0.0), 1.0)
		mres := callKwT("aten::scatter_reduce.two", []any{mx, dim, idx, src, reduce}, map[string]any{"include_self": incl})
		gs = g.Mul(mres).Div(mx)
		srcZero := src.EqScalar(0.0)
		nz := x.ZerosLike().ScatterAdd(dim, idx, srcZero.To(x.DType())).Gather(dim, idx)
		single := srcZero.LogicalAnd(nz.EqScalar(1.0))
		msrc := src.MaskedFillScalar(single, 1.0)
		msres := callKwT("aten::scatter_reduce.two", []any{x, dim, idx, msrc, reduce}, map[string]any{"include_self": incl})
		gsrc = tensor.Where(single, g.Mul(msres).Gather(dim, idx), g.Mul(res).Gather(dim, idx).Div(src.MaskedFillScalar(srcZero, 1.0)))
	case "mean":
		var n *T
		if incl {
			n = g.OnesLike()
		} else {
			n = g.ZerosLike()
		}
		n = n.ScatterAdd(dim, idx, src.OnesLike())
		n = n.MaskedFillScalar(n.EqScalar(0.0), 1.0)
		gs = g.Div(n)
		gsrc = g.Gather(dim, idx).Div(n.Gather(dim, idx))
	case "amax", "amin":
		val := res.Gather(dim, idx)
		selfIs := x.Eq(res).To(x.DType())
		srcIs := src.Eq(val).To(x.DType())
		cnt := selfIs.ScatterAdd(dim, idx, srcIs)
		gd := g.Div(cnt)
		gs = selfIs.Mul(gd)
		gsrc = srcIs.Mul(gd.Gather(dim, idx))
	default:
		tensor.Panicf("Expected 'reduce' argument to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got %s.", reduce)
	}
	if !incl {
		gs = gs.ScatterValue(dim, idx, 0.0)
	}
	c.Set(0, gs)
	c.Set(3, gsrc)
}
