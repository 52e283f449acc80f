package functional

import (
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// View records of the core view ops (PyTorch's ViewMeta and the inverses of
// FunctionalInverses.cpp). The forward replays a view on an inner value
// with functional ops only; the reverse writes a new value of the view back
// into its base:
//
//	slice, split_with_sizes   index_select       / slice_scatter
//	select                    index.Tensor       / select_scatter
//	diagonal                  index.Tensor       / index_put
//	permute, squeeze,         index.Tensor       / the inverse dim map
//	  unsqueeze
//	view                      index.Tensor       / view back to the base's sizes
//	expand                    repeat or index    / the element written last
//	alias                     identity           / identity
//	as_strided (and any       index.Tensor over  / index_put over the
//	  other view op)            the storage        storage

func identityRec() *viewMeta {
	return &viewMeta{
		name:      "alias",
		fwd:       func(b *tensor.Tensor) *tensor.Tensor { return b },
		rev:       func(_, v *tensor.Tensor) *tensor.Tensor { return v },
		injective: true,
	}
}

// dimMapRec is a view that only moves, drops or inserts size-1 dims.
func dimMapRec(name string, a *affine) *viewMeta {
	if a.identity() {
		r := identityRec()
		r.name = name
		return r
	}
	inv := a.transposeMap()
	return &viewMeta{
		name:      name,
		fwd:       a.gather,
		rev:       func(_, v *tensor.Tensor) *tensor.Tensor { return inv.gather(v) },
		injective: true,
	}
}

func sliceRec(size, dim, start, end, step, count int) *viewMeta {
	if start == 0 && step == 1 && count == size {
		r := identityRec()
		r.name = "slice"
		return r
	}
	return &viewMeta{
		name: "slice",
		fwd:  func(b *tensor.Tensor) *tensor.Tensor { return sliceGather(b, dim, start, step, count) },
		rev: func(b, v *tensor.Tensor) *tensor.Tensor {
			return below(opSliceScat, b, v, dim, start, end, step)
		},
		injective: true,
	}
}

func selectRec(in []int, dim, index int) *viewMeta {
	out := make([]int, 0, len(in)-1)
	out = append(append(out, in[:dim]...), in[dim+1:]...)
	a := newAffine(in, out)
	for k := range in {
		switch {
		case k < dim:
			a.coef[k][k] = 1
		case k > dim:
			a.coef[k][k-1] = 1
		}
	}
	a.start[dim] = index
	return &viewMeta{
		name: "select",
		fwd:  a.gather,
		rev: func(b, v *tensor.Tensor) *tensor.Tensor {
			return below(opSelectScat, b, v, dim, index)
		},
		injective: true,
	}
}

func diagonalRec(in, out []int, offset, d1, d2 int) *viewMeta {
	a := newAffine(in, out)
	m := len(out)
	pos := 0
	for k := range in {
		if k != d1 && k != d2 {
			a.coef[k][pos] = 1
			pos++
		}
	}
	a.coef[d1][m-1], a.coef[d2][m-1] = 1, 1
	a.start[d1], a.start[d2] = max(-offset, 0), max(offset, 0)
	if out[m-1] == 0 {
		a.start[d1], a.start[d2] = 0, 0
	}
	return &viewMeta{name: "diagonal", fwd: a.gather, rev: a.scatter, injective: true}
}

func expandRec(in, out []int) *viewMeta {
	a := newAffine(in, out)
	lead := len(out) - len(in)
	// rep maps the expanded view back to the base, picking along each
	// broadcast dim the element the CPU's row-major copy writes last.
	rep := newAffine(out, in)
	for i := range out {
		if i < lead {
			rep.start[i] = out[i] - 1
			continue
		}
		k := i - lead
		if in[k] == out[i] {
			a.coef[k][i] = 1
			rep.coef[i][k] = 1
		} else {
			rep.start[i] = out[i] - 1
		}
	}
	if a.identity() {
		r := identityRec()
		r.name = "expand"
		return r
	}
	return &viewMeta{
		name: "expand",
		fwd:  a.gather,
		rev: func(b, v *tensor.Tensor) *tensor.Tensor {
			if v.Numel() == 0 {
				return b
			}
			return rep.gather(v)
		},
	}
}

func viewRec(in, out []int) *viewMeta {
	if slices.Equal(in, out) {
		r := identityRec()
		r.name = "view"
		return r
	}
	in, out = append([]int(nil), in...), append([]int(nil), out...)
	return &viewMeta{
		name:      "view",
		fwd:       func(b *tensor.Tensor) *tensor.Tensor { return reshape(b, out) },
		rev:       func(_, v *tensor.Tensor) *tensor.Tensor { return reshape(v, in) },
		injective: true,
	}
}

// storageRec addresses the storage directly: the view with layout v of the
// storage whose root has layout b.
func storageRec(b, v layout) *viewMeta {
	return &viewMeta{
		name:         "as_strided",
		fwd:          func(r *tensor.Tensor) *tensor.Tensor { return storageGather(r, b, v) },
		rev:          func(r, val *tensor.Tensor) *tensor.Tensor { return storageScatter(r, b, v, val) },
		injective:    nonOverlapping(v),
		storageLevel: true,
	}
}

// storageRecords is the cheapest chain reaching the view with layout v of a
// storage whose root has layout b.
func storageRecords(b, v layout) []*viewMeta {
	if b.equal(v) {
		return nil
	}
	return []*viewMeta{storageRec(b, v)}
}

// nonOverlapping reports whether no two elements of a view share a storage
// position (a sufficient test: each stride, smallest first, clears the
// extent of the dims below it).
func nonOverlapping(v layout) bool {
	type dim struct{ size, stride int }
	var ds []dim
	for i, s := range v.sizes {
		if s == 0 {
			return true
		}
		if s != 1 {
			ds = append(ds, dim{s, v.strides[i]})
		}
	}
	for a := 1; a < len(ds); a++ {
		for b := a; b > 0 && ds[b].stride < ds[b-1].stride; b-- {
			ds[b], ds[b-1] = ds[b-1], ds[b]
		}
	}
	ext := 1
	for _, d := range ds {
		if d.stride < ext {
			return false
		}
		ext = d.stride*(d.size-1) + ext
	}
	return true
}

// viewOutputs builds the records of a core view op's outputs. self is the
// viewed tensor, outs the outputs' metadata from the op's meta function.
// A nil record means "address the storage" (storageRec, built by newView
// against the current root).
func viewOutputs(op *tensor.Op, a []any, self *tensor.Tensor, outs []*tensor.Tensor) []*viewMeta {
	in := self.Sizes()
	n := len(in)
	s := op.Schema
	name := s.Name
	if s.Overload != "" {
		name += "." + s.Overload
	}
	switch name {
	case "alias":
		return []*viewMeta{identityRec()}
	case "view":
		return []*viewMeta{viewRec(in, outs[0].Sizes())}
	case "permute":
		dims := args.PermuteOf(a).Dims
		aff := newAffine(in, outs[0].Sizes())
		for i, d := range dims {
			aff.coef[tensor.WrapDim(d, n)][i] = 1
		}
		return []*viewMeta{dimMapRec("permute", aff)}
	case "expand":
		return []*viewMeta{expandRec(in, outs[0].Sizes())}
	case "slice.Tensor":
		p := args.SliceOf(a)
		dim := tensor.WrapDim(p.Dim, n)
		start, end := core.SliceBounds(in[dim], p.Start, p.End)
		return []*viewMeta{sliceRec(in[dim], dim, start, end, p.Step, outs[0].Sizes()[dim])}
	case "select.int":
		p := args.SelectOf(a)
		dim := tensor.WrapDim(p.Dim, n)
		index := p.Index
		if index < 0 {
			index += in[dim]
		}
		return []*viewMeta{selectRec(in, dim, index)}
	case "diagonal":
		p := args.DiagonalOf(a)
		d1, d2 := tensor.WrapDim(p.Dim1, n), tensor.WrapDim(p.Dim2, n)
		return []*viewMeta{diagonalRec(in, outs[0].Sizes(), p.Offset, d1, d2)}
	case "squeeze.dim", "squeeze.dims", "squeeze":
		aff := newAffine(in, outs[0].Sizes())
		mask := make([]bool, max(n, 1))
		switch name {
		case "squeeze.dim":
			mask[tensor.WrapDim(args.SqueezeOf(a).Dim, n)] = true
		case "squeeze.dims":
			for _, d := range args.SqueezeDimsOf(a).Dim {
				mask[tensor.WrapDim(d, n)] = true
			}
		default:
			for k := range mask {
				mask[k] = true
			}
		}
		i := 0
		for k := 0; k < n; k++ {
			if mask[k] && in[k] == 1 {
				continue
			}
			aff.coef[k][i] = 1
			i++
		}
		return []*viewMeta{dimMapRec("squeeze", aff)}
	case "unsqueeze":
		dim := tensor.WrapDim(args.UnsqueezeOf(a).Dim, n+1)
		aff := newAffine(in, outs[0].Sizes())
		for k := 0; k < n; k++ {
			if k < dim {
				aff.coef[k][k] = 1
			} else {
				aff.coef[k][k+1] = 1
			}
		}
		return []*viewMeta{dimMapRec("unsqueeze", aff)}
	case "split_with_sizes":
		dim := tensor.WrapDim(args.SplitWithSizesOf(a).Dim, n)
		recs := make([]*viewMeta, len(outs))
		start := 0
		for i, o := range outs {
			l := o.Sizes()[dim]
			recs[i] = sliceRec(in[dim], dim, start, start+l, 1, l)
			start += l
		}
		return recs
	}
	// as_strided, and any other view op: address the storage.
	return make([]*viewMeta, len(outs))
}
