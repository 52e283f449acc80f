package asm

import (
	"fmt"
	"math"
)

// Reductions over float32 slices and the row kernels built on them. Sums
// accumulate in float64 (16 running sums, element i in sum i mod 16, added
// up in a fixed tree), so they are exact up to float64 rounding whatever
// the length: the caller need not split long slices for accuracy. The
// results equal the twins' in reduce_generic.go bit for bit, but for which
// NaN's payload a result carries when two NaNs meet (or a NaN m or k) on
// amd64, whose kernels add in the other operand order.

// reduceTable holds the reduction kernels in use.
type reduceTable struct {
	sum func(x []float32) float64
	// sum2 is sum of the rows x[:n] and x[n:2n], interleaved; nil where
	// a path has none.
	sum2     func(x []float32, n int) (a, b float64)
	dot      func(x, y []float32) float64
	sumSqDev func(x []float32, m float64) float64
	// moments returns Σ x[i]-k and Σ (x[i]-k)² for len(x) a multiple of
	// 32: element i goes to running sum i mod 32, added up by sum32.
	moments func(x []float32, k float64) (s1, s2 float64)
	// maxLanes/minLanes fold x into 8 lanes: lane l sees x[l], x[l+8], …
	// and keeps the winner's value and index (-1 while empty), so that the
	// caller picks across lanes (pickLanes).
	maxLanes func(x []float32) (v [8]float32, i [8]int32)
	minLanes func(x []float32) (v [8]float32, i [8]int32)
	// maxVal/minVal are the extreme value alone, NaN if there is one
	// (∓Inf for an empty slice); which zero ±0 ties give is unspecified.
	maxVal, minVal func(x []float32) float32
	// expShift sets d[i] = e^(x[i]-m) (ExpF32's exp).
	expShift func(d, x []float32, m float32)
	// scaleShift sets d[i] = fma(x[i], s, c); affine sets d[i] =
	// fma(fma(x[i], s, c), w[i], b[i]).
	scaleShift func(d, x []float32, s, c float32)
	affine     func(d, x, w, b []float32, s, c float32)
	// The layer-norm gradient kernels (LayerNormGrad*F32); normGradSums
	// takes a length that is a multiple of 8.
	normGradSums func(dy, x, w []float32) (s, b [8]float32)
	normGradDX   func(dx, dy, x, w []float32, rs, b, c float32)
	normGradWB   func(dw, db, dy, x []float32, rs, nb float32)
	// The group-norm gradient kernels (GroupNormGrad*F32); groupGradSums
	// takes a length that is a multiple of 8.
	groupGradSums func(dy, x []float32) (s, b [8]float32)
	// groupGradSums4 is groupGradSums of 4 planes of hw elements (a
	// positive multiple of 8) in a row; nil where groupGradSums4Go, the
	// planes one by one, is all there is.
	groupGradSums4 func(dy, x []float32, hw int) (s, b [4][8]float32)
	groupGradDX    func(dx, dy, x []float32, c1, c2, c3 float32)
	// groupGradDXNT is groupGradDX with non-temporal stores, for whole
	// vectors (len(dx) a positive multiple of 8, dx 32-byte aligned); nil
	// without one.
	groupGradDXNT func(dx, dy, x []float32, c1, c2, c3 float32)
	// accumulateRows adds rows ≥ 1 rows of x (stride apart) into acc in
	// turn, len(acc) a multiple of 8.
	accumulateRows func(acc []float64, x []float32, rows, stride int)
	// sqDiffLanes adds float32((x[i]-y[i])²) to acc[i mod 16], len(x) a
	// multiple of 16.
	sqDiffLanes func(acc *[16]float64, x, y []float32)
}

var red32 = reduceKernels()

// SumF32 returns Σ x[i], accumulated in float64.
func SumF32(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	return red32.sum(x)
}

// SumRowsF32 sets dst[i] to SumF32 of row i of x, x[i·n:(i+1)·n], the same
// bits, two rows at a time where the CPU has AVX-512 (summing a row in
// cache waits on the additions' latency; two rows keep two chains of them
// in flight). It panics unless x holds len(dst) rows of n.
func SumRowsF32(dst []float64, x []float32, n int) {
	if n < 0 || len(x) != len(dst)*n {
		panic(fmt.Sprintf("asm.SumRowsF32: %d rows of %d in %d elements", len(dst), n, len(x)))
	}
	i := 0
	if red32.sum2 != nil && n > 0 {
		for ; i+1 < len(dst); i += 2 {
			dst[i], dst[i+1] = red32.sum2(x[i*n:(i+2)*n], n)
		}
	}
	for ; i < len(dst); i++ {
		dst[i] = SumF32(x[i*n : (i+1)*n])
	}
}

