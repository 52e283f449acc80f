package cpu

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Normalization kernels: layer norm, group norm, batch norm and dropout.
// Data is read as contiguous float32 or float64 (bfloat16 is computed in
// float32); statistics and gradient sums are accumulated in float64 with two
// passes, so they do not drift with length. The final affine step repeats
// PyTorch 1.13's float arithmetic (which products are rounded, which are
// fused), because rows with a variance tiny against eps make the result
// depend on it. PyTorch 1.13 computes some bfloat16 statistics in bfloat16
// arithmetic; here they are exact, so bfloat16 results can differ from it by
// a few bfloat16 ulps.

type normElem interface{ float32 | float64 }

// normDType is the dtype of the Go element type T.
func normDType[T normElem]() tensor.DType {
	var z T
	if _, ok := any(z).(float64); ok {
		return tensor.Float64
	}
	return tensor.Float32
}

// normUseF64 reports whether a kernel on dtype d computes on float64 data.
func normUseF64(d tensor.DType) bool { return d == tensor.Float64 }

// normIn returns t's elements in row-major order as a []T, copying only when
// t is strided or of another dtype.
func normIn[T normElem](t *tensor.Tensor) []T {
	if t.Numel() == 0 {
		return nil // an empty view may sit past the end of its storage
	}
	c := contiguousAs(t, normDType[T]())
	off := c.StorageOffset()
	return data[T](c)[off : off+c.Numel()]
}

// normOut returns a []T to write out's elements into, and a function that
// finishes the write (converting into out when its dtype is not T's).
// out must be freshly allocated (contiguous, offset 0).
func normOut[T normElem](out *tensor.Tensor) ([]T, func()) {
	if out == nil {
		return nil, func() {}
	}
	if out.DType() == normDType[T]() {
		return data[T](out)[:out.Numel()], func() {}
	}
	tmp := tensor.Empty(normDType[T](), out.Sizes()...)
	return data[T](tmp)[:tmp.Numel()], func() { copyInto(out, tmp) }
}

// normOutOrRow is normOut, or a scratch row of n elements when out is nil
// (a result not asked for).
func normOutOrRow[T normElem](out *tensor.Tensor, n int) ([]T, func()) {
	if out == nil {
		return make([]T, n), func() {}
	}
	return normOut[T](out)
}

// normIn1 is normIn for an optional tensor (nil for None).
func normIn1[T normElem](t *tensor.Tensor) []T {
	if t == nil {
		return nil
	}
	return normIn[T](t)
}

// normParam returns a small tensor's values as float64 (nil for None).
func normParam(t *tensor.Tensor) []float64 {
	if t == nil {
		return nil
	}
	return t.Float64s()
}

// normStore writes v into a freshly allocated output (nil is skipped).
func normStore(out *tensor.Tensor, v []float64) {
	if out == nil || len(v) == 0 {
		return
	}
	storeAnyF64(out.Storage(), out.DType(), 0, 1, v) // an empty input leaves integer weight gradients possible
}

// normAllocUninit is normAlloc for a kernel that writes every element of
// every output (their storage is not zeroed first).
func normAllocUninit(outs []*tensor.Tensor) []*tensor.Tensor {
	for _, t := range outs {
		if t != nil {
			t.SetDevice(tensor.CPU)
			tensor.MaterializeUninit(t)
		}
	}
	return outs
}

// normAlloc gives every meta output fresh storage.
func normAlloc(outs []*tensor.Tensor) []*tensor.Tensor {
	for _, t := range outs {
		alloc(t)
	}
	return outs
}

// normMoments returns the mean and the biased variance of row, accumulated in
// float64 with two passes. An empty row has mean 0 and variance NaN (so rstd
// is NaN), as in PyTorch.
func normMoments[T normElem](row []T) (mean, variance float64) {
	if len(row) == 0 {
		return 0, math.NaN()
	}
	var s float64
	for _, v := range row {
		s += float64(v)
	}
	mean = s / float64(len(row))
	var ss float64
	for _, v := range row {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, ss / float64(len(row))
}

// rowMeanVar is normMoments, for float32 rows by asm.MeanVarF32 (one
// vectorized pass in float64, the same accuracy).
func rowMeanVar[T normElem](row []T) (mean, variance float64) {
	if r, ok := any(row).([]float32); ok {
		return asm.MeanVarF32(r)
	}
	return normMoments(row)
}

// segSum is Σ row in float64 (asm.SumF32's vectorized sums for float32).
func segSum[T normElem](row []T) float64 {
	if r, ok := any(row).([]float32); ok {
		return asm.SumF32(r)
	}
	var sum float64
	for _, v := range row {
		sum += float64(v)
	}
	return sum
}

// segSqDev is Σ (row − mu)² in float64 (asm.SumSqDevF32 for float32).
func segSqDev[T normElem](row []T, mu float64) float64 {
	if r, ok := any(row).([]float32); ok {
		return asm.SumSqDevF32(r, mu)
	}
	var ss float64
	for _, v := range row {
		d := float64(v) - mu
		ss += d * d
	}
	return ss
}

// rowFMA sets y[j] = fma(s, x[j], c), rounded once.
func rowFMA[T normElem](y, x []T, s, c T) {
	if y32, ok := any(y).([]float32); ok {
		asm.AffineF32(y32, any(x).([]float32), nil, nil, float32(s), float32(c))
		return
	}
	for j, v := range x {
		y[j] = normFMA(s, v, c)
	}
}

// rowShiftScale sets y[j] = (x[j] − m)·s, each step rounded to T.
func rowShiftScale[T normElem](y, x []T, m, s T) {
	if y32, ok := any(y).([]float32); ok {
		asm.SubScalarF32(y32, any(x).([]float32), float32(m))
		asm.MulScalarF32(y32, y32, float32(s))
		return
	}
	for j, v := range x {
		y[j] = T(T(v-m) * s)
	}
}

// normStats rounds a row's statistics to T as PyTorch's kernels hold them:
// mean, and rstd = 1/sqrt(var + eps) evaluated in T. With reduced (a
// bfloat16 tensor) both are rounded to bfloat16 as well.
func normStats[T normElem](mu, variance, eps float64, reduced bool) (mean, rstd T) {
	mean = T(mu)
	rstd = T(1) / T(math.Sqrt(float64(T(T(variance)+T(eps)))))
	if reduced {
		mean, rstd = normBF16(mean), normBF16(rstd)
	}
	return mean, rstd
}

// normBF16 rounds a value to bfloat16 precision.
func normBF16[T normElem](v T) T {
	return T(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(v))))
}

