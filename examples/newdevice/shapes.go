package newdevice

import (
	"fmt"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
)

// Shape ops: copies, concatenation, padding, gathers and scatters. The
// framework runs every view op as a copy through as_strided.

// asStrided reads a strided window of the input's dense values.
func asStrided(c *device.Call) any {
	return Array{gather(vals(c.Tensor(0)), c.Ints(1), c.Ints(2), c.Int(3, 0))}
}

// same returns the input's values unchanged (view, alias: a dense value in
// row-major order is the same for any shape). Arrays are never written, so
// sharing is safe.
func same(c *device.Call) any { return c.Raw(0) }

// convert returns argument i's values broadcast to out's shape in out's dtype.
func convert(c *device.Call, i int) any {
	out := c.Out[0]
	v := expand(c.Tensor(i), out.Sizes())
	return store(out, append([]float64(nil), v...))
}

// multi returns the multi-index of flat index k in sizes.
func multi(k int, sizes []int, idx []int) []int {
	for d := len(sizes) - 1; d >= 0; d-- {
		if sizes[d] > 0 {
			idx[d] = k % sizes[d]
			k /= sizes[d]
		}
	}
	return idx
}

// flat is the row-major flat index of idx in sizes.
func flat(idx, sizes []int) int {
	k := 0
	for d, i := range idx {
		k = k*sizes[d] + i
	}
	return k
}

// checkIndex0 checks an index of gather/scatter, which must be in [0, size).
func checkIndex0(i, size, dim int) int {
	if i < 0 || i >= size {
		fail(fmt.Sprintf("index %d is out of bounds for dimension %d with size %d", i, dim, size))
	}
	return i
}

// checkIndex wraps a negative index and checks its range.
func checkIndex(i, size, dim int) int {
	if i < -size || i >= size {
		fail(fmt.Sprintf("index %d is out of bounds for dimension %d with size %d", i, dim, size))
	}
	if i < 0 {
		i += size
	}
	return i
}

func cat(c *device.Call) any {
	out := c.Out[0]
	ts := c.Tensors(0)
	dim := wrapDim(c.Int(1, 0), out.Dim())
	r := make([]float64, 0, out.Numel())
	outer := numel(out.Sizes()[:dim])
	for o := 0; o < outer; o++ {
		for _, t := range ts {
			if t.Dim() == 1 && t.Numel() == 0 && out.Dim() != 1 {
				continue // legacy empty tensors are skipped
			}
			n := numel(t.Sizes()[dim:])
			v := vals(t)
			for _, x := range v[o*n : (o+1)*n] {
				r = append(r, round(out.DType(), x))
			}
		}
	}
	return Array{r}
}

func flip(c *device.Call) any {
	x := c.Tensor(0)
	sizes := x.Sizes()
	st := contiguous(sizes)
	off := 0
	for _, d := range c.Ints(1) {
		d = wrapDim(d, len(sizes))
		if sizes[d] > 0 {
			off += (sizes[d] - 1) * st[d]
		}
		st[d] = -st[d]
	}
	return Array{gather(vals(x), sizes, st, off)}
}

func repeat(c *device.Call) any {
	x, out := c.Tensor(0), c.Out[0]
	v := vals(x)
	os := out.Sizes()
	xs := make([]int, len(os)) // x's sizes padded with leading 1s
	for i := range xs {
		xs[i] = 1
	}
	copy(xs[len(os)-x.Dim():], x.Sizes())
	r := make([]float64, out.Numel())
	idx, src := make([]int, len(os)), make([]int, len(os))
	for k := range r {
		multi(k, os, idx)
		for d := range idx {
			src[d] = idx[d] % xs[d]
		}
		r[k] = v[flat(src, xs)]
	}
	return Array{r}
}

// padGather fills out by mapping each output index to a source index per
// dim (-1: the fill value).
func padGather(x *gt.Tensor, out *gt.Tensor, fill float64, src func(d, i int) int) Array {
	v := vals(x)
	os, xs := out.Sizes(), x.Sizes()
	r := make([]float64, out.Numel())
	idx, s := make([]int, len(os)), make([]int, len(os))
	for k := range r {
		multi(k, os, idx)
		ok := true
		for d, i := range idx {
			s[d] = src(d, i)
			ok = ok && s[d] >= 0
		}
		if ok {
			r[k] = v[flat(s, xs)]
		} else {
			r[k] = fill
		}
	}
	return store(out, r)
}