// DotF32 returns Σ x[i]·y[i], accumulated in float64 (each product exact).
func DotF32(x, y []float32) float64 {
	checkLen("DotF32", len(x), len(y))
	if len(x) == 0 {
		return 0
	}
	return red32.dot(x, y)
}

// SumSqDiffF32 returns Σ (x[i] - y[i])², each difference and each square
// rounded to float32 (the terms of PyTorch's float32 mse_loss, so the same
// as summing the result of SubF32 then MulF32) and the squares added in
// float64 in SumF32's order: for any x, y it equals SumF32 of those squares
// bit for bit.
func SumSqDiffF32(x, y []float32) float64 {
	checkLen("SumSqDiffF32", len(x), len(y))
	var a [16]float64
	full := len(x) &^ 15
	if full > 0 {
		red32.sqDiffLanes(&a, x[:full], y[:full])
	}
	sqDiffLanesGo(&a, x[full:], y[full:]) // the tail: its lanes start at 0 again
	return sum16(&a)
}

// SumSqF32 returns Σ x[i]², accumulated in float64.
func SumSqF32(x []float32) float64 { return SumSqDevF32(x, 0) }

// SumSqDevF32 returns Σ (x[i] - m)², each difference and the sum in
// float64: the second pass of a two-pass variance.
func SumSqDevF32(x []float32, m float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return red32.sumSqDev(x, m)
}

// argChunk bounds the slices the lane kernels see, so that indices fit int32.
const argChunk = 1 << 30

// MaxF32 returns the largest element and its index, torch.max style: a NaN
// wins (the first NaN), and ties go to the first index. It panics on an
// empty slice.
func MaxF32(x []float32) (float32, int) { return extremeF32(x, red32.maxLanes, false) }

// AmaxF32 returns the largest element, torch.amax style: NaN if there is
// a NaN. Which of ±0 it returns when they tie is unspecified. -Inf for an
// empty slice.
func AmaxF32(x []float32) float32 { return red32.maxVal(x) }

// AminF32 returns the smallest element, as AmaxF32 (+Inf for an empty slice).
func AminF32(x []float32) float32 { return red32.minVal(x) }

// MinF32 returns the smallest element and its index, as MaxF32.
func MinF32(x []float32) (float32, int) { return extremeF32(x, red32.minLanes, true) }

func extremeF32(x []float32, lanes func([]float32) ([8]float32, [8]int32), isMin bool) (float32, int) {
	if len(x) == 0 {
		panic("asm: max/min of an empty slice")
	}
	best, bi := float32(0), -1
	for base := 0; base < len(x); base += argChunk {
		v, idx := lanes(x[base:min(base+argChunk, len(x))])
		cv, ci := pickLanes(&v, &idx, isMin)
		better := cv != cv || (isMin && cv < best) || (!isMin && cv > best)
		if bi < 0 || (best == best && better) {
			best, bi = cv, base+ci
		}
	}
	return best, bi
}

// pickLanes picks the winner across the lanes of maxLanes/minLanes: the
// NaN with the smallest index if any, else the extreme value with the
// smallest index.
func pickLanes(v *[8]float32, idx *[8]int32, isMin bool) (float32, int) {
	best, bi := float32(0), -1
	for l := range 8 {
		i, x := int(idx[l]), v[l]
		if i < 0 {
			continue
		}
		switch {
		case bi < 0:
			best, bi = x, i
		case best != best:
			if x != x && i < bi {
				bi = i
			}
		case x != x:
			best, bi = x, i
		case x == best:
			bi = min(bi, i)
		case isMin && x < best, !isMin && x > best:
			best, bi = x, i
		}
	}
	return best, bi
}

// SoftmaxF32 sets dst to the softmax of the row x: e^(x-max) (ExpF32's
// exp), scaled by 1/Σ with the sum in float64 (SumF32's; summing in the
// exp pass instead made that pass half again as slow). A NaN in x gives a row of
// NaN, a row of -Inf a row of NaN, as in PyTorch.
func SoftmaxF32(dst, x []float32) {
	checkLen("SoftmaxF32", len(dst), len(x))
	if len(x) == 0 {
		return
	}
	m := AmaxF32(x)
	red32.expShift(dst, x, m)
	MulScalarF32(dst, dst, float32(1/SumF32(dst)))
}

