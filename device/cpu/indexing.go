package cpu

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Kernels of the indexing family. Every op is reduced to a list of element
// moves between storages ("copy run k from src offset to dst offset", or
// "combine into dst"), computed from the index values once and then applied
// by a loop typed on the element size or dtype. Runs are longer than one
// element whenever the non-indexed trailing dims are contiguous on both
// sides, so row gathers (index_select on dim 0, embedding) become copies.

// ixMoves lists transfers of run consecutive elements: for each k, from src
// offset src[k] to dst offset dst[k]. A nil dst (src) list means sequential
// offsets dstBase + k*run (srcBase + k*run).
type ixMoves struct {
	dst, src         []int
	dstBase, srcBase int
	run              int
}

func (m *ixMoves) count() int {
	if m.dst != nil {
		return len(m.dst)
	}
	return len(m.src)
}

func (m *ixMoves) at(k int) (d, s int) {
	if m.dst != nil {
		d = m.dst[k]
	} else {
		d = m.dstBase + k*m.run
	}
	if m.src != nil {
		s = m.src[k]
	} else {
		s = m.srcBase + k*m.run
	}
	return
}

// ixCopy applies moves as plain copies between storages of the same dtype.
func ixCopy(dst, src *tensor.Tensor, mv *ixMoves) {
	if mv.count() == 0 || mv.run == 0 {
		return
	}
	switch dst.DType().ItemSize() {
	case 1:
		ixCopyT(data[uint8](dst), data[uint8](src), mv)
	case 2:
		ixCopyT(data[uint16](dst), data[uint16](src), mv)
	case 4:
		ixCopyT(data[uint32](dst), data[uint32](src), mv)
	case 8:
		ixCopyT(data[uint64](dst), data[uint64](src), mv)
	}
}

func ixCopyT[T uint8 | uint16 | uint32 | uint64](d, s []T, mv *ixMoves) {
	n := mv.count()
	r := mv.run
	if r == 1 {
		switch {
		case mv.dst == nil:
			d := d[mv.dstBase : mv.dstBase+n]
			for k := range d {
				d[k] = s[mv.src[k]]
			}
		case mv.src == nil:
			s := s[mv.srcBase : mv.srcBase+n]
			for k, o := range mv.dst {
				d[o] = s[k]
			}
		default:
			for k, o := range mv.dst {
				d[o] = s[mv.src[k]]
			}
		}
		return
	}
	for k := 0; k < n; k++ {
		do, so := mv.at(k)
		copy(d[do:do+r], s[so:so+r])
	}
}

// Reduction kinds of scatter-like ops.
type ixReduce uint8

const (
	ixAssign ixReduce = iota
	ixSum
	ixProd
	ixMax
	ixMin
)

// ixCombine applies moves combining src into dst with the given reduction,
// element by element in order, rounding to the dtype after every step as
// PyTorch's scalar loops do (float16/bfloat16 go through float32).
func ixCombine(dst, src *tensor.Tensor, mv *ixMoves, red ixReduce) {
	if mv.count() == 0 || mv.run == 0 {
		return
	}
	if red == ixAssign {
		ixCopy(dst, src, mv)
		return
	}
	switch dst.DType() {
	case tensor.Bool:
		ixCombineBool(data[uint8](dst), data[uint8](src), mv, red)
	case tensor.Uint8:
		ixCombineT(data[uint8](dst), data[uint8](src), mv, red)
	case tensor.Int8:
		ixCombineT(data[int8](dst), data[int8](src), mv, red)
	case tensor.Int16:
		ixCombineT(data[int16](dst), data[int16](src), mv, red)
	case tensor.Int32:
		ixCombineT(data[int32](dst), data[int32](src), mv, red)
	case tensor.Int64:
		ixCombineT(data[int64](dst), data[int64](src), mv, red)
	case tensor.Float32:
		ixCombineT(data[float32](dst), data[float32](src), mv, red)
	case tensor.Float64:
		ixCombineT(data[float64](dst), data[float64](src), mv, red)
	case tensor.Float16:
		ixCombineHalf(data[uint16](dst), data[uint16](src), mv, red, tensor.HalfToFloat32, tensor.Float32ToHalf)
	case tensor.BFloat16:
		ixCombineHalf(data[uint16](dst), data[uint16](src), mv, red, tensor.BF16ToFloat32, tensor.Float32ToBF16)
	}
}

type ixNum interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