// padLo returns, per dim of a tensor of rank n, the padding added before it
// by a PyTorch pad list (last dim first, (lo, hi) pairs).
func padLo(pad []int, n int) []int {
	lo := make([]int, n)
	for i := 0; i+1 < len(pad); i += 2 {
		lo[n-1-i/2] = pad[i]
	}
	return lo
}

func constantPad(c *device.Call) any {
	x, out := c.Tensor(0), c.Out[0]
	fill, _ := c.Scalar(2)
	lo := padLo(c.Ints(1), x.Dim())
	return padGather(x, out, fill.Float64(), func(d, i int) int {
		j := i - lo[d]
		if j < 0 || j >= x.Sizes()[d] {
			return -1
		}
		return j
	})
}

func gatherOp(c *device.Call) any {
	x, index := c.Tensor(0), c.Tensor(2)
	dim := wrapDim(c.Int(1, 0), x.Dim())
	xs := x.Sizes()
	if len(xs) == 0 {
		xs = []int{1}
	}
	is := index.Sizes()
	if len(is) == 0 {
		is = []int{1}
	}
	v, iv := vals(x), vals(index)
	r := make([]float64, len(iv))
	idx := make([]int, len(is))
	for k := range r {
		multi(k, is, idx)
		i := idx[dim]
		idx[dim] = checkIndex0(int(iv[k]), xs[dim], dim)
		r[k] = v[flat(idx, xs)]
		idx[dim] = i
	}
	return Array{r}
}

// scatterInto writes src values (a tensor or a Scalar) into a copy of self
// at the positions index gives along dim, combining with f.
func scatterInto(c *device.Call, srcArg int, f func(old, v float64, first bool) float64, includeSelf bool) ([]float64, []int) {
	x, index, out := c.Tensor(0), c.Tensor(2), c.Out[0]
	dim := wrapDim(c.Int(1, 0), x.Dim())
	xs := x.Sizes()
	if len(xs) == 0 {
		xs = []int{1}
	}
	is := index.Sizes()
	if len(is) == 0 {
		is = []int{1}
	}
	r := append([]float64(nil), vals(x)...)
	count := make([]int, len(r))
	touched := make([]bool, len(r))
	iv := vals(index)
	var sv []float64
	var ss []int
	if t, ok := c.Args[srcArg].(*gt.Tensor); ok {
		sv, ss = vals(t), t.Sizes()
		if len(ss) == 0 {
			ss = []int{1}
		}
	}
	idx := make([]int, len(is))
	for k := range iv {
		multi(k, is, idx)
		var val float64
		if sv != nil {
			val = sv[flat(idx, ss)]
		} else {
			s, _ := c.Scalar(srcArg)
			val = s.Float64()
		}
		i := idx[dim]
		idx[dim] = checkIndex0(int(iv[k]), xs[dim], dim)
		p := flat(idx, xs)
		idx[dim] = i
		first := !touched[p] && !includeSelf
		touched[p] = true
		r[p] = f(r[p], round(out.DType(), val), first)
		count[p]++
	}
	return r, count
}

func scatterOp(c *device.Call) any {
	r, _ := scatterInto(c, 3, func(_, v float64, _ bool) float64 { return v }, true)
	return store(c.Out[0], r)
}

func scatterAdd(c *device.Call) any {
	r, _ := scatterInto(c, 3, func(o, v float64, _ bool) float64 { return o + v }, true)
	return store(c.Out[0], r)
}

func scatterReduce(c *device.Call) any {
	reduce, include := c.String(4, "sum"), c.Bool(5, true)
	var f func(o, v float64, first bool) float64
	switch reduce {
	case "sum", "mean":
		f = func(o, v float64, first bool) float64 {
			if first {
				return v
			}
			return o + v
		}
	case "prod":
		f = func(o, v float64, first bool) float64 {
			if first {
				return v
			}
			return o * v
		}
	case "amax":
		f = func(o, v float64, first bool) float64 {
			if first {
				return v
			}
			return nanMax(o, v)
		}
	case "amin":
		f = func(o, v float64, first bool) float64 {
			if first {
				return v
			}
			return nanMin(o, v)
		}
	}
	r, count := scatterInto(c, 3, f, include)
	if reduce == "mean" {
		for p := range r {
			n := count[p]
			if include {
				n++
			}
			if n > 0 {
				r[p] /= float64(n)
				if !c.Out[0].DType().IsFloat() {
					r[p] = floorDiv(r[p]*float64(n), float64(n))
				}
			}
		}
	}
	return store(c.Out[0], r)
}