// LogSoftmaxF32 sets dst to the log-softmax of the row x: x - (max +
// ln Σ e^(x-max)), the constant formed in float64 and rounded once.
func LogSoftmaxF32(dst, x []float32) {
	checkLen("LogSoftmaxF32", len(dst), len(x))
	if len(x) == 0 {
		return
	}
	m := AmaxF32(x)
	red32.expShift(dst, x, m)
	s := SumF32(dst)
	SubScalarF32(dst, x, float32(float64(m)+math.Log(s)))
}

// AccumulateRowsF32 sets acc[i] += float64(x[r*stride+i]) for the rows r
// = 0, 1, ..., rows-1 in turn: AccumulateF32 of each row, the same bits,
// in one call.
func AccumulateRowsF32(acc []float64, x []float32, rows, stride int) {
	n := len(acc)
	if rows <= 0 || n == 0 {
		return
	}
	if stride < n || len(x) < (rows-1)*stride+n {
		panic(fmt.Sprintf("asm.AccumulateRowsF32: %d rows of %d at stride %d in %d elements", rows, n, stride, len(x)))
	}
	full := n &^ 7
	if full > 0 {
		// The kernel keeps a block of sums in registers down all the rows
		// it is given: rows in groups of about 256 KiB, so that the
		// columns of wide rows are read from L2, a group after another.
		group := max(8, (256<<10)/(4*full))
		for r := 0; r < rows; r += group {
			red32.accumulateRows(acc[:full], x[r*stride:], min(group, rows-r), stride)
		}
	}
	for i := full; i < n; i++ {
		for r := range rows {
			acc[i] += float64(x[r*stride+i])
		}
	}
}

// AccumulateF32 sets acc[i] += float64(x[i]) (the rows of a column sum).
func AccumulateF32(acc []float64, x []float32) {
	checkLen("AccumulateF32", len(acc), len(x))
	AccumulateRowsF32(acc, x, 1, len(x))
}

// MomentsF32 returns Σ (x[i] - k) and Σ (x[i] - k)², each difference and
// both sums in float64, in one pass: the whole blocks of 32 elements in 32
// running sums each (element i in sum i mod 32, added up by sum32), then
// the last len(x) mod 32 elements one by one.
func MomentsF32(x []float32, k float64) (s1, s2 float64) {
	n := len(x) &^ 31
	if n > 0 {
		s1, s2 = red32.moments(x[:n], k)
	}
	for _, v := range x[n:] {
		d := float64(v) - k
		s1 += d
		s2 = math.FMA(d, d, s2)
	}
	return s1, s2
}

// LayerNormF32 normalizes the row x into dst: with the mean and the biased
// variance in float64, rstd = 1/√(var + eps) in float32 and bias =
// -rstd·mean, dst[i] = fma(fma(x[i], rstd, bias), w[i], b[i]) — PyTorch's
// vectorized arithmetic — where a nil w counts as ones and a nil b as
// zeros. It returns the mean and rstd as float32.
//
// The moments come from one pass shifted by k = x[0] (MomentsF32): mean =
// k + Σ(x-k)/n, var = Σ(x-k)²/n - (Σ(x-k)/n)². Since k is one of the
// elements, var ≥ (mean-k)²/n, so the cancellation costs at most a factor
// n of float64's precision — far below float32's for any row that fits in
// memory. A row with an Inf or NaN takes the two-pass route (mean, then
// the squared deviations from it), whose Inf and NaN are PyTorch's.
func LayerNormF32(dst, x, w, b []float32, eps float32) (mean, rstd float32) {
	checkLen("LayerNormF32", len(dst), len(x))
	if w != nil {
		checkLen("LayerNormF32", len(x), len(w))
	}
	if b != nil {
		checkLen("LayerNormF32", len(x), len(b))
	}
	if len(x) == 0 {
		return 0, float32(math.NaN())
	}
	mu, variance := MeanVarF32(x)
	mean = float32(mu)
	rstd = 1 / float32(math.Sqrt(float64(float32(variance)+eps)))
	bias := -rstd * mean
	AffineF32(dst, x, w, b, rstd, bias)
	return mean, rstd
}