func ixCombineT[T ixNum](d, s []T, mv *ixMoves, red ixReduce) {
	n, r := mv.count(), mv.run
	for k := 0; k < n; k++ {
		do, so := mv.at(k)
		dd := d[do : do+r]
		ss := s[so : so+r]
		switch red {
		case ixSum:
			for j := range dd {
				dd[j] += ss[j]
			}
		case ixProd:
			for j := range dd {
				dd[j] *= ss[j]
			}
		case ixMax:
			for j, v := range ss {
				// NaN in src wins; NaN in dst stays (v > NaN is false).
				if v != v || dd[j] < v {
					dd[j] = v
				}
			}
		case ixMin:
			for j, v := range ss {
				if v != v || v < dd[j] {
					dd[j] = v
				}
			}
		}
	}
}

func ixCombineBool(d, s []uint8, mv *ixMoves, red ixReduce) {
	n, r := mv.count(), mv.run
	for k := 0; k < n; k++ {
		do, so := mv.at(k)
		dd := d[do : do+r]
		ss := s[so : so+r]
		for j, v := range ss {
			switch red {
			case ixSum, ixMax:
				dd[j] |= v
			default:
				dd[j] &= v
			}
		}
	}
}

func ixCombineHalf(d, s []uint16, mv *ixMoves, red ixReduce, widen func(uint16) float32, narrow func(float32) uint16) {
	n, r := mv.count(), mv.run
	for k := 0; k < n; k++ {
		do, so := mv.at(k)
		dd := d[do : do+r]
		ss := s[so : so+r]
		for j := range ss {
			a, b := widen(dd[j]), widen(ss[j])
			var c float32
			switch red {
			case ixSum:
				c = a + b
			case ixProd:
				c = a * b
			case ixMax:
				c = a
				if b != b || a < b {
					c = b
				}
			case ixMin:
				c = a
				if b != b || b < a {
					c = b
				}
			}
			dd[j] = narrow(c)
		}
	}
}

// ixOffsets returns the storage offset of every element of the view
// (shape, strides, base) in row-major order.
func ixOffsets(shape, strides []int, base int) []int {
	n := tensor.Numel(shape)
	out := make([]int, n)
	if n == 0 {
		return out
	}
	rowMajorLoop(shape, strides, base).run(func(offs *[maxArgs]int, m int, inner *[maxArgs]int) {
		k, o, st := offs[0], offs[1], inner[1]
		for j := 0; j < m; j++ {
			out[k+j] = o + j*st
		}
	})
	return out
}

// rowMajorLoop is a loop over the view (shape, strides, base) in row-major
// order: operand 0 is the element's row-major position (its runs have
// stride 1), operand 1 the view. A loop over the view alone would walk a
// transposed view in memory order.
func rowMajorLoop(shape, strides []int, base int) *loop {
	return newLoop(shape, [][]int{tensor.ContiguousStrides(shape), strides}, []int{0, base})
}

// ixInt64sView loads the elements of an integral or bool view in row-major order.
func ixInt64sView(t *tensor.Tensor, shape, strides []int) []int64 {
	n := tensor.Numel(shape)
	out := make([]int64, n)
	if n == 0 {
		return out
	}
	s, d := t.Storage(), t.DType()
	rowMajorLoop(shape, strides, t.StorageOffset()).run(func(offs *[maxArgs]int, m int, inner *[maxArgs]int) {
		loadI64(out[offs[0]:offs[0]+m], s, d, offs[1], inner[1])
	})
	return out
}

// ixInt64s loads an integral or bool tensor's elements in row-major order.
func ixInt64s(t *tensor.Tensor) []int64 { return ixInt64sView(t, t.Sizes(), t.Strides()) }

// ixNonempty returns a tensor's sizes and strides, with a 0-d tensor seen
// as 1-d of size 1 (ATen's ensure_nonempty_*).
func ixNonempty(t *tensor.Tensor) (sizes, strides []int) {
	if t.Dim() == 0 {
		return []int{1}, []int{1}
	}
	return t.Sizes(), t.Strides()
}

// ixClone allocates op's output and copies self into it (broadcasting),
// which writes every element: the allocation is not zeroed first.
func ixClone(op *tensor.Op, a []any, self *tensor.Tensor) *tensor.Tensor {
	out := allocMetaUninit(op, a)
	copyInto(out, self)
	return out
}

// ---- gather / scatter ----

