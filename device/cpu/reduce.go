package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Reductions walk the input once in its memory order (largest stride
// outermost), as TensorIterator does, against an accumulator laid out like
// the contiguous output with stride 0 on the reduced dims. Each inner run is
// either a stretch of one reduced dim (folded into one accumulator) or a
// stretch of a kept dim (added element-wise into a row of accumulators), so
// the input is read with slices in both cases. Values are loaded in blocks
// as float64 (float dtypes) or int64 (integral and bool dtypes): float sums
// accumulate in float64, integer ones wrap in int64 and then to the output's
// width, which equals PyTorch's arithmetic.

// redElem is the working element type of a reduction.
type redElem interface{ float64 | int64 }

// loadRed loads len(dst) elements of dtype d from s at off with stride st.
func loadRed[E redElem](dst []E, s *tensor.Storage, d tensor.DType, off, st int) {
	switch b := any(dst).(type) {
	case []float64:
		loadF64(b, s, d, off, st)
	case []int64:
		loadAnyI64(b, s, d, off, st)
	}
}

// storeRed stores src as dtype d into s from off with stride st.
func storeRed[E redElem](s *tensor.Storage, d tensor.DType, off, st int, src []E) {
	switch b := any(src).(type) {
	case []float64:
		storeAnyF64(s, d, off, st, b)
	case []int64:
		storeAnyI64(s, d, off, st, b)
	}
}

// subStrides returns per dim of sizes the stride of a row-major array over
// the dims whose mask entry equals in (0 for the other dims). With in=false
// it lays out the kept dims (the accumulator of a reduction); with in=true
// the reduced ones (the flat index within one reduced group).
func subStrides(sizes []int, mask []bool, in bool) []int {
	st := make([]int, len(sizes))
	acc := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		if mask[i] == in {
			st[i] = acc
			acc *= sizes[i]
		}
	}
	return st
}

// keptNumel is the number of accumulators of a reduction over mask.
func keptNumel(sizes []int, mask []bool) int {
	n := 1
	for i, s := range sizes {
		if !mask[i] {
			n *= s
		}
	}
	return n
}

// memOrderLoop is a loop over x's shape in x's memory order, with operands
// (acc, x, aux): acc and aux are virtual layouts given by their strides
// (offset 0; nil means all zero).
func memOrderLoop(x *tensor.Tensor, accSt, auxSt []int) *loop {
	rank := x.Dim()
	perm := make([]int, rank)
	xs := x.Strides()
	for i := range perm {
		perm[i] = i
	}
	// Stable insertion sort, largest stride first.
	for i := 1; i < rank; i++ {
		for j := i; j > 0 && xs[perm[j]] > xs[perm[j-1]]; j-- {
			perm[j], perm[j-1] = perm[j-1], perm[j]
		}
	}
	shape := make([]int, rank)
	st := [3][]int{make([]int, rank), make([]int, rank), make([]int, rank)}
	for i, p := range perm {
		shape[i] = x.Sizes()[p]
		if accSt != nil {
			st[0][i] = accSt[p]
		}
		st[1][i] = xs[p]
		if auxSt != nil {
			st[2][i] = auxSt[p]
		}
	}
	return newLoop(shape, st[:], []int{0, x.StorageOffset(), 0})
}

// walkRed walks every element of x in memory order. fn gets a block of
// values v (a scratch buffer fn may overwrite) with, for the accumulator and
// the aux operand, the offset of the block's first element and the stride
// between its elements. A big walk is shared among goroutines along a kept
// dim (loop.splitDim), so fn may run concurrently on disjoint accumulators;
// it must write only what its block's elements determine.
func walkRed[E redElem](x *tensor.Tensor, accSt, auxSt []int, fn func(a, as, b, bs int, v []E)) {
	if x.Numel() == 0 {
		return
	}
	s, d := x.Storage(), x.DType()
	walk := func(l *loop) {
		var buf [blockLen]E
		l.run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
			a, xo, b := offs[0], offs[1], offs[2]
			for n > 0 {
				m := min(n, blockLen)
				loadRed(buf[:m], s, d, xo, inner[1])
				fn(a, inner[0], b, inner[2], buf[:m])
				a += m * inner[0]
				xo += m * inner[1]
				b += m * inner[2]
				n -= m
			}
		})
	}
	l := memOrderLoop(x, accSt, auxSt)
	if k := l.keptDim(); k >= 0 {
		l.splitDim(k, walk)
		return
	}
	walk(l)
}