// MeanVarF32 returns the mean and the biased variance of x in float64, as
// LayerNormF32 computes them (see there); (0, NaN) for an empty x.
func MeanVarF32(x []float32) (mean, variance float64) {
	n := len(x)
	if n == 0 {
		return 0, math.NaN()
	}
	nf := float64(n)
	k := float64(x[0])
	s1, s2 := MomentsF32(x, k)
	d := s1 / nf
	mean, variance = k+d, max(s2/nf-float64(d*d), 0) // d² rounded: no fused subtract
	if math.IsInf(s1, 0) || math.IsInf(s2, 0) || s1 != s1 || s2 != s2 {
		mean = SumF32(x) / nf
		variance = SumSqDevF32(x, mean) / nf
	}
	return mean, variance
}

// AffineF32 sets dst[i] = fma(fma(x[i], s, c), w[i], b[i]); a nil w counts
// as ones and a nil b as zeros (the product, or the sum, is then skipped,
// which is exact).
func AffineF32(dst, x, w, b []float32, s, c float32) {
	checkLen("AffineF32", len(dst), len(x))
	if len(x) == 0 {
		return
	}
	switch {
	case w != nil && b != nil:
		checkLen("AffineF32", len(x), len(w), len(b))
		red32.affine(dst, x, w, b, s, c)
	case w == nil && b == nil:
		red32.scaleShift(dst, x, s, c)
	case w != nil:
		checkLen("AffineF32", len(x), len(w))
		red32.scaleShift(dst, x, s, c)
		MulF32(dst, dst, w)
	default:
		checkLen("AffineF32", len(x), len(b))
		red32.scaleShift(dst, x, s, c)
		AddF32(dst, dst, b)
	}
}

// LayerNormGradSumsF32 returns ds = Σ (dy[i]·x[i])·w[i] and db = Σ
// dy[i]·w[i] in float32, summed as 1.13's vec::map_reduce_all sums over
// AVX2 vectors of 8 (layer_norm_kernel.cpp's backward): fewer than 8
// elements in order; else 8 lanes, lane l adding element l, l+8, … of the
// whole vectors (the first vector is the start, not added to zeros), then
// the first lanes the elements of the partial last vector, and the lanes
// reduced as ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
func LayerNormGradSumsF32(dy, x, w []float32) (ds, db float32) {
	checkLen("LayerNormGradSumsF32", len(dy), len(x), len(w))
	n := len(dy)
	if n < 8 {
		for i := range dy {
			ps, pb := float32((dy[i]*x[i])*w[i]), float32(dy[i]*w[i]) // rounded: no fused add
			if i == 0 {
				ds, db = ps, pb
			} else {
				ds, db = ds+ps, db+pb
			}
		}
		return ds, db
	}
	full := n &^ 7
	s, b := red32.normGradSums(dy[:full], x[:full], w[:full])
	for i := full; i < n; i++ {
		s[i-full] += float32((dy[i] * x[i]) * w[i]) // rounded: no fused add
		b[i-full] += float32(dy[i] * w[i])
	}
	return lanes8Tree(&s), lanes8Tree(&b)
}

// lanes8Tree is ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
func lanes8Tree(a *[8]float32) float32 {
	return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
}

// LayerNormGradDXF32 sets dx[i] = fma(b, x[i], (rs·dy[i])·w[i]) + c in
// float32, the fused multiply-add rounded once: 1.13's input gradient of a
// layer-norm row given its coefficients.
func LayerNormGradDXF32(dx, dy, x, w []float32, rs, b, c float32) {
	checkLen("LayerNormGradDXF32", len(dx), len(dy), len(x), len(w))
	if len(dx) > 0 {
		red32.normGradDX(dx, dy, x, w, rs, b, c)
	}
}

// LayerNormGradWBF32 adds a layer-norm row to the weight and bias gradients
// in float32: dw[i] = fma(dy[i], fma(rs, x[i], nb), dw[i]) and db[i] =
// db[i] + dy[i], each multiply-add rounded once (nb = -rs·mean). dw and
// db may not overlap dy or x (the kernels read a block before they write).
func LayerNormGradWBF32(dw, db, dy, x []float32, rs, nb float32) {
	checkLen("LayerNormGradWBF32", len(dw), len(db), len(dy), len(x))
	if len(dw) > 0 {
		red32.normGradWB(dw, db, dy, x, rs, nb)
	}
}

