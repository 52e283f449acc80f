package autograd

import (
	"math"

	"github.com/goaten/goaten/tensor"
)

// Formulas too long to sit in the table.

// clampTensorBackward is clamp.Tensor(self, min?, max?): the gradient goes
// to self inside [min, max] and to the bound that was applied outside.
func clampTensorBackward(c *Ctx) {
	x, g := c.T(0), c.G(0)
	lo, hi := c.T(1), c.T(2)
	if c.Needs(0) {
		switch {
		case lo != nil && hi != nil:
			c.Set(0, where0(x.Ge(lo).LogicalAnd(x.Le(hi)), g))
		case lo != nil:
			c.Set(0, where0(x.Ge(lo), g))
		case hi != nil:
			c.Set(0, where0(x.Le(hi), g))
		default:
			c.Set(0, g)
		}
	}
	switch {
	case lo != nil && hi != nil:
		if c.Needs(1) {
			c.Set(1, where0(x.Lt(lo).LogicalAnd(lo.Lt(hi)), g))
		}
		if c.Needs(2) {
			c.Set(2, where0(x.Gt(hi).LogicalOr(hi.Lt(lo)), g))
		}
	case lo != nil:
		if c.Needs(1) {
			c.Set(1, where0(x.Lt(lo), g))
		}
	case hi != nil:
		if c.Needs(2) {
			c.Set(2, where0(x.Gt(hi), g))
		}
	}
}

// minMaxBackward is maximum/minimum: ties split the gradient in half.
func minMaxBackward(c *Ctx, isMax bool) {
	x, y, g := c.T(0), c.T(1), c.G(0)
	half := tensor.Where(x.Eq(y), g.DivScalar(2), g)
	lt, gt := x.Lt(y), x.Gt(y)
	if !isMax {
		lt, gt = gt, lt
	}
	if c.Needs(0) {
		c.Set(0, half.MaskedFillScalar(lt, 0.0))
	}
	if c.Needs(1) {
		c.Set(1, half.MaskedFillScalar(gt, 0.0))
	}
}

// prodBackward is the gradient of prod over all elements, exact where the
// input has a zero.
func prodBackward(g, x, result *T) *T {
	if x.Dim() == 0 {
		return g
	}
	if !hasData(x) {
		// Which formula applies depends on the values; any has the right metadata.
		return prodSafeZeros(g, x.Contiguous().View([]int{-1}), 0).View(x.Shape())
	}
	zeros := x.EqScalar(0.0).SumAll().Item().Int64()
	switch {
	case zeros == 0:
		return g.Mul(result.Div(x))
	case zeros > 1:
		return x.ZerosLike()
	}
	return prodSafeZeros(g, x.Contiguous().View([]int{-1}), 0).View(x.Shape())
}

func prodDimBackward(g, x, result *T, dim int, keepdim bool) *T {
	if x.Dim() == 0 {
		return g
	}
	dim = tensor.WrapDim(dim, x.Dim())
	if !keepdim {
		g = g.Unsqueeze(dim)
		result = result.Unsqueeze(dim)
	}
	if hasData(x) && x.EqScalar(0.0).SumAll().Item().Int64() == 0 {
		return g.Mul(result.Div(x))
	}
	return prodSafeZeros(g, x, dim)
}

// hasData reports whether t's values can be read (not a meta tensor).
// Formulas that branch on values take a value-independent path otherwise.
func hasData(t *T) bool { return t.Device() != tensor.Meta }

// prodSafeZeros is the gradient of a product along dim as the product of
// the elements before and after each position (no division).
func prodSafeZeros(g, x *T, dim int) *T {
	if x.Numel() == 0 {
		return g.Expand(x.Sizes())
	}
	n := x.Size(dim)
	os := x.Shape()
	os[dim] = 1
	ones := g.NewOnes(os)
	excl := tensor.Cat([]*T{ones, x.Narrow(dim, 0, n-1)}, dim).Cumprod(dim)
	rev := x.Narrow(dim, 1, n-1).Flip([]int{dim})
	exclRev := tensor.Cat([]*T{ones, rev}, dim).Cumprod(dim).Flip([]int{dim})
	return g.Mul(excl.Mul(exclRev))
}