// normFMA is a fused multiply-add rounded to T (float32 results are rounded
// twice, through float64, which only differs from one rounding in rare ties).
func normFMA[T normElem](a, b, c T) T { return T(math.FMA(float64(a), float64(b), float64(c))) }

// ---- layer norm ----

func layerNormKernel(op *tensor.Op, a []any) any {
	outs := normAllocUninit(metaN(op, a))
	p := args.NativeLayerNormOf(a)
	x, w, b := p.Input, p.Weight, p.Bias
	m, n := core.LayerNormDims(x, p.NormalizedShape, w, b)
	eps := p.Eps
	if normUseF64(x.DType()) {
		layerNormRun[float64](x, w, b, m, n, eps, outs)
	} else {
		layerNormRun[float32](x, w, b, m, n, eps, outs)
	}
	return outs
}

// layerNormRun normalizes each row of n elements. The affine part follows
// PyTorch's vectorized kernel (y = ((x*scale + bias)*w + b) with fused
// multiply-adds, scale = rstd, bias = -rstd*mean), so that rows whose
// variance is tiny against eps give the same values.
func layerNormRun[T normElem](x, w, b *tensor.Tensor, m, n int, eps float64, outs []*tensor.Tensor) {
	xs := normIn[T](x)
	ws, bs := normIn1[T](w), normIn1[T](b)
	reduced := x.DType().IsReduced()
	y, doneY := normOut[T](outs[0])
	mean, doneM := normOut[T](outs[1])
	rstd, doneR := normOut[T](outs[2])
	if x32, ok := any(xs).([]float32); ok && !reduced && y != nil {
		// float32 rows by the SIMD row kernel: the same two float64 passes
		// and the same fused affine step as below.
		y32, m32, r32 := any(y).([]float32), any(mean).([]float32), any(rstd).([]float32)
		w32, b32 := any(ws).([]float32), any(bs).([]float32)
		forRows(m, n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				m32[i], r32[i] = asm.LayerNormF32(y32[i*n:(i+1)*n], x32[i*n:(i+1)*n], w32, b32, float32(eps))
			}
		})
		doneY()
		doneM()
		doneR()
		return
	}
	for i := 0; i < m; i++ {
		row := xs[i*n : (i+1)*n]
		m64, v64 := normMoments(row)
		mu, rs := normStats[T](m64, v64, eps, reduced)
		mean[i], rstd[i] = mu, rs
		bias := T(-rs * mu)
		if reduced {
			bias = normBF16(bias)
		}
		yr := y[i*n : (i+1)*n]
		for j, v := range row {
			t := normFMA(v, rs, bias)
			g, c := T(1), T(0)
			if ws != nil {
				g = ws[j]
			}
			if bs != nil {
				c = bs[j]
			}
			yr[j] = normFMA(t, g, c)
		}
	}
	doneY()
	doneM()
	doneR()
}

// layerNormBackwardKernel computes into outs (nil where output_mask
// leaves a result undefined): the float32 kernel writes every element; the
// other path starts from zeroed results.
func layerNormBackwardKernel(outs []*tensor.Tensor, op *tensor.Op, a []any) {
	p := args.NativeLayerNormBackwardOf(a)
	dy, x := p.GradOut, p.Input
	mean, rstd := p.Mean, p.Rstd
	w, b := p.Weight, p.Bias
	m, n := core.LayerNormDims(x, p.NormalizedShape, w, b)
	if x.DType() == tensor.Float32 && m > 0 && n > 0 {
		layerNormBackwardF32(dy, x, mean, rstd, w, m, n, outs)
		return
	}
	for _, o := range outs {
		if o != nil {
			clearElems(o)
		}
	}
	if normUseF64(x.DType()) {
		layerNormBackwardRun[float64](dy, x, mean, rstd, w, m, n, outs)
	} else {
		layerNormBackwardRun[float32](dy, x, mean, rstd, w, m, n, outs)
	}
}

