package cpu

import (
	"cmp"
	"math"
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// sort and topk work lane by lane: each 1-d lane along dim is loaded as
// float64 (float dtypes) or int64 (integral and bool), sorted as (value,
// index) pairs and stored into the outputs. NaN sorts as the largest value
// and equal values keep their index order, which makes sort stable as
// PyTorch's CPU sort is.

// eachLane calls fn for every lane of x along dim (x itself when 0-d) with
// the storage offset of the lane's first element in x (o[0]) and in each of
// outs (o[1:]), tensors shaped like x except along dim.
func eachLane(x *tensor.Tensor, dim int, outs []*tensor.Tensor, fn func(o *[maxArgs]int)) {
	var o [maxArgs]int
	o[0] = x.StorageOffset()
	for k, t := range outs {
		o[k+1] = t.StorageOffset()
	}
	if x.Dim() == 0 {
		fn(&o)
		return
	}
	shape := x.Shape()
	shape[dim] = 1
	strides := [][]int{x.Strides()}
	for _, t := range outs {
		strides = append(strides, t.Strides())
	}
	var lo [maxArgs]int
	newLoop(shape, strides, o[:1+len(outs)]).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
		for j := 0; j < n; j++ {
			for k := 0; k <= len(outs); k++ {
				lo[k] = offs[k] + j*inner[k]
			}
			fn(&lo)
		}
	})
}

// laneStride is t's stride along dim (0 for a 0-d t).
func laneStride(t *tensor.Tensor, dim int) int {
	if t.Dim() == 0 {
		return 0
	}
	return t.Strides()[dim]
}

type sortPair[E redElem] struct {
	v E
	i int64
}

// cmpNaNLast orders values ascending with NaN above everything.
func cmpNaNLast[E redElem](a, b E) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := a != a, b != b
	switch {
	case an && !bn:
		return 1
	case bn && !an:
		return -1
	}
	return 0
}

// pairOrder is the output order of sort/topk: by value (descending if
// desc), then by index.
func pairOrder[E redElem](desc bool) func(p, q sortPair[E]) int {
	return func(p, q sortPair[E]) int {
		c := cmpNaNLast(p.v, q.v)
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(p.i, q.i)
	}
}

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
func sortKernel(op *tensor.Op, a []any) any {
	outs := metaN(op, a)
	vals, idx := alloc(outs[0]), alloc(outs[1])
	p := args.SortOf(a)
	x := p.Self
	if x.Numel() == 0 {
		return []*tensor.Tensor{vals, idx}
	}
	dim := tensor.WrapDim(p.Dim, x.Dim())
	desc := p.Descending
	if x.DType().IsFloat() {
		selectLanes[float64](x, dim, -1, desc, vals, idx)
	} else {
		selectLanes[int64](x, dim, -1, desc, vals, idx)
	}
	return []*tensor.Tensor{vals, idx}
}

// selectLanes writes, for every lane of x along dim, its first k elements
// in pairOrder(desc) (all of them when k < 0) with their indices.
func selectLanes[E redElem](x *tensor.Tensor, dim, k int, desc bool, vals, idx *tensor.Tensor) {
	n := 1
	if x.Dim() > 0 {
		n = x.Size(dim)
	}
	if k < 0 {
		k = n
	}
	if k == 0 || n == 0 {
		return
	}
	if narrowKeys(x.DType()) && n <= math.MaxUint32 {
		selectLanesKeyed[E](x, dim, k, desc, vals, idx)
		return
	}
	order := pairOrder[E](desc)
	buf := make([]E, n)
	pairs := make([]sortPair[E], n)
	ib := make([]int64, k)
	xs, xd := x.Storage(), x.DType()
	xst, vst, ist := laneStride(x, dim), laneStride(vals, dim), laneStride(idx, dim)
	eachLane(x, dim, []*tensor.Tensor{vals, idx}, func(o *[maxArgs]int) {
		loadRed(buf, xs, xd, o[0], xst)
		var top []sortPair[E]
		if k*4 >= n {
			for i, v := range buf {
				pairs[i] = sortPair[E]{v, int64(i)}
			}
			slices.SortFunc(pairs, order)
			top = pairs[:k]
		} else {
			top = topKHeap(buf, k, pairs[:0], order)
		}
		for i, p := range top {
			buf[i], ib[i] = p.v, p.i
		}
		storeRed(vals.Storage(), vals.DType(), o[1], vst, buf[:k])
		storeI64(idx.Storage(), tensor.Int64, o[2], ist, ib)
	})
}