// varBackward is 2/(n - correction) * g * (x - mean).
func varBackward(g, x *T, dims []int, all bool, corr float64, keepdim bool) *T {
	if x.Dim() == 0 || all {
		n := float64(x.Numel())
		if n == corr {
			return g.MulScalar(math.Inf(1))
		}
		return g.MulScalar(2.0 / (n - corr)).Mul(x.Sub(x.Mean()))
	}
	if !keepdim && x.Dim() > 1 {
		g = unsqueezeDims(g, dims, x.Dim())
	}
	// PyTorch 1.13 counts the elements of an empty dim list as 1 here
	// (_safe_size), though the mean runs over every dim.
	n := 1
	if len(dims) > 0 {
		n = countOf(x.Sizes(), dims)
	}
	dof := float64(n) - corr
	rd := reduceDims(dims, x.Dim())
	return g.MulScalar(2.0 / dof).Mul(x.Sub(x.MeanDim(rd, true)))
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
	store := zerosOf(g, []int{int(n)}).IndexPut([]*T{ints(posOut, g)}, g.Reshape([]int{-1}), true)
	pin := ints(posIn, g)
	gi := store.Index([]*T{pin})
	if overlap {
		cnt := zerosOf(g, []int{int(n)}).IndexPut([]*T{pin}, g.NewOnes([]int{len(posIn)}), true)
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
			c.SetAt(0, j, g.Slice(dim, off, off+n, 1))
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
	c.Set(0, g.Reshape(shape).Sum(sum, false).Reshape(sizes))
}

// padBackward folds the gradient of a reflection or replication pad back
// onto the input, one padded dim at a time.
func padBackward(reflect bool) func(c *Ctx) {
	return func(c *Ctx) {
		sizes := c.Sizes(0)
		pad := c.Ints(1)
		g := c.G(0)
		r := len(sizes)
		for k := 0; 2*k < len(pad); k++ {
			d := r - 1 - k
			n, lo := sizes[d], pad[2*k]
			L := g.Size(d)
			idx := make([]int64, L)
			for o := range idx {
				i := o - lo
				if reflect {
					if i < 0 {
						i = -i
					}
					if i >= n {
						i = 2*(n-1) - i
					}
				} else {
					i = min(max(i, 0), n-1)
				}
				idx[o] = int64(i)
			}
			s := g.Shape()
			s[d] = n
			g = indexAdd(g, s, d, ints(idx, g))
		}
		c.Set(0, g)
	}
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

// convolutionBackward is convolution: convolution_backward with the mask
// of the inputs that need a gradient.
func convolutionBackward(c *Ctx) {
	x, w, g := c.T(0), c.T(1), c.G(0)
	var biasSizes any
	if b := c.In(2); b != nil {
		biasSizes = b.Shape()
	}
	mask := []bool{c.Needs(0), c.Needs(1), c.Needs(2)}
	res := tensor.Call("aten::convolution_backward", g, x, w, biasSizes, c.Ints(3), c.Ints(4), c.Ints(5),
		c.Bool(6), c.Ints(7), c.Int(8), mask).([]*T)
	for i := 0; i < 3; i++ {
		c.Set(i, res[i])
	}
}

// convolutionDoubleBackward differentiates convolution_backward. The
// convolution is bilinear in (input, weight), so each gradient is again a
// convolution or one of its adjoints.
func convolutionDoubleBackward(c *Ctx) {
	gO, x, w := c.T(0), c.T(1), c.T(2)
	ggI, ggW, ggB := c.G(0), c.G(1), c.G(2)
	stride, pad, dil, tr, opad, groups := c.Ints(4), c.Ints(5), c.Ints(6), c.Bool(7), c.Ints(8), c.Int(9)
	conv := func(in, wt *T) *T {
		return tensor.Convolution(in, wt, nil, stride, pad, dil, tr, opad, groups)
	}
	if c.Needs(0) {
		var r *T
		if ggI != nil {
			r = conv(ggI, w)
		}
		if ggW != nil {
			t := conv(x, ggW)
			if r == nil {
				r = t
			} else {
				r = r.Add(t)
			}
		}
		if ggB != nil {
			s := make([]int, gO.Dim())
			for i := range s {
				s[i] = 1
			}
			s[1] = ggB.Numel()
			b := ggB.Reshape(s)
			if r == nil {
				r = b.Expand(gO.Sizes())
			} else {
				r = r.Add(b)
			}
		}
		c.Set(0, r)
	}
	if c.Needs(1) && ggW != nil {
		r := tensor.Call("aten::convolution_backward", gO, x, ggW, nil, stride, pad, dil, tr, opad, groups, []bool{true, false, false}).([]*T)
		c.Set(1, r[0])
	}
	if c.Needs(2) && ggI != nil {
		r := tensor.Call("aten::convolution_backward", gO, ggI, w, nil, stride, pad, dil, tr, opad, groups, []bool{false, true, false}).([]*T)
		c.Set(2, r[1])
	}
}

// distTerm is the derivative of a p-norm distance d with respect to one
// coordinate difference (the kernels of PyTorch's _cdist_backward).
func distTerm(diff, d *T, p float64) *T {
	switch {
	case p == 0:
		return diff.ZerosLike()
	case p == 1:
		return diff.Sign()
	case math.IsInf(p, 1):
		return diff.Sign().Mul(diff.Abs().Eq(d).To(diff.DType()))
	case p == 2:
		return zeroWhere(d.EqScalar(0.0), diff.Div(d))
	case p < 2:
		t := diff.Sign().Mul(diff.Abs().PowScalar(p - 1)).Div(d.PowScalar(p - 1))
		cond := d.EqScalar(0.0)
		if p < 1 {
			cond = cond.LogicalOr(diff.EqScalar(0.0))
		}
		return zeroWhere(cond, t)
	}
	t := diff.Mul(diff.Abs().PowScalar(p - 2)).Div(d.PowScalar(p - 1))
	return zeroWhere(d.EqScalar(0.0), t)
}

// cdistBackward is _cdist_forward(x1 [.., P, M], x2 [.., R, M], p).
func cdistBackward(c *Ctx) {
	x1, x2, g, d := c.T(0), c.T(1), c.G(0), c.Out(0)
	p := c.Float(2)
	diff := x1.Unsqueeze(-2).Sub(x2.Unsqueeze(-3))
	t := g.Unsqueeze(-1).Mul(distTerm(diff, d.Unsqueeze(-1), p))
	if c.Needs(0) {
		c.Set(0, t.Sum([]int{-2}, false))
	}
	if c.Needs(1) {
		c.Set(1, t.Sum([]int{-3}, false).Neg())
	}
}

// pdistBackward is _pdist_forward(self [N, M], p): distances of the pairs
// i < j in row-major order.
func pdistBackward(c *Ctx) {
	x, g, d := c.T(0), c.G(0), c.Out(0)
	n := x.Size(0)
	var I, J []int64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			I = append(I, int64(i))
			J = append(J, int64(j))
		}
	}
	if len(I) == 0 {
		c.Set(0, x.ZerosLike())
		return
	}
	ti, tj := ints(I, x), ints(J, x)
	diff := x.IndexSelect(0, ti).Sub(x.IndexSelect(0, tj))
	t := g.Unsqueeze(-1).Mul(distTerm(diff, d.Unsqueeze(-1), c.Float(1)))
	z := zerosOf(g, x.Sizes())
	c.Set(0, z.IndexAdd(0, ti, t).IndexAdd(0, tj, t.Neg()))
}