// FMAF32 is a·b + c in float32, rounded once.
func FMAF32(a, b, c float32) float32 { return fmaF32(a, b, c) }

// GroupNormGradSumsF32 returns ds = Σ dy[i]·x[i] and db = Σ dy[i] in
// float32 as 1.13's group-norm backward sums a channel plane over AVX2
// vectors of 8 (group_norm_kernel.cpp, ComputeInternalGradients): lane l
// from +0 takes fma(dy, x, ·) and + dy of elements l, l+8, … of the whole
// vectors, the lanes are added in order from +0, and the elements past
// the last whole vector one by one in order (fused the same way).
func GroupNormGradSumsF32(dy, x []float32) (ds, db float32) {
	checkLen("GroupNormGradSumsF32", len(dy), len(x))
	full := len(dy) &^ 7
	var s, b [8]float32
	if full > 0 {
		s, b = red32.groupGradSums(dy[:full], x[:full])
	}
	return groupGradFinish(&s, &b, dy[full:], x[full:])
}

// GroupNormGradSumsPlanesF32 sets ds[k], db[k] = GroupNormGradSumsF32 of
// plane k of dy and x, which hold len(ds) planes of hw elements in a row:
// the same bits, four planes' sums computed side by side.
func GroupNormGradSumsPlanesF32(ds, db, dy, x []float32, hw int) {
	checkLen("GroupNormGradSumsPlanesF32", len(ds), len(db))
	checkLen("GroupNormGradSumsPlanesF32", len(dy), len(x), len(ds)*hw)
	full := hw &^ 7
	k := 0
	if full > 0 && red32.groupGradSums4 != nil {
		for ; k+4 <= len(ds); k += 4 {
			s, b := red32.groupGradSums4(dy[k*hw:(k+4)*hw], x[k*hw:(k+4)*hw], hw)
			for p := range 4 {
				ds[k+p], db[k+p] = groupGradFinish(&s[p], &b[p], dy[(k+p)*hw+full:(k+p+1)*hw], x[(k+p)*hw+full:(k+p+1)*hw])
			}
		}
	}
	for ; k < len(ds); k++ {
		ds[k], db[k] = GroupNormGradSumsF32(dy[k*hw:(k+1)*hw], x[k*hw:(k+1)*hw])
	}
}

// groupGradFinish adds the lanes of s and b in order from +0, then the
// elements past the whole vectors (dy, x) one by one.
func groupGradFinish(s, b *[8]float32, dy, x []float32) (ds, db float32) {
	for l := range 8 {
		ds += s[l]
		db += b[l]
	}
	for i := range dy {
		ds = fma32(dy[i], x[i], ds)
		db += dy[i]
	}
	return ds, db
}

// GroupNormGradDXF32 sets dx[i] = fma(c1, dy[i], c2·x[i]) + c3 in float32,
// the fused multiply-add rounded once: 1.13's group-norm input gradient of
// a channel plane given its coefficients.
func GroupNormGradDXF32(dx, dy, x []float32, c1, c2, c3 float32) {
	checkLen("GroupNormGradDXF32", len(dx), len(dy), len(x))
	if len(dx) > 0 {
		red32.groupGradDX(dx, dy, x, c1, c2, c3)
	}
}

// GroupNormGradDXStreamF32 is GroupNormGradDXF32 for a result too large to
// stay in the caches (StreamsResult): from dx's first 64-byte boundary on,
// the whole vectors are stored with non-temporal stores (on amd64 with
// AVX2). The same bits.
func GroupNormGradDXStreamF32(dx, dy, x []float32, c1, c2, c3 float32) {
	checkLen("GroupNormGradDXStreamF32", len(dx), len(dy), len(x))
	if len(dx) == 0 {
		return
	}
	k := red32.groupGradDXNT
	if k == nil {
		red32.groupGradDX(dx, dy, x, c1, c2, c3)
		return
	}
	h := min(len(dx), alignHead(dx))
	m := (len(dx) - h) &^ 7
	if h > 0 {
		red32.groupGradDX(dx[:h], dy[:h], x[:h], c1, c2, c3)
	}
	if m > 0 {
		k(dx[h:h+m], dy[h:h+m], x[h:h+m], c1, c2, c3)
	}
	if h+m < len(dx) {
		red32.groupGradDX(dx[h+m:], dy[h+m:], x[h+m:], c1, c2, c3)
	}
}
