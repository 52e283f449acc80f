package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerIndexing registers the derivatives of the indexing family
// (aten/core/indexing.go): index, index_put, index_select, gather, the scatters
// and masked_scatter.
func registerIndexing() {
	// index.Tensor(Tensor self, Tensor?[] indices)
	def("aten::index.Tensor", &Deriv{SelfUnused: true, NonDiff: []int{args.IndexAt().Indices}, Backward: func(c *Ctx) {
		at := args.IndexAt()
		g := c.G(0)
		c.Set(at.Self, zerosOf(g, c.Sizes(at.Self)).IndexPut(c.Ts(at.Indices), g, tensor.WithAccumulate(true)))
	}})
	// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate)
	def("aten::index_put", &Deriv{SelfUnused: true, NonDiff: []int{args.IndexPutAt().Indices}, Backward: func(c *Ctx) {
		p, at := args.IndexPutOf(c.Args()), args.IndexPutAt()
		g, idx := c.G(0), c.Ts(at.Indices)
		if c.Needs(at.Self) {
			if p.Accumulate {
				c.Set(at.Self, g)
			} else {
				c.Set(at.Self, g.IndexPut(idx, c.In(at.Values).ZerosLike()))
			}
		}
		if c.Needs(at.Values) {
			if !hasData(g) && hasMask(idx) {
				// The indexed shape depends on a boolean mask's values.
				c.Set(at.Values, zerosOf(g, c.Sizes(at.Values)))
				return
			}
			c.Set(at.Values, g.Index(idx))
		}
	}})
	// index_select(Tensor self, int dim, Tensor index)
	def("aten::index_select", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.IndexSelectOf(c.Args()), args.IndexSelectAt()
		sizes := c.Sizes(at.Self)
		g := c.G(0)
		if len(sizes) == 0 {
			c.Set(at.Self, g.Reshape(nil).Clone())
			return
		}
		c.Set(at.Self, indexAdd(g, sizes, tensor.WrapDim(p.Dim, len(sizes)), c.T(at.Index)))
	}})
	// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad)
	def("aten::gather", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.GatherOf(c.Args()), args.GatherAt()
		g := c.G(0)
		c.Set(at.Self, zerosOf(g, c.Sizes(at.Self)).ScatterAdd(p.Dim, c.T(at.Index), g))
	}})
	// scatter.src(Tensor self, int dim, Tensor index, Tensor src)
	def("aten::scatter.src", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.ScatterOf(c.Args()), args.ScatterAt()
		g, idx := c.G(0), c.T(at.Index)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.ScatterValue(p.Dim, idx, 0.0))
		}
		if c.Needs(at.Src) {
			c.Set(at.Src, g.Gather(p.Dim, idx))
		}
	}})
	// scatter.value(Tensor self, int dim, Tensor index, Scalar value)
	def("aten::scatter.value", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.ScatterValueOf(c.Args()), args.ScatterValueAt()
		c.Set(at.Self, c.G(0).ScatterValue(p.Dim, c.T(at.Index), 0.0))
	}})
	// scatter_add(Tensor self, int dim, Tensor index, Tensor src)
	def("aten::scatter_add", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.ScatterAddOf(c.Args()), args.ScatterAddAt()
		c.Set(at.Self, c.G(0))
		if c.Needs(at.Src) {
			c.Set(at.Src, c.G(0).Gather(p.Dim, c.T(at.Index)))
		}
	}})
	// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self)
	def("aten::scatter_reduce.two", fn(scatterReduceBackward))
	// masked_scatter(Tensor self, Tensor mask, Tensor source)
	def("aten::masked_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.MaskedScatterAt()
		g, mask := c.G(0), c.T(at.Mask)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.MaskedFillScalar(mask, 0.0))
		}
		if c.Needs(at.Source) {
			sizes := c.Sizes(at.Source)
			if !hasData(g) {
				// Which elements are selected depends on the mask's values.
				c.Set(at.Source, zerosOf(g, sizes))
				return
			}
			sel := g.MaskedSelect(mask)
			if diff := tensor.Numel(sizes) - sel.Numel(); diff > 0 {
				sel = tensor.Cat([]*T{sel, zerosOf(g, []int{diff})})
			}
			c.Set(at.Source, sel.View(sizes))
		}
	}})
	// PyTorch does not differentiate these.
	def("aten::nonzero", nondiff("returns integer indices"))
}

// scatterReduceBackward follows PyTorch's scatter_reduce_backward.
func scatterReduceBackward(c *Ctx) {
	p, at := args.ScatterReduceOf(c.Args()), args.ScatterReduceAt()
	x, idx, src, g, res := c.T(at.Self), c.T(at.Index), c.T(at.Src), c.G(0), c.Out(0)
	dim, reduce, incl := p.Dim, p.Reduce, p.IncludeSelf
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
	c.Set(at.Self, gs)
	c.Set(at.Src, gsrc)
}