// sumF64 adds v pairwise (8 running sums per leaf), keeping the error of
// long float64 sums near PyTorch's cascade summation.
func sumF64(v []float64) float64 {
	if len(v) > 128 {
		h := len(v) / 2
		return sumF64(v[:h]) + sumF64(v[h:])
	}
	var s [8]float64
	i := 0
	for ; i+8 <= len(v); i += 8 {
		s[0] += v[i]
		s[1] += v[i+1]
		s[2] += v[i+2]
		s[3] += v[i+3]
		s[4] += v[i+4]
		s[5] += v[i+5]
		s[6] += v[i+6]
		s[7] += v[i+7]
	}
	for ; i < len(v); i++ {
		s[0] += v[i]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// castForReduce returns x in the dtype the reduction computes in: PyTorch
// casts the input to the result dtype first (integral inputs to int64 are
// loaded as they are, which is the same).
func castForReduce(x *tensor.Tensor, od tensor.DType) *tensor.Tensor {
	if x.DType() == od || (od == tensor.Int64 && x.DType().IsIntegral(true)) {
		return x
	}
	return toDType(x, od)
}

// redRowsF32 returns x's elements when a reduction over mask reads each
// output's group as one contiguous row of a float32 tensor (x contiguous,
// the reduced dims after the kept ones): the SIMD kernels then take the
// rows whole. n is the row length (at least 1).
func redRowsF32(x *tensor.Tensor, mask []bool) (rows []float32, n int, ok bool) {
	if x.DType() != tensor.Float32 || !x.IsContiguous() || x.Numel() == 0 {
		return nil, 0, false
	}
	reduced := false
	n = 1
	for i, m := range mask {
		switch {
		case x.Size(i) == 1:
		case m:
			reduced = true
			n *= x.Size(i)
		case reduced:
			return nil, 0, false // a kept dim inside the rows
		}
	}
	off := x.StorageOffset()
	return data[float32](x)[off : off+x.Numel()], n, true
}

// sumAccF64 sums x over mask into float64 accumulators laid out like the
// contiguous output. sumAccI64 is the same in wrapping int64.
func sumAccF64(x *tensor.Tensor, mask []bool) []float64 {
	acc := make([]float64, keptNumel(x.Sizes(), mask))
	if rows, n, ok := redRowsF32(x, mask); ok {
		if n < 2*redChunk {
			// Rows whole: asm.SumRowsF32 sums two at a time, the same
			// bits as SumF32 each.
			forRows(len(acc), n, func(lo, hi int) { asm.SumRowsF32(acc[lo:hi], rows[lo*n:hi*n], n) })
			return acc
		}
		rowsF32(acc, rows, n, func(a []float64, r []float32) {
			a[0] = asm.SumF32(r)
		}, func(dst, parts []float64) { dst[0] = sumF64(parts) })
		return acc
	}
	if v, outer, c, inner, ok := redMidF32(x, mask); ok {
		sumMidF32(acc, v, outer, c, inner)
		return acc
	}
	if v, outer, c, ok := redColsF32(x, mask); ok {
		// Each row into the columns' sums, rows in order: walkRed's
		// element-by-element path for this layout, so the same bits,
		// without its float64 blocks. Blocks and columns are shared among
		// goroutines.
		r := len(v) / (outer * c)
		parallel.Range(outer*c, (grain+r-1)/r, 8, func(lo, hi int) {
			for lo < hi {
				o := lo / c
				j0, j1 := lo%c, min(c, lo%c+hi-lo)
				a, blk := acc[o*c+j0:o*c+j1], v[o*r*c:(o+1)*r*c]
				asm.AccumulateRowsF32(a, blk[j0:], r, c)
				lo += j1 - j0
			}
		})
		return acc
	}
	walkRed(x, subStrides(x.Sizes(), mask, false), nil, func(a, as, _, _ int, v []float64) {
		if as == 0 {
			acc[a] += sumF64(v)
			return
		}
		for i, x := range v {
			acc[a+i*as] += x
		}
	})
	return acc
}

// redColsF32 returns x's elements when a reduction over mask adds rows of
// a contiguous float32 x into one sum per column: outer blocks (the kept
// dims before the reduced ones; 1 when there are none) of r rows of c
// elements (the reduced dims, then at least one kept dim), size-1 dims
// ignored.
func redColsF32(x *tensor.Tensor, mask []bool) (v []float32, outer, c int, ok bool) {
	if x.DType() != tensor.Float32 || !x.IsContiguous() || x.Numel() == 0 {
		return nil, 0, 0, false
	}
	outer, c = 1, 1
	reduced := false
	for i, m := range mask {
		switch {
		case x.Size(i) == 1:
		case m:
			if reduced && c > 1 {
				return nil, 0, 0, false // a reduced dim after a kept one after a reduced one
			}
			reduced = true
		case !reduced:
			outer *= x.Size(i)
		default:
			c *= x.Size(i)
		}
	}
	if !reduced || c == 1 {
		return nil, 0, 0, false
	}
	off := x.StorageOffset()
	return data[float32](x)[off : off+x.Numel()], outer, c, true
}

func sumAccI64(x *tensor.Tensor, mask []bool) []int64 {
	acc := make([]int64, keptNumel(x.Sizes(), mask))
	walkRed(x, subStrides(x.Sizes(), mask, false), nil, func(a, as, _, _ int, v []int64) {
		if as == 0 {
			var s int64
			for _, x := range v {
				s += x
			}
			acc[a] += s
			return
		}
		for i, x := range v {
			acc[a+i*as] += x
		}
	})
	return acc
}

// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None):
// every element of out (contiguous from offset 0, as the meta function
// lays it out) is stored from the accumulators, an empty sum's as 0.
func sumKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.SumOf(a)
	x := p.Self
	mask := core.ReductionMask(p.Dim, x.Dim())
	od := out.DType()
	x = castForReduce(x, od)
	if od.IsReduced() && x.Numel() > 0 {
		storeRed(out.Storage(), od, 0, 1, sumReduced(x, mask, od))
	} else if od.IsFloat() {
		storeRed(out.Storage(), od, 0, 1, sumAccF64(x, mask))
	} else {
		storeRed(out.Storage(), od, 0, 1, sumAccI64(x, mask))
	}
}

// sumReduced is the sum over mask of x (non-empty, float16 or bfloat16 od)
// as 1.13's cascade_sum computes it: TensorIterator's loop over the
// reduction (reduced dims first, coalesced), each row along the two
// innermost loop dims summed in float32, rounded to od and added into its
// result in od (CastStoreAccumulate's *out += sum converts the float sum to
// od first). A result whose reduced elements do not coalesce into one row
// is rounded more than once: the sum of a [3,2,1,2] float16 tensor over
// dims 0 and 3 adds three rounded row sums.
func sumReduced(x *tensor.Tensor, mask []bool, od tensor.DType) []float64 {
	shape := x.Sizes()
	outSt := make([]int, len(shape)) // contiguous over the kept dims, 0 on the reduced
	m := 1
	for d := len(shape) - 1; d >= 0; d-- {
		if !mask[d] {
			outSt[d] = m
			m *= shape[d]
		}
	}
	acc := make([]float64, m)
	sizes, st := core.IterDims(shape, true, outSt, x.Strides())
	for len(sizes) < 2 {
		sizes = append(sizes, 1)
		st[0], st[1] = append(st[0], 0), append(st[1], 0)
	}
	round := func(v float32) float64 { return roundScalar(float64(v), od) }
	s, d := x.Storage(), x.DType()
	// loop2d is one call of the kernel's 2-d loop (its first two dims)
	// with the result and input starting at a and b.
	loop2d := func(a, b int) {
		n0, n1 := sizes[0], sizes[1]
		o0, o1, i0, i1 := st[0][0], st[0][1], st[1][0], st[1][1]
		if o0 != 0 && o1 == 0 {
			n0, n1, o0, o1, i0, i1 = n1, n0, o1, o0, i1, i0
		}
		row := make([]float64, n0)
		for j := range n1 {
			loadF64(row, s, d, b+j*i1, i0)
			if o0 != 0 { // no reduction: each element added to its result
				for i, v := range row {
					r := a + j*o1 + i*o0
					acc[r] = round(float32(acc[r]) + float32(v))
				}
				continue
			}
			r := a + j*o1
			acc[r] = round(float32(acc[r]) + float32(round(float32(sumF64(row)))))
		}
	}
	// The outer loop dims, fastest first.
	idx := make([]int, len(sizes))
	a, b := 0, x.StorageOffset()
	for {
		loop2d(a, b)
		k := 2
		for ; k < len(sizes); k++ {
			a += st[0][k]
			b += st[1][k]
			if idx[k]++; idx[k] < sizes[k] {
				break
			}
			a -= sizes[k] * st[0][k]
			b -= sizes[k] * st[1][k]
			idx[k] = 0
		}
		if k == len(sizes) {
			return acc
		}
	}
}

// mean.default / mean.dim: the sum rounded to the result dtype (float32 for
// float16/bfloat16, which PyTorch sums in float32), divided by the count.
func meanKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	var x *tensor.Tensor
	var dims []int
	if op.Schema.Overload == "dim" {
		p := args.MeanDimOf(a)
		x, dims = p.Self, p.Dim
	} else {
		x = args.MeanOf(a).Self
	}
	mask := core.ReductionMask(dims, x.Dim())
	od := out.DType()
	x = castForReduce(x, od)
	acc := sumAccF64(x, mask)
	if od.IsReduced() {
		roundF64(acc, tensor.Float32)
	} else {
		roundF64(acc, od)
	}
	n := float64(core.ReducedNumel(x.Sizes(), mask))
	for i := range acc {
		acc[i] /= n
	}
	storeRed(out.Storage(), od, 0, 1, acc)
	return out
}