// layerNormBackwardRun (float64 and 16-bit float inputs; float32 ones take
// layerNormBackwardF32) computes dx row by row (layerNormRowDX), dw = Σrows
// dy·xhat and db = Σrows dy (layerNormRowWB).
func layerNormBackwardRun[T normElem](dy, x, mean, rstd, w *tensor.Tensor, m, n int, outs []*tensor.Tensor) {
	var dw, db []float64
	if outs[1] != nil {
		dw = make([]float64, n)
	}
	if outs[2] != nil {
		db = make([]float64, n)
	}
	exact := x.DType() == normDType[T]()
	if p := parallel.Pieces(m*n, grain); m > 0 && n > 0 && !normSerial(m, n, p) && m > 1 {
		layerNormBackwardParallel[T](dy, x, mean, rstd, w, m, n, p, outs[0], dw, db, exact)
	} else if m > 0 && n > 0 {
		dys, xs := normIn[T](dy), normIn[T](x)
		means, rstds := normIn[T](mean), normIn[T](rstd)
		ws := normParam(w)
		dx, doneX := normOut[T](outs[0])
		var sc layerNormScratch
		for i := 0; i < m; i++ {
			dyr, xr := dys[i*n:(i+1)*n], xs[i*n:(i+1)*n]
			layerNormRowWB(exact, dyr, xr, means[i], rstds[i], dw, db)
			if dx != nil {
				layerNormRowDX(dx[i*n:(i+1)*n], dyr, xr, ws, means[i], rstds[i], &sc)
			}
		}
		doneX()
	}
	normStore(outs[1], dw)
	normStore(outs[2], db)
}

// layerNormBackwardF32 is layerNormBackwardRun for a float32 input: 1.13's
// CPU kernel (layer_norm_kernel.cpp), float32 throughout with the fused
// multiply-adds of its AVX2 build, through package asm's row kernels: dx
// row by row (layerNormRowDX32), dw = Σrows dy·(rstd·x − rstd·mean) and db
// = Σrows dy, each column summed over the rows in order in float32 with
// both multiply-adds fused (as the golden records show: rstd·mean rounded,
// so a row of one element leaves a residue, not 0). One goroutine does
// both for each row in turn; several share the rows for dx and then the
// columns for dw and db, so the bits are the same for any GOMAXPROCS. A
// nil weight multiplies by ones, which is exact.
func layerNormBackwardF32(dy, x, mean, rstd, w *tensor.Tensor, m, n int, outs []*tensor.Tensor) {
	dys, xs := normIn[float32](dy), normIn[float32](x)
	means, rstds := normIn[float32](mean), normIn[float32](rstd)
	w32 := make([]float32, n)
	if ws := normParam(w); ws != nil {
		for j, v := range ws {
			w32[j] = float32(v)
		}
	} else {
		for j := range w32 {
			w32[j] = 1
		}
	}
	dx, doneX := normOut[float32](outs[0])
	// dw and db are summed in place in their results (in a scratch row
	// where only the other one is asked for).
	var dw, db []float32
	doneW, doneB := func() {}, func() {}
	if outs[1] != nil || outs[2] != nil {
		dw, doneW = normOutOrRow[float32](outs[1], n)
		db, doneB = normOutOrRow[float32](outs[2], n)
		clear(dw)
		clear(db)
	}
	wb := func(i, lo, hi int) {
		asm.LayerNormGradWBF32(dw[lo:hi], db[lo:hi], dys[i*n+lo:i*n+hi], xs[i*n+lo:i*n+hi], rstds[i], -rstds[i]*means[i])
	}
	if p := parallel.Pieces(m*n, grain); normSerial(m, n, p) {
		// One goroutine: both passes over a row while it is in cache, the
		// row's terms of dw and db between the sums of its dx and the rest
		// (they do not need the sums, so the core can add them up while the
		// sums' chains of additions finish).
		for i := range m {
			if dx == nil {
				wb(i, 0, n)
				continue
			}
			dyr, xr := dys[i*n:(i+1)*n], xs[i*n:(i+1)*n]
			ds, db := asm.LayerNormGradSumsF32(dyr, xr, w32)
			if dw != nil {
				wb(i, 0, n)
			}
			layerNormRowDX32Sums(dx[i*n:(i+1)*n], dyr, xr, w32, means[i], rstds[i], ds, db)
		}
	} else {
		rowsAndColumns(m, n, p, func(_, i int) {
			if dx != nil {
				layerNormRowDX32(dx[i*n:(i+1)*n], dys[i*n:(i+1)*n], xs[i*n:(i+1)*n], w32, means[i], rstds[i])
			}
		}, func(i, lo, hi int) {
			if dw != nil {
				wb(i, lo, hi)
			}
		})
	}
	doneX()
	doneW()
	doneB()
}

// layerNormRowDX32 is one float32 row's input gradient as 1.13's kernel
// computes it: ds = Σ (dy·x)·γ and db = Σ dy·γ summed in its vectorized
// map-reduce's order, b = (db·mean − ds)·rstd³/N, c = −b·mean − db·rstd/N,
// dx = (rstd·dy)·γ + b·x + c. Where the row's normalized values nearly
// cancel (two elements) dx is these roundings, not the exact gradient (2%
// apart in a resampled record); bit for bit every float32 record of the
// public set and of the resampled seeds.
func layerNormRowDX32(dx, dy, x, w []float32, mu, rs float32) {
	ds, db := asm.LayerNormGradSumsF32(dy, x, w)
	layerNormRowDX32Sums(dx, dy, x, w, mu, rs, ds, db)
}

// layerNormRowDX32Sums is layerNormRowDX32 given the row's sums ds, db.
func layerNormRowDX32Sums(dx, dy, x, w []float32, mu, rs, ds, db float32) {
	scale := 1 / float32(len(x))
	b := float32(float32(float32(asm.FMAF32(db, mu, -ds)*rs)*rs)*rs) * scale
	c := asm.FMAF32(-b, mu, -float32(float32(db*rs)*scale))
	asm.LayerNormGradDXF32(dx, dy, x, w, rs, b, c)
}

