package core

import (
	"math"
	"math/bits"
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Movement ops: views (which describe a new window on the same storage and
// must report PyTorch's exact sizes, strides and storage offset) and the
// copying ops that rearrange data (cat, flip, repeat, constant_pad_nd, clone,
// copy, _to_copy, resize_, select_scatter, slice_scatter).

// LegacyTypeName is the name Tensor::toString() gives a CPU tensor of dtype d,
// e.g. "torch.FloatTensor".
func LegacyTypeName(d tensor.DType) string {
	switch d {
	case tensor.Float32:
		return "torch.FloatTensor"
	case tensor.Float64:
		return "torch.DoubleTensor"
	case tensor.Float16:
		return "torch.HalfTensor"
	case tensor.BFloat16:
		return "torch.BFloat16Tensor"
	case tensor.Int64:
		return "torch.LongTensor"
	case tensor.Int32:
		return "torch.IntTensor"
	case tensor.Int16:
		return "torch.ShortTensor"
	case tensor.Int8:
		return "torch.CharTensor"
	case tensor.Uint8:
		return "torch.ByteTensor"
	case tensor.Bool:
		return "torch.BoolTensor"
	}
	return "torch.Tensor"
}

// checkSizesNonNegative rejects a negative size the way at::empty does,
// and a shape whose element count overflows.
func checkSizesNonNegative(sizes []int) {
	for _, s := range sizes {
		if s < 0 {
			tensor.Panicf("Trying to create tensor with negative dimension %d: %s", s, tensor.ShapeString(sizes))
		}
	}
	checkNumel(sizes)
}

// checkNumel panics when the product of non-negative sizes overflows, as
// c10's safe numel computation does.
func checkNumel(sizes []int) {
	n := uint64(1)
	for _, s := range sizes {
		if s == 0 {
			return
		}
	}
	for _, s := range sizes {
		hi, lo := bits.Mul64(n, uint64(s))
		if hi != 0 || lo > math.MaxInt64 {
			tensor.Panicf("numel: integer multiplication overflow")
		}
		n = lo
	}
}

// contigMeta is a contiguous meta tensor after checking the sizes.
func contigMeta(sizes []int, dt tensor.DType, dev tensor.Device) *tensor.Tensor {
	checkSizesNonNegative(sizes)
	return tensor.NewMetaContiguous(sizes, dt, dev)
}

func viewOf(self *tensor.Tensor, sizes, strides []int, offset int, dev tensor.Device) *tensor.Tensor {
	for _, s := range sizes {
		tensor.Check(s >= 0, "numel: integer multiplication overflow")
	}
	checkNumel(sizes)
	return tensor.NewMeta(sizes, strides, offset, self.DType(), dev)
}

// ---------------------------------------------------------------------------
// view

// InferSize resolves a view/reshape shape with at most one -1 against numel,
// with PyTorch's errors (infer_size).
func InferSize(shape []int, numel int) []int {
	res := append([]int(nil), shape...)
	newsize, infer := 1, -1
	for i, s := range shape {
		switch {
		case s == -1:
			tensor.Check(infer < 0, "only one dimension can be inferred")
			infer = i
		case s >= 0:
			newsize *= s
		default:
			tensor.Panicf("invalid shape dimension %d", s)
		}
	}
	if numel == newsize || (infer >= 0 && newsize > 0 && numel%newsize == 0) {
		if infer >= 0 {
			if newsize == 0 {
				tensor.Panicf("cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", tensor.ShapeString(shape))
			}
			res[infer] = numel / newsize
		}
		return res
	}
	tensor.Panicf("shape '%s' is invalid for input of size %d", tensor.ShapeString(shape), numel)
	return nil
}

// ComputeStride returns the strides a view of a tensor with sizes oldShape and
// strides oldStride gets for newShape (same numel), or ok=false when the view
// would need a copy because a new dimension spans two non-contiguous chunks
// of the old one (PyTorch's computeStride).
func ComputeStride(oldShape, oldStride, newShape []int) (newStride []int, ok bool) {
	newStride = make([]int, len(newShape))
	if len(oldShape) == 0 {
		for i := range newStride {
			newStride[i] = 1
		}
		return newStride, true
	}
	numel := tensor.Numel(oldShape)
	if numel == 0 {
		if slices.Equal(oldShape, newShape) {
			copy(newStride, oldStride)
			return newStride, true
		}
		// Strides as a resize would give them.
		acc := 1
		for d := len(newShape) - 1; d >= 0; d-- {
			newStride[d] = acc
			acc *= max(newShape[d], 1)
		}
		return newStride, true
	}
	vd := len(newShape) - 1
	// Walk the old dims from the back, grouping them into chunks that are
	// contiguous with each other; each chunk must be covered exactly by a run
	// of new dims.
	chunkBase := oldStride[len(oldStride)-1]
	tensorNumel, viewNumel := 1, 1
	for td := len(oldShape) - 1; td >= 0; td-- {
		tensorNumel *= oldShape[td]
		if td == 0 || (oldShape[td-1] != 1 && oldStride[td-1] != tensorNumel*chunkBase) {
			for vd >= 0 && (viewNumel < tensorNumel || newShape[vd] == 1) {
				newStride[vd] = viewNumel * chunkBase
				viewNumel *= newShape[vd]
				vd--
			}
			if viewNumel != tensorNumel {
				return nil, false
			}
			if td > 0 {
				chunkBase = oldStride[td-1]
				tensorNumel, viewNumel = 1, 1
			}
		}
	}
	if vd != -1 {
		return nil, false
	}
	return newStride, true
}

func viewMeta(op *tensor.Op, a []any) any {
	p := args.ViewOf(a)
	self := p.Self
	shape := InferSize(p.Size, self.Numel())
	st, ok := ComputeStride(self.Sizes(), self.Strides(), shape)
	tensor.Check(ok, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
	return viewOf(self, shape, st, self.StorageOffset(), op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// permute, expand, alias

func permuteMeta(op *tensor.Op, a []any) any {
	p := args.PermuteOf(a)
	self := p.Self
	dims := p.Dims
	n := self.Dim()
	if len(dims) != n {
		tensor.Panicf("permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", n, len(dims))
	}
	sizes := make([]int, n)
	strides := make([]int, n)
	seen := make([]bool, max(n, 1))
	for i, d := range dims {
		w := tensor.WrapDim(d, n)
		tensor.Check(!seen[w], "permute(): duplicate dims are not allowed.")
		seen[w] = true
		sizes[i] = self.Sizes()[w]
		strides[i] = self.Strides()[w]
	}
	return viewOf(self, sizes, strides, self.StorageOffset(), op.DeviceOf(a))
}

// ExpandGeometry computes the sizes and strides of t expanded to sizes
// (PyTorch's inferExpandGeometry): -1 keeps a size, new leading dims and
// expanded size-1 dims get stride 0.
func ExpandGeometry(t *tensor.Tensor, sizes []int) ([]int, []int) {
	tsizes, tstrides := t.Sizes(), t.Strides()
	if len(sizes) < len(tsizes) { // the message is formatted only when it is needed
		tensor.Panicf("expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
			LegacyTypeName(t.DType()), tensor.ShapeString(tsizes), tensor.ShapeString(sizes), len(sizes), len(tsizes))
	}
	n := len(sizes)
	outSizes := make([]int, n)
	outStrides := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		dim := len(tsizes) - 1 - (n - 1 - i)
		size, stride := 1, 0
		if dim >= 0 {
			size, stride = tsizes[dim], tstrides[dim]
		} else if i+1 < n {
			stride = outSizes[i+1] * outStrides[i+1]
		}
		target := sizes[i]
		if target == -1 && len(tsizes) > 0 {
			if dim < 0 {
				tensor.Panicf("The expanded size of the tensor (%d) isn't allowed in a leading, non-existing dimension %d", target, i)
			}
			target = size
		}
		if size != target {
			if size != 1 {
				tensor.Panicf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
					target, size, i, tensor.ShapeString(sizes), tensor.ShapeString(tsizes))
			}
			size, stride = target, 0
		}
		outSizes[i], outStrides[i] = size, stride
	}
	for _, s := range outSizes {
		tensor.Check(s >= 0, "numel: integer multiplication overflow")
	}
	return outSizes, outStrides
}

func expandMeta(op *tensor.Op, a []any) any {
	p := args.ExpandOf(a)
	self := p.Self
	sizes, strides := ExpandGeometry(self, p.Size)
	return viewOf(self, sizes, strides, self.StorageOffset(), op.DeviceOf(a))
}

func aliasMeta(op *tensor.Op, a []any) any {
	self := args.AliasOf(a).Self
	return viewOf(self, self.Sizes(), self.Strides(), self.StorageOffset(), op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// slice, select, split_with_sizes, diagonal

// SliceBounds normalizes slice's start and end (None, negative, out of
// range) against a dim of the given size, as ATen does.
func SliceBounds(size int, start, end args.Opt[int]) (int, int) {
	s := start.Or(0)
	e := end.Or(int(^uint(0) >> 1))
	if s < 0 {
		s += size
	}
	if e < 0 {
		e += size
	}
	s = min(max(s, 0), size)
	e = min(max(e, s), size)
	return s, e
}

// sliceGeometry returns the sizes, strides and offset of self[start:end:step]
// along dim (dim already validated by the caller or wrapped here).
func sliceGeometry(self *tensor.Tensor, dim int, start, end args.Opt[int], step int) ([]int, []int, int, int) {
	n := self.Dim()
	if n == 0 {
		tensor.IndexPanicf("slice() cannot be applied to a 0-dim tensor.")
	}
	dim = tensor.WrapDim(dim, n)
	tensor.Check(step > 0, "slice step must be positive")
	s, e := SliceBounds(self.Sizes()[dim], start, end)
	sizes := append([]int(nil), self.Sizes()...)
	strides := append([]int(nil), self.Strides()...)
	offset := self.StorageOffset() + s*strides[dim]
	cnt := (e - s) / step
	if (e-s)%step != 0 {
		cnt++
	}
	sizes[dim] = cnt
	// PyTorch multiplies in int64 and wraps too (a stride of 4 sliced with
	// step 2^62 becomes 0, harmless on the size-1 result); as slice goes
	// through as_strided there, a wrapped negative stride is refused.
	strides[dim] *= step
	for _, st := range strides {
		if st < 0 {
			tensor.Panicf("as_strided: Negative strides are not supported at the moment, got strides: %s", tensor.ShapeString(strides))
		}
	}
	return sizes, strides, offset, dim
}

func sliceMeta(op *tensor.Op, a []any) any {
	p := args.SliceOf(a)
	sizes, strides, offset, _ := sliceGeometry(p.Self, p.Dim, p.Start, p.End, p.Step)
	return viewOf(p.Self, sizes, strides, offset, op.DeviceOf(a))
}

// selectGeometry returns the sizes, strides and offset of self.select(dim, index).
func selectGeometry(self *tensor.Tensor, dim, index int) ([]int, []int, int) {
	n := self.Dim()
	if n == 0 {
		tensor.IndexPanicf("select() cannot be applied to a 0-dim tensor.")
	}
	dim = tensor.WrapDim(dim, n)
	size := self.Sizes()[dim]
	if index < -size || index >= size {
		tensor.IndexPanicf("select(): index %d out of range for tensor of size %s at dimension %d", index, tensor.ShapeString(self.Sizes()), dim)
	}
	if index < 0 {
		index += size
	}
	sizes := make([]int, 0, n-1)
	strides := make([]int, 0, n-1)
	sizes = append(append(sizes, self.Sizes()[:dim]...), self.Sizes()[dim+1:]...)
	strides = append(append(strides, self.Strides()[:dim]...), self.Strides()[dim+1:]...)
	return sizes, strides, self.StorageOffset() + index*self.Strides()[dim]
}

func selectMeta(op *tensor.Op, a []any) any {
	p := args.SelectOf(a)
	sizes, strides, offset := selectGeometry(p.Self, p.Dim, p.Index)
	return viewOf(p.Self, sizes, strides, offset, op.DeviceOf(a))
}

func splitWithSizesMeta(op *tensor.Op, a []any) any {
	p := args.SplitWithSizesOf(a)
	self := p.Self
	splits := p.SplitSizes
	tensor.Check(self.Dim() != 0, "split expects at least a 1-dimensional tensor")
	dim := tensor.WrapDim(p.Dim, self.Dim())
	for _, l := range splits {
		if l < 0 {
			tensor.Panicf("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s", tensor.ShapeString(splits))
		}
	}
	// An exact sum: one that wraps round to the dim size is no match.
	total, ok := addNoOverflow(splits...)
	dimSize := self.Sizes()[dim]
	if !ok || total != dimSize {
		tensor.Panicf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%s", dimSize, dim, tensor.ShapeString(splits))
	}
	dev := op.DeviceOf(a)
	out := make([]*tensor.Tensor, len(splits))
	start := 0
	for i, l := range splits {
		sizes := append([]int(nil), self.Sizes()...)
		sizes[dim] = l
		out[i] = viewOf(self, sizes, self.Strides(), self.StorageOffset()+start*self.Strides()[dim], dev)
		start += l
	}
	return out
}

func diagonalMeta(op *tensor.Op, a []any) any {
	p := args.DiagonalOf(a)
	self := p.Self
	offset, d1, d2 := p.Offset, p.Dim1, p.Dim2
	n := self.Dim()
	dim1 := tensor.WrapDim(d1, n)
	dim2 := tensor.WrapDim(d2, n)
	if dim1 == dim2 {
		tensor.Panicf("diagonal dimensions cannot be identical %d, %d", d1, d2)
	}
	sz, st := self.Sizes(), self.Strides()
	var diag int
	if offset >= 0 {
		diag = max(min(sz[dim1], sz[dim2]-offset), 0)
	} else {
		diag = max(min(sz[dim1]+offset, sz[dim2]), 0)
	}
	off := self.StorageOffset()
	switch {
	case diag == 0:
	case offset >= 0:
		off += offset * st[dim2]
	default:
		off -= offset * st[dim1]
	}
	sizes := make([]int, 0, n-1)
	strides := make([]int, 0, n-1)
	for i := 0; i < n; i++ {
		if i != dim1 && i != dim2 {
			sizes = append(sizes, sz[i])
			strides = append(strides, st[i])
		}
	}
	sizes = append(sizes, diag)
	strides = append(strides, st[dim1]+st[dim2])
	return viewOf(self, sizes, strides, off, op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// as_strided

// StorageNBytes is PyTorch's computeStorageNbytes with its overflow check:
// the bytes a view needs, or 0 for an empty view.
func StorageNBytes(sizes, strides []int, itemsize, offset int) int {
	n := uint64(offset) + 1
	overflow := offset < 0
	for i, s := range sizes {
		if s == 0 {
			return 0
		}
		if s < 0 || strides[i] < 0 {
			overflow = true
			continue
		}
		hi, step := bits.Mul64(uint64(strides[i]), uint64(s-1))
		var carry uint64
		n, carry = bits.Add64(n, step, 0)
		overflow = overflow || hi != 0 || carry != 0
	}
	hi, total := bits.Mul64(n, uint64(itemsize))
	overflow = overflow || hi != 0 || total > math.MaxInt64
	if overflow {
		tensor.Panicf("Storage size calculation overflowed with sizes=%s and strides=%s", tensor.ShapeString(sizes), tensor.ShapeString(strides))
	}
	return int(total)
}

func asStridedMeta(op *tensor.Op, a []any) any {
	p := args.AsStridedOf(a)
	self := p.Self
	sizes, strides := p.Size, p.Stride
	offset := p.StorageOffset.Or(self.StorageOffset())
	for _, s := range strides {
		if s < 0 {
			tensor.Panicf("as_strided: Negative strides are not supported at the moment, got strides: %s", tensor.ShapeString(strides))
		}
	}
	tensor.Check(len(sizes) == len(strides), "mismatch in length of strides and shape")
	item := self.DType().ItemSize()
	need := StorageNBytes(sizes, strides, item, 0)
	if need != 0 {
		if st, ok := self.Raw().(interface{ NBytes() int }); ok && st != nil {
			total := math.MaxInt64 // saturated when it overflows
			if offset < 0 {
				total = need + offset*item
			} else if hi, ob := bits.Mul64(uint64(offset), uint64(item)); hi == 0 {
				if t, c := bits.Add64(ob, uint64(need), 0); c == 0 && t <= math.MaxInt64 {
					total = int(t)
				}
			}
			if total > st.NBytes() {
				tensor.Panicf("setStorage: sizes %s, strides %s, storage offset %d, and itemsize %d requiring a storage size of %d are out of bounds for storage of size %d",
					tensor.ShapeString(sizes), tensor.ShapeString(strides), offset, item, total, st.NBytes())
			}
		}
	}
	if offset < 0 {
		tensor.Panicf("Tensor: invalid storage offset %d", offset)
	}
	return viewOf(self, sizes, strides, offset, op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// squeeze, unsqueeze

func squeezeDimMeta(op *tensor.Op, a []any) any {
	p := args.SqueezeOf(a)
	return squeezeMask(op, a, p.Self, []int{p.Dim}, false)
}

func squeezeDimsMeta(op *tensor.Op, a []any) any {
	p := args.SqueezeDimsOf(a)
	return squeezeMask(op, a, p.Self, p.Dim, true)
}

func squeezeMask(op *tensor.Op, a []any, self *tensor.Tensor, dims []int, checkDup bool) *tensor.Tensor {
	n := self.Dim()
	mask := make([]bool, max(n, 1))
	for _, d := range dims {
		w := tensor.WrapDim(d, n)
		if checkDup && n > 0 {
			if mask[w] {
				tensor.Panicf("dim %d appears multiple times in the list of dims", w)
			}
		}
		mask[w] = true
	}
	sizes := make([]int, 0, n)
	strides := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if mask[i] && self.Sizes()[i] == 1 {
			continue
		}
		sizes = append(sizes, self.Sizes()[i])
		strides = append(strides, self.Strides()[i])
	}
	return viewOf(self, sizes, strides, self.StorageOffset(), op.DeviceOf(a))
}

func unsqueezeMeta(op *tensor.Op, a []any) any {
	p := args.UnsqueezeOf(a)
	self := p.Self
	n := self.Dim()
	dim := tensor.WrapDim(p.Dim, n+1)
	newStride := 1
	if dim < n {
		newStride = self.Sizes()[dim] * self.Strides()[dim]
	}
	sizes := make([]int, 0, n+1)
	strides := make([]int, 0, n+1)
	sizes = append(append(append(sizes, self.Sizes()[:dim]...), 1), self.Sizes()[dim:]...)
	strides = append(append(append(strides, self.Strides()[:dim]...), newStride), self.Strides()[dim:]...)
	return viewOf(self, sizes, strides, self.StorageOffset(), op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// Memory formats and layouts of new tensors

// IsNonOverlappingAndDense reports whether the elements of a view with these
// sizes and strides fill a block of storage exactly, in some order.
func IsNonOverlappingAndDense(sizes, strides []int) bool {
	n := len(sizes)
	if n == 1 {
		return sizes[0] < 2 || strides[0] == 1
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	// Insertion sort by stride, size<2 dims last (stable enough for the check).
	less := func(a, b int) bool {
		if sizes[a] < 2 {
			return false
		}
		if sizes[b] < 2 {
			return true
		}
		return strides[a] < strides[b]
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && less(perm[j], perm[j-1]); j-- {
			perm[j], perm[j-1] = perm[j-1], perm[j]
		}
	}
	require := 1
	for _, d := range perm {
		if sizes[d] < 2 {
			return true
		}
		if strides[d] != require {
			return false
		}
		require *= sizes[d]
	}
	return true
}

// InferDenseStrides gives dense strides for sizes that keep the order of the
// given strides (the layout empty_like picks for a non-dense input).
func InferDenseStrides(sizes, strides []int) []int {
	n := len(sizes)
	perm := IterDimOrder(sizes, strides)
	out := make([]int, n)
	acc := 1
	for _, d := range perm {
		out[d] = acc
		acc *= max(sizes[d], 1)
	}
	return out
}

// memoryFormatName is c10's spelling of a memory format in messages.
func memoryFormatName(m tensor.MemoryFormat) string {
	switch m {
	case tensor.PreserveFormat:
		return "Preserve"
	case tensor.ChannelsLast:
		return "ChannelsLast"
	case tensor.ChannelsLast3d:
		return "ChannelsLast3d"
	}
	return "Contiguous"
}

// FormatStrides returns the strides of a new tensor of the given sizes in
// memory format m (contiguous, channels_last, channels_last_3d).
func FormatStrides(sizes []int, m tensor.MemoryFormat) []int {
	switch m {
	case tensor.ContiguousFormat:
		return tensor.ContiguousStrides(sizes)
	case tensor.ChannelsLast:
		tensor.Check(len(sizes) == 4, "required rank 4 tensor to use channels_last format")
		return channelsLastStrides(sizes, []int{1, 3, 2, 0})
	case tensor.ChannelsLast3d:
		tensor.Check(len(sizes) == 5, "required rank 5 tensor to use channels_last_3d format")
		return channelsLastStrides(sizes, []int{1, 4, 3, 2, 0})
	}
	tensor.Panicf("unsupported memory format %s", memoryFormatName(m))
	return nil
}

// channelsLastStrides assigns strides in the given order, fastest dim first.
func channelsLastStrides(sizes []int, order []int) []int {
	out := make([]int, len(sizes))
	acc := 1
	for _, d := range order {
		out[d] = acc
		acc *= max(sizes[d], 1)
	}
	return out
}

// IsContiguousFormat reports whether sizes/strides are contiguous in memory format m.
func IsContiguousFormat(sizes, strides []int, m tensor.MemoryFormat) bool {
	var order []int
	switch m {
	case tensor.ChannelsLast:
		if len(sizes) != 4 {
			return false
		}
		order = []int{1, 3, 2, 0}
	case tensor.ChannelsLast3d:
		if len(sizes) != 5 {
			return false
		}
		order = []int{1, 4, 3, 2, 0}
	default:
		return tensor.IsContiguousStrides(sizes, strides)
	}
	exp := 1
	for _, d := range order {
		if sizes[d] != 1 {
			if strides[d] != exp {
				return false
			}
			exp *= sizes[d]
		}
	}
	return true
}

// LikeStrides returns the strides empty_like(self, memory_format=m) gives:
// for preserve, self's own strides if dense, else dense strides in self's
// dim order.
func LikeStrides(self *tensor.Tensor, m tensor.MemoryFormat) []int {
	if m != tensor.PreserveFormat {
		return FormatStrides(self.Sizes(), m)
	}
	if IsNonOverlappingAndDense(self.Sizes(), self.Strides()) {
		return append([]int(nil), self.Strides()...)
	}
	return InferDenseStrides(self.Sizes(), self.Strides())
}

// likeMeta is a new tensor with self's sizes, dtype dt and the layout of memory format m.
func likeMeta(self *tensor.Tensor, dt tensor.DType, m tensor.MemoryFormat, dev tensor.Device) *tensor.Tensor {
	return tensor.NewMeta(self.Sizes(), LikeStrides(self, m), 0, dt, dev)
}

// ---------------------------------------------------------------------------
// cat

func catSkip(t *tensor.Tensor) bool { return t.Dim() == 1 && t.Sizes()[0] == 0 }

func catMeta(op *tensor.Op, a []any) any {
	p := args.CatOf(a)
	ts := p.Tensors
	dim := p.Dim
	tensor.Check(len(ts) > 0, "torch.cat(): expected a non-empty list of Tensors")
	for i, t := range ts {
		if t.Dim() <= 0 {
			tensor.Panicf("zero-dimensional tensor (at position %d) cannot be concatenated", i)
		}
	}
	for _, t := range ts {
		if !catSkip(t) {
			dim = tensor.WrapDim(dim, t.Dim())
			break
		}
	}
	ops := make([]any, len(ts))
	for i, t := range ts {
		ops[i] = t
	}
	dt := tensor.ResultType(ops...)
	dev := op.DeviceOf(a)
	valid := -1
	for i, t := range ts {
		if !catSkip(t) {
			valid = i
			break
		}
	}
	if valid < 0 {
		return tensor.NewMetaContiguous([]int{0}, dt, dev)
	}
	first := ts[valid]
	at := 0
	for i, t := range ts {
		if catSkip(t) {
			continue
		}
		if first.Dim() != t.Dim() {
			tensor.Panicf("Tensors must have same number of dimensions: got %d and %d", first.Dim(), t.Dim())
		}
		for d := 0; d < first.Dim(); d++ {
			if d == dim {
				continue
			}
			if first.Sizes()[d] != t.Sizes()[d] {
				tensor.Panicf("Sizes of tensors must match except in dimension %d. Expected size %d but got size %d for tensor number %d in the list.",
					dim, first.Sizes()[d], t.Sizes()[d], i)
			}
		}
		at += t.Sizes()[dim]
	}
	sizes := append([]int(nil), first.Sizes()...)
	sizes[dim] = at
	return tensor.NewMetaContiguous(sizes, dt, dev)
}

// ---------------------------------------------------------------------------
// flip, repeat

// FlipDims wraps a flip dim list and rejects repeats, returning a mask.
func FlipDims(dims []int, rank int) []bool {
	checkMaskRank(rank)
	mask := make([]bool, max(rank, 1))
	for _, d := range dims {
		w := tensor.WrapDim(d, rank)
		if mask[w] {
			tensor.Panicf("dim %d appears multiple times in the list of dims", w)
		}
		mask[w] = true
	}
	return mask[:rank]
}

func flipMeta(op *tensor.Op, a []any) any {
	p := args.FlipOf(a)
	FlipDims(p.Dims, p.Self.Dim())
	return Like(op, a, p.Self, tensor.Invalid)
}

func repeatMeta(op *tensor.Op, a []any) any {
	v := args.RepeatOf(a)
	self := v.Self
	reps := v.Repeats
	tensor.Check(len(reps) >= self.Dim(), "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
	pad := len(reps) - self.Dim()
	target := make([]int, len(reps))
	for i, r := range reps {
		p := 1
		if i >= pad {
			p = self.Sizes()[i-pad]
		}
		target[i] = p * r
	}
	return contigMeta(target, self.DType(), op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// constant_pad_nd

// narrowCheck validates narrow(dim, start, length) on a dim of size cur.
func narrowCheck(cur, start, length int) int {
	if start != cur {
		start = tensor.WrapDim(start, cur)
	}
	if length < 0 || start > cur-length {
		tensor.Panicf("start (%d) + length (%d) exceeds dimension size (%d).", start, length, cur)
	}
	return start
}

// ConstantPadGeometry validates a constant_pad_nd call on an input of the
// given sizes and returns the output sizes, plus the window copied from the
// input: per dim, its start in the input (inLo), its start in the output
// (outLo) and its length (n). Negative pads crop the input.
func ConstantPadGeometry(sizes, pad []int) (out, inLo, outLo, n []int) {
	if len(pad)%2 != 0 {
		tensor.Panicf("Length of pad must be even but instead it equals %d", len(pad))
	}
	rank := len(sizes)
	lpad := len(pad) / 2
	if rank < lpad {
		tensor.Panicf("Length of pad should be no more than twice the number of dimensions of the input. Pad length is %dwhile the input has %ddimensions.", len(pad), rank)
	}
	ldiff := rank - lpad
	inLo = make([]int, rank)
	outLo = make([]int, rank)
	n = append([]int(nil), sizes...)
	allNonPos := true
	for i := ldiff; i < rank; i++ {
		p := 2 * (rank - i - 1)
		if pad[p] < 0 {
			inLo[i] += narrowCheck(n[i], -pad[p], n[i]+pad[p])
			n[i] += pad[p]
		} else if pad[p] != 0 {
			allNonPos = false
		}
		if pad[p+1] < 0 {
			narrowCheck(n[i], 0, n[i]+pad[p+1])
			n[i] += pad[p+1]
		} else if pad[p+1] != 0 {
			allNonPos = false
		}
	}
	if allNonPos {
		return append([]int(nil), n...), inLo, outLo, n
	}
	out = append([]int(nil), sizes...)
	for i := 0; i < lpad; i++ {
		p := len(pad) - (i+1)*2
		nd, ok := addNoOverflow(sizes[ldiff+i], pad[p], pad[p+1])
		// PyTorch's sum wraps round for pads near the int64 limits and then
		// fails one way or another; here every such sum is out of range.
		if !ok || nd <= 0 {
			tensor.Panicf("The input size %d, plus negative padding %d and %d resulted in a negative output size, which is invalid. Check dimension %d of your input.",
				sizes[ldiff+i], pad[p], pad[p+1], ldiff+i)
		}
		out[ldiff+i] = nd
		if pad[p] > 0 {
			outLo[ldiff+i] = pad[p]
		}
	}
	return out, inLo, outLo, n
}

// sum128 sums v exactly as a 128-bit two's-complement number (hi, lo).
func sum128(v []int) (hi int64, lo uint64) {
	for _, x := range v {
		var c uint64
		lo, c = bits.Add64(lo, uint64(x), 0)
		hi += int64(c)
		if x < 0 {
			hi--
		}
	}
	return hi, lo
}

// addNoOverflow sums v exactly and reports whether the sum fits an int.
// Partial sums may leave the int range: 4 + MaxInt + (MinInt+5) is 8.
func addNoOverflow(v ...int) (int, bool) {
	hi, lo := sum128(v)
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		return int(lo), true
	}
	return 0, false
}

// MulNoOverflow multiplies v exactly and reports whether the product fits
// an int (a product that wraps round must not pass a numel check).
func MulNoOverflow(v ...int) (int, bool) {
	p := 1
	for _, x := range v {
		if p == 0 || x == 0 {
			p = 0
			continue
		}
		q := p * x
		if q/x != p || (p == -1 && x == math.MinInt) || (x == -1 && p == math.MinInt) {
			return 0, false
		}
		p = q
	}
	return p, true
}

// satAdd sums v, saturating at the int limits instead of wrapping, so that a
// size plus pads near the limits reads as far out of range.
func satAdd(v ...int) int {
	if s, ok := addNoOverflow(v...); ok {
		return s
	}
	if hi, _ := sum128(v); hi < 0 {
		return math.MinInt
	}
	return math.MaxInt
}

// satMul multiplies a and b, saturating at the int limits instead of wrapping.
func satMul(a, b int) int {
	if p, ok := MulNoOverflow(a, b); ok {
		return p
	}
	if (a < 0) != (b < 0) {
		return math.MinInt
	}
	return math.MaxInt
}

func constantPadMeta(op *tensor.Op, a []any) any {
	v := args.ConstantPadNdOf(a)
	self := v.Self
	pad := v.Pad
	out, _, _, _ := ConstantPadGeometry(self.Sizes(), pad)
	// 1.13 returns a clone when no pad is positive, never converting the
	// value (a NaN pad value for an integer tensor is then no error).
	if slices.ContainsFunc(pad, func(p int) bool { return p > 0 }) {
		CheckScalarFits(v.Value, self.DType())
	}
	return contigMeta(out, self.DType(), op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// clone, copy, _to_copy, resize_

func cloneMeta(op *tensor.Op, a []any) any {
	p := args.CloneOf(a)
	m := p.MemoryFormat.Or(tensor.PreserveFormat)
	return likeMeta(p.Self, p.Self.DType(), m, op.DeviceOf(a))
}

func copyMeta(op *tensor.Op, a []any) any {
	p := args.CopyOf(a)
	self, src := p.Self, p.Src
	ExpandGeometry(src, self.Sizes())
	return tensor.NewMetaContiguous(self.Sizes(), self.DType(), op.DeviceOf(a))
}

func toCopyMeta(op *tensor.Op, a []any) any {
	p := args.InternalToCopyOf(a)
	self := p.Self
	dt := p.Dtype.Or(self.DType())
	dev := p.Device.Or(self.Device())
	m := p.MemoryFormat.Or(tensor.PreserveFormat)
	return likeMeta(self, dt, m, dev)
}

func resizeMeta(op *tensor.Op, a []any) any {
	p := args.Resize_Of(a)
	self := p.Self
	size := p.Size
	for _, s := range size {
		tensor.Check(s >= 0, "numel: integer multiplication overflow")
	}
	checkNumel(size)
	strides := self.Strides()
	if !slices.Equal(self.Sizes(), size) {
		strides = tensor.ContiguousStrides(size)
	}
	if p.MemoryFormat.Ok {
		m := p.MemoryFormat.V
		if m == tensor.PreserveFormat {
			tensor.Panicf("Unsupported memory format%s", memoryFormatName(m))
		}
		strides = FormatStrides(size, m)
	}
	return tensor.NewMeta(size, strides, self.StorageOffset(), self.DType(), op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// select_scatter, slice_scatter

func checkScatterSrc(src []int, slice []int) {
	if !slices.Equal(src, slice) {
		tensor.Panicf("expected src to have a size equal to the slice of self. src size = %s, slice size = %s", tensor.ShapeString(src), tensor.ShapeString(slice))
	}
}

func selectScatterMeta(op *tensor.Op, a []any) any {
	p := args.SelectScatterOf(a)
	sizes, _, _ := selectGeometry(p.Self, p.Dim, p.Index)
	checkScatterSrc(p.Src.Sizes(), sizes)
	return likeMeta(p.Self, p.Self.DType(), tensor.PreserveFormat, op.DeviceOf(a))
}

func sliceScatterMeta(op *tensor.Op, a []any) any {
	p := args.SliceScatterOf(a)
	sizes, _, _, _ := sliceGeometry(p.Self, p.Dim, p.Start, p.End, p.Step)
	checkScatterSrc(p.Src.Sizes(), sizes)
	return likeMeta(p.Self, p.Self.DType(), tensor.PreserveFormat, op.DeviceOf(a))
}

// SelectView and SliceView describe the window select_scatter/slice_scatter
// write into, on a tensor with the given metadata.
func SelectView(t *tensor.Tensor, dim, index int) *tensor.Tensor {
	sizes, strides, off := selectGeometry(t, dim, index)
	return tensor.NewMeta(sizes, strides, off, t.DType(), t.Device())
}

// SliceView: see SelectView. start and end are slice_scatter's (None when
// not Ok).
func SliceView(t *tensor.Tensor, dim int, start, end args.Opt[int], step int) *tensor.Tensor {
	sizes, strides, off, _ := sliceGeometry(t, dim, start, end, step)
	return tensor.NewMeta(sizes, strides, off, t.DType(), t.Device())
}

func init() {
	def("aten::view.default", viewMeta)
	def("aten::permute.default", permuteMeta)
	def("aten::expand.default", expandMeta)
	def("aten::alias.default", aliasMeta)
	def("aten::slice.Tensor", sliceMeta)
	def("aten::select.int", selectMeta)
	def("aten::split_with_sizes.default", splitWithSizesMeta)
	def("aten::diagonal.default", diagonalMeta)
	def("aten::as_strided.default", asStridedMeta)
	def("aten::squeeze.dim", squeezeDimMeta)
	def("aten::squeeze.dims", squeezeDimsMeta)
	def("aten::unsqueeze.default", unsqueezeMeta)
	def("aten::cat.default", catMeta)
	def("aten::flip.default", flipMeta)
	def("aten::repeat.default", repeatMeta)
	def("aten::constant_pad_nd.default", constantPadMeta)
	def("aten::clone.default", cloneMeta)
	def("aten::copy.default", copyMeta)
	def("aten::_to_copy.default", toCopyMeta)
	def("aten::resize_.default", resizeMeta)
	def("aten::select_scatter.default", selectScatterMeta)
	def("aten::slice_scatter.default", sliceScatterMeta)
}