// prod / prod.dim_int
func prodKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	var x *tensor.Tensor
	var mask []bool
	if op.Schema.Overload == "dim_int" {
		p := args.ProdDimOf(a)
		x = p.Self
		mask = core.DimMask(p.Dim, x.Dim())
	} else {
		x = args.ProdOf(a).Self
		mask = core.ReductionMask(nil, x.Dim())
	}
	od := out.DType()
	if x.Numel() > 0 && od.IsReduced() {
		notImplementedFor("prod_cpu", od)
	}
	x = castForReduce(x, od)
	if od.IsFloat() {
		storeRed(out.Storage(), od, 0, 1, prodAcc[float64](x, mask))
	} else {
		storeRed(out.Storage(), od, 0, 1, prodAcc[int64](x, mask))
	}
	return out
}

func prodAcc[E redElem](x *tensor.Tensor, mask []bool) []E {
	acc := make([]E, keptNumel(x.Sizes(), mask))
	for i := range acc {
		acc[i] = 1
	}
	walkRed(x, subStrides(x.Sizes(), mask, false), nil, func(a, as, _, _ int, v []E) {
		if as == 0 {
			p := acc[a]
			for _, x := range v {
				p *= x
			}
			acc[a] = p
			return
		}
		for i, x := range v {
			acc[a+i*as] *= x
		}
	})
	return acc
}

