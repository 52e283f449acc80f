package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerMovement registers the derivatives of the movement family
// (aten/core/movement.go): copies, views, cat, flip, repeat, constant padding
// and the *_scatter inverses of views.
func registerMovement() {
	// _to_copy(Tensor self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)
	def("aten::_to_copy", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.InternalToCopyAt().Self, c.G(0)) }})
	def("aten::clone", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.CloneAt().Self, c.G(0)) }})
	def("aten::alias", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(args.AliasAt().Self, c.G(0)) }})
	// copy(Tensor self, Tensor src, bool non_blocking)
	def("aten::copy", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.CopyAt()
		g := c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.ZerosLike())
		}
		c.Set(at.Src, g)
	}})
	// view(Tensor(a) self, SymInt[] size)
	def("aten::view", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.ViewAt()
		c.Set(at.Self, c.G(0).Reshape(c.Sizes(at.Self)))
	}})
	// expand(Tensor(a) self, SymInt[] size, *, bool implicit)
	def("aten::expand", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.ExpandAt()
		c.Set(at.Self, sumTo(c.G(0), c.Sizes(at.Self)))
	}})
	// permute(Tensor(a) self, int[] dims)
	def("aten::permute", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.PermuteOf(c.Args()), args.PermuteAt()
		inv := make([]int, len(p.Dims))
		for i, d := range p.Dims {
			inv[tensor.WrapDim(d, len(p.Dims))] = i
		}
		c.Set(at.Self, c.G(0).Permute(inv))
	}})
	// select.int(Tensor(a) self, int dim, SymInt index)
	def("aten::select.int", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SelectOf(c.Args()), args.SelectAt()
		g := c.G(0)
		c.Set(at.Self, zerosOf(g, c.Sizes(at.Self)).SelectScatter(g, p.Dim, p.Index))
	}})
	// slice.Tensor(Tensor(a) self, int dim, SymInt? start, SymInt? end, SymInt step)
	def("aten::slice.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SliceOf(c.Args()), args.SliceAt()
		g := c.G(0)
		c.Set(at.Self, zerosOf(g, c.Sizes(at.Self)).SliceScatter(g, tensor.WithDim(p.Dim), tensor.Kw("start", boxOpt(p.Start)), tensor.Kw("end", boxOpt(p.End)), tensor.WithStep(p.Step)))
	}})
	// diagonal(Tensor(a) self, int offset, int dim1, int dim2)
	def("aten::diagonal", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.DiagonalOf(c.Args()), args.DiagonalAt()
		g := c.G(0)
		z := zerosOf(g, c.Sizes(at.Self))
		z.Diagonal(tensor.WithOffset(p.Offset), tensor.WithDim1(p.Dim1), tensor.WithDim2(p.Dim2)).Copy_(g)
		c.Set(at.Self, z)
	}})
	// unsqueeze(Tensor(a) self, int dim)
	def("aten::unsqueeze", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.UnsqueezeOf(c.Args()), args.UnsqueezeAt()
		c.Set(at.Self, c.G(0).Squeeze(tensor.WrapDim(p.Dim, c.In(at.Self).Dim()+1)))
	}})
	// squeeze.dim(Tensor(a) self, int dim)
	def("aten::squeeze.dim", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SqueezeOf(c.Args()), args.SqueezeAt()
		sizes := c.Sizes(at.Self)
		g := c.G(0)
		if len(sizes) > 0 {
			d := tensor.WrapDim(p.Dim, len(sizes))
			if sizes[d] == 1 {
				g = g.Unsqueeze(d)
			}
		}
		c.Set(at.Self, g)
	}})
	// squeeze.dims(Tensor(a) self, int[] dim)
	def("aten::squeeze.dims", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SqueezeDimsOf(c.Args()), args.SqueezeDimsAt()
		sizes := c.Sizes(at.Self)
		g := c.G(0)
		if len(sizes) > 0 {
			for _, d := range reduceDims(p.Dim, len(sizes)) {
				if sizes[d] == 1 {
					g = g.Unsqueeze(d)
				}
			}
		}
		c.Set(at.Self, g)
	}})
	// as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset)
	def("aten::as_strided", &Deriv{SelfUnused: true, Backward: asStridedBackward})
	// split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim)
	def("aten::split_with_sizes", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SplitWithSizesOf(c.Args()), args.SplitWithSizesAt()
		x := c.In(at.Self)
		d := tensor.WrapDim(p.Dim, x.Dim())
		var like *T
		for k := 0; k < c.NumOut(); k++ {
			if c.G(k) != nil {
				like = c.G(k)
				break
			}
		}
		parts := make([]*T, c.NumOut())
		for k := range parts {
			if g := c.G(k); g != nil {
				parts[k] = g
			} else {
				s := x.Shape()
				s[d] = p.SplitSizes[k]
				parts[k] = zerosOf(like, s)
			}
		}
		c.Set(at.Self, tensor.Cat(parts, tensor.WithDim(d)))
	}})
	// cat(Tensor[] tensors, int dim)
	def("aten::cat", &Deriv{Backward: catBackward})
	// flip(Tensor self, int[] dims)
	def("aten::flip", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.FlipOf(c.Args()), args.FlipAt()
		c.Set(at.Self, c.G(0).Flip(p.Dims))
	}})
	// repeat(Tensor self, SymInt[] repeats)
	def("aten::repeat", &Deriv{SelfUnused: true, Backward: repeatBackward})
	// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value)
	def("aten::constant_pad_nd", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.ConstantPadNdOf(c.Args()), args.ConstantPadNdAt()
		neg := make([]int, len(p.Pad))
		for i, v := range p.Pad {
			neg[i] = -v
		}
		c.Set(at.Self, c.G(0).ConstantPadNd(neg))
	}})
	// select_scatter(Tensor self, Tensor src, int dim, SymInt index)
	def("aten::select_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SelectScatterOf(c.Args()), args.SelectScatterAt()
		g := c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.SelectScatter(c.In(at.Src).ZerosLike(), p.Dim, p.Index))
		}
		if c.Needs(at.Src) {
			c.Set(at.Src, g.Select(p.Dim, p.Index))
		}
	}})
	// slice_scatter(Tensor self, Tensor src, int dim, SymInt? start, SymInt? end, SymInt step)
	def("aten::slice_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SliceScatterOf(c.Args()), args.SliceScatterAt()
		g := c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.SliceScatter(c.In(at.Src).ZerosLike(), tensor.WithDim(p.Dim), tensor.Kw("start", boxOpt(p.Start)), tensor.Kw("end", boxOpt(p.End)), tensor.WithStep(p.Step)))
		}
		if c.Needs(at.Src) {
			c.Set(at.Src, g.Slice(tensor.WithDim(p.Dim), tensor.Kw("start", boxOpt(p.Start)), tensor.Kw("end", boxOpt(p.End)), tensor.WithStep(p.Step)))
		}
	}})
	// PyTorch does not differentiate these.
	def("aten::resize_", nondiff("in-place resize; refused on tensors that require grad, as in PyTorch"))
}