// ixScatterIndex turns a gather/scatter index into storage offsets into t
// (the tensor indexed along dim), checking every value. It also returns the
// nonempty shape of the index.
func ixScatterIndex(t *tensor.Tensor, dim int, index *tensor.Tensor) (offs []int, ishape []int) {
	tSizes, tStrides := ixNonempty(t)
	ishape, _ = ixNonempty(index)
	st := append([]int(nil), tStrides[:len(ishape)]...)
	dimStride := st[dim]
	st[dim] = 0
	offs = ixOffsets(ishape, st, t.StorageOffset())
	size := tSizes[dim]
	for k, v := range ixInt64s(index) {
		if v < 0 || v >= int64(size) {
			tensor.Panicf("index %d is out of bounds for dimension %d with size %d", v, dim, size)
		}
		offs[k] += int(v) * dimStride
	}
	return offs, ishape
}

// ixLastDim is gather (src nil: out[r, j] = self[r, index[r, j]]) or
// scatter_add (self nil: out[r, index[r, j]] += src[r, j], out already a
// copy of self) along the last dim, for contiguous float32 or float64
// tensors, a contiguous int64 index and a src shaped like it: row by row,
// each row's indices in order (the generic path's order and checks), rows
// shared among the cores. It reports whether it could. For scatter_add, a
// non-nil from is the tensor out starts as (self): each row of out is
// copied from it just before its indices add into it, while it is in the
// cache, instead of in one copy beforehand; that needs index to cover every
// row of out (its sizes before dim those of out) and from contiguous.
func ixLastDim(out, self, index, src, from *tensor.Tensor, dim int) bool {
	t := self
	if t == nil {
		t = out
	}
	if from != nil && (from.DType() != out.DType() || !from.IsContiguous() || index.Dim() != out.Dim() ||
		!slices.Equal(index.Sizes()[:dim], out.Sizes()[:dim])) {
		return false
	}
	if dim != t.Dim()-1 || index.Dim() != t.Dim() || index.DType() != tensor.Int64 || !index.IsContiguous() ||
		!t.IsContiguous() || !out.IsContiguous() || index.Numel() == 0 {
		return false
	}
	if src != nil && (src.DType() != out.DType() || !src.IsContiguous() || !slices.Equal(src.Sizes(), index.Sizes())) {
		return false
	}
	switch out.DType() {
	case tensor.Float32:
		ixLastDimT[float32](out, self, index, src, from, dim)
	case tensor.Float64:
		ixLastDimT[float64](out, self, index, src, from, dim)
	default:
		return false
	}
	return true
}

func ixLastDimT[T float32 | float64](out, self, index, src, from *tensor.Tensor, dim int) {
	t := self
	if t == nil {
		t = out
	}
	ish, tsh := index.Sizes(), t.Sizes()
	J, K := ish[dim], tsh[dim]
	rows := index.Numel() / J
	ix := elems[int64](index)
	o := data[T](out)[out.StorageOffset():]
	var s []T
	if self != nil {
		s = data[T](self)[self.StorageOffset():]
	} else {
		s = data[T](src)[src.StorageOffset():]
	}
	var f []T
	if from != nil {
		f = data[T](from)[from.StorageOffset():]
	}
	// stage: gather reads each row of self through a copy in a buffer (at
	// most 16 or 32 KiB, in L1) when it takes at least one element in 8 (2
	// a cache line on average): one sequential pass over the row, which the
	// hardware prefetches, instead of a cache miss at nearly every index.
	stage := self != nil && J*8 >= K && K <= 4096
	// Each index is checked where it is used (no pass of its own over
	// index); bad records a failure, and the ordered pass after the loop
	// then reports the first index out of range, as the generic path does.
	// The result is fresh, so what was written before is never seen.
	var bad atomic.Bool
	parallel.Range(rows, max(1, grain/J), 1, func(lo, hi int) {
		var buf []T
		if stage {
			buf = make([]T, K)
		}
		// base: the row's start in t, from its index in index's leading dims.
		lead := make([]int, dim)
		rem := lo
		for d := dim - 1; d >= 0; d-- {
			lead[d] = rem % ish[d]
			rem /= ish[d]
		}
		for r := lo; r < hi; r++ {
			base := 0
			for d, v := range lead {
				base = base*tsh[d] + v
			}
			base *= K
			ir := ix[r*J : (r+1)*J]
			if self != nil {
				sr, or := s[base:base+K], o[r*J:(r+1)*J]
				if buf != nil {
					copy(buf, sr)
					sr = buf
				}
				if !gatherRow(or, sr, ir) {
					bad.Store(true)
					return
				}
			} else {
				sr, or := s[r*J:(r+1)*J], o[base:base+K]
				if f != nil {
					copy(or, f[base:base+K])
				}
				if !scatterAddRow(or, sr, ir) {
					bad.Store(true)
					return
				}
			}
			for d := dim - 1; d >= 0; d-- {
				if lead[d]++; lead[d] < ish[d] {
					break
				}
				lead[d] = 0
			}
		}
	})
	if bad.Load() {
		for _, v := range ix { // the first index out of range, in order, as the generic path reports it
			if uint64(v) >= uint64(K) {
				tensor.Panicf("index %d is out of bounds for dimension %d with size %d", v, dim, K)
			}
		}
	}
}