// im2col unfolds sliding blocks of an (N, C, H, W) or (C, H, W) image into
// columns (N, C*kh*kw, L): the adjoint of col2im.
func im2col(g *T, kernel, dilation, padding, stride []int) *T {
	batched := g.Dim() == 4
	if !batched {
		g = g.Unsqueeze(0)
	}
	N, C, H, W := g.Size(0), g.Size(1), g.Size(2), g.Size(3)
	ph, pw := padding[0], padding[1]
	oh := (H+2*ph-(dilation[0]*(kernel[0]-1)+1))/stride[0] + 1
	ow := (W+2*pw-(dilation[1]*(kernel[1]-1)+1))/stride[1] + 1
	p := g.ConstantPadNd([]int{pw, pw, ph, ph}, 0)
	var cols []*T
	for i := 0; i < kernel[0]; i++ {
		for j := 0; j < kernel[1]; j++ {
			h0, w0 := i*dilation[0], j*dilation[1]
			s := p.Slice(2, h0, h0+stride[0]*(oh-1)+1, stride[0]).Slice(3, w0, w0+stride[1]*(ow-1)+1, stride[1])
			cols = append(cols, s)
		}
	}
	out := tensor.Stack(cols, 2).Reshape([]int{N, C * kernel[0] * kernel[1], oh * ow})
	if !batched {
		out = out.Squeeze(0)
	}
	return out
}