// extremeAcc reduces x over mask to its maxima (isMax) or minima; a NaN wins.
func extremeAcc[E redElem](x *tensor.Tensor, mask []bool, isMax bool, init E) []E {
	acc := make([]E, keptNumel(x.Sizes(), mask))
	for i := range acc {
		acc[i] = init
	}
	walkRed(x, subStrides(x.Sizes(), mask, false), nil, func(a, as, _, _ int, v []E) {
		if as == 0 {
			m := acc[a]
			if isMax {
				for _, x := range v {
					if x > m || x != x {
						m = x
					}
				}
			} else {
				for _, x := range v {
					if x < m || x != x {
						m = x
					}
				}
			}
			acc[a] = m
			return
		}
		for i, x := range v {
			p := a + i*as
			if (isMax && x > acc[p]) || (!isMax && x < acc[p]) || x != x {
				acc[p] = x
			}
		}
	})
	return acc
}

// amax / amin; of reads the op's view (amin's converts to amax's).
func aminmaxKernel(isMax bool, of func([]any) args.Amax) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		out := allocMeta(op, a)
		p := of(a)
		x := p.Self
		mask := core.ReductionMask(p.Dim, x.Dim())
		if x.DType().IsFloat() {
			init := math.Inf(1)
			if isMax {
				init = math.Inf(-1)
			}
			if acc, _, ok := extremeRowsF32(x, mask, isMax, false); ok {
				storeRed(out.Storage(), out.DType(), 0, 1, acc)
				return out
			}
			if v, outer, c, ok := redColsF32(x, mask); ok {
				var acc []float64
				blk := len(v) / outer
				for o := range outer {
					acc = append(acc, extremeColsF32(v[o*blk:(o+1)*blk], c, isMax)...)
				}
				storeRed(out.Storage(), out.DType(), 0, 1, acc)
				return out
			}
			storeRed(out.Storage(), out.DType(), 0, 1, extremeAcc(x, mask, isMax, init))
		} else {
			init := int64(math.MaxInt64)
			if isMax {
				init = math.MinInt64
			}
			storeRed(out.Storage(), out.DType(), 0, 1, extremeAcc(x, mask, isMax, init))
		}
		return out
	}
}