// advanced lays out an advanced index (long index tensors or nil per dim of
// x) and calls f with, for every element of the result, its flat index in
// the result and the flat index it reads in x.
func advanced(x *gt.Tensor, indices []*gt.Tensor, f func(k, src int)) {
	xs := x.Sizes()
	ix := make([]*gt.Tensor, len(xs))
	copy(ix, indices)
	var shapes [][]int
	first, last := -1, -1
	for d, t := range ix {
		if t != nil {
			if first < 0 {
				first = d
			}
			last = d
			shapes = append(shapes, t.Sizes())
		}
	}
	bshape := broadcastShapes(shapes)
	front := false
	for d := first; d <= last; d++ {
		front = front || ix[d] == nil
	}
	// Result dims: for each, -1 for a broadcast index dim (bd) or the x dim it slices.
	var res []int
	var from []int
	addSlices := func(lo, hi int) {
		for d := lo; d < hi; d++ {
			if ix[d] == nil {
				res = append(res, xs[d])
				from = append(from, d)
			}
		}
	}
	addB := func() {
		for i, s := range bshape {
			res = append(res, s)
			from = append(from, -1-i)
		}
	}
	if front {
		addB()
		addSlices(0, len(xs))
	} else {
		addSlices(0, first)
		addB()
		addSlices(first, len(xs))
	}
	vs := make([][]float64, len(ix))
	for d, t := range ix {
		if t != nil {
			vs[d] = expand(t, bshape)
		}
	}
	n := numel(res)
	idx, bidx, src := make([]int, len(res)), make([]int, len(bshape)), make([]int, len(xs))
	for k := 0; k < n; k++ {
		multi(k, res, idx)
		for i, d := range from {
			if d >= 0 {
				src[d] = idx[i]
			} else {
				bidx[-1-d] = idx[i]
			}
		}
		b := flat(bidx, bshape)
		for d := range ix {
			if ix[d] != nil {
				src[d] = checkIndex(int(vs[d][b]), xs[d], d)
			}
		}
		f(k, flat(src, xs))
	}
}

func broadcastShapes(shapes [][]int) []int {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, v := range s {
			j := n - len(s) + i
			if v != 1 {
				out[j] = v
			}
		}
	}
	return out
}

func index(c *device.Call) any {
	x := c.Tensor(0)
	v := vals(x)
	r := make([]float64, c.Out[0].Numel())
	advanced(x, c.Tensors(1), func(k, src int) { r[k] = v[src] })
	return Array{r}
}

func indexPut(c *device.Call) any {
	x, values, out := c.Tensor(0), c.Tensor(2), c.Out[0]
	acc := c.Bool(3, false)
	r := append([]float64(nil), vals(x)...)
	var writes []int
	advanced(x, c.Tensors(1), func(k, src int) { writes = append(writes, src) })
	// The values broadcast to the indexing result's shape, in row-major order.
	n := len(writes)
	vv := vals(values)
	vs := values.Sizes()
	get := func(k int) float64 {
		if values.Numel() == 1 {
			return vv[0]
		}
		if values.Numel() == n {
			return vv[k]
		}
		return vv[k%max(numel(vs), 1)]
	}
	for k, p := range writes {
		if acc {
			r[p] += round(out.DType(), get(k))
		} else {
			r[p] = get(k)
		}
	}
	return store(out, r)
}

func indexSelect(c *device.Call) any {
	x, index, out := c.Tensor(0), c.Tensor(2), c.Out[0]
	dim := wrapDim(c.Int(1, 0), x.Dim())
	xs := x.Sizes()
	if len(xs) == 0 {
		xs = []int{1}
	}
	os := out.Sizes()
	if len(os) == 0 {
		os = []int{1}
	}
	v, iv := vals(x), vals(index)
	r := make([]float64, out.Numel())
	idx := make([]int, len(os))
	for k := range r {
		multi(k, os, idx)
		j := int(iv[idx[dim]])
		if j < 0 || j >= xs[dim] {
			fail("index out of range in self")
		}
		idx[dim] = j
		r[k] = v[flat(idx, xs)]
	}
	return Array{r}
}

func maskedScatter(c *device.Call) any {
	out := c.Out[0]
	self := expand(c.Tensor(0), out.Sizes())
	mask := expand(c.Tensor(1), out.Sizes())
	src := vals(c.Tensor(2))
	r := append([]float64(nil), self...)
	j := 0
	for k, m := range mask {
		if m != 0 && m != 1 {
			fail("masked_scatter: Mask tensor can take 0 and 1 values only")
		}
		if m != 0 {
			if j >= len(src) {
				fail("masked_scatter: expected source to have at least as many elements as ones in mask")
			}
			r[k] = src[j]
			j++
		}
	}
	return Array{r}
}