// gatherRow sets or[j] = sr[ir[j]] for each j; it reports false, having
// stopped, at an index out of range. (A function of its own, so that the
// loop keeps its variables in registers.)
func gatherRow[T float32 | float64](or, sr []T, ir []int64) bool {
	or = or[:len(ir)]
	for j, v := range ir {
		if uint64(v) >= uint64(len(sr)) {
			return false
		}
		or[j] = sr[v]
	}
	return true
}

// scatterAddRow adds sr[j] to or[ir[j]] for each j in turn; it reports
// false, having stopped, at an index out of range.
func scatterAddRow[T float32 | float64](or, sr []T, ir []int64) bool {
	sr = sr[:len(ir)]
	for j, v := range ir {
		if uint64(v) >= uint64(len(or)) {
			return false
		}
		or[v] += sr[j]
	}
	return true
}

func gatherKernel(out *tensor.Tensor, op *tensor.Op, a []any) { // both paths write every element
	p := args.GatherOf(a)
	self, index := p.Self, p.Index
	if out.Numel() == 0 {
		return
	}
	dim := tensor.WrapDim(p.Dim, self.Dim())
	if ixLastDim(out, self, index, nil, nil, dim) {
		return
	}
	src, _ := ixScatterIndex(self, dim, index)
	ixCopy(out, self, &ixMoves{src: src, run: 1})
}

// ixScatter runs scatter/scatter_add/scatter_reduce (self, dim and index
// the arguments of the list a that every one takes first): out starts as a
// copy of self, and src (a tensor shaped like index, or a one-element tensor
// for scatter.value) is combined into it.
func ixScatter(op *tensor.Op, a []any, self *tensor.Tensor, dim int, index, src *tensor.Tensor, constant bool, red ixReduce, mean, includeSelf bool) *tensor.Tensor {
	if red == ixSum && !constant && !mean && includeSelf && index.Numel() > 0 && self.Dim() > 0 {
		// out copied from self row by row inside the kernel, if it can.
		out := allocMetaUninit(op, a)
		if ixLastDim(out, nil, index, src, self, tensor.WrapDim(dim, self.Dim())) {
			return out
		}
		copyInto(out, self)
		return ixScatterInto(out, self, dim, index, src, constant, red, mean, includeSelf)
	}
	return ixScatterInto(ixClone(op, a, self), self, dim, index, src, constant, red, mean, includeSelf)
}

// ixScatterInto is ixScatter once out holds self's values.
func ixScatterInto(out, self *tensor.Tensor, dim int, index, src *tensor.Tensor, constant bool, red ixReduce, mean, includeSelf bool) *tensor.Tensor {
	if index.Numel() == 0 {
		return out
	}
	dim = tensor.WrapDim(dim, self.Dim())
	if red == ixSum && !constant && !mean && includeSelf && ixLastDim(out, nil, index, src, nil, dim) {
		return out
	}
	dst, ishape := ixScatterIndex(out, dim, index)
	mv := &ixMoves{dst: dst, run: 1}
	if constant {
		mv.src = ixFillInts(make([]int, len(dst)), src.StorageOffset())
	} else {
		_, sStrides := ixNonempty(src)
		mv.src = ixOffsets(ishape, sStrides[:len(ishape)], src.StorageOffset())
	}
	if !includeSelf {
		id := tensor.FromScalar(ixIdentity(red, out.DType()), out.DType())
		ixCopy(out, id, &ixMoves{dst: dst, src: make([]int, len(dst)), run: 1})
	}
	ixCombine(out, src, mv, red)
	if mean {
		ixMeanDivide(out, dst, includeSelf)
	}
	return out
}

