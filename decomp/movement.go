package decomp

import (
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Views, reshapes, splits and stacks. Views decompose into the core view
// ops (view, permute, slice, select, squeeze, unsqueeze, alias, as_strided),
// so they keep PyTorch's strides and share storage and version counter.

func init() {
	def("aten::_reshape_alias", reshapeAlias)
	def("aten::_unsafe_view", unsafeView)
	def("aten::reshape", reshapeOp)
	def("aten::reshape_as", reshapeAs)
	def("aten::view_as", viewAs)
	def("aten::expand_as", expandAs)
	def("aten::flatten.using_ints", flatten)
	def("aten::unflatten.int", unflatten)
	def("aten::ravel", ravel)
	def("aten::t", transposeT)
	def("aten::transpose.int", transposeInt)
	def("aten::swapaxes", swapaxes)
	def("aten::swapdims", swapdims)
	def("aten::movedim.int", movedimInt)
	def("aten::movedim.intlist", movedimList)
	def("aten::squeeze", squeezeAll)
	def("aten::narrow", narrow)
	def("aten::contiguous", contiguous)
	def("aten::detach", detach)
	def("aten::chunk", chunk)
	def("aten::split.Tensor", splitTensor)
	def("aten::split.sizes", splitSizes)
	def("aten::tensor_split.sections", tensorSplitSections)
	def("aten::tensor_split.indices", tensorSplitIndices)
	def("aten::hsplit.int", hsplit)
	def("aten::vsplit.int", vsplit)
	def("aten::unbind.int", unbind)
	def("aten::unfold", unfold)
	def("aten::stack", stack)
	def("aten::hstack", hstack)
	def("aten::vstack", vstack)
	def("aten::dstack", dstack)
	def("aten::column_stack", columnStack)
	def("aten::flipud", flipud)
	def("aten::fliplr", fliplr)
	def("aten::rot90", rot90)
	def("aten::roll", roll)
	def("aten::diag_embed", diagEmbed)
	def("aten::pixel_shuffle", pixelShuffle)
	def("aten::pixel_unshuffle", pixelUnshuffle)
	def("aten::channel_shuffle", channelShuffle)
	def("aten::repeat_interleave.Tensor", repeatInterleaveIndices)
	def("aten::repeat_interleave.self_Tensor", repeatInterleaveTensor)
	def("aten::repeat_interleave.self_int", repeatInterleaveInt)
}

// reshape is x.reshape(shape): a view when the strides allow one, else a
// contiguous copy viewed with the new shape.
func reshape(x *T, shape []int) *T {
	shape = core.InferSize(shape, x.Numel())
	if _, ok := core.ComputeStride(x.Sizes(), x.Strides(), shape); ok {
		return x.View(shape)
	}
	return cloneContig(x).View(shape)
}

// _reshape_alias: the view with the given sizes and strides at x's offset.
func reshapeAlias(op *tensor.Op, a []any) any {
	p := args.InternalReshapeAliasOf(a)
	x := p.Self
	return x.AsStrided(p.Size, p.Stride, tensor.WithStorageOffset(x.StorageOffset()))
}

// unsafeView is view's result without the view relation (the result is
// not an alias as far as functionalization is concerned); like view, 1.13
// raises when the strides cannot give the shape.
func unsafeView(op *tensor.Op, a []any) any {
	p := args.InternalUnsafeViewOf(a)
	return p.Self.View(p.Size)
}

func reshapeOp(op *tensor.Op, a []any) any {
	p := args.ReshapeOf(a)
	return reshape(p.Self, p.Shape)
}

func reshapeAs(op *tensor.Op, a []any) any {
	p := args.ReshapeAsOf(a)
	return reshape(p.Self, p.Other.Shape())
}

func viewAs(op *tensor.Op, a []any) any {
	p := args.ViewAsOf(a)
	return p.Self.View(p.Other.Shape())
}

func expandAs(op *tensor.Op, a []any) any {
	p := args.ExpandAsOf(a)
	return p.Self.Expand(p.Other.Shape())
}

func ravel(op *tensor.Op, a []any) any { return reshape(args.RavelOf(a).Self, []int{-1}) }

func flatten(op *tensor.Op, a []any) any {
	p := args.FlattenOf(a)
	x := p.Self
	r := x.Dim()
	start, end := wrapDim(p.StartDim, r), wrapDim(p.EndDim, r)
	tensor.Check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim")
	if r == 0 {
		return reshape(x, []int{1})
	}
	if start == end {
		return x.Alias()
	}
	s := x.Sizes()
	shape := append(append(append([]int{}, s[:start]...), prod(s[start:end+1])), s[end+1:]...)
	return reshape(x, shape)
}

func unflatten(op *tensor.Op, a []any) any {
	p := args.UnflattenOf(a)
	x, sz := p.Self, p.Sizes
	d := wrapDim(p.Dim, x.Dim())
	tensor.Check(len(sz) > 0, "unflatten: sizes must be non-empty")
	n := x.Size(d)
	if err := tensor.Try(func() { sz = core.InferSize(sz, n) }); err != nil {
		tensor.Panicf("unflatten: Provided sizes %s don't multiply up to the size of dim %d (%d) in the input tensor",
			tensor.ShapeString(p.Sizes), d, n)
	}
	s := x.Sizes()
	shape := append(append(append([]int{}, s[:d]...), sz...), s[d+1:]...)
	return x.View(shape)
}

// transpose swaps two dims with a permute (an alias when they are equal).
func transpose(x *T, d0, d1 int) *T {
	r := x.Dim()
	d0, d1 = wrapDim(d0, r), wrapDim(d1, r)
	if d0 == d1 {
		return x.Alias()
	}
	perm := iota(r)
	perm[d0], perm[d1] = d1, d0
	return x.Permute(perm)
}

func transposeInt(op *tensor.Op, a []any) any {
	p := args.TransposeOf(a)
	return transpose(p.Self, p.Dim0, p.Dim1)
}

func swapaxes(op *tensor.Op, a []any) any {
	p := args.SwapaxesOf(a)
	return transpose(p.Self, p.Axis0, p.Axis1)
}

func swapdims(op *tensor.Op, a []any) any {
	p := args.SwapdimsOf(a)
	return transpose(p.Self, p.Dim0, p.Dim1)
}

func transposeT(op *tensor.Op, a []any) any {
	x := args.TOf(a).Self
	if x.Dim() > 2 {
		tensor.Panicf("t() expects a tensor with <= 2 dimensions, but self is %dD", x.Dim())
	}
	if x.Dim() < 2 {
		return transpose(x, 0, 0)
	}
	return transpose(x, 0, 1)
}

func movedimInt(op *tensor.Op, a []any) any {
	p := args.MovedimIntOf(a)
	return movedim(p.Self, []int{p.Source}, []int{p.Destination})
}

func movedimList(op *tensor.Op, a []any) any {
	p := args.MovedimIntlistOf(a)
	return movedim(p.Self, p.Source, p.Destination)
}

// movedim moves dims src to positions dst, keeping the others in order.
func movedim(x *T, src, dst []int) *T {
	if len(src) != len(dst) {
		tensor.Panicf("movedim: Invalid source or destination dims: source (%s dims) should contain the same number of dims as destination (%s dims)",
			tensor.ShapeString(src), tensor.ShapeString(dst))
	}
	r := x.Dim()
	ns, nd := make([]int, len(src)), make([]int, len(dst))
	for i := range src {
		ns[i], nd[i] = wrapDim(src[i], r), wrapDim(dst[i], r)
	}
	if !unique(ns) {
		tensor.Panicf("movedim: repeated dim in `source` (%s)", tensor.ShapeString(src))
	}
	if !unique(nd) {
		tensor.Panicf("movedim: repeated dim in `destination` (%s)", tensor.ShapeString(dst))
	}
	if r == 0 {
		return x.Alias()
	}
	order := make([]int, r)
	usedSrc, usedDst := make([]bool, r), make([]bool, r)
	for i := range ns {
		order[nd[i]] = ns[i]
		usedSrc[ns[i]], usedDst[nd[i]] = true, true
	}
	s := 0
	for d := 0; d < r; d++ {
		if usedDst[d] {
			continue
		}
		for usedSrc[s] {
			s++
		}
		order[d] = s
		s++
	}
	return x.Permute(order)
}

func unique(s []int) bool {
	seen := map[int]bool{}
	for _, v := range s {
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

func squeezeAll(op *tensor.Op, a []any) any {
	x := args.SqueezeAllOf(a).Self
	var dims []int
	for i, s := range x.Sizes() {
		if s == 1 {
			dims = append(dims, i)
		}
	}
	return x.SqueezeDims(dims)
}

func narrow(op *tensor.Op, a []any) any {
	p := args.NarrowOf(a)
	x, start, length := p.Self, p.Start, p.Length
	tensor.Check(x.Dim() > 0, "narrow() cannot be applied to a 0-dim tensor.")
	d := wrapDim(p.Dim, x.Dim())
	n := x.Size(d)
	if start != n {
		start = wrapDim(start, n)
	}
	if length < 0 || start > n-length {
		tensor.Panicf("start (%d) + length (%d) exceeds dimension size (%d).", start, length, n)
	}
	return x.Slice(tensor.WithDim(d), tensor.WithStart(start), tensor.WithEnd(start+length))
}

func contiguous(op *tensor.Op, a []any) any {
	p := args.ContiguousOf(a)
	x, m := p.Self, p.MemoryFormat
	if core.IsContiguousFormat(x.Sizes(), x.Strides(), m) {
		return x.Alias()
	}
	return callKw("aten::clone", []any{x}, map[string]any{"memory_format": m})
}

func detach(op *tensor.Op, a []any) any { return args.DetachOf(a).Self.Alias() }

func chunk(op *tensor.Op, a []any) any {
	p := args.ChunkOf(a)
	x, chunks := p.Self, p.Chunks
	tensor.Check(x.Dim() > 0, "chunk expects at least a 1-dimensional tensor")
	if chunks <= 0 {
		tensor.Panicf("chunk expects `chunks` to be greater than 0, got: %d", chunks)
	}
	d := wrapDim(p.Dim, x.Dim())
	n := x.Size(d)
	size := (n + chunks - 1) / chunks
	if size == 0 && n == 0 {
		// chunks empty tensors, as PyTorch makes: the list is an allocation.
		if chunks > tensor.MaxElements {
			tensor.Panicf("refusing to allocate a list of %d tensors", chunks)
		}
		return x.SplitWithSizes(make([]int, chunks), tensor.WithDim(d))
	}
	return split(x, size, d)
}

// split cuts x along d into pieces of size, the last one smaller.
func split(x *T, size, d int) []*T {
	tensor.Check(x.Dim() != 0, "split expects at least a 1-dimensional tensor")
	d = wrapDim(d, x.Dim())
	n := x.Size(d)
	if size < 0 {
		tensor.Panicf("split expects split_size be non-negative, but got split_size=%d", size)
	}
	if size <= 0 && n != 0 {
		tensor.Panicf("split_size can only be 0 if dimension size is 0, but got dimension size of %d", n)
	}
	k := 1
	if size != 0 {
		k = max((n+size-1)/size, 1)
	}
	sz := make([]int, k)
	for i := range sz {
		sz[i] = size
	}
	sz[k-1] = size - (size*k - n)
	return x.SplitWithSizes(sz, tensor.WithDim(d))
}

func splitTensor(op *tensor.Op, a []any) any {
	p := args.SplitOf(a)
	return split(p.Self, p.SplitSize, p.Dim)
}

func splitSizes(op *tensor.Op, a []any) any {
	p := args.SplitSizesOf(a)
	return p.Self.SplitWithSizes(p.SplitSize, tensor.WithDim(p.Dim))
}

func tensorSplitSections(op *tensor.Op, a []any) any {
	p := args.TensorSplitSectionsOf(a)
	x, k := p.Self, p.Sections
	if x.Dim() <= 0 {
		tensor.Panicf("tensor_split expected at least a 1-dimensional tensor, but got a tensor with %d dims", x.Dim())
	}
	d := wrapDim(p.Dim, x.Dim())
	if k <= 0 {
		tensor.Panicf("number of sections must be larger than 0, got %d", k)
	}
	// Sections past the dim size are empty views, but each is a tensor:
	// the list is an allocation like any other.
	if k > tensor.MaxElements {
		tensor.Panicf("refusing to allocate a list of %d tensors", k)
	}
	n := x.Size(d)
	out := make([]*T, k)
	start := 0
	for i := range out {
		size := n / k
		if i < n%k {
			size++
		}
		out[i] = x.Slice(tensor.WithDim(d), tensor.WithStart(start), tensor.WithEnd(start+size))
		start += size
	}
	return out
}

func tensorSplitIndices(op *tensor.Op, a []any) any {
	p := args.TensorSplitIndicesOf(a)
	x, idx := p.Self, p.Indices
	if x.Dim() <= 0 {
		tensor.Panicf("tensor_split expected at least a 1-dimensional tensor, but got a tensor with %d dims", x.Dim())
	}
	d := wrapDim(p.Dim, x.Dim())
	out := make([]*T, 0, len(idx)+1)
	start := 0
	for _, end := range idx {
		out = append(out, x.Slice(tensor.WithDim(d), tensor.WithStart(start), tensor.WithEnd(end)))
		start = end
	}
	return append(out, x.Slice(tensor.WithDim(d), tensor.WithStart(start), tensor.WithEnd(x.Size(d))))
}

func hsplit(op *tensor.Op, a []any) any {
	p := args.HsplitOf(a)
	x, k := p.Self, p.Sections
	if x.Dim() < 1 {
		tensor.Panicf("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with %d dimensions!", x.Dim())
	}
	d := 1
	if x.Dim() == 1 {
		d = 0
	}
	if k == 0 || x.Size(d)%k != 0 {
		tensor.Panicf("torch.hsplit attempted to split along dimension %d, but the size of the dimension %d is not divisible by the split_size %d!", d, x.Size(d), k)
	}
	return x.TensorSplitSections(k, tensor.WithDim(d))
}

func vsplit(op *tensor.Op, a []any) any {
	p := args.VsplitOf(a)
	x, k := p.Self, p.Sections
	if x.Dim() < 2 {
		tensor.Panicf("torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with %d dimensions!", x.Dim())
	}
	if k == 0 || x.Size(0)%k != 0 {
		tensor.Panicf("torch.vsplit attempted to split along dimension 0, but the size of the dimension %d is not divisible by the split_size %d!", x.Size(0), k)
	}
	return x.TensorSplitSections(k)
}

func unbind(op *tensor.Op, a []any) any {
	p := args.UnbindOf(a)
	x := p.Self
	if x.Dim() == 0 {
		tensor.IndexPanicf("Dimension specified as %d but tensor has no dimensions", p.Dim)
	}
	d := wrapDim(p.Dim, x.Dim())
	out := make([]*T, x.Size(d))
	for i := range out {
		out[i] = x.Select(d, i)
	}
	return out
}

// unfold is x.unfold(dimension, size, step): the windows of length size,
// step apart along dimension, as a view (as_strided) whose new last dim
// runs along a window.
func unfold(op *tensor.Op, a []any) any {
	p := args.UnfoldOf(a)
	x, size, step := p.Self, p.Size, p.Step
	n := x.Dim()
	d := tensor.WrapDim(p.Dimension, n) // a 0-d tensor takes dim 0 or -1
	maxSize, lastStride := 1, 1
	if n > 0 {
		maxSize, lastStride = x.Size(d), x.Stride(d)
	}
	if size > maxSize {
		tensor.Panicf("maximum size for tensor at dimension %d is %d but size is %d", d, maxSize, size)
	}
	if step <= 0 {
		tensor.Panicf("step is %d but must be > 0", step)
	}
	sizes := append(x.Shape(), size)
	strides := append(append([]int(nil), x.Strides()...), lastStride)
	if d < n {
		sizes[d] = (sizes[d]-size)/step + 1
		strides[d] *= step
	}
	return x.AsStrided(sizes, strides)
}

func stack(op *tensor.Op, a []any) any {
	p := args.StackOf(a)
	ts := p.Tensors
	tensor.Check(len(ts) > 0, "stack expects a non-empty TensorList")
	d := wrapDim(p.Dim, ts[0].Dim()+1)
	parts := make([]*T, len(ts))
	for i, t := range ts {
		if !slices.Equal(t.Sizes(), ts[0].Sizes()) {
			tensor.Panicf("stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
				tensor.ShapeString(ts[0].Sizes()), tensor.ShapeString(t.Sizes()), i)
		}
		parts[i] = t.Unsqueeze(d)
	}
	return tensor.Cat(parts, tensor.WithDim(d))
}

// atleast reshapes each tensor to at least n dims the way atleast_{1,2,3}d do.
func atleast(ts []*T, n int) []*T {
	out := make([]*T, len(ts))
	for i, t := range ts {
		switch {
		case t.Dim() >= n:
			out[i] = t
		case t.Dim() == 0:
			out[i] = reshape(t, ones(n))
		case t.Dim() == 1 && n == 2:
			out[i] = t.Unsqueeze(0)
		case t.Dim() == 1:
			out[i] = t.Unsqueeze(0).Unsqueeze(-1)
		default: // 2-d to 3-d
			out[i] = t.Unsqueeze(-1)
		}
	}
	return out
}

func hstack(op *tensor.Op, a []any) any {
	ts := args.HstackOf(a).Tensors
	tensor.Check(len(ts) > 0, "hstack expects a non-empty TensorList")
	r := atleast(ts, 1)
	if r[0].Dim() == 1 {
		return tensor.Cat(r)
	}
	return tensor.Cat(r, tensor.WithDim(1))
}

func vstack(op *tensor.Op, a []any) any {
	ts := args.VstackOf(a).Tensors
	tensor.Check(len(ts) > 0, "vstack expects a non-empty TensorList")
	return tensor.Cat(atleast(ts, 2))
}

func dstack(op *tensor.Op, a []any) any {
	ts := args.DstackOf(a).Tensors
	tensor.Check(len(ts) > 0, "dstack expects a non-empty TensorList")
	return tensor.Cat(atleast(ts, 3), tensor.WithDim(2))
}

func columnStack(op *tensor.Op, a []any) any {
	ts := args.ColumnStackOf(a).Tensors
	tensor.Check(len(ts) > 0, "column_stack expects a non-empty TensorList")
	r := make([]*T, len(ts))
	for i, t := range ts {
		if t.Dim() <= 1 {
			r[i] = reshape(t, []int{t.Numel(), 1})
		} else {
			r[i] = t
		}
	}
	return tensor.Cat(r, tensor.WithDim(1))
}

func flipud(op *tensor.Op, a []any) any {
	x := args.FlipudOf(a).Self
	tensor.Check(x.Dim() >= 1, "Input must be >= 1-d.")
	return x.Flip([]int{0})
}

func fliplr(op *tensor.Op, a []any) any {
	x := args.FliplrOf(a).Self
	tensor.Check(x.Dim() >= 2, "Input must be >= 2-d.")
	return x.Flip([]int{1})
}

func rot90(op *tensor.Op, a []any) any {
	p := args.Rot90Of(a)
	x, k, dims := p.Self, p.K, p.Dims
	r := x.Dim()
	if len(dims) != 2 {
		tensor.Panicf("expected total rotation dims == 2, but got dims = %d", len(dims))
	}
	if r < 2 {
		tensor.Panicf("expected total dims >= 2, but got total dims = %d", r)
	}
	d0, d1 := dims[0], dims[1]
	if d0 == d1 || abs(d0-d1) == r {
		tensor.Panicf("expected rotation dims to be different, but got dim0 = %d and dim1 = %d", d0, d1)
	}
	if d0 >= r || d0 < -r {
		tensor.Panicf("Rotation dim0 out of range, dim0 = %d", d0)
	}
	if d1 >= r || d1 < -r {
		tensor.Panicf("Rotation dim1 out of range, dim1 = %d", d1)
	}
	switch (4 + k%4) % 4 {
	case 1:
		return transpose(x.Flip([]int{d1}), d0, d1)
	case 2:
		return x.Flip(dims)
	case 3:
		return transpose(x.Flip([]int{d0}), d0, d1)
	}
	return cloneContig(x)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func roll(op *tensor.Op, a []any) any {
	p := args.RollOf(a)
	return rollDims(p.Self, p.Shifts, p.Dims)
}

func rollDims(x *T, shifts, dims []int) *T {
	if len(dims) == 1 && len(shifts) == 1 {
		if x.Numel() == 0 {
			return x.Clone()
		}
		d := wrapDim(dims[0], x.Dim())
		n := x.Size(d)
		start := (n - shifts[0]%n) % n // shifts[0]%n first: n - shift could wrap
		if start < 0 {
			start += n
		}
		return tensor.Cat([]*T{x.Slice(tensor.WithDim(d), tensor.WithStart(start), tensor.WithEnd(n)), x.Slice(tensor.WithDim(d), tensor.WithStart(0), tensor.WithEnd(start))}, tensor.WithDim(d))
	}
	tensor.Check(len(shifts) > 0, "`shifts` required")
	if len(dims) == 0 && len(shifts) == 1 {
		flat := reshape(x, []int{-1})
		return reshape(rollDims(flat, shifts, []int{0}), x.Shape())
	}
	if len(shifts) != len(dims) {
		tensor.Panicf("shifts and dimensions must align. shifts: %d, dims:%d", len(shifts), len(dims))
	}
	return rollDims(rollDims(x, shifts[:1], dims[:1]), shifts[1:], dims[1:])
}

// diag_embed places the last dim of x on a diagonal of two new dims:
// out[..., i, j] = x[..., i] where j - i == offset (x[..., j] for a
// negative offset), zero elsewhere.
func diagEmbed(op *tensor.Op, a []any) any {
	p := args.DiagEmbedOf(a)
	x, off := p.Self, p.Offset
	r := x.Dim() + 1
	d1, d2 := wrapDim(p.Dim1, r), wrapDim(p.Dim2, r)
	if d1 == d2 {
		tensor.Panicf("diagonal dimensions cannot be identical %d, %d", p.Dim1, p.Dim2)
	}
	n := abs(off) + x.Size(-1)
	padded := x.ConstantPadNd([]int{0, abs(off)})
	ar := arangeOn(x, n)
	var vals, diff *T
	if off >= 0 {
		vals = padded.Unsqueeze(-1)
		diff = ar.Unsqueeze(0).Sub(ar.Unsqueeze(1))
	} else {
		vals = padded.Unsqueeze(-2)
		diff = ar.Unsqueeze(1).Sub(ar.Unsqueeze(0))
	}
	out := tensor.Where(diff.EqScalar(abs(off)), vals, zero0(x))
	return movedim(out, []int{-2, -1}, []int{d1, d2})
}

func pixelShuffle(op *tensor.Op, a []any) any {
	p := args.PixelShuffleOf(a)
	x, f := p.Self, p.UpscaleFactor
	if x.Dim() < 3 {
		tensor.Panicf("pixel_shuffle expects input to have at least 3 dimensions, but got input with %d dimension(s)", x.Dim())
	}
	if f <= 0 {
		tensor.Panicf("pixel_shuffle expects a positive upscale_factor, but got %d", f)
	}
	c, h, w := x.Size(-3), x.Size(-2), x.Size(-1)
	// A factor whose square or whose products with h and w pass int64 would
	// wrap (PyTorch divides by the wrapped 0 and crashes).
	ff, ok := core.MulNoOverflow(f, f)
	_, okH := core.MulNoOverflow(h, f)
	_, okW := core.MulNoOverflow(w, f)
	if !ok || !okH || !okW {
		tensor.Panicf("pixel_shuffle: upscale_factor %d is too large for input of size %s", f, tensor.ShapeString(x.Sizes()))
	}
	if c%ff != 0 {
		tensor.Panicf("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%d is not divisible by %d", c, ff)
	}
	batch := x.Shape()[:x.Dim()-3]
	nb := len(batch)
	y := reshape(x, append(append([]int{}, batch...), c/(f*f), f, f, h, w))
	y = y.Permute(append(iota(nb), nb, nb+3, nb+1, nb+4, nb+2))
	return cloneContig(y).View(append(append([]int{}, batch...), c/(f*f), h*f, w*f))
}

func pixelUnshuffle(op *tensor.Op, a []any) any {
	p := args.PixelUnshuffleOf(a)
	x, f := p.Self, p.DownscaleFactor
	if x.Dim() < 3 {
		tensor.Panicf("pixel_unshuffle expects input to have at least 3 dimensions, but got input with %d dimension(s)", x.Dim())
	}
	if f <= 0 {
		tensor.Panicf("pixel_unshuffle expects a positive downscale_factor, but got %d", f)
	}
	c, h, w := x.Size(-3), x.Size(-2), x.Size(-1)
	if h%f != 0 {
		tensor.Panicf("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%d is not divisible by %d", h, f)
	}
	if w%f != 0 {
		tensor.Panicf("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%d is not divisible by %d", w, f)
	}
	// c·f·f may pass int64 when h and w are 0.
	_, ok := core.MulNoOverflow(c, f, f)
	if !ok {
		tensor.Panicf("pixel_unshuffle: downscale_factor %d is too large for input of size %s", f, tensor.ShapeString(x.Sizes()))
	}
	batch := x.Shape()[:x.Dim()-3]
	nb := len(batch)
	y := reshape(x, append(append([]int{}, batch...), c, h/f, f, w/f, f))
	y = y.Permute(append(iota(nb), nb, nb+2, nb+4, nb+1, nb+3))
	return cloneContig(y).View(append(append([]int{}, batch...), c*f*f, h/f, w/f))
}

func channelShuffle(op *tensor.Op, a []any) any {
	p := args.ChannelShuffleOf(a)
	x, g := p.Self, p.Groups
	if x.Dim() <= 2 {
		tensor.Panicf("channel_shuffle expects input to have at least 3 dimensions, but got input with %d dims", x.Dim())
	}
	if g <= 0 {
		tensor.Panicf("Number of groups to divide channels in must be positive. Value of groups:%d", g)
	}
	if x.Size(1)%g != 0 {
		tensor.Panicf("Number of channels must be divisible by groups. Got %d channels and %d groups.", x.Size(1), g)
	}
	b, c := x.Size(0), x.Size(1)
	rest := prod(x.Sizes()[2:])
	y := reshape(x, []int{b, g, c / g, rest}).Permute([]int{0, 2, 1, 3})
	return cloneContig(y).View(x.Shape())
}

// repeat_interleave(repeats): the index i repeated repeats[i] times. The
// output length is data dependent: output_size, or the sum of repeats.
func repeatInterleaveIndices(op *tensor.Op, a []any) any {
	p := args.RepeatInterleaveOf(a)
	return repeatIndices(p.Repeats, p.OutputSize)
}

func repeatIndices(rep *T, outSize args.Opt[int]) *T {
	tensor.Check(rep.Dim() == 1, "repeat_interleave only accept 1D vector as repeat")
	tensor.Check(rep.DType() == tensor.Int64 || rep.DType() == tensor.Int32, "repeats has to be Long or Int tensor")
	n := outSize.Or(-1)
	if rep.Size(0) > 0 {
		tensor.Check(!tensor.Call("aten::_local_scalar_dense", rep.LtScalar(0).Any()).(tensor.Scalar).Bool(), "repeats can not be negative")
	}
	csum := rep.Cumsum(0)
	if n < 0 {
		n = 0
		if rep.Size(0) > 0 {
			n = int(tensor.Call("aten::_local_scalar_dense", csum.Select(0, -1)).(tensor.Scalar).Int64())
		}
	}
	// Mark where each index starts; a running count of marks is the index.
	starts := csum.Sub(rep).To(tensor.Int64)
	marks := fullOn(rep, []int{n + 1}, 0, tensor.Int64).IndexPut([]*T{starts}, fullOn(rep, []int{rep.Size(0)}, 1, tensor.Int64), tensor.WithAccumulate(true))
	return marks.Slice(tensor.WithStart(0), tensor.WithEnd(n)).Cumsum(0).SubScalar(1).To(rep.DType())
}

func repeatInterleaveTensor(op *tensor.Op, a []any) any {
	p := args.RepeatInterleaveSelfTensorOf(a)
	x, rep := p.Self, p.Repeats
	d := 0
	if !p.Dim.Ok {
		x = reshape(x, []int{-1})
	} else {
		d = wrapDim(p.Dim.V, x.Dim())
	}
	switch {
	case rep.Dim() == 0 || (rep.Dim() == 1 && rep.Size(0) == 1):
		rep = reshape(rep, []int{1}).Expand([]int{x.Size(d)})
	case rep.Dim() == 1:
		tensor.Check(rep.Size(0) == x.Size(d), "repeats must have the same size as input along dim")
	default:
		tensor.Panicf("repeats must be 0-dim or 1-dim tensor")
	}
	return x.IndexSelect(d, repeatIndices(rep, p.OutputSize))
}

func repeatInterleaveInt(op *tensor.Op, a []any) any {
	p := args.RepeatInterleaveSelfIntOf(a)
	x, rep := p.Self, p.Repeats
	tensor.Check(rep >= 0, "repeats can not be negative")
	d := 0
	if !p.Dim.Ok {
		x = reshape(x, []int{-1})
	} else {
		d = wrapDim(p.Dim.V, x.Dim())
	}
	if x.Dim() == 0 {
		x = reshape(x, []int{1})
	}
	s := x.Shape()
	e := append(append(append([]int{}, s[:d+1]...), rep), s[d+1:]...)
	y := x.Unsqueeze(d + 1).Expand(e)
	s[d] *= rep
	return cloneContig(y).View(s)
}
