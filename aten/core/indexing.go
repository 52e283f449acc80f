package core

import (
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the indexing family: gather, scatter (src, value, add,
// reduce), index.Tensor, index_put, index_select, masked_scatter, nonzero.
// Checks that need the data (index values, mask counts) live in the CPU
// kernels; everything decidable from metadata is checked here.

// IndexLegacyTypeName is the legacy tensor type name PyTorch's argument
// checks print ("torch.FloatTensor").
func IndexLegacyTypeName(d tensor.DType) string {
	if d == tensor.BFloat16 {
		return "CPUBFloat16Type"
	}
	return "torch." + CTypeName(d) + "Tensor"
}

// DataDependentPanic raises the error a meta function gives when an op's
// output shape depends on the values of its inputs (nonzero, boolean-mask
// indexing): FakeTensor's DynamicOutputShapeException.
func DataDependentPanic(op string, what string) {
	tensor.Panicf("%s: the output shape depends on the input's data (%s), so it cannot be computed from metadata alone; run the op on a device that holds the data", op, what)
}

// ixNonemptyDim is ATen's ensure_nonempty_dim: a 0-d tensor counts as 1-d.
func ixNonemptyDim(d int) int { return max(d, 1) }

// ixNonemptySize is ATen's ensure_nonempty_size: size d, or 1 for a 0-d tensor.
func ixNonemptySize(t *tensor.Tensor, d int) int {
	if t.Dim() == 0 {
		return 1
	}
	return t.Size(d)
}

// gatherShapeCheck is ATen's gather_shape_check.
func gatherShapeCheck(self *tensor.Tensor, dim int, index *tensor.Tensor) {
	selfDims := ixNonemptyDim(self.Dim())
	tensor.Check(selfDims == ixNonemptyDim(index.Dim()),
		"Index tensor must have the same number of dimensions as input tensor")
	for i := 0; i < selfDims; i++ {
		if i != dim && ixNonemptySize(index, i) > ixNonemptySize(self, i) {
			tensor.Panicf("Size does not match at dimension %d expected index %s to be smaller than self %s apart from dimension %d",
				i, tensor.ShapeString(index.Sizes()), tensor.ShapeString(self.Sizes()), dim)
		}
	}
}

func gatherMeta(op *tensor.Op, a []any) any {
	p := args.GatherOf(a)
	self, index := p.Self, p.Index
	dim := tensor.WrapDim(p.Dim, self.Dim())
	if index.Numel() != 0 {
		tensor.Check(index.DType() == tensor.Int64, "gather(): Expected dtype int64 for index")
		gatherShapeCheck(self, dim, index)
	}
	return Like(op, a, index, self.DType())
}

// ixSrcSize is ensure_nonempty_size on src, which raises PyTorch's IndexError
// when src has fewer dims than the loop expects.
func ixSrcSize(src *tensor.Tensor, d int) int {
	if src.Dim() == 0 {
		return 1
	}
	return src.Size(d)
}

// scatterShapeCheck is ATen's scatter_shape_check; src may be nil.
func scatterShapeCheck(self *tensor.Tensor, dim int, index, src *tensor.Tensor) {
	if index.Numel() == 0 {
		return
	}
	tensor.Check(ixNonemptyDim(self.Dim()) == ixNonemptyDim(index.Dim()),
		"Index tensor must have the same number of dimensions as self tensor")
	wrong := false
	selfDims := ixNonemptyDim(self.Dim())
	for d := 0; d < selfDims; d++ {
		if d == dim {
			continue
		}
		if ixNonemptySize(index, d) > ixNonemptySize(self, d) {
			wrong = true
			break
		}
	}
	if !wrong && src != nil {
		for d := 0; d < selfDims; d++ {
			if ixNonemptySize(index, d) > ixSrcSize(src, d) {
				wrong = true
				break
			}
		}
	}
	if src != nil {
		tensor.Check(ixNonemptyDim(src.Dim()) == ixNonemptyDim(index.Dim()),
			"Index tensor must have the same number of dimensions as src tensor")
		if wrong { // the message is formatted only when it is needed
			tensor.Panicf("Expected index %s to be smaller than self %s apart from dimension %d and to be smaller size than src %s",
				tensor.ShapeString(index.Sizes()), tensor.ShapeString(self.Sizes()), dim, tensor.ShapeString(src.Sizes()))
		}
		return
	}
	if wrong {
		tensor.Panicf("Expected index %s to be smaller than self %s apart from dimension %d",
			tensor.ShapeString(index.Sizes()), tensor.ShapeString(self.Sizes()), dim)
	}
}

// scatterCheck runs scatter_meta_impl's checks and returns the wrapped dim.
// reduce is "" for plain scatter.
func scatterCheck(self *tensor.Tensor, dim int, index, src *tensor.Tensor, reduce string) int {
	d := tensor.WrapDim(dim, self.Dim())
	if reduce != "" {
		switch reduce {
		case "sum", "prod", "mean", "amax", "amin":
		default:
			tensor.Panicf("reduce argument must be either sum, prod, mean, amax or amin, got %s.", reduce)
		}
	}
	if index.Numel() != 0 {
		tensor.Check(index.DType() == tensor.Int64, "scatter(): Expected dtype int64 for index")
	}
	if src != nil {
		tensor.Check(self.DType() == src.DType(), "scatter(): Expected self.dtype to be equal to src.dtype")
	}
	scatterShapeCheck(self, d, index, src)
	return d
}

// scatterSrc is the meta of scatter.src and of scatter_add, whose
// arguments are the same.
func scatterSrc(op *tensor.Op, a []any, p args.Scatter) any {
	scatterCheck(p.Self, p.Dim, p.Index, p.Src, "")
	return Like(op, a, p.Self, tensor.Invalid)
}

func scatterSrcMeta(op *tensor.Op, a []any) any { return scatterSrc(op, a, args.ScatterOf(a)) }

func scatterAddMeta(op *tensor.Op, a []any) any {
	return scatterSrc(op, a, args.Scatter(args.ScatterAddOf(a)))
}

func scatterValueMeta(op *tensor.Op, a []any) any {
	p := args.ScatterValueOf(a)
	self, index := p.Self, p.Index
	scatterCheck(self, p.Dim, index, nil, "")
	if index.Numel() != 0 {
		CheckScalarFits(p.Value, self.DType())
	}
	return Like(op, a, self, tensor.Invalid)
}

func scatterReduceMeta(op *tensor.Op, a []any) any {
	p := args.ScatterReduceOf(a)
	self := p.Self
	reduce := p.Reduce
	scatterCheck(self, p.Dim, p.Index, p.Src, reduce)
	if reduce == "mean" && self.DType() == tensor.Bool {
		tensor.Panicf("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
	}
	return Like(op, a, self, tensor.Invalid)
}

// IndexInfo is the analysis of a Tensor?[] index list against self, before
// boolean masks are turned into integer indices.
type IndexInfo struct {
	// HasMask is set when some entry is a bool/uint8 mask of one or more
	// dims: the result shape then depends on the mask values.
	HasMask bool
	// Entries counts the indices left once None entries and 0-d masks
	// (which aten::index drops) are removed.
	Entries int
}

// CheckIndices validates an advanced-index list as PyTorch's index and
// index_put do before looking at data: index dtypes, the number of indices,
// and mask shapes against the dims they cover.
func CheckIndices(self *tensor.Tensor, indices []*tensor.Tensor) IndexInfo {
	var info IndexInfo
	if len(indices) > self.Dim() {
		tensor.IndexPanicf("too many indices for tensor of dimension %d (got %d)", self.Dim(), len(indices))
	}
	for _, ix := range indices {
		if ix == nil {
			continue
		}
		switch ix.DType() {
		case tensor.Int64, tensor.Uint8, tensor.Bool:
		default:
			// PyTorch 1.13 rejects int32 indices here too.
			tensor.IndexPanicf("tensors used as indices must be long, byte or bool tensors")
		}
	}
	pos := 0
	for _, ix := range indices {
		if ix == nil {
			pos++
			continue
		}
		if ix.DType() == tensor.Int64 {
			info.Entries++
			pos++
			continue
		}
		if ix.Dim() == 0 {
			// PyTorch's expandTensors turns a 0-d mask into no index at
			// all: it consumes no dim and is dropped.
			continue
		}
		info.HasMask = true
		for j := 0; j < ix.Dim(); j++ {
			src := pos + j
			if src >= self.Dim() {
				tensor.IndexPanicf("too many indices for tensor of dimension %d (got %d)", self.Dim(), src+1)
			}
			if ix.Size(j) != self.Size(src) {
				tensor.IndexPanicf("The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d",
					tensor.ShapeString(ix.Sizes()), j, tensor.ShapeString(self.Sizes()), src)
			}
		}
		info.Entries += ix.Dim()
		pos += ix.Dim()
	}
	return info
}

// AdvancedIndexShape computes the result of advanced indexing a tensor of
// the given sizes by integer index tensors of the given shapes, one entry per
// dim of sizes (nil: a full slice). It returns the result shape, the
// broadcast index shape, and whether the indexed dims go to the front (when
// they are not adjacent), following PyTorch's rule.
func AdvancedIndexShape(sizes []int, idx [][]int) (result, bshape []int, front bool) {
	var shapes [][]int
	first, last := -1, -1
	for d, s := range idx {
		if s == nil {
			continue
		}
		if first < 0 {
			first = d
		}
		last = d
		shapes = append(shapes, s)
	}
	bshape = ixBroadcastIndexShapes(shapes)
	for d := first; d <= last && first >= 0; d++ {
		if idx[d] == nil {
			front = true
		}
	}
	bnumel := tensor.Numel(bshape)
	for d, s := range idx {
		if s != nil && sizes[d] == 0 && bnumel != 0 {
			tensor.IndexPanicf("index is out of bounds for dimension with size 0")
		}
	}
	if front {
		result = append(result, bshape...)
		for d, s := range idx {
			if s == nil {
				result = append(result, sizes[d])
			}
		}
		return result, bshape, true
	}
	result = append(result, sizes[:first]...)
	result = append(result, bshape...)
	result = append(result, sizes[last+1:]...)
	return result, bshape, false
}

func ixBroadcastIndexShapes(shapes [][]int) []int {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, v := range s {
			o := out[off+i]
			switch {
			case o == v || v == 1:
			case o == 1:
				out[off+i] = v
			default:
				strs := make([]string, len(shapes))
				for k, sh := range shapes {
					strs[k] = tensor.ShapeString(sh)
				}
				tensor.IndexPanicf("shape mismatch: indexing tensors could not be broadcast together with shapes %s", strings.Join(strs, ", "))
			}
		}
	}
	return out
}

// IndexEntryShapes lays an index list without masks of one or more dims
// out as one entry per dim of a tensor of rank dims: the shape of the index
// tensor indexing that dim, nil for full slices. 0-d masks are dropped.
func IndexEntryShapes(indices []*tensor.Tensor, dims int) [][]int {
	out := make([][]int, dims)
	pos := 0
	for _, ix := range indices {
		switch {
		case ix == nil:
			pos++
		case ix.DType() == tensor.Int64:
			out[pos] = append([]int{}, ix.Sizes()...)
			pos++
		}
	}
	return out
}

// IndexPutFillPath reports whether index_put takes PyTorch's masked_fill
// shortcut: no accumulation, a one-element value, and a single non-None
// index that is a bool/uint8 mask. The value is then cast to self's dtype
// (no dtype check) and written where the mask is true; a 0-d mask selects
// everything or nothing.
func IndexPutFillPath(indices []*tensor.Tensor, values *tensor.Tensor, accumulate bool) bool {
	if accumulate || values.Numel() != 1 {
		return false
	}
	var mask *tensor.Tensor
	for _, ix := range indices {
		if ix == nil {
			continue
		}
		if mask != nil || (ix.DType() != tensor.Bool && ix.DType() != tensor.Uint8) {
			return false
		}
		mask = ix
	}
	return mask != nil
}

// IndexNoTensors is 1.13's error for index and index_put (other than the
// masked_fill path) with only None and 0-d masks, which leave its CPU index
// kernel no index tensor (Python's x[True] never gets there: it unsqueezes
// instead).
const IndexNoTensors = `ntensor >= 3 INTERNAL ASSERT FAILED at "./aten/src/ATen/native/cpu/IndexKernelUtils.h":10, please report a bug to PyTorch. `

func indexMeta(op *tensor.Op, a []any) any {
	p := args.IndexOf(a)
	self := p.Self
	indices := p.Indices
	info := CheckIndices(self, indices)
	if info.HasMask {
		DataDependentPanic("index.Tensor", "the number of true elements of a boolean index")
	}
	tensor.Check(info.Entries > 0, IndexNoTensors)
	res, _, _ := AdvancedIndexShape(self.Sizes(), IndexEntryShapes(indices, self.Dim()))
	return Contig(op, a, self.DType(), res...)
}

// IndexPutValueCheck checks that values broadcast to the indexing result
// shape (no new leading dims), as index_put_ does.
func IndexPutValueCheck(values *tensor.Tensor, result []int) {
	ok := values.Dim() <= len(result)
	if ok {
		off := len(result) - values.Dim()
		for i, v := range values.Sizes() {
			if v != 1 && v != result[off+i] {
				ok = false
				break
			}
		}
	}
	if !ok {
		tensor.Panicf("shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
			tensor.ShapeString(values.Sizes()), tensor.ShapeString(result))
	}
}

func indexPutMeta(op *tensor.Op, a []any) any {
	p := args.IndexPutOf(a)
	self := p.Self
	indices := p.Indices
	values := p.Values
	info := CheckIndices(self, indices)
	if IndexPutFillPath(indices, values, p.Accumulate) {
		return Like(op, a, self, tensor.Invalid)
	}
	tensor.Check(info.Entries > 0, IndexNoTensors)
	if !info.HasMask {
		res, _, _ := AdvancedIndexShape(self.Sizes(), IndexEntryShapes(indices, self.Dim()))
		IndexPutValueCheck(values, res)
	}
	if values.DType() != self.DType() {
		tensor.Panicf("Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
			CTypeName(self.DType()), CTypeName(values.DType()))
	}
	return Like(op, a, self, tensor.Invalid)
}

func indexSelectMeta(op *tensor.Op, a []any) any {
	p := args.IndexSelectOf(a)
	self, index := p.Self, p.Index
	dim := tensor.WrapDim(p.Dim, self.Dim())
	if index.Dim() > 1 {
		tensor.IndexPanicf("index_select(): Index is supposed to be a vector")
	}
	tensor.Check(index.DType() == tensor.Int64 || index.DType() == tensor.Int32,
		"index_select(): Expected dtype int32 or int64 for index")
	shape := self.Shape()
	if self.Dim() > 0 {
		shape[dim] = index.Numel()
		if self.Dim() > 1 && index.Numel() > 0 && self.Size(dim) == 0 {
			tensor.Panicf("index_select(): self indexing axis dim should be positive")
		}
	}
	return Contig(op, a, self.DType(), shape...)
}

func maskedScatterMeta(op *tensor.Op, a []any) any {
	p := args.MaskedScatterOf(a)
	self, mask, source := p.Self, p.Mask, p.Source
	shape := tensor.BroadcastShapes(mask.Sizes(), self.Sizes())
	if self.DType() != source.DType() {
		tensor.Panicf("masked_scatter: expected self and source to have same dtypes but got%s and %s",
			CTypeName(self.DType()), CTypeName(source.DType()))
	}
	if mask.DType().IsFloat() {
		tensor.Panicf("masked_scatter_ only supports boolean masks, but got mask with dtype %s", CTypeName(mask.DType()))
	}
	return Contig(op, a, self.DType(), shape...)
}

func nonzeroMeta(op *tensor.Op, args []any) any {
	DataDependentPanic("nonzero", "the number of non-zero elements")
	return nil
}

func init() {
	def("aten::gather.default", gatherMeta)
	def("aten::scatter.src", scatterSrcMeta)
	def("aten::scatter.value", scatterValueMeta)
	def("aten::scatter_add.default", scatterAddMeta)
	def("aten::scatter_reduce.two", scatterReduceMeta)
	def("aten::index.Tensor", indexMeta)
	def("aten::index_put.default", indexPutMeta)
	def("aten::index_select.default", indexSelectMeta)
	def("aten::masked_scatter.default", maskedScatterMeta)
	def("aten::nonzero.default", nonzeroMeta)
}