func ixFillInts(s []int, v int) []int {
	for i := range s {
		s[i] = v
	}
	return s
}

// ixIdentity is the value scatter_reduce with include_self=False starts a
// scattered-to element from.
func ixIdentity(red ixReduce, d tensor.DType) tensor.Scalar {
	switch red {
	case ixProd:
		return tensor.Int(1)
	case ixMax:
		switch {
		case d == tensor.Bool:
			return tensor.BoolScalar(false)
		case d.IsFloat():
			return tensor.Float(math.Inf(-1))
		}
		return tensor.Int(ixIntLimit(d, false))
	case ixMin:
		switch {
		case d == tensor.Bool:
			return tensor.BoolScalar(true)
		case d.IsFloat():
			return tensor.Float(math.Inf(1))
		}
		return tensor.Int(ixIntLimit(d, true))
	}
	return tensor.Int(0)
}

func ixIntLimit(d tensor.DType, hi bool) int64 {
	switch d {
	case tensor.Uint8:
		if hi {
			return math.MaxUint8
		}
		return 0
	case tensor.Int8:
		if hi {
			return math.MaxInt8
		}
		return math.MinInt8
	case tensor.Int16:
		if hi {
			return math.MaxInt16
		}
		return math.MinInt16
	case tensor.Int32:
		if hi {
			return math.MaxInt32
		}
		return math.MinInt32
	}
	if hi {
		return math.MaxInt64
	}
	return math.MinInt64
}

// ixMeanDivide finishes scatter_reduce's "mean": every element is divided by
// the number of values reduced into it (self counting once when included,
// and 0 counts taken as 1), with floor division for integers and the count
// held in out's dtype as PyTorch does.
func ixMeanDivide(out *tensor.Tensor, dst []int, includeSelf bool) {
	n := out.Numel()
	counts := make([]int64, n)
	if includeSelf {
		for i := range counts {
			counts[i] = 1
		}
	}
	for _, o := range dst {
		counts[o]++
	}
	d := out.DType()
	s := out.Storage()
	if d.IsFloat() {
		v := make([]float64, n)
		loadF64(v, s, d, 0, 1)
		for i, c := range counts {
			cf := float64(c)
			switch d {
			case tensor.Float16:
				cf = float64(tensor.HalfToFloat32(tensor.Float32ToHalf(float32(cf))))
			case tensor.BFloat16:
				cf = float64(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(cf))))
			}
			if cf == 0 {
				cf = 1
			}
			if d == tensor.Float64 {
				v[i] /= cf
			} else {
				v[i] = float64(float32(v[i]) / float32(cf))
			}
		}
		storeF64(s, d, 0, 1, v)
		return
	}
	v := make([]int64, n)
	loadI64(v, s, d, 0, 1)
	for i, c := range counts {
		c = wrapInt(c, d)
		if c == 0 {
			c = 1
		}
		q := v[i] / c
		if v[i]%c != 0 && (v[i] < 0) != (c < 0) {
			q--
		}
		v[i] = q
	}
	storeI64(s, d, 0, 1, v)
}

func scatterSrcKernel(op *tensor.Op, a []any) any {
	p := args.ScatterOf(a)
	return ixScatter(op, a, p.Self, p.Dim, p.Index, p.Src, false, ixAssign, false, true)
}

func scatterValueKernel(op *tensor.Op, a []any) any {
	p := args.ScatterValueOf(a)
	v := tensor.FromScalar(p.Value, p.Self.DType())
	return ixScatter(op, a, p.Self, p.Dim, p.Index, v, true, ixAssign, false, true)
}

// scatterAddKernel is ixScatter's scatter_add into out: out starts as self,
// row by row in the kernel where ixLastDim takes it (every row: index
// covers out's leading dims), else in one copy.
func scatterAddKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.ScatterAddOf(a)
	self, index, src := p.Self, p.Index, p.Src
	if index.Numel() > 0 && self.Dim() > 0 && ixLastDim(out, nil, index, src, self, tensor.WrapDim(p.Dim, self.Dim())) {
		return
	}
	copyInto(out, self)
	ixScatterInto(out, self, p.Dim, index, src, false, ixSum, false, true)
}

func scatterReduceKernel(op *tensor.Op, a []any) any {
	p := args.ScatterReduceOf(a)
	var red ixReduce
	mean := false
	switch p.Reduce {
	case "sum":
		red = ixSum
	case "prod":
		red = ixProd
	case "mean":
		red, mean = ixSum, true
	case "amax":
		red = ixMax
	case "amin":
		red = ixMin
	}
	return ixScatter(op, a, p.Self, p.Dim, p.Index, p.Src, false, red, mean, p.IncludeSelf)
}