// asStridedBackward scatters the gradient through storage positions: each
// output element adds into the storage slot it read, and each input
// element takes its slot's sum (divided among input elements sharing a
// slot).
func asStridedBackward(c *Ctx) {
	p, at := args.AsStridedOf(c.Args()), args.AsStridedAt()
	x, g := c.In(at.Self), c.G(0)
	if g.Numel() == 0 || x.Numel() == 0 {
		c.Set(at.Self, zerosOf(g, x.Sizes()))
		return
	}
	outOff := p.StorageOffset.Or(x.StorageOffset())
	posOut := positions(p.Size, p.Stride, outOff)
	posIn := positions(x.Sizes(), x.Strides(), x.StorageOffset())
	n := int64(0)
	for _, p := range posOut {
		n = max(n, p+1)
	}
	seen := map[int64]bool{}
	overlap := false
	for _, p := range posIn {
		n = max(n, p+1)
		if seen[p] {
			overlap = true
		}
		seen[p] = true
	}
	store := zerosOf(g, []int{int(n)}).IndexPut([]*T{ints(posOut, g)}, g.Reshape([]int{-1}), tensor.WithAccumulate(true))
	pin := ints(posIn, g)
	gi := store.Index([]*T{pin})
	if overlap {
		cnt := zerosOf(g, []int{int(n)}).IndexPut([]*T{pin}, g.NewOnes([]int{len(posIn)}), tensor.WithAccumulate(true))
		gi = gi.Div(cnt.Index([]*T{pin}))
	}
	c.Set(at.Self, gi.View(x.Shape()))
}

// positions lists the storage offsets of the elements of a strided view,
// in row-major order.
func positions(sizes, strides []int, off int) []int64 {
	n := tensor.Numel(sizes)
	out := make([]int64, 0, n)
	if n == 0 {
		return out
	}
	idx := make([]int, len(sizes))
	p := off
	for k := 0; k < n; k++ {
		out = append(out, int64(p))
		for d := len(sizes) - 1; d >= 0; d-- {
			idx[d]++
			p += strides[d]
			if idx[d] < sizes[d] {
				break
			}
			p -= idx[d] * strides[d]
			idx[d] = 0
		}
	}
	return out
}

// catBackward slices the gradient of cat back into its inputs; legacy
// empty inputs (shape [0]) get an empty gradient.
func catBackward(c *Ctx) {
	p, at := args.CatOf(c.Args()), args.CatAt()
	ts := c.Ins(at.Tensors)
	g := c.G(0)
	rank := -1
	for _, t := range ts {
		if !(t.Dim() == 1 && t.Size(0) == 0) {
			rank = t.Dim()
			break
		}
	}
	if rank < 0 {
		for j := range ts {
			c.SetAt(at.Tensors, j, zerosOf(g, []int{0}))
		}
		return
	}
	dim := tensor.WrapDim(p.Dim, rank)
	off := 0
	for j, t := range ts {
		if t.Dim() == 1 && t.Size(0) == 0 {
			c.SetAt(at.Tensors, j, zerosOf(g, []int{0}))
			continue
		}
		n := t.Size(dim)
		if c.NeedsAt(at.Tensors, j) {
			c.SetAt(at.Tensors, j, g.Slice(tensor.WithDim(dim), tensor.WithStart(off), tensor.WithEnd(off+n)))
		}
		off += n
	}
}

// repeatBackward sums the gradient over the repeated blocks.
func repeatBackward(c *Ctx) {
	p, at := args.RepeatOf(c.Args()), args.RepeatAt()
	sizes := c.Sizes(at.Self)
	reps := p.Repeats
	g := c.G(0)
	pad := len(reps) - len(sizes)
	var shape, sum []int
	for i, r := range reps {
		if i < pad {
			sum = append(sum, len(shape))
			shape = append(shape, r)
			continue
		}
		sum = append(sum, len(shape))
		shape = append(shape, r, sizes[i-pad])
	}
	if len(sum) == 0 {
		c.Set(at.Self, g)
		return
	}
	c.Set(at.Self, g.Reshape(shape).Sum(sum).Reshape(sizes))
}