// layerNormScratch is the scratch of layerNormRowDX, grown to the row length.
type layerNormScratch struct {
	g, xh []float64
}

// layerNormRowDX computes one row's input gradient of a float64 or 16-bit
// float input (a float32 one takes layerNormRowDX32), in float64 with xhat
// = (x−mean)·rstd and g = dy·γ: dx = rstd·(g − mean(g) − xhat·mean(g·xhat)),
// within float64's tolerance (1.13 computes float64 rows in another order,
// which did not emerge).
func layerNormRowDX[T normElem](dxT, dyT, xT []T, w []float64, meanT, rstdT T, sc *layerNormScratch) {
	n := len(xT)
	mu, rs := float64(meanT), float64(rstdT)
	sc.g, sc.xh = slices.Grow(sc.g[:0], n)[:n], slices.Grow(sc.xh[:0], n)[:n]
	g, xh := sc.g, sc.xh
	var s1, s2 float64
	for j, d := range dyT {
		gv := float64(d)
		if w != nil {
			gv *= w[j]
		}
		h := (float64(xT[j]) - mu) * rs
		g[j], xh[j] = gv, h
		s1 += gv
		s2 += gv * h
	}
	inv := 1 / float64(n)
	s1 *= inv
	s2 *= inv
	for j := range dxT {
		dxT[j] = T(rs * (g[j] - s1 - xh[j]*s2))
	}
}

// layerNormBackwardParallel is layerNormBackwardRun's loop shared among p
// goroutines (rowsAndColumns): dx a share of the rows (each row is
// independent), dw and db a share of the columns, each column summed over
// the rows in order as the serial loop sums it, so the bits are the same
// for any GOMAXPROCS.
func layerNormBackwardParallel[T normElem](dy, x, mean, rstd, w *tensor.Tensor, m, n, p int, dxOut *tensor.Tensor, dw, db []float64, exact bool) {
	dys, xs := normIn[T](dy), normIn[T](x)
	means, rstds := normIn[T](mean), normIn[T](rstd)
	ws := normParam(w)
	dx, doneX := normOut[T](dxOut)
	scratch := make([]layerNormScratch, p)
	rowsAndColumns(m, n, p, func(t, i int) {
		if dx != nil {
			layerNormRowDX(dx[i*n:(i+1)*n], dys[i*n:(i+1)*n], xs[i*n:(i+1)*n], ws, means[i], rstds[i], &scratch[t])
		}
	}, func(i, lo, hi int) {
		if dw == nil && db == nil {
			return
		}
		var dwp, dbp []float64
		if dw != nil {
			dwp = dw[lo:hi]
		}
		if db != nil {
			dbp = db[lo:hi]
		}
		layerNormRowWB(exact, dys[i*n+lo:i*n+hi], xs[i*n+lo:i*n+hi], means[i], rstds[i], dwp, dbp)
	})
	doneX()
}

// normSerial reports whether layer_norm's backward over m rows of n runs
// the one-core loop rather than rowsAndColumns in p pieces: with p = 1,
// or when pieces that small would go only to a spinning goroutine
// (rowsAndColumns's ForSmall) and none spins now, so that the caller would
// run every stream itself, slower than the one-core loop (0.123 against
// 0.109 ms over 1024×256 without collections). The bits are the same.
func normSerial(m, n, p int) bool {
	return p == 1 || m*n/p < parallel.SmallPiece*grain && !parallel.Spinning()
}

// rowsAndColumnsBytes is about how much of each operand a group of rows
// of rowsAndColumns spans: the group is still in the caches when the other
// goroutines read it for their columns.
const rowsAndColumnsBytes = 256 << 10