// any / any.dim / any.dims
func anyKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	var x *tensor.Tensor
	var mask []bool
	switch op.Schema.Overload {
	case "dim":
		p := args.AnyDimOf(a)
		x = p.Self
		mask = core.DimMask(p.Dim, x.Dim())
	case "dims":
		p := args.AnyDimsOf(a)
		x = p.Self
		mask = core.ReductionMask(p.Dim, x.Dim())
	default:
		x = args.AnyOf(a).Self
		mask = core.ReductionMask(nil, x.Dim())
	}
	if x.DType().IsFloat() {
		storeRed(out.Storage(), out.DType(), 0, 1, anyAcc[float64](x, mask))
	} else {
		storeRed(out.Storage(), out.DType(), 0, 1, anyAcc[int64](x, mask))
	}
	return out
}

func anyAcc[E redElem](x *tensor.Tensor, mask []bool) []E {
	acc := make([]E, keptNumel(x.Sizes(), mask))
	walkRed(x, subStrides(x.Sizes(), mask, false), nil, func(a, as, _, _ int, v []E) {
		for i, x := range v {
			if x != 0 { // NaN counts as true
				acc[a+i*as] = 1
			}
		}
	})
	return acc
}

// argExtreme reduces x over mask to the max (or min) value and the flat
// index, within the reduced dims, of its first occurrence. A NaN wins, the
// first NaN over later ones. The walk is in memory order, so ties compare
// indices.
func argExtreme[E redElem](x *tensor.Tensor, mask []bool, isMax bool, init E) ([]E, []int64) {
	n := keptNumel(x.Sizes(), mask)
	acc := make([]E, n)
	idx := make([]int64, n)
	for i := range acc {
		acc[i] = init
		idx[i] = math.MaxInt64
	}
	walkRed(x, subStrides(x.Sizes(), mask, false), subStrides(x.Sizes(), mask, true), func(a, as, b, bs int, v []E) {
		for i, x := range v {
			p, k := a+i*as, int64(b+i*bs)
			m := acc[p]
			var better bool
			switch {
			case m != m:
				better = x != x && k < idx[p]
			case x != x:
				better = true
			case isMax:
				better = x > m || (x == m && k < idx[p])
			default:
				better = x < m || (x == m && k < idx[p])
			}
			if better {
				acc[p], idx[p] = x, k
			}
		}
	})
	return acc, idx
}

// extremeRowsF32 is extremeAcc (and argExtreme, with withIdx) by the SIMD
// max/min kernels when redRowsF32 applies: the first NaN wins, then the
// first of the extreme values.
func extremeRowsF32(x *tensor.Tensor, mask []bool, isMax, withIdx bool) ([]float64, []int64, bool) {
	rows, n, ok := redRowsF32(x, mask)
	if !ok {
		return nil, nil, false
	}
	acc := make([]float64, len(rows)/n)
	var idx []int64
	if withIdx {
		idx = make([]int64, len(acc))
	}
	f := asm.MinF32
	if isMax {
		f = asm.MaxF32
	}
	// Two slots per row, value and index; a long row's pieces are combined
	// in order: the first NaN, else the first strictly better value.
	red := func(a []float64, r []float32) {
		v, k := f(r)
		a[0], a[1] = float64(v), float64(k)
	}
	if !withIdx && n >= 32 {
		// amax/amin of long rows: the value alone, without tracking where
		// it is. (Short rows keep the first of tied ±0, as PyTorch's scalar
		// loop does; which one a long row gives is the kernel's choice, as
		// it is the vector lanes' in PyTorch.)
		g := asm.AminF32
		if isMax {
			g = asm.AmaxF32
		}
		red = func(a []float64, r []float32) { a[0], a[1] = float64(g(r)), 0 }
	}
	vi := make([]float64, 2*len(acc))
	rowsF32(vi, rows, n, red, combineExtreme(isMax))
	for i := range acc {
		acc[i] = vi[2*i]
		if withIdx {
			idx[i] = int64(vi[2*i+1])
		}
	}
	return acc, idx, true
}