// topKHeap selects the k first elements of v in order, sorted, using h
// (capacity >= k) as a heap whose root is the last of those kept so far.
func topKHeap[E redElem](v []E, k int, h []sortPair[E], order func(p, q sortPair[E]) int) []sortPair[E] {
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && order(h[r], h[l]) > 0 {
				l = r
			}
			if order(h[l], h[i]) <= 0 {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for i, x := range v {
		p := sortPair[E]{x, int64(i)}
		if len(h) < k {
			h = append(h, p)
			for j := len(h) - 1; j > 0; {
				parent := (j - 1) / 2
				if order(h[j], h[parent]) <= 0 {
					break
				}
				h[j], h[parent] = h[parent], h[j]
				j = parent
			}
			continue
		}
		if order(p, h[0]) < 0 {
			h[0] = p
			down(0)
		}
	}
	slices.SortFunc(h, order)
	return h
}

// narrowKeys reports whether values of dtype d fit an order-preserving
// 32-bit key (every dtype but float64 and int64).
func narrowKeys(d tensor.DType) bool { return d != tensor.Float64 && d != tensor.Int64 }

// floatKey maps a float32-representable value to a uint32 whose unsigned
// order is the sort order: -0 equals 0 and every NaN is above +inf.
func floatKey(v float64) uint32 {
	if v != v {
		return math.MaxUint32
	}
	if v == 0 {
		v = 0 // -0 sorts with 0
	}
	b := math.Float32bits(float32(v))
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// float32Key is floatKey of a float32, from its bits: ^b for a negative
// value, b with the sign bit set otherwise; -0 as +0, NaN last.
func float32Key(v float32) uint32 {
	b := math.Float32bits(v)
	switch {
	case b&0x7fffffff > 0x7f800000:
		return math.MaxUint32
	case b == 1<<31:
		b = 0
	}
	return b ^ (uint32(int32(b)>>31) | 1<<31)
}

// intKey maps a value of a 32-bit or narrower integer dtype to an
// order-preserving uint32.
func intKey(v int64) uint32 { return uint32(int32(v)) ^ 1<<31 }

// selectLanesKeyed is selectLanes for dtypes with 32-bit keys: each element
// becomes key<<32 | index (key inverted when descending), so that sorting
// plain uint64s gives the order with ties by index.
func selectLanesKeyed[E redElem](x *tensor.Tensor, dim, k int, desc bool, vals, idx *tensor.Tensor) {
	n := 1
	if x.Dim() > 0 {
		n = x.Size(dim)
	}
	buf := make([]E, n)
	keys := make([]uint64, n)
	vb := make([]E, k)
	ib := make([]int64, k)
	var flip uint32
	if desc {
		flip = math.MaxUint32
	}
	xs, xd := x.Storage(), x.DType()
	xst, vst, ist := laneStride(x, dim), laneStride(vals, dim), laneStride(idx, dim)
	var x32 []float32 // a float32 x with contiguous lanes: keys from its bits
	if xd == tensor.Float32 && xst == 1 {
		x32 = data[float32](x)
	}
	eachLane(x, dim, []*tensor.Tensor{vals, idx}, func(o *[maxArgs]int) {
		if x32 != nil && k*4 < n {
			// smallestKeysF32 makes the keys it needs.
		} else if x32 != nil {
			for i, v := range x32[o[0] : o[0]+n] {
				keys[i] = uint64(float32Key(v)^flip)<<32 | uint64(i)
			}
		} else {
			loadRed(buf, xs, xd, o[0], xst)
			switch b := any(buf).(type) {
			case []float64:
				for i, v := range b {
					keys[i] = uint64(floatKey(v)^flip)<<32 | uint64(i)
				}
			case []int64:
				for i, v := range b {
					keys[i] = uint64(intKey(v)^flip)<<32 | uint64(i)
				}
			}
		}
		var sel []uint64
		if x32 != nil && k*4 < n {
			sel = smallestKeysF32(x32[o[0]:o[0]+n], k, desc, keys)
		} else if k*4 >= n {
			slices.Sort(keys)
			sel = keys[:k]
		} else {
			sel = smallestKeys(keys, k)
		}
		for i, key := range sel {
			j := uint32(key)
			if x32 != nil {
				vb[i] = E(x32[o[0]+int(j)])
			} else {
				vb[i] = buf[j]
			}
			ib[i] = int64(j)
		}
		storeRed(vals.Storage(), vals.DType(), o[1], vst, vb)
		storeI64(idx.Storage(), tensor.Int64, o[2], ist, ib)
	})
}

// smallestKeys moves the k smallest of keys, sorted, to its front (a
// max-heap of the k smallest seen so far) and returns them.
func smallestKeys(keys []uint64, k int) []uint64 {
	h := keys[:k]
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= k {
				return
			}
			if r := l + 1; r < k && h[r] > h[l] {
				l = r
			}
			if h[l] <= h[i] {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, key := range keys[k:] {
		if key < h[0] {
			h[0] = key
			down(0)
		}
	}
	slices.Sort(h)
	return h
}

// smallestKeysF32 is smallestKeys of row's keys (float32Key, inverted when
// desc, with the index below), made only for the elements that can enter
// the k kept so far: an element whose value is not past the last kept one
// (v <= it when desc, v >= it otherwise; a NaN or a NaN bound always
// compares) has a key no smaller than the heap's root, as equal keys lose
// on their later index. It uses keys[:k] as the heap.
func smallestKeysF32(row []float32, k int, desc bool, keys []uint64) []uint64 {
	var flip uint32
	if desc {
		flip = math.MaxUint32
	}
	h := keys[:k]
	for i, v := range row[:k] {
		h[i] = uint64(float32Key(v)^flip)<<32 | uint64(i)
	}
	down := func() {
		for i := 0; ; {
			l := 2*i + 1
			if l >= k {
				return
			}
			if r := l + 1; r < k && h[r] > h[l] {
				l = r
			}
			if h[l] <= h[i] {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	slices.Sort(h) // ascending: reversed, a max-heap
	slices.Reverse(h)
	bound := row[uint32(h[0])]
	for i := k; i < len(row); i++ {
		v := row[i]
		if desc {
			if v <= bound {
				continue
			}
		} else if v >= bound {
			continue
		}
		key := uint64(float32Key(v)^flip)<<32 | uint64(i)
		if key < h[0] {
			h[0] = key
			down()
			bound = row[uint32(h[0])]
		}
	}
	slices.Sort(h)
	return h
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True)
// -> (Tensor values, Tensor indices). The result is always sorted.
func topkKernel(op *tensor.Op, a []any) any {
	outs := metaN(op, a)
	vals, idx := alloc(outs[0]), alloc(outs[1])
	p := args.TopkOf(a)
	x := p.Self
	if x.Dim() == 0 {
		// PyTorch copies a 0-d input whatever k is (0 or 1).
		copyInto(vals, x)
		return []*tensor.Tensor{vals, idx}
	}
	if d := x.DType(); d == tensor.Bool || d == tensor.Float16 {
		notImplementedFor("topk_cpu", d)
	}
	k := p.K
	dim := tensor.WrapDim(p.Dim, x.Dim())
	largest := p.Largest
	if x.DType().IsFloat() {
		selectLanes[float64](x, dim, k, largest, vals, idx)
	} else {
		selectLanes[int64](x, dim, k, largest, vals, idx)
	}
	return []*tensor.Tensor{vals, idx}
}

func init() {
	impl("aten::sort.default", sortKernel)
	impl("aten::topk.default", topkKernel)
}