// rowsAndColumns shares a row-wise pass (row(t, i): a row's input
// gradient, independent of the others, with scratch t) and a column-wise
// one (col(i, lo, hi): row i's contribution to the sums of columns [lo,
// hi), which must see the rows in order) among p goroutines in one pass
// over the data. The rows go by groups of about rowsAndColumnsBytes, and
// the work by p streams: stream t takes the t-th share of a group's rows,
// then adds the group's rows, in order, to the t-th share of the columns
// (a multiple of 8 wide), group after group. A stream runs on one
// goroutine at a time; each goroutine takes the next group of whichever
// stream is free, its own first, or of all of them at once when all are
// free: then it runs the group as the one-core loop does, each row whole
// (alone, going share by share took 20% longer). So when the other
// goroutines start late (or the OS runs them late), the caller goes on as
// one core would. Each column's sum sees the rows in order either way, a
// column at a time, so the bits are the same. Two passes, rows and then columns, read every row twice from
// memory: native_layer_norm's backward over 4096×1024 took twice the CPU
// time on two cores as on one (2.15 and 4.41 ms), and twice the time when
// the second core was busy with other work; so did the shares, each over
// all the rows, when the caller did both.
func rowsAndColumns(m, n, p int, row func(t, i int), col func(i, lo, hi int)) {
	g := rowGroup(n)
	groups := (m + g - 1) / g
	step := ((n+p-1)/p + 7) / 8 * 8
	type stream struct {
		mu   sync.Mutex
		next atomic.Int64 // the next group; changed with mu held
	}
	streams := make([]stream, p)
	// take runs the next group of stream t, if it has one left, once t is
	// free (wait) or if it is free now; it reports whether it ran one.
	take := func(t int, wait bool) bool {
		s := &streams[t]
		if wait {
			s.mu.Lock()
		} else if !s.mu.TryLock() {
			return false
		}
		defer s.mu.Unlock()
		k := int(s.next.Load())
		if k >= groups {
			return false
		}
		s.next.Store(int64(k + 1))
		r0, r1 := k*g, min(m, (k+1)*g)
		for i := r0 + (r1-r0)*t/p; i < r0+(r1-r0)*(t+1)/p; i++ {
			row(t, i)
		}
		if lo, hi := min(n, t*step), min(n, (t+1)*step); lo < hi {
			for i := r0; i < r1; i++ {
				col(i, lo, hi)
			}
		}
		return true
	}
	// takeAll runs the next group of every stream as the one-core loop
	// does, row by row (each row's share, then the row added to every
	// column), if every stream is free and at the same group: what a
	// goroutine going through the streams alone does, in the order that
	// keeps each row in cache. It reports whether it ran one.
	takeAll := func() bool {
		held := 0
		defer func() {
			for u := range held {
				streams[u].mu.Unlock()
			}
		}()
		for ; held < p; held++ {
			if !streams[held].mu.TryLock() {
				return false
			}
		}
		k := int(streams[0].next.Load())
		for u := range p {
			if int(streams[u].next.Load()) != k {
				return false
			}
		}
		if k >= groups {
			return false
		}
		r0, r1 := k*g, min(m, (k+1)*g)
		t := 0
		for i := r0; i < r1; i++ {
			for t < p-1 && i >= r0+(r1-r0)*(t+1)/p {
				t++
			}
			row(t, i)
			col(i, 0, n)
		}
		for u := range p {
			streams[u].next.Store(int64(k + 1))
		}
		return true
	}
	loop := parallel.For
	if m*n/p < parallel.SmallPiece*grain {
		loop = parallel.ForSmall
	}
	loop(p, func(t int) {
		for {
			if takeAll() {
				continue
			}
			ran := false
			for d := range p {
				if take((t+d)%p, false) {
					ran = true
				}
			}
			if ran {
				continue
			}
			// No stream is free: wait for one that has groups left.
			busy := -1
			for d := range p {
				if u := (t + d) % p; int(streams[u].next.Load()) < groups {
					busy = u
					break
				}
			}
			if busy < 0 {
				return
			}
			take(busy, true)
		}
	})
}

// rowGroup is rowsAndColumns' group of rows of n elements (of 4 bytes;
// of float64 ones the group spans twice the bytes).
func rowGroup(n int) int { return max(1, rowsAndColumnsBytes/(4*max(n, 1))) }

// layerNormRowWB adds one row's terms to the weight and bias gradients (nil
// when not wanted). With exact (a float32 or float64 input) they are 1.13's,
// in the input's precision: dw += dy·(rstd·x − rstd·mean) with both
// multiply-adds fused, as the golden records show (rstd·mean rounded, so a
// row of one element leaves a residue, not 0), and db += dy, each column
// summed over the rows in order. The 16-bit floats sum in float64.
func layerNormRowWB[T normElem](exact bool, dyr, xr []T, mean, rstd T, dw, db []float64) {
	if !exact {
		mu, rs := float64(mean), float64(rstd)
		for j, d := range dyr {
			if dw != nil {
				dw[j] += float64(d) * ((float64(xr[j]) - mu) * rs)
			}
			if db != nil {
				db[j] += float64(d)
			}
		}
		return
	}
	b := -rstd * mean
	for j, d := range dyr {
		if dw != nil {
			dw[j] = float64(normFMA(d, normFMA(rstd, xr[j], b), T(dw[j])))
		}
		if db != nil {
			db[j] = float64(T(db[j]) + d)
		}
	}
}

// ---- group norm ----

func groupNormKernel(op *tensor.Op, a []any) any {
	outs := normAllocUninit(metaN(op, a)) // every element is written
	p := args.NativeGroupNormOf(a)
	x, w, b := p.Input, p.Weight, p.Bias
	n, c, hw, group := p.N, p.C, p.HxW, p.Group
	eps := p.Eps
	if normUseF64(x.DType()) {
		groupNormRun[float64](x, w, b, n, c, hw, group, eps, outs)
	} else {
		groupNormRun[float32](x, w, b, n, c, hw, group, eps, outs)
	}
	return outs
}

// groupNormRun normalizes each (n, group) block of C/group channels × HxW.
// The affine part follows PyTorch's kernel: per channel scale = rstd*w and
// bias = -scale*mean + b, then y = scale*x + bias (fused).
func groupNormRun[T normElem](x, w, b *tensor.Tensor, n, c, hw, group int, eps float64, outs []*tensor.Tensor) {
	xs := normIn[T](x)
	ws, bs := normIn1[T](w), normIn1[T](b)
	reduced := x.DType().IsReduced()
	y, doneY := normOut[T](outs[0])
	mean, doneM := normOut[T](outs[1])
	rstd, doneR := normOut[T](outs[2])
	d := c / group
	size := d * hw
	parallel.Range(n*group, max(1, grain/max(size, 1)), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			base := i * size
			m64, v64 := rowMeanVar(xs[base : base+size])
			mu, rs := normStats[T](m64, v64, eps, reduced)
			mean[i], rstd[i] = mu, rs
			if ws == nil && bs == nil {
				rowShiftScale(y[base:base+size], xs[base:base+size], mu, rs)
				continue
			}
			g := i % group
			for k := 0; k < d; k++ {
				ch := g*d + k
				scale := rs
				if ws != nil {
					scale = T(rs * ws[ch])
				}
				bias := T(-scale * mu)
				if bs != nil {
					bias = T(bias + bs[ch])
				}
				off := base + k*hw
				rowFMA(y[off:off+hw], xs[off:off+hw], scale, bias)
			}
		}
	})
	doneY()
	doneM()
	doneR()
}