// extremeColsF32 folds the rows (c elements each) of v into per-column
// maxima (minima with !isMax) with the SIMD maximum/minimum, as PyTorch's
// vectorised outer reduction does: NaN wins, and of two equal values (±0)
// the later row's in whole groups of 32 columns, the earlier row's in the
// columns after the last group. Columns are shared among goroutines.
func extremeColsF32(v []float32, c int, isMax bool) []float64 {
	r := len(v) / c
	acc := make([]float32, c)
	copy(acc, v[:c])
	f := asm.MinimumF32
	if isMax {
		f = asm.MaximumF32 // ties give the first operand, as torch.maximum
	}
	vec := c - c%32
	parallel.Range(c, (grain+r-1)/r, 32, func(lo, hi int) {
		vh, sl := min(hi, vec), max(lo, vec)
		for i := 1; i < r; i++ {
			row := v[i*c : (i+1)*c]
			if lo < vh {
				f(acc[lo:vh], row[lo:vh], acc[lo:vh]) // the later row on ties
			}
			if sl < hi {
				f(acc[sl:hi], acc[sl:hi], row[sl:hi]) // the earlier row on ties
			}
		}
	})
	out := make([]float64, c)
	for i, a := range acc {
		out[i] = float64(a)
	}
	return out
}

// redChunk is the piece of a long row that one goroutine reduces. It is a
// fixed size, so that a row's result does not depend on GOMAXPROCS.
const redChunk = 1 << 16

// rowsF32 reduces each row of n elements of rows with red, which writes a
// row's slots (len(acc)/rows values) into acc. Rows are shared among
// goroutines; a row of at least 2·redChunk elements is cut into pieces of
// redChunk, reduced in parallel into slots of their own, and combine
// merges the pieces' slots (in order, piece j starting at element
// j·redChunk) into the row's.
func rowsF32(acc []float64, rows []float32, n int, red func(a []float64, r []float32), combine func(dst, parts []float64)) {
	nrows := len(rows) / n
	slots := len(acc) / nrows
	pieces := (n + redChunk - 1) / redChunk
	if pieces < 2 {
		forRows(nrows, n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				red(acc[i*slots:(i+1)*slots], rows[i*n:(i+1)*n])
			}
		})
		return
	}
	part := make([]float64, nrows*pieces*slots)
	parallel.Range(nrows*pieces, 1, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			i, j := p/pieces, p%pieces
			r := rows[i*n : (i+1)*n]
			red(part[p*slots:(p+1)*slots], r[j*redChunk:min(n, (j+1)*redChunk)])
		}
	})
	for i := 0; i < nrows; i++ {
		combine(acc[i*slots:(i+1)*slots], part[i*pieces*slots:(i+1)*pieces*slots])
	}
}

// combineExtreme merges (value, index) slots of pieces of a max (or min)
// row: the first NaN wins, then the first strictly greater (smaller)
// value; indices become row positions.
func combineExtreme(isMax bool) func(dst, parts []float64) {
	return func(dst, parts []float64) {
		best, at := parts[0], parts[1]
		for j := 1; 2*j < len(parts) && best == best; j++ {
			v := parts[2*j]
			if v != v || (isMax && v > best) || (!isMax && v < best) {
				best, at = v, parts[2*j+1]+float64(j*redChunk)
			}
		}
		dst[0], dst[1] = best, at
	}
}

// argExtremeAny dispatches argExtreme on x's dtype class and stores the
// values into vals (if non-nil) and the indices into idxOut.
func argExtremeAny(x *tensor.Tensor, mask []bool, isMax bool, vals, idxOut *tensor.Tensor) {
	var idx []int64
	if acc, ix, ok := extremeRowsF32(x, mask, isMax, true); ok {
		if vals != nil {
			storeRed(vals.Storage(), vals.DType(), 0, 1, acc)
		}
		storeRed(idxOut.Storage(), tensor.Int64, 0, 1, ix)
		return
	}
	if x.DType().IsFloat() {
		init := math.Inf(1)
		if isMax {
			init = math.Inf(-1)
		}
		var acc []float64
		acc, idx = argExtreme(x, mask, isMax, init)
		if vals != nil {
			storeRed(vals.Storage(), vals.DType(), 0, 1, acc)
		}
	} else {
		init := int64(math.MaxInt64)
		if isMax {
			init = math.MinInt64
		}
		var acc []int64
		acc, idx = argExtreme(x, mask, isMax, init)
		if vals != nil {
			storeRed(vals.Storage(), vals.DType(), 0, 1, acc)
		}
	}
	storeRed(idxOut.Storage(), tensor.Int64, 0, 1, idx)
}

