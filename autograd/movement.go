package autograd

import (
	"github.com/goaten/goaten/tensor"
)

// registerMovement registers the derivatives of the movement family
// (aten/core/movement.go): copies, views, cat, flip, repeat, constant padding
// and the *_scatter inverses of views.
func registerMovement() {
	// _to_copy(Tensor self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)
	def("aten::_to_copy", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::clone", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	def("aten::alias", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0)) }})
	// copy(Tensor self, Tensor src, bool non_blocking)
	def("aten::copy", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.ZerosLike())
		}
		c.Set(1, g)
	}})
	// view(Tensor(a) self, SymInt[] size)
	def("aten::view", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Reshape(c.Sizes(0))) }})
	// expand(Tensor(a) self, SymInt[] size, *, bool implicit)
	def("aten::expand", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, sumTo(c.G(0), c.Sizes(0))) }})
	// permute(Tensor(a) self, int[] dims)
	def("aten::permute", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		dims := c.Ints(1)
		inv := make([]int, len(dims))
		for i, d := range dims {
			inv[tensor.WrapDim(d, len(dims))] = i
		}
		c.Set(0, c.G(0).Permute(inv))
	}})
	// select.int(Tensor(a) self, int dim, SymInt index)
	def("aten::select.int", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).SelectScatter(g, c.Int(1), c.Int(2)))
	}})
	// slice.Tensor(Tensor(a) self, int dim, SymInt? start, SymInt? end, SymInt step)
	def("aten::slice.Tensor", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		c.Set(0, zerosOf(g, c.Sizes(0)).SliceScatter(g, tensor.WithDim(c.Int(1)), tensor.Kw("start", c.Arg(2)), tensor.Kw("end", c.Arg(3)), tensor.WithStep(c.Int(4))))
	}})
	// diagonal(Tensor(a) self, int offset, int dim1, int dim2)
	def("aten::diagonal", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		z := zerosOf(g, c.Sizes(0))
		z.Diagonal(tensor.WithOffset(c.Int(1)), tensor.WithDim1(c.Int(2)), tensor.WithDim2(c.Int(3))).Copy_(g)
		c.Set(0, z)
	}})
	// unsqueeze(Tensor(a) self, int dim)
	def("aten::unsqueeze", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		c.Set(0, c.G(0).Squeeze(tensor.WrapDim(c.Int(1), c.In(0).Dim()+1)))
	}})
	// squeeze.dim(Tensor(a) self, int dim)
	def("aten::squeeze.dim", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g := c.G(0)
		if len(sizes) > 0 {
			d := tensor.WrapDim(c.Int(1), len(sizes))
			if sizes[d] == 1 {
				g = g.Unsqueeze(d)
			}
		}
		c.Set(0, g)
	}})
	// squeeze.dims(Tensor(a) self, int[] dim)
	def("aten::squeeze.dims", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g := c.G(0)
		if len(sizes) > 0 {
			for _, d := range reduceDims(c.Ints(1), len(sizes)) {
				if sizes[d] == 1 {
					g = g.Unsqueeze(d)
				}
			}
		}
		c.Set(0, g)
	}})
	// as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset)
	def("aten::as_strided", &Deriv{SelfUnused: true, Backward: asStridedBackward})
	// split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim)
	def("aten::split_with_sizes", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		x := c.In(0)
		d := tensor.WrapDim(c.Int(2), x.Dim())
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
				s[d] = c.Ints(1)[k]
				parts[k] = zerosOf(like, s)
			}
		}
		c.Set(0, tensor.Cat(parts, tensor.WithDim(d)))
	}})
	// cat(Tensor[] tensors, int dim)
	def("aten::cat", &Deriv{Backward: catBackward})
	// flip(Tensor self, int[] dims)
	def("aten::flip", &Deriv{SelfUnused: true, Backward: func(c *Ctx) { c.Set(0, c.G(0).Flip(c.Ints(1))) }})
	// repeat(Tensor self, SymInt[] repeats)
	def("aten::repeat", &Deriv{SelfUnused: true, Backward: repeatBackward})
	// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value)
	def("aten::constant_pad_nd", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		pad := c.Ints(1)
		neg := make([]int, len(pad))
		for i, p := range pad {
			neg[i] = -p
		}
		c.Set(0, c.G(0).ConstantPadNd(neg))
	}})
	// select_scatter(Tensor self, Tensor src, int dim, SymInt index)
	def("aten::select_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.SelectScatter(c.In(1).ZerosLike(), c.Int(2), c.Int(3)))
		}
		if c.Needs(1) {
			c.Set(1, g.Select(c.Int(2), c.Int(3)))
		}
	}})
	// slice_scatter(Tensor self, Tensor src, int dim, SymInt? start, SymInt? end, SymInt step)
	def("aten::slice_scatter", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		g := c.G(0)
		if c.Needs(0) {
			c.Set(0, g.SliceScatter(c.In(1).ZerosLike(), tensor.WithDim(c.Int(2)), tensor.Kw("start", c.Arg(3)), tensor.Kw("end", c.Arg(4)), tensor.WithStep(c.Int(5))))
		}
		if c.Needs(1) {
			c.Set(1, g.Slice(tensor.WithDim(c.Int(2)), tensor.Kw("start", c.Arg(3)), tensor.Kw("end", c.Arg(4)), tensor.WithStep(c.Int(5))))
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
	x, g := c.In(0), c.G(0)
	if g.Numel() == 0 || x.Numel() == 0 {
		c.Set(0, zerosOf(g, x.Sizes()))
		return
	}
	outOff := tensor.OptInt(c.Arg(3), x.StorageOffset())
	posOut := positions(c.Ints(1), c.Ints(2), outOff)
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
	c.Set(0, gi.View(x.Shape()))
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
	ts := c.Arg(0).([]*T)
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
			c.SetAt(0, j, zerosOf(g, []int{0}))
		}
		return
	}
	dim := tensor.WrapDim(c.Int(1), rank)
	off := 0
	for j, t := range ts {
		if t.Dim() == 1 && t.Size(0) == 0 {
			c.SetAt(0, j, zerosOf(g, []int{0}))
			continue
		}
		n := t.Size(dim)
		if c.NeedsAt(0, j) {
			c.SetAt(0, j, g.Slice(tensor.WithDim(dim), tensor.WithStart(off), tensor.WithEnd(off+n)))
		}
		off += n
	}
}

// repeatBackward sums the gradient over the repeated blocks.
func repeatBackward(c *Ctx) {
	sizes := c.Sizes(0)
	reps := c.Ints(1)
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
		c.Set(0, g)
		return
	}
	c.Set(0, g.Reshape(shape).Sum(sum).Reshape(sizes))
}