// ---- advanced indexing ----

// ixAdvanced is an advanced-indexing plan over a strided view: per dim
// either a full slice or an integer index (already broadcast), giving the
// result shape and, for every result element run, the source offset.
type ixAdvanced struct {
	sizes, strides []int
	offset         int
	result         []int
	outer, inner   []int // storage offsets of the non-indexed dims before/after the indexed block
	boff           []int // storage offset contributed by the indices, per broadcast position
	run            int   // elements per move (inner dims coalesced when contiguous)
}

// ixEntry is one integer index on dim dim: its values and shape.
type ixEntry struct {
	dim   int
	shape []int
	vals  []int64
}

// ixPlanIndices expands an index list (with bool/uint8 masks and None) over
// a view with the given sizes/strides/offset into a plan. It returns nil
// when no index is left (only None and 0-d masks).
func ixPlanIndices(sizes, strides []int, offset int, indices []*tensor.Tensor) *ixAdvanced {
	var entries []ixEntry
	pos := 0
	for _, ix := range indices {
		switch {
		case ix == nil:
			pos++
		case ix.DType() == tensor.Int64:
			entries = append(entries, ixEntry{dim: pos, shape: ix.Sizes(), vals: ixInt64s(ix)})
			pos++
		case ix.Dim() == 0:
			// aten::index drops 0-d masks (expandTensors gives no index for them).
		default:
			coords := ixNonzero(ix)
			cnt := len(coords) / max(ix.Dim(), 1)
			for j := 0; j < ix.Dim(); j++ {
				vals := make([]int64, cnt)
				for r := 0; r < cnt; r++ {
					vals[r] = coords[r*ix.Dim()+j]
				}
				entries = append(entries, ixEntry{dim: pos + j, shape: []int{cnt}, vals: vals})
			}
			pos += ix.Dim()
		}
	}
	if len(entries) == 0 {
		return nil
	}
	return ixPlan(sizes, strides, offset, entries)
}

// ixPlan builds the plan for integer index entries (sorted by dim).
func ixPlan(sizes, strides []int, offset int, entries []ixEntry) *ixAdvanced {
	shapes := make([][]int, len(sizes))
	for _, e := range entries {
		shapes[e.dim] = e.shape
	}
	result, bshape, front := core.AdvancedIndexShape(sizes, shapes)
	p := &ixAdvanced{sizes: sizes, strides: strides, offset: offset, result: result}

	// Offsets of each entry's values at every broadcast position.
	bn := tensor.Numel(bshape)
	if bn > tensor.MaxElements || tensor.Numel(result) > tensor.MaxElements {
		tensor.Panicf("refusing to index with %d broadcast positions into a result of shape %s",
			bn, tensor.ShapeString(result))
	}
	pos := make([][]int, len(entries))
	for k, e := range entries {
		es := tensor.ContiguousStrides(e.shape)
		bst := make([]int, len(bshape))
		off := len(bshape) - len(e.shape)
		for i, s := range e.shape {
			if s != 1 {
				bst[off+i] = es[i]
			}
		}
		pos[k] = ixOffsets(bshape, bst, 0)
	}
	p.boff = make([]int, bn)
	for b := 0; b < bn; b++ {
		o := 0
		for k, e := range entries {
			v := e.vals[pos[k][b]]
			size := int64(sizes[e.dim])
			if v < -size || v >= size {
				tensor.IndexPanicf("index %d is out of bounds for dimension %d with size %d", v, k, size)
			}
			if v < 0 {
				v += size
			}
			o += int(v) * strides[e.dim]
		}
		p.boff[b] = o
	}

	// Non-indexed dims before and after the indexed block.
	indexed := make([]bool, len(sizes))
	first, last := len(sizes), -1
	for _, e := range entries {
		indexed[e.dim] = true
		first = min(first, e.dim)
		last = max(last, e.dim)
	}
	var oSz, oSt, iSz, iSt []int
	for d := range sizes {
		if indexed[d] {
			continue
		}
		if !front && d < first {
			oSz, oSt = append(oSz, sizes[d]), append(oSt, strides[d])
		} else {
			iSz, iSt = append(iSz, sizes[d]), append(iSt, strides[d])
		}
	}
	p.outer = ixOffsets(oSz, oSt, offset)
	p.run = 1
	if ixUnitRun(iSz, iSt) {
		p.run = tensor.Numel(iSz)
		p.inner = []int{0}
	} else {
		p.inner = ixOffsets(iSz, iSt, 0)
	}
	return p
}