// argmax / argmin; of reads the op's view (argmin's converts to argmax's).
func argKernel(isMax bool, name string, of func([]any) args.Argmax) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		out := allocMeta(op, a)
		p := of(a)
		x := p.Self
		var mask []bool
		trivial := false // PyTorch fills 0 without dispatching on dtype
		if !p.Dim.Ok {
			mask = core.ReductionMask(nil, x.Dim())
		} else {
			d := tensor.WrapDim(p.Dim.V, x.Dim())
			mask = core.DimMask(d, x.Dim())
			trivial = x.Dim() > 0 && x.Size(d) == 1
		}
		if x.Numel() > 0 && !trivial && x.DType() == tensor.Bool {
			notImplementedFor(name, x.DType())
		}
		argExtremeAny(x, mask, isMax, nil, out)
		return out
	}
}

// max.dim / min.dim; of reads the op's view (min.dim's converts to max.dim's).
func minmaxDimKernel(isMax bool, of func([]any) args.MaxDim) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		outs := metaN(op, a)
		vals, idx := alloc(outs[0]), alloc(outs[1])
		p := of(a)
		x := p.Self
		argExtremeAny(x, core.DimMask(p.Dim, x.Dim()), isMax, vals, idx)
		return []*tensor.Tensor{vals, idx}
	}
}

// var.correction / var.dim: two passes in float64 (mean, then the sum of
// squared deviations), divided by max(0, N - correction) as PyTorch does,
// which gives inf or nan when N <= correction.
func varKernel(op *tensor.Op, list []any) any {
	out := allocMeta(op, list)
	var x *tensor.Tensor
	var dims []int
	if op.Schema.Overload == "dim" {
		p := args.VarDimOf(list)
		x, dims = p.Self, p.Dim
	} else {
		p := args.VarOf(list)
		x, dims = p.Self, p.Dim
	}
	mask := core.ReductionMask(dims, x.Dim())
	corr := core.VarCorrection(op, list)
	if x.Numel() == 0 {
		fillValue(out, tensor.Float(math.NaN()))
		return out
	}
	n := float64(core.ReducedNumel(x.Sizes(), mask))
	mean := sumAccF64(x, mask)
	for i := range mean {
		mean[i] /= n
	}
	m2 := make([]float64, len(mean))
	walkRed(x, subStrides(x.Sizes(), mask, false), nil, func(a, as, _, _ int, v []float64) {
		if as == 0 {
			mu := mean[a]
			for i, x := range v {
				d := x - mu
				v[i] = d * d
			}
			m2[a] += sumF64(v)
			return
		}
		for i, x := range v {
			d := x - mean[a+i*as]
			m2[a+i*as] += d * d
		}
	})
	div := max(n-corr, 0)
	for i := range m2 {
		m2[i] /= div
	}
	storeRed(out.Storage(), out.DType(), 0, 1, m2)
	return out
}

// cumsum: a running sum per lane along dim, kept in an accumulator with
// stride 0 along dim. Walking in any dim order visits each lane in
// increasing index order, so the walk can follow memory order. Float sums
// run in float64 (PyTorch accumulates in double on the CPU too).
func cumsumKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	p := args.CumsumOf(a)
	x := p.Self
	od := out.DType()
	if x.Dim() > 0 && x.Numel() > 0 && (od == tensor.Float16 || od == tensor.Bool) {
		notImplementedFor("cumsum_out_cpu", od)
	}
	x = castForReduce(x, od)
	mask := core.DimMask(p.Dim, x.Dim())
	if od.IsFloat() {
		if !cumsumRowsF32(out, x, mask) {
			cumsumInto[float64](out, x, mask)
		}
	} else {
		cumsumInto[int64](out, x, mask)
	}
	return out
}