func groupNormBackwardKernel(op *tensor.Op, a []any) any {
	outs := normAllocUninit(metaN(op, a)) // every element is written
	p := args.NativeGroupNormBackwardOf(a)
	dy, x := p.GradOut, p.Input
	mean, rstd, w := p.Mean, p.Rstd, p.Weight
	n, c, hw, group := p.N, p.C, p.HxW, p.Group
	if normUseF64(x.DType()) {
		groupNormBackwardRun[float64](dy, x, mean, rstd, w, n, c, hw, group, outs)
	} else {
		groupNormBackwardRun[float32](dy, x, mean, rstd, w, n, c, hw, group, outs)
	}
	return outs
}

// laneSum adds a vector's lanes in order from 0 (std::accumulate of the
// stored lanes).
func laneSum[T normElem](acc []T) (s T) {
	for _, v := range acc {
		s += v
	}
	return s
}

// groupNormBackwardRun is 1.13's CPU kernel (group_norm_kernel.cpp) in T's
// precision (its accumulation type: float32 for float32 and bfloat16,
// float64 for float64), with the fused multiply-add its AVX2 build makes of
// each a·b + c. Per (n, c): ds = Σ dy·x and db = Σ dy, in lanes of one vector
// (8 float32, 4 float64; bfloat16 steps 16 elements into 8 lanes), the lanes
// summed in order, then the tail. Per (n, group): ds_val and db_val, the
// channels' sums weighted by gamma (lanes of the param type's vector, then
// the tail), c2 = (db_val·mean − ds_val)·rstd³·s and c3 = −c2·mean −
// db_val·rstd·s with s = 1/(D·HxW), and dx = c1·dy + c2·x + c3 with c1 =
// rstd·gamma. dgamma sums (ds − db·mean)·rstd and dbeta sums db over n.
// Where a group's normalized values nearly cancel (two elements per group)
// dx is these roundings rather than the exact gradient: matched bit for bit
// against 1.13's records, which the exact float64 gradient missed by 3e-3
// relative.
func groupNormBackwardRun[T normElem](dy, x, mean, rstd, w *tensor.Tensor, n, c, hw, group int, outs []*tensor.Tensor) {
	var dw, db []float64
	if outs[1] != nil {
		dw = make([]float64, c)
	}
	if outs[2] != nil {
		db = make([]float64, c)
	}
	d := c / group
	if n*c*hw == 0 {
		normStore(outs[1], dw)
		normStore(outs[2], db)
		return
	}
	lanes := 8 // Vectorized<T>::size() of the accumulation type
	if normDType[T]() == tensor.Float64 {
		lanes = 4
	}
	xStep, gStep := lanes, lanes // elements per vector step of X and of gamma
	if x.DType() == tensor.BFloat16 {
		xStep = 16
		if w == nil || w.DType() == tensor.BFloat16 {
			gStep = 16 // bfloat16 parameters (not the mixed float32 ones)
		}
	}
	dys, xs := normIn[T](dy), normIn[T](x)
	means, rstds := normIn[T](mean), normIn[T](rstd)
	ws := normIn1[T](w)
	gamma := func(ch int) T {
		if ws == nil {
			return 1
		}
		return ws[ch]
	}
	// float32 planes go through package asm's kernels, in the same order.
	_, f32 := any(dys).([]float32)
	f32 = f32 && xStep == 8
	// ComputeInternalGradients of plane i (one (n, c)) into dsA[i], dbA[i]
	// (float32 planes: asm.GroupNormGradSumsPlanesF32, the same operations).
	dsA, dbA := make([]T, n*c), make([]T, n*c)
	sums := func(i int, accS, accB []T) {
		dyr, xr := dys[i*hw:(i+1)*hw], xs[i*hw:(i+1)*hw]
		clear(accS)
		clear(accB)
		inner := hw / xStep * xStep
		for j := 0; j < inner; j += xStep {
			for h := 0; h < xStep; h += lanes {
				for k := range lanes {
					accS[k] = normFMA(dyr[j+h+k], xr[j+h+k], accS[k])
					accB[k] += dyr[j+h+k]
				}
			}
		}
		sv, bv := laneSum(accS), laneSum(accB)
		for j := inner; j < hw; j++ {
			sv = normFMA(dyr[j], xr[j], sv)
			bv += dyr[j]
		}
		dsA[i], dbA[i] = sv, bv
	}
	dx, doneX := normOut[T](outs[0])
	s := 1 / T(d*hw)
	stream := f32 && asm.StreamsResult(4*len(dx))
	// A share of the (n, group) rows per goroutine: each row's planes'
	// sums, then (GroupNormInputBackward) its input gradient while the row
	// is still in the caches (the sums of all the planes first and then
	// the gradients read everything twice from memory).
	parallel.Range(n*group, max(1, grain/max(d*hw, 1)), 1, func(lo, hi int) {
		accS, accB := make([]T, lanes), make([]T, lanes)
		for i := lo; i < hi; i++ {
			if f32 {
				asm.GroupNormGradSumsPlanesF32(any(dsA[i*d:(i+1)*d]).([]float32), any(dbA[i*d:(i+1)*d]).([]float32),
					any(dys[i*d*hw:(i+1)*d*hw]).([]float32), any(xs[i*d*hw:(i+1)*d*hw]).([]float32), hw)
			} else {
				for ch := i * d; ch < (i+1)*d; ch++ {
					sums(ch, accS, accB)
				}
			}
			if dx != nil {
				groupNormRowDX(dx, dys, xs, dsA, dbA, gamma, accS, accB, i, group, d, hw, gStep, means[i], rstds[i], s, f32, stream)
			}
		}
	})
	for i := 0; i < n*group; i++ {
		g := i % group
		dsr, dbr := dsA[i*d:(i+1)*d], dbA[i*d:(i+1)*d]
		mu, rs := means[i], rstds[i]
		// GammaBackward and BetaBackward accumulate in T too.
		for j := range d {
			ch := g*d + j
			if dw != nil {
				dw[ch] = float64(normFMA(normFMA(-dbr[j], mu, dsr[j]), rs, T(dw[ch])))
			}
			if db != nil {
				db[ch] = float64(T(db[ch]) + dbr[j])
			}
		}
	}
	doneX()
	normStore(outs[1], dw)
	normStore(outs[2], db)
}