// ixUnitRun reports whether a view of sizes/strides is one contiguous run.
func ixUnitRun(sizes, strides []int) bool {
	exp := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		if sizes[i] == 1 {
			continue
		}
		if strides[i] != exp {
			return false
		}
		exp *= sizes[i]
	}
	return true
}

// offsets lists the storage offset of every run of the result in row-major
// order: outer × broadcast × inner.
func (p *ixAdvanced) offsets() []int {
	if tensor.Numel(p.result) == 0 || p.run == 0 {
		return nil
	}
	out := make([]int, 0, len(p.outer)*len(p.boff)*len(p.inner))
	for _, o := range p.outer {
		for _, b := range p.boff {
			ob := o + b
			for _, i := range p.inner {
				out = append(out, ob+i)
			}
		}
	}
	return out
}

// ixNonzero returns the row-major coordinates of the non-zero elements of
// t, flattened (t.Dim() numbers per element).
func ixNonzero(t *tensor.Tensor) []int64 {
	n := t.Numel()
	rank := t.Dim()
	var coords []int64
	if n == 0 {
		return coords
	}
	nz := ixNonzeroFlags(t)
	cnt := 0
	for _, f := range nz {
		if f {
			cnt++
		}
	}
	coords = make([]int64, 0, cnt*rank)
	sizes := t.Sizes()
	idx := make([]int64, rank)
	for k := 0; k < n; k++ {
		if nz[k] {
			coords = append(coords, idx...)
		}
		for d := rank - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < int64(sizes[d]) {
				break
			}
			idx[d] = 0
		}
	}
	return coords
}

// ixNonzeroFlags reports, in row-major order, which elements are non-zero
// (NaN is non-zero, -0.0 is zero).
func ixNonzeroFlags(t *tensor.Tensor) []bool {
	n := t.Numel()
	out := make([]bool, n)
	if n == 0 {
		return out
	}
	s, d := t.Storage(), t.DType()
	var fb [blockLen]float64
	var ib [blockLen]int64
	rowMajorLoop(t.Sizes(), t.Strides(), t.StorageOffset()).run(func(offs *[maxArgs]int, m int, inner *[maxArgs]int) {
		k, o, st := offs[0], offs[1], inner[1]
		for m > 0 {
			c := min(m, blockLen)
			if d.IsFloat() {
				loadF64(fb[:c], s, d, o, st)
				for j, v := range fb[:c] {
					out[k+j] = v != 0
				}
			} else {
				loadI64(ib[:c], s, d, o, st)
				for j, v := range ib[:c] {
					out[k+j] = v != 0
				}
			}
			k += c
			m -= c
			o += c * st
		}
	})
	return out
}

func indexKernel(op *tensor.Op, a []any) any {
	v := args.IndexOf(a)
	self, indices := v.Self, v.Indices
	core.CheckIndices(self, indices)
	p := ixPlanIndices(self.Sizes(), self.Strides(), self.StorageOffset(), indices)
	tensor.Check(p != nil, core.IndexNoTensors)
	out := tensor.Empty(self.DType(), p.result...)
	ixCopy(out, self, &ixMoves{src: p.offsets(), run: p.run})
	return out
}

// ixFillIndices handles a 0-d mask in index_put's masked_fill shortcut: a
// true mask selects the whole tensor (an empty index list), a false one
// nothing (nil). Other masks are returned as they are.
func ixFillIndices(indices []*tensor.Tensor) []*tensor.Tensor {
	for _, ix := range indices {
		if ix != nil && ix.Dim() == 0 {
			if ixInt64s(ix)[0] != 0 {
				return []*tensor.Tensor{}
			}
			return nil
		}
	}
	return indices
}