// cumsumRowsF32 is cumsumInto for a cumsum over the last dim of a
// contiguous float32 x into a contiguous float32 out: each row's running
// sum in float64, rounded at every element, as the loop below; four rows
// at a time, so that their additions overlap, rows shared among the cores.
// It reports whether it could.
func cumsumRowsF32(out, x *tensor.Tensor, mask []bool) bool {
	if x.DType() != tensor.Float32 || out.DType() != tensor.Float32 || x.Dim() == 0 || !mask[x.Dim()-1] ||
		!x.IsContiguous() || !out.IsContiguous() || x.Numel() == 0 {
		return false
	}
	n := x.Size(x.Dim() - 1)
	rows := x.Numel() / n
	xs := elems[float32](x)
	ys := elems[float32](out)
	parallel.Range(rows, max(1, grain/n), 4, func(lo, hi int) {
		r := lo
		for ; r+4 <= hi; r += 4 {
			x0, x1, x2, x3 := xs[r*n:(r+1)*n], xs[(r+1)*n:(r+2)*n], xs[(r+2)*n:(r+3)*n], xs[(r+3)*n:(r+4)*n]
			y0, y1, y2, y3 := ys[r*n:(r+1)*n], ys[(r+1)*n:(r+2)*n], ys[(r+2)*n:(r+3)*n], ys[(r+3)*n:(r+4)*n]
			var s0, s1, s2, s3 float64
			for i := range x0 {
				s0 += float64(x0[i])
				s1 += float64(x1[i])
				s2 += float64(x2[i])
				s3 += float64(x3[i])
				y0[i], y1[i], y2[i], y3[i] = float32(s0), float32(s1), float32(s2), float32(s3)
			}
		}
		for ; r < hi; r++ {
			var s float64
			for i, v := range xs[r*n : (r+1)*n] {
				s += float64(v)
				ys[r*n+i] = float32(s)
			}
		}
	})
	return true
}

func cumsumInto[E redElem](out, x *tensor.Tensor, mask []bool) {
	acc := make([]E, keptNumel(x.Sizes(), mask))
	os, od := out.Storage(), out.DType()
	walkRed(x, subStrides(x.Sizes(), mask, false), out.Strides(), func(a, as, b, bs int, v []E) {
		if as == 0 {
			s := acc[a]
			for i, x := range v {
				s += x
				v[i] = s
			}
			acc[a] = s
		} else {
			for i, x := range v {
				p := a + i*as
				acc[p] += x
				v[i] = acc[p]
			}
		}
		storeRed(os, od, b, bs, v)
	})
}

// _local_scalar_dense: the value of a one-element tensor.
func localScalarDenseKernel(op *tensor.Op, a []any) any {
	core.RunMeta(op, a)
	return args.InternalLocalScalarDenseOf(a).Self.Item()
}

// notImplementedFor panics with the message of a failed ATen dtype dispatch.
func notImplementedFor(kernel string, d tensor.DType) {
	tensor.Panicf("%q not implemented for '%s'", kernel, core.CTypeName(d))
}

func init() {
	implOut("aten::sum.dim_IntList", sumKernel)
	impls(meanKernel, "aten::mean.default", "aten::mean.dim")
	impls(prodKernel, "aten::prod.default", "aten::prod.dim_int")
	impl("aten::amax.default", aminmaxKernel(true, args.AmaxOf))
	impl("aten::amin.default", aminmaxKernel(false, func(a []any) args.Amax { return args.Amax(args.AminOf(a)) }))
	impls(anyKernel, "aten::any.default", "aten::any.dim", "aten::any.dims")
	impl("aten::argmax.default", argKernel(true, "argmax_cpu", args.ArgmaxOf))
	impl("aten::argmin.default", argKernel(false, "argmin_cpu", func(a []any) args.Argmax { return args.Argmax(args.ArgminOf(a)) }))
	impl("aten::max.dim", minmaxDimKernel(true, args.MaxDimOf))
	impl("aten::min.dim", minmaxDimKernel(false, func(a []any) args.MaxDim { return args.MaxDim(args.MinDimOf(a)) }))
	impls(varKernel, "aten::var.correction", "aten::var.dim")
	impl("aten::cumsum.default", cumsumKernel)
	impl("aten::_local_scalar_dense.default", localScalarDenseKernel)
}