// ---- batch norm ----

func batchNormKernel(outs []*tensor.Tensor, op *tensor.Op, list []any) {
	a := core.BatchNormArgsOf(op, list)
	if normUseF64(a.Input.DType()) {
		batchNormRun[float64](a, outs)
	} else {
		batchNormRun[float32](a, outs)
	}
}

// batchNormInvStd is PyTorch's InvStd: 0 when both the variance and eps are 0.
func batchNormInvStd(v, eps float64) float64 {
	if v == 0 && eps == 0 {
		return 0
	}
	return 1 / math.Sqrt(v+eps)
}

// batchNormRun normalizes x, read as [N, C, S], per channel: with the batch
// statistics in training (updating the running statistics in place with
// momentum and the unbiased variance), with the running ones in evaluation.
func batchNormRun[T normElem](a core.BatchNormArgs, outs []*tensor.Tensor) {
	x := a.Input
	n, c := x.Size(0), x.Size(1)
	s := tensor.Numel(x.Sizes()[2:])
	mean := make([]float64, c)
	invstd := make([]float64, c)
	var xs []T
	if x.Numel() > 0 {
		xs = normIn[T](x)
	}
	if a.Training {
		// An empty batch is left with zero statistics (1.13 divides an
		// integer by zero); empty planes give 0/0 as in 1.13: NaN means and
		// inverse deviations, a NaN running mean, and a running variance
		// that adds momentum times 0/-1.
		if count := n * s; n > 0 {
			// Per channel (a share of them per goroutine): the mean, then
			// the squared deviations from it, each plane summed in float64
			// and the planes added in batch order.
			varSum := make([]float64, c)
			parallel.Range(c, max(1, grain/max(count, 1)), 1, func(lo, hi int) {
				for ch := lo; ch < hi; ch++ {
					for i := range n {
						mean[ch] += segSum(xs[(i*c+ch)*s : (i*c+ch+1)*s])
					}
					mean[ch] /= float64(count)
					for i := range n {
						varSum[ch] += segSqDev(xs[(i*c+ch)*s:(i*c+ch+1)*s], mean[ch])
					}
				}
			})
			for ch := range invstd {
				invstd[ch] = batchNormInvStd(varSum[ch]/float64(count), a.Eps)
			}
			mom := a.Momentum
			if rm := a.RunningMean; rm != nil && c > 0 {
				old := rm.Float64s()
				for ch := range old {
					old[ch] = float64(mom*mean[ch]) + float64((1-mom)*old[ch])
				}
				copyInto(rm, tensor.FromSlice(old, rm.Sizes()...))
				rm.BumpVersion()
			}
			if rv := a.RunningVar; rv != nil && c > 0 {
				old := rv.Float64s()
				for ch := range old {
					old[ch] = float64(mom*(varSum[ch]/float64(count-1))) + float64((1-mom)*old[ch])
				}
				copyInto(rv, tensor.FromSlice(old, rv.Sizes()...))
				rv.BumpVersion()
			}
		}
		normStore(outs[1], mean)
		normStore(outs[2], invstd)
		// The transform uses the statistics as saved, rounded to their dtype.
		sd := outs[1].DType()
		roundF64(mean, sd)
		roundF64(invstd, sd)
	} else {
		mean = a.RunningMean.Float64s()
		for ch, v := range a.RunningVar.Float64s() {
			invstd[ch] = float64(T(1) / T(math.Sqrt(float64(T(T(v)+T(a.Eps))))))
		}
	}
	if x.Numel() == 0 {
		return
	}
	ws, bs := normParam(a.Weight), normParam(a.Bias)
	y, doneY := normOut[T](outs[0])
	// As PyTorch: alpha = invstd*w, beta = b - mean*alpha, y = x*alpha + beta
	// (fused multiply-adds), all in the compute type.
	alpha := make([]T, c)
	beta := make([]T, c)
	for ch := range alpha {
		al := T(invstd[ch])
		if ws != nil {
			al = T(al * T(ws[ch]))
		}
		bc := T(0)
		if bs != nil {
			bc = T(bs[ch])
		}
		alpha[ch], beta[ch] = al, normFMA(-T(mean[ch]), al, bc)
	}
	parallel.Range(n*c, max(1, grain/max(s, 1)), 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ch := p % c
			rowFMA(y[p*s:(p+1)*s], xs[p*s:(p+1)*s], alpha[ch], beta[ch])
		}
	})
	doneY()
}