// scatterWindow writes src into a copy of self through a strided window
// (sizes, strides, offset in self's dense layout).
func scatterWindow(c *device.Call, sizes, strides []int, offset int) any {
	self, src, out := c.Tensor(0), c.Tensor(1), c.Out[0]
	r := append([]float64(nil), vals(self)...)
	sv := expand(src, sizes)
	idx := make([]int, len(sizes))
	for k, v := range sv {
		multi(k, sizes, idx)
		p := offset
		for d, i := range idx {
			p += i * strides[d]
		}
		r[p] = v
	}
	return store(out, r)
}

func selectScatter(c *device.Call) any {
	x := c.Tensor(0)
	xs, st := x.Sizes(), contiguous(x.Sizes())
	dim := wrapDim(c.Int(2, 0), len(xs))
	i := checkIndex(c.Int(3, 0), xs[dim], dim)
	sizes := append(append([]int(nil), xs[:dim]...), xs[dim+1:]...)
	strides := append(append([]int(nil), st[:dim]...), st[dim+1:]...)
	return scatterWindow(c, sizes, strides, i*st[dim])
}

func sliceScatter(c *device.Call) any {
	x := c.Tensor(0)
	xs, st := x.Sizes(), contiguous(x.Sizes())
	dim := wrapDim(c.Int(2, 0), len(xs))
	step := c.Int(5, 1)
	n := xs[dim]
	start, end := c.Int(3, 0), c.Int(4, n)
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = min(max(start, 0), n), min(max(end, 0), n)
	if end < start {
		end = start
	}
	sizes := append([]int(nil), xs...)
	sizes[dim] = (end - start + step - 1) / step
	strides := append([]int(nil), st...)
	strides[dim] *= step
	return scatterWindow(c, sizes, strides, start*st[dim])
}

func nonzero(c *device.Call) any {
	x := c.Tensor(0)
	xs := x.Sizes()
	var r []float64
	idx := make([]int, len(xs))
	n := 0
	for k, v := range vals(x) {
		if v != 0 {
			multi(k, xs, idx)
			for _, i := range idx {
				r = append(r, float64(i))
			}
			n++
		}
	}
	return device.Shaped{Raw: Array{r}, Sizes: []int{n, len(xs)}}
}

func fill(c *device.Call) any {
	s, _ := c.Scalar(1)
	r := make([]float64, c.Out[0].Numel())
	for i := range r {
		r[i] = s.Float64()
	}
	return store(c.Out[0], r)
}

func shapes() table {
	t := table{}
	t.add(asStrided, "aten::as_strided.default")
	t.add(same, "aten::view.default", "aten::alias.default")
	t.add(func(c *device.Call) any { return convert(c, 0) }, "aten::clone.default", "aten::_to_copy.default")
	t.add(func(c *device.Call) any { return convert(c, 1) }, "aten::copy.default")
	t.add(cat, "aten::cat.default")
	t.add(flip, "aten::flip.default")
	t.add(repeat, "aten::repeat.default")
	t.add(constantPad, "aten::constant_pad_nd.default")
	t.add(gatherOp, "aten::gather.default")
	t.add(scatterOp, "aten::scatter.src", "aten::scatter.value")
	t.add(scatterAdd, "aten::scatter_add.default")
	t.add(scatterReduce, "aten::scatter_reduce.two")
	t.add(index, "aten::index.Tensor")
	t.add(indexPut, "aten::index_put.default")
	t.add(indexSelect, "aten::index_select.default")
	t.add(maskedScatter, "aten::masked_scatter.default")
	t.add(selectScatter, "aten::select_scatter.default")
	t.add(sliceScatter, "aten::slice_scatter.default")
	t.add(nonzero, "aten::nonzero.default")
	t.add(fill, "aten::fill.Scalar")
	t.add(func(c *device.Call) any {
		x := c.Tensor(0)
		v := vals(x)[0]
		switch {
		case x.DType().IsFloat():
			return gt.FloatScalar(v)
		case x.DType() == gt.Bool:
			return gt.BoolScalar(v != 0)
		}
		return gt.IntScalar(int64(v))
	}, "aten::_local_scalar_dense.default")
	return t
}