func indexPutKernel(op *tensor.Op, a []any) any {
	put := args.IndexPutOf(a)
	self, indices, values, accumulate := put.Self, put.Indices, put.Values, put.Accumulate
	out := ixClone(op, a, self)
	red := ixAssign
	if accumulate {
		red = ixSum
	}
	fill := core.IndexPutFillPath(indices, values, accumulate)
	if fill {
		// PyTorch's masked_fill shortcut: the value is cast to self's dtype.
		v := tensor.Empty(self.DType())
		copyInto(v, tensor.NewMeta(nil, nil, values.StorageOffset(), values.DType(), tensor.CPU).WithRaw(values.Raw()))
		indices = ixFillIndices(indices)
		if indices == nil {
			return out
		}
		values = v
	}
	p := ixPlanIndices(out.Sizes(), out.Strides(), out.StorageOffset(), indices)
	if p == nil {
		// The whole tensor: the masked_fill path with a true 0-d mask (only
		// None and 0-d masks elsewhere have 1.13 assert).
		tensor.Check(fill, core.IndexNoTensors)
		core.IndexPutValueCheck(values, out.Sizes())
		v := tensor.Empty(values.DType(), out.Sizes()...)
		copyInto(v, values)
		ixCombine(out, v, &ixMoves{dst: []int{0}, run: out.Numel()}, red)
		return out
	}
	core.IndexPutValueCheck(values, p.result)
	dst := p.offsets()
	if len(dst) == 0 {
		return out
	}
	v := tensor.Empty(values.DType(), p.result...)
	copyInto(v, values)
	ixCombine(out, v, &ixMoves{dst: dst, run: p.run}, red)
	return out
}

func indexSelectKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a) // every element is one selected element's copy
	sel := args.IndexSelectOf(a)
	self, index := sel.Self, sel.Index
	dim := tensor.WrapDim(sel.Dim, self.Dim())
	idx := ixInt64s(index)
	if self.Dim() == 0 {
		for _, v := range idx {
			if v != 0 {
				tensor.IndexPanicf("index out of range in self")
			}
		}
		copyInto(out, self)
		return out
	}
	if len(idx) == 0 {
		return out
	}
	size := self.Size(dim)
	for _, v := range idx {
		if v < 0 || v >= int64(size) {
			if self.Dim() > 1 && dim == 1 {
				tensor.Panicf("INDICES element is out of DATA bounds, id=%d axis_dim=%d", v, size)
			}
			tensor.IndexPanicf("index out of range in self")
		}
	}
	e := ixEntry{dim: dim, shape: []int{len(idx)}, vals: idx}
	p := ixPlan(self.Sizes(), self.Strides(), self.StorageOffset(), []ixEntry{e})
	ixCopy(out, self, &ixMoves{src: p.offsets(), run: p.run})
	return out
}

func maskedScatterKernel(op *tensor.Op, a []any) any {
	p := args.MaskedScatterOf(a)
	self, mask, source := p.Self, p.Mask, p.Source
	out := ixClone(op, a, self)
	if out.Numel() == 0 {
		return out
	}
	m := ixInt64sView(mask, out.Sizes(), tensor.BroadcastStrides(mask, out.Sizes()))
	isBool := mask.DType() == tensor.Bool
	src := contiguous(source)
	n := src.Numel()
	var dst, so []int
	c := 0
	for k, v := range m {
		if !isBool && v != 0 && v != 1 {
			tensor.Panicf("Mask tensor can take 0 and 1 values only")
		}
		if v != 0 {
			if c >= n {
				tensor.Panicf("Number of elements of source < number of ones in mask")
			}
			dst = append(dst, k)
			so = append(so, src.StorageOffset()+c)
			c++
		}
	}
	ixCopy(out, src, &ixMoves{dst: dst, src: so, run: 1})
	return out
}

func nonzeroKernel(op *tensor.Op, a []any) any {
	self := args.NonzeroOf(a).Self
	rank := self.Dim()
	if rank == 0 {
		cnt := 0
		if ixNonzeroFlags(self)[0] {
			cnt = 1
		}
		return tensor.Empty(tensor.Int64, cnt, 0)
	}
	coords := ixNonzero(self)
	out := tensor.Empty(tensor.Int64, len(coords)/rank, rank)
	copy(data[int64](out), coords)
	return out
}

func init() {
	implOut("aten::gather.default", gatherKernel)
	impl("aten::scatter.src", scatterSrcKernel)
	impl("aten::scatter.value", scatterValueKernel)
	implOut("aten::scatter_add.default", scatterAddKernel)
	impl("aten::scatter_reduce.two", scatterReduceKernel)
	impl("aten::index.Tensor", indexKernel)
	impl("aten::index_put.default", indexPutKernel)
	impl("aten::index_select.default", indexSelectKernel)
	impl("aten::masked_scatter.default", maskedScatterKernel)
	impl("aten::nonzero.default", nonzeroKernel)
}