// ---- dropout ----

// dropoutKernel keeps each element with probability 1-p (mask.bernoulli_(1-p)
// from the default generator, as native_dropout_cpu draws it) and scales the
// kept ones by 1/(1-p), rounding the scale to the input's dtype first as
// input.mul(mask).mul_(scale) does.
func dropoutKernel(op *tensor.Op, a []any) any {
	outs := normAlloc(metaN(op, a))
	v := args.NativeDropoutOf(a)
	x, p := v.Input, v.P
	train := v.Train.Or(true)
	if x.Numel() == 0 {
		return outs
	}
	out, mask := outs[0], outs[1]
	if !train {
		copyInto(out, x)
		fillValue(mask, tensor.BoolScalar(true))
		return outs
	}
	p1m := 1 - p
	scale := []float64{0}
	if p1m != 0 {
		scale[0] = 1 / p1m
	}
	roundF64(scale, x.DType())
	sc := scale[0]
	xc := contiguous(x)
	dt := x.DType()
	ms := data[uint8](mask)
	total := x.Numel()
	// mask.bernoulli_(p1m): the whole mask first, one 53-bit uniform per element.
	tensor.DefaultGenerator().Draw(func(e *tensor.Engine) {
		for i := range total {
			if e.Bernoulli64(p1m) {
				ms[i] = 1
			}
		}
	})
	var buf [blockLen]float64
	for i := 0; i < total; i += blockLen {
		k := min(blockLen, total-i)
		loadF64(buf[:k], xc.Storage(), dt, xc.StorageOffset()+i, 1)
		for j := 0; j < k; j++ {
			buf[j] = buf[j] * float64(ms[i+j]) * sc
		}
		storeF64(out.Storage(), dt, i, 1, buf[:k])
	}
	return outs
}

func init() {
	impl("aten::native_layer_norm.default", layerNormKernel)
	implOuts("aten::native_layer_norm_backward.default", layerNormBackwardKernel)
	impl("aten::native_group_norm.default", groupNormKernel)
	impl("aten::native_group_norm_backward.default", groupNormBackwardKernel)
	// The variant that updates running statistics in place has no out
	// kernel (an out kernel's op is functional).
	impl("aten::_native_batch_norm_legit.default", allocOuts(batchNormKernel))
	implOuts("aten::_native_batch_norm_legit.no_stats", batchNormKernel)
	// native_batch_norm decomposes into the variant its arguments pick
	// (decomp's nativeBatchNorm), whose kernel a plan runs into the
	// results it laid out (core.BatchNormArgsOf reads either's arguments).
	core.Op("aten::native_batch_norm.default").ImplOut(tensor.CPU, batchNormKernel)
	implOuts("aten::_native_batch_norm_legit_no_training.default", batchNormKernel)
	impl("aten::native_dropout.default", dropoutKernel)
}

// groupNormRowDX is GroupNormInputBackward for row i (one (n, group)) of
// groupNormBackwardRun: the channels' sums weighted by gamma in lanes (accS,
// accB scratch), the row's c2 and c3, then dx = c1·dy + c2·x + c3 per
// channel plane (f32: asm.GroupNormGradDXF32, the same operations; with
// stream, its non-temporal twin, for a result too large for the caches).
func groupNormRowDX[T normElem](dx, dys, xs, dsA, dbA []T, gamma func(int) T, accS, accB []T, i, group, d, hw, gStep int, mu, rs, s T, f32, stream bool) {
	lanes := len(accS)
	g := i % group
	dsr, dbr := dsA[i*d:(i+1)*d], dbA[i*d:(i+1)*d]
	clear(accS)
	clear(accB)
	inner := d / gStep * gStep
	for j := 0; j < inner; j += gStep {
		for h := 0; h < gStep; h += lanes {
			for k := range lanes {
				gv := gamma(g*d + j + h + k)
				accS[k] = normFMA(dsr[j+h+k], gv, accS[k])
				accB[k] = normFMA(dbr[j+h+k], gv, accB[k])
			}
		}
	}
	sv, bv := laneSum(accS), laneSum(accB)
	for j := inner; j < d; j++ {
		gv := gamma(g*d + j)
		sv = normFMA(dsr[j], gv, sv)
		bv = normFMA(dbr[j], gv, bv)
	}
	c2 := T(T(T(T(normFMA(bv, mu, -sv)*rs)*rs)*rs) * s)
	c3 := normFMA(-c2, mu, -T(T(bv*rs)*s))
	for j := range d {
		c1 := T(rs * gamma(g*d+j))
		off := (i*d + j) * hw
		if f32 {
			k := asm.GroupNormGradDXF32
			if stream {
				k = asm.GroupNormGradDXStreamF32
			}
			k(any(dx[off:off+hw]).([]float32), any(dys[off:off+hw]).([]float32),
				any(xs[off:off+hw]).([]float32), float32(c1), float32(c2), float32(c3))
			continue
		}
		for k := off; k < off+hw; k++ {
			dx[k] = T(normFMA(c1, dys[k], T(c2*xs[k])) + c3)
		}
	}
}
