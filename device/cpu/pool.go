package cpu

import (
	"math"
	"runtime"
	"sync/atomic"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Pooling kernels. Every op is computed plane by plane (a plane is one
// (batch, channel) slice) over three spatial dims (D, H, W); 2-d and 1-d ops
// are the same loops with D = 1 (and H = 1). Inputs are made contiguous in the
// compute dtype first: float32, float64 or int64 as given, float16 and
// bfloat16 through float32 (as PyTorch's CPU kernels accumulate them).

// poolNum is an element type the pooling loops compute in.
type poolNum interface {
	~float32 | ~float64 | ~int64
}

// poolFloat is a floating element type.
type poolFloat interface {
	~float32 | ~float64
}

// poolComputeDType is the dtype a pooling kernel computes dtype d in.
func poolComputeDType(d tensor.DType) tensor.DType {
	if d.IsReduced() {
		return tensor.Float32
	}
	return d
}

// poolRound returns a function rounding a float32 to d and back, for
// kernels that mimic PyTorch's step-by-step rounding of 16-bit floats; nil
// for other dtypes.
func poolRound(d tensor.DType) func(float32) float32 {
	switch d {
	case tensor.BFloat16:
		return func(v float32) float32 { return tensor.BF16ToFloat32(tensor.Float32ToBF16(v)) }
	case tensor.Float16:
		return func(v float32) float32 { return tensor.HalfToFloat32(tensor.Float32ToHalf(v)) }
	}
	return nil
}

// poolBuffers returns src as a contiguous tensor in the compute dtype of
// out, and a contiguous result tensor in that dtype: out itself when it
// already has it, else a scratch tensor that poolFinish copies into out.
func poolBuffers(out, src *tensor.Tensor) (in, res *tensor.Tensor) {
	cd := poolComputeDType(out.DType())
	in = contiguousAs(src, cd)
	res = out
	if cd != out.DType() {
		res = tensor.Empty(cd, out.Sizes()...)
	}
	return in, res
}

// poolFinish copies a scratch result into out.
func poolFinish(out, res *tensor.Tensor) {
	if res != out {
		copyInto(out, res)
	}
}

// poolElems returns the n elements of contiguous t, starting at its offset.
func poolElems[T tensor.Elem](t *tensor.Tensor) []T {
	off := t.StorageOffset()
	return data[T](t)[off : off+t.Numel()]
}

// poolParallel runs fn over [0, n) (n planes of cost units of work each)
// in pieces of at least poolGrain units, on up to GOMAXPROCS goroutines
// when the total is large enough to pay for them. A piece's bounds other
// than n are multiples of align. There are up to four pieces a goroutine,
// each taken by whichever goroutine is free, so that a helper that starts
// late still takes its share; the planes are independent, so the results
// do not depend on the split. Work under parallel.SmallPiece grains a
// goroutine goes only to a goroutine that is still spinning
// (parallel.ForSmall), and runs at once on the caller when none is: waking
// a parked one takes 50–150 µs, as long as the whole op
// (adaptive_avg_pool2d of 8×256×14×14 is about 55 µs on one core), and
// the caller then waits for it (bench/README.md, "Two cores no slower than
// one").
func poolParallel(n, cost, align int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	work := n * max(cost, 1)
	if n <= 1 || workers <= 1 || work < 2*poolGrain {
		fn(0, n)
		return
	}
	small := work/workers < parallel.SmallPiece*poolGrain
	if small && !parallel.Spinning() {
		fn(0, n) // no helper to share with
		return
	}
	pieces := min(n, work/poolGrain, 4*workers)
	step := (n + pieces - 1) / pieces
	step = (step + align - 1) / align * align
	pieces = (n + step - 1) / step
	loop := parallel.For
	if small {
		loop = parallel.ForSmall
	}
	loop(pieces, func(c int) { fn(c*step, min(n, (c+1)*step)) })
}

// poolGrain is the least work, in units of poolParallel's cost, of a piece
// run on a goroutine of its own.
const poolGrain = 1 << 15

// avgWindow is one output element's window of an average pool: the clamped
// input range per dim and the divisor.
type avgWindow struct {
	lo, hi [3]int
	div    int
}

// avgSpans holds, per dim and output position, what avgWindowAt needs:
// the clamped input range and the padded window's extent.
type avgSpans [3][]struct{ lo, hi, pool int }

// avgSpansOf computes g's spans once for all the output positions.
func avgSpansOf(g *core.PoolWindow) (sp avgSpans) {
	for d := range 3 {
		sp[d] = make([]struct{ lo, hi, pool int }, g.Out[d])
		for o := range g.Out[d] {
			lo := o*g.Stride[d] - g.Pad[d]
			hi := min(lo+g.Kernel[d], g.In[d]+g.Pad[d])
			sp[d][o].pool = hi - lo
			sp[d][o].lo, sp[d][o].hi = max(lo, 0), min(hi, g.In[d])
		}
	}
	return sp
}

// window returns the window of output position o (D, H, W).
func avgWindowAt(g *core.PoolWindow, sp *avgSpans, o [3]int) (w avgWindow) {
	pool := 1
	count := 1
	for d := 0; d < 3; d++ {
		s := &sp[d][o[d]]
		pool *= s.pool
		w.lo[d], w.hi[d] = s.lo, s.hi
		count *= max(s.hi-s.lo, 0)
	}
	w.div = avgDivisor(g, pool, count)
	return w
}

// avgDivisor is an average pool's divisor for a window of pool positions
// (padding included) of which count are inside the input.
func avgDivisor(g *core.PoolWindow, pool, count int) int {
	div := count
	switch {
	case g.Divisor != 0:
		div = g.Divisor
	case g.CountIncludePad:
		div = pool
	}
	if div == 0 {
		// Only reachable when absurd kernel sizes overflow the product;
		// keep integer kernels from dividing by zero.
		div = math.MaxInt64
	}
	return div
}

func (w *avgWindow) empty() bool {
	return w.lo[0] >= w.hi[0] || w.lo[1] >= w.hi[1] || w.lo[2] >= w.hi[2]
}

// avgPool computes an average pool of contiguous planes src into dst.
func avgPool[T poolNum](dst, src []T, g *core.PoolWindow) {
	in, out := g.In, g.Out
	inPlane, outPlane := in[0]*in[1]*in[2], out[0]*out[1]*out[2]
	sp := avgSpansOf(g)
	if in[0] == 1 && out[0] == 1 && sp[0][0].lo == 0 && sp[0][0].hi == 1 {
		if d, ok := any(dst).([]float32); ok && avgPoolRows(d, any(src).([]float32), g, &sp) {
			return
		}
		avgPool2d(dst, src, g, &sp)
		return
	}
	poolParallel(g.Planes, outPlane*g.Kernel[0]*g.Kernel[1]*g.Kernel[2], 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s := src[p*inPlane : (p+1)*inPlane]
			d := dst[p*outPlane : (p+1)*outPlane]
			k := 0
			for od := 0; od < out[0]; od++ {
				for oh := 0; oh < out[1]; oh++ {
					for ow := 0; ow < out[2]; ow++ {
						w := avgWindowAt(g, &sp, [3]int{od, oh, ow})
						if w.empty() {
							d[k] = 0
							k++
							continue
						}
						var sum T
						for t := w.lo[0]; t < w.hi[0]; t++ {
							for h := w.lo[1]; h < w.hi[1]; h++ {
								row := s[(t*in[1]+h)*in[2]:]
								for x := w.lo[2]; x < w.hi[2]; x++ {
									sum += row[x]
								}
							}
						}
						d[k] = sum / T(w.div)
						k++
					}
				}
			}
		}
	})
}

// avgPool2d is avgPool for planes of one depth: the same windows, sums in
// the same order (row by row, each row left to right) and divisors, with
// the loops over depth and the per-element window setup taken out.
func avgPool2d[T poolNum](dst, src []T, g *core.PoolWindow, sp *avgSpans) {
	H, W := g.In[1], g.In[2]
	OH, OW := g.Out[1], g.Out[2]
	pd := sp[0][0].pool
	poolParallel(g.Planes, OH*OW*g.Kernel[1]*g.Kernel[2], 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s := src[p*H*W : (p+1)*H*W]
			d := dst[p*OH*OW : (p+1)*OH*OW]
			for oh := range OH {
				hs := sp[1][oh]
				dr := d[oh*OW : (oh+1)*OW]
				for ow := range OW {
					ws := sp[2][ow]
					if hs.lo >= hs.hi || ws.lo >= ws.hi {
						dr[ow] = 0
						continue
					}
					var sum T
					for h := hs.lo; h < hs.hi; h++ {
						for _, v := range s[h*W+ws.lo : h*W+ws.hi] {
							sum += v
						}
					}
					dr[ow] = sum / T(avgDivisor(g, pd*hs.pool*ws.pool, (hs.hi-hs.lo)*(ws.hi-ws.lo)))
				}
			}
		}
	})
}

// avgPoolBackward spreads grad (output-shaped planes) back over the windows
// into dst (input-shaped planes, zeroed). rnd, when not nil, rounds every
// intermediate result as a 16-bit float kernel does.
func avgPoolBackward[T poolNum](dst, grad []T, g *core.PoolWindow, rnd func(T) T) {
	in, out := g.In, g.Out
	inPlane, outPlane := in[0]*in[1]*in[2], out[0]*out[1]*out[2]
	sp := avgSpansOf(g)
	if d, ok := any(dst).([]float32); ok && rnd == nil && in[0] == 1 && out[0] == 1 && sp[0][0].lo == 0 && sp[0][0].hi == 1 &&
		avgPoolBackwardRows(d, any(grad).([]float32), g, &sp) {
		return
	}
	poolParallel(g.Planes, outPlane*g.Kernel[0]*g.Kernel[1]*g.Kernel[2], 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			d := dst[p*inPlane : (p+1)*inPlane]
			gr := grad[p*outPlane : (p+1)*outPlane]
			k := 0
			for od := 0; od < out[0]; od++ {
				for oh := 0; oh < out[1]; oh++ {
					for ow := 0; ow < out[2]; ow++ {
						w := avgWindowAt(g, &sp, [3]int{od, oh, ow})
						delta := gr[k] / T(w.div)
						k++
						if rnd != nil {
							delta = rnd(delta)
						}
						for t := w.lo[0]; t < w.hi[0]; t++ {
							for h := w.lo[1]; h < w.hi[1]; h++ {
								row := d[(t*in[1]+h)*in[2]:]
								for x := w.lo[2]; x < w.hi[2]; x++ {
									if rnd != nil {
										row[x] = rnd(row[x] + delta)
									} else {
										row[x] += delta
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

// maxPool computes a max pool of contiguous planes src into dst and the
// flat in-plane index of each maximum into idx. NaN counts as the maximum
// (the last NaN of a window wins); among equal values the first wins.
func maxPool[T poolFloat](dst []T, idx []int64, src []T, g *core.PoolWindow) {
	in, out := g.In, g.Out
	inPlane, outPlane := in[0]*in[1]*in[2], out[0]*out[1]*out[2]
	negInf := T(math.Inf(-1))
	// Each dim's window per output position: from the first tap inside the
	// input to the end of the last one.
	var span [3][][2]int
	for dd := range 3 {
		span[dd] = make([][2]int, out[dd])
		for o := range out[dd] {
			start := o*g.Stride[dd] - g.Pad[dd]
			end := min(start+(g.Kernel[dd]-1)*g.Dilation[dd]+1, in[dd])
			if start < 0 {
				dil := g.Dilation[dd]
				start += (-start + dil - 1) / dil * dil
			}
			span[dd][o] = [2]int{start, end}
		}
	}
	if out[0] == 1 && span[0][0] == [2]int{0, 1} {
		if d, ok := any(dst).([]float32); ok && maxPoolRows(d, idx, any(src).([]float32), g, &span) {
			return
		}
		if g.Kernel[1] == 2 && g.Kernel[2] == 2 && g.Stride[1] == 2 && g.Stride[2] == 2 && g.Pad == [3]int{} &&
			g.Dilation[1] == 1 && g.Dilation[2] == 1 && 2*out[1] <= in[1] && 2*out[2] <= in[2] {
			maxPool2x2(dst, idx, src, g.Planes, in[1], in[2], out[1], out[2])
			return
		}
		maxPool2d(dst, idx, src, g, &span)
		return
	}
	poolParallel(g.Planes, outPlane*g.Kernel[0]*g.Kernel[1]*g.Kernel[2], 1, func(lo, hi int) {
		var wlo, whi [3]int
		for p := lo; p < hi; p++ {
			s := src[p*inPlane : (p+1)*inPlane]
			d := dst[p*outPlane : (p+1)*outPlane]
			ix := idx[p*outPlane : (p+1)*outPlane]
			k := 0
			for od := 0; od < out[0]; od++ {
				for oh := 0; oh < out[1]; oh++ {
					for ow := 0; ow < out[2]; ow++ {
						o := [3]int{od, oh, ow}
						for dd := range 3 {
							wlo[dd], whi[dd] = span[dd][o[dd]][0], span[dd][o[dd]][1]
						}
						best := int64((wlo[0]*in[1]+wlo[1])*in[2] + wlo[2])
						bv := negInf
						for t := wlo[0]; t < whi[0]; t += g.Dilation[0] {
							for h := wlo[1]; h < whi[1]; h += g.Dilation[1] {
								base := (t*in[1] + h) * in[2]
								for x := wlo[2]; x < whi[2]; x += g.Dilation[2] {
									v := s[base+x]
									if v > bv || v != v {
										bv, best = v, int64(base+x)
									}
								}
							}
						}
						d[k], ix[k] = bv, best
						k++
					}
				}
			}
		}
	})
}

// maxPool2d is maxPool for planes of one depth (one depth tap at 0): the
// same windows, scan order and comparisons, with the depth loop and the
// per-element window setup taken out.
func maxPool2d[T poolFloat](dst []T, idx []int64, src []T, g *core.PoolWindow, span *[3][][2]int) {
	inPlane, W := g.In[0]*g.In[1]*g.In[2], g.In[2]
	OH, OW := g.Out[1], g.Out[2]
	dh, dw := g.Dilation[1], g.Dilation[2]
	negInf := T(math.Inf(-1))
	poolParallel(g.Planes, OH*OW*g.Kernel[1]*g.Kernel[2], 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s := src[p*inPlane : (p+1)*inPlane]
			d := dst[p*OH*OW : (p+1)*OH*OW]
			ix := idx[p*OH*OW : (p+1)*OH*OW]
			for oh := range OH {
				hs := span[1][oh]
				for ow := range OW {
					ws := span[2][ow]
					best := int64(hs[0]*W + ws[0])
					bv := negInf
					for h := hs[0]; h < hs[1]; h += dh {
						base := h * W
						for x := ws[0]; x < ws[1]; x += dw {
							v := s[base+x]
							if v > bv || v != v {
								bv, best = v, int64(base+x)
							}
						}
					}
					d[oh*OW+ow], ix[oh*OW+ow] = bv, best
				}
			}
		}
	})
}

// poolPhases lays a float32 plane out for the row kernels of maxPoolRows
// and avgPoolRows: padded on every side with a value no tap changes the
// result by (−Inf for a max, +0 for a sum) as far as the windows reach,
// and each padded row dealt into the column stride's phases (padded
// column c is element c/s of phase c mod s), so that one tap's candidates
// for every output are rows of one phase, a row stride apart.
type poolPhases struct {
	H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw int
	PR, PC, L                                    int // padded rows and columns the windows read; a phase's length
}

func newPoolPhases(g *core.PoolWindow) *poolPhases {
	q := &poolPhases{H: g.In[1], W: g.In[2], OH: g.Out[1], OW: g.Out[2], kh: g.Kernel[1], kw: g.Kernel[2],
		sh: g.Stride[1], sw: g.Stride[2], ph: g.Pad[1], pw: g.Pad[2], dh: max(g.Dilation[1], 1), dw: max(g.Dilation[2], 1)}
	q.PR, q.PC = (q.OH-1)*q.sh+(q.kh-1)*q.dh+1, (q.OW-1)*q.sw+(q.kw-1)*q.dw+1
	q.L = (q.PC + q.sw - 1) / q.sw
	return q
}

// fits reports whether the row kernels pay (output rows of a vector of
// eight or more) and the plane's indices fit their int32.
func (q *poolPhases) fits() bool {
	return q.OW >= 8 && q.OH > 0 && q.H > 0 && int64(q.H+q.PR)*int64(q.W+q.PC) < math.MaxInt32/2 && int64(q.sh)*int64(q.W) < math.MaxInt32/2
}

// buffer returns a goroutine's layout, padded with pad.
func (q *poolPhases) buffer(pad float32) []float32 {
	b := make([]float32, q.sw*q.PR*q.L) // phase k, padded row r at (k·PR + r)·L
	if pad != 0 {
		asm.Fill(b, pad)
	}
	return b
}

// load writes plane s into b's inside; the padding stays as it was.
func (q *poolPhases) load(b, s []float32) {
	rows := max(0, min(q.H, q.PR-q.ph)) // the input rows a window reads
	cw := max(0, min(q.W, q.PC-q.pw))   // and columns
	PR, L, sw, pw := q.PR, q.L, q.sw, q.pw
	for h := range rows {
		row, r := s[h*q.W:][:cw], h+q.ph
		switch sw {
		case 1:
			copy(b[r*L+pw:], row)
		case 2:
			// Column c = 2i + k is padded column c + pw: phase
			// (k + pw) mod 2, element i + (k + pw)/2.
			asm.DealF32(b[((pw%2)*PR+r)*L+pw/2:][:(cw+1)/2], b[(((1+pw)%2)*PR+r)*L+(1+pw)/2:][:cw/2], row)
		default:
			for c, v := range row {
				pc := c + pw
				b[((pc%sw)*PR+r)*L+pc/sw] = v
			}
		}
	}
}

// store is load's inverse: plane s from b's inside. Input elements no
// window reads are +0 (an average pool's gradient there).
func (q *poolPhases) store(s, b []float32) {
	rows := max(0, min(q.H, q.PR-q.ph))
	cw := max(0, min(q.W, q.PC-q.pw))
	PR, L, sw, pw := q.PR, q.L, q.sw, q.pw
	for h := range q.H {
		row, r := s[h*q.W:][:q.W], h+q.ph
		if h >= rows {
			clear(row)
			continue
		}
		clear(row[cw:])
		switch sw {
		case 1:
			copy(row[:cw], b[r*L+pw:])
		case 2:
			asm.MergeF32(row[:cw], b[((pw%2)*PR+r)*L+pw/2:][:(cw+1)/2], b[(((1+pw)%2)*PR+r)*L+(1+pw)/2:][:cw/2])
		default:
			for c := range row[:cw] {
				pc := c + pw
				row[c] = b[((pc%sw)*PR+r)*L+pc/sw]
			}
		}
	}
}

// tap returns the rows of b holding tap (ky, kx)'s candidates, OW of them
// a row sh·L apart, and the input index of the first one.
func (q *poolPhases) tap(b []float32, ky, kx int) ([]float32, int32) {
	ry, cx := ky*q.dh, kx*q.dw
	return b[((cx%q.sw)*q.PR+ry)*q.L+cx/q.sw:], int32((ry-q.ph)*q.W + cx - q.pw)
}

// maxPoolRows is maxPool2d for float32 by asm.MaxIndexRowsF32: each tap of
// the window is folded into the whole output plane at once (poolPhases,
// padded with −Inf, which no tap takes). The taps go in maxPool2d's order
// and each output starts at its window's first tap inside the input, so
// the maxima and indices are maxPool2d's. It reports false, doing nothing,
// where poolPhases does not fit.
func maxPoolRows(dst []float32, idx []int64, src []float32, g *core.PoolWindow, span *[3][][2]int) bool {
	q := newPoolPhases(g)
	if !q.fits() {
		return false
	}
	// Each output's index starts at its window's first tap in the input.
	first := make([]int32, q.OH*q.OW)
	for oh := range q.OH {
		for ow := range q.OW {
			first[oh*q.OW+ow] = int32(span[1][oh][0]*q.W + span[2][ow][0])
		}
	}
	negInf := float32(math.Inf(-1))
	plane, outPlane := q.H*q.W, q.OH*q.OW
	poolParallel(g.Planes, outPlane*q.kh*q.kw, 1, func(lo, hi int) {
		b := q.buffer(negInf)
		mi := make([]int32, outPlane)
		for p := lo; p < hi; p++ {
			q.load(b, src[p*plane:(p+1)*plane])
			m := dst[p*outPlane : (p+1)*outPlane]
			asm.Fill(m, negInf)
			copy(mi, first)
			for ky := range q.kh {
				for kx := range q.kw {
					v, i0 := q.tap(b, ky, kx)
					asm.MaxIndexRowsF32(m, mi, q.OW, v, q.sh*q.L, q.OH, q.OW, i0, int32(q.sw), int32(q.sh*q.W))
				}
			}
			ix := idx[p*outPlane : (p+1)*outPlane]
			for i, v := range mi {
				ix[i] = int64(v)
			}
		}
	})
	return true
}

// avgPoolRows is avgPool2d for float32 by asm.AddRowsF32: each tap of the
// window is added into the whole output plane at once (poolPhases, padded
// with +0), then each sum divided by its divisor. Every output adds its
// window's values inside the input in avgPool2d's order, from +0, with +0
// for the taps outside, which changes no sum that starts at +0 (it can never
// be −0): the same bits. It reports false, doing nothing, where poolPhases
// does not fit.
func avgPoolRows(dst, src []float32, g *core.PoolWindow, sp *avgSpans) bool {
	q := newPoolPhases(g)
	if !q.fits() {
		return false
	}
	div := q.avgDivisors(g, sp)
	plane, outPlane := q.H*q.W, q.OH*q.OW
	poolParallel(g.Planes, outPlane*q.kh*q.kw, 1, func(lo, hi int) {
		b := q.buffer(0)
		for p := lo; p < hi; p++ {
			q.load(b, src[p*plane:(p+1)*plane])
			m := dst[p*outPlane : (p+1)*outPlane]
			clear(m)
			for ky := range q.kh {
				for kx := range q.kw {
					v, _ := q.tap(b, ky, kx)
					asm.AddRowsF32(m, q.OW, v, q.sh*q.L, q.OH, q.OW)
				}
			}
			asm.DivF32(m, m, div)
		}
	})
	return true
}

// avgDivisors is each output's divisor (avgDivisor) as a plane, 1 for an
// empty window: its sum, +0, stays +0, and its share in the backward lands
// in the padding.
func (q *poolPhases) avgDivisors(g *core.PoolWindow, sp *avgSpans) []float32 {
	pd := sp[0][0].pool
	div := make([]float32, q.OH*q.OW)
	for oh := range q.OH {
		hs := sp[1][oh]
		for ow := range q.OW {
			ws := sp[2][ow]
			d := float32(1)
			if hs.lo < hs.hi && ws.lo < ws.hi {
				d = float32(avgDivisor(g, pd*hs.pool*ws.pool, (hs.hi-hs.lo)*(ws.hi-ws.lo)))
			}
			div[oh*q.OW+ow] = d
		}
	}
	return div
}

// avgPoolBackwardRows is avgPoolBackward for float32 planes of one depth by
// asm.AddRowsF32: each output's share (its gradient over its divisor) is
// added into a poolPhases layout of the input plane, padded (what lands
// in the padding is dropped), a tap of the window at a time over the whole
// plane, then the plane is copied out of the layout. An input element
// receives its shares in avgPoolBackward's order — by output row, then
// column — when the taps go from the last to the first (a later tap
// reaches an input from an earlier output), from +0: the same bits. It
// reports false, doing nothing, where poolPhases does not fit.
func avgPoolBackwardRows(dst, grad []float32, g *core.PoolWindow, sp *avgSpans) bool {
	q := newPoolPhases(g)
	if !q.fits() {
		return false
	}
	div := q.avgDivisors(g, sp)
	plane, outPlane := q.H*q.W, q.OH*q.OW
	poolParallel(g.Planes, outPlane*q.kh*q.kw, 1, func(lo, hi int) {
		b := q.buffer(0)
		share := make([]float32, outPlane)
		for p := lo; p < hi; p++ {
			asm.DivF32(share, grad[p*outPlane:(p+1)*outPlane], div)
			clear(b)
			for ky := q.kh - 1; ky >= 0; ky-- {
				for kx := q.kw - 1; kx >= 0; kx-- {
					v, _ := q.tap(b, ky, kx)
					asm.AddRowsF32(v, q.sh*q.L, share, q.OW, q.OH, q.OW)
				}
			}
			q.store(dst[p*plane:(p+1)*plane], b)
		}
	})
	return true
}

// maxPool2x2 is maxPool2d for the commonest window: 2×2, stride 2, no
// padding or dilation, every window inside the planes of H×W (2·OH ≤ H,
// 2·OW ≤ W), each window's four taps compared in order without loops.
func maxPool2x2[T poolFloat](dst []T, idx []int64, src []T, planes, H, W, OH, OW int) {
	poolParallel(planes, OH*OW*4, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s := src[p*H*W : (p+1)*H*W]
			for oh := range OH {
				i0 := 2 * oh * W
				r0, r1 := s[i0:i0+W], s[i0+W:i0+2*W]
				d := dst[(p*OH+oh)*OW:][:OW]
				ix := idx[(p*OH+oh)*OW:][:OW]
				for ow := range d {
					x := 2 * ow
					// The first tap wins over the initial −Inf unless it is
					// −Inf itself, when the index is the first tap's anyway.
					bv, bi := r0[x], x
					if v := r0[x+1]; v > bv || v != v {
						bv, bi = v, x+1
					}
					if v := r1[x]; v > bv || v != v {
						bv, bi = v, W+x
					}
					if v := r1[x+1]; v > bv || v != v {
						bv, bi = v, W+x+1
					}
					d[ow], ix[ow] = bv, int64(i0+bi)
				}
			}
		}
	})
}

// adaptiveAvgPool averages each output's adaptive window. rnd, when not nil,
// rounds each step as PyTorch's float16 arithmetic does.
func adaptiveAvgPool[T poolFloat](dst, src []T, g *core.PoolWindow, rnd func(T) T) {
	in, out := g.In, g.Out
	inPlane, outPlane := in[0]*in[1]*in[2], out[0]*out[1]*out[2]
	cost := outPlane * max(inPlane/max(outPlane, 1), 1)
	// Pieces of whole groups of eight planes for globalAvgPool8.
	poolParallel(g.Planes, cost, 8, func(lo, hi int) {
		if outPlane == 1 && rnd == nil {
			lo = globalAvgPool8(dst, src, lo, hi, inPlane, T(in[0]), T(in[1]), T(in[2]))
		}
		for p := lo; p < hi; p++ {
			s := src[p*inPlane : (p+1)*inPlane]
			d := dst[p*outPlane : (p+1)*outPlane]
			k := 0
			for od := 0; od < out[0]; od++ {
				t0, t1 := core.AdaptiveStart(od, out[0], in[0]), core.AdaptiveEnd(od, out[0], in[0])
				for oh := 0; oh < out[1]; oh++ {
					h0, h1 := core.AdaptiveStart(oh, out[1], in[1]), core.AdaptiveEnd(oh, out[1], in[1])
					for ow := 0; ow < out[2]; ow++ {
						w0, w1 := core.AdaptiveStart(ow, out[2], in[2]), core.AdaptiveEnd(ow, out[2], in[2])
						var sum T
						for t := t0; t < t1; t++ {
							for h := h0; h < h1; h++ {
								row := s[(t*in[1]+h)*in[2]:]
								for x := w0; x < w1; x++ {
									if rnd != nil {
										sum = rnd(sum + row[x])
									} else {
										sum += row[x]
									}
								}
							}
						}
						if rnd != nil {
							d[k] = rnd(rnd(rnd(sum/T(t1-t0))/T(h1-h0)) / T(w1-w0))
						} else {
							d[k] = sum / T(t1-t0) / T(h1-h0) / T(w1-w0)
						}
						k++
					}
				}
			}
		}
	})
}

// globalAvgPool8 is adaptiveAvgPool of an output plane of one element
// (without rnd) for the planes lo, lo+1, ... eight at a time: each plane's
// sum adds its elements in order, as the loop above, but eight sums advance
// together, so that the additions of one do not wait for the last of
// another. It returns the first plane it left (fewer than eight remain).
func globalAvgPool8[T poolFloat](dst, src []T, lo, hi, n int, d0, d1, d2 T) int {
	for ; lo+8 <= hi; lo += 8 {
		s := src[lo*n : (lo+8)*n]
		p0, p1, p2, p3 := s[:n], s[n:2*n], s[2*n:3*n], s[3*n:4*n]
		p4, p5, p6, p7 := s[4*n:5*n], s[5*n:6*n], s[6*n:7*n], s[7*n:8*n]
		var s0, s1, s2, s3, s4, s5, s6, s7 T
		for i := range p0 {
			s0 += p0[i]
			s1 += p1[i]
			s2 += p2[i]
			s3 += p3[i]
			s4 += p4[i]
			s5 += p5[i]
			s6 += p6[i]
			s7 += p7[i]
		}
		d := dst[lo : lo+8]
		d[0], d[1], d[2], d[3] = s0/d0/d1/d2, s1/d0/d1/d2, s2/d0/d1/d2, s3/d0/d1/d2
		d[4], d[5], d[6], d[7] = s4/d0/d1/d2, s5/d0/d1/d2, s6/d0/d1/d2, s7/d0/d1/d2
	}
	return lo
}

// adaptiveAvgPoolBackward spreads grad over the adaptive windows into dst (zeroed).
func adaptiveAvgPoolBackward[T poolFloat](dst, grad []T, g *core.PoolWindow, rnd func(T) T) {
	in, out := g.In, g.Out
	inPlane, outPlane := in[0]*in[1]*in[2], out[0]*out[1]*out[2]
	cost := outPlane * max(inPlane/max(outPlane, 1), 1)
	poolParallel(g.Planes, cost, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			d := dst[p*inPlane : (p+1)*inPlane]
			gr := grad[p*outPlane : (p+1)*outPlane]
			k := 0
			for oh := 0; oh < out[1]; oh++ {
				h0, h1 := core.AdaptiveStart(oh, out[1], in[1]), core.AdaptiveEnd(oh, out[1], in[1])
				for ow := 0; ow < out[2]; ow++ {
					w0, w1 := core.AdaptiveStart(ow, out[2], in[2]), core.AdaptiveEnd(ow, out[2], in[2])
					var delta T
					if rnd != nil {
						delta = rnd(rnd(gr[k]/T(h1-h0)) / T(w1-w0))
					} else {
						delta = gr[k] / T(h1-h0) / T(w1-w0)
					}
					k++
					for h := h0; h < h1; h++ {
						row := d[h*in[2]:]
						for x := w0; x < w1; x++ {
							if rnd != nil {
								row[x] = rnd(row[x] + delta)
							} else {
								row[x] += delta
							}
						}
					}
				}
			}
		}
	})
}

// avgPoolKernel is avg_pool1d, avg_pool2d and avg_pool3d.
func avgPoolKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	x := args.Self(a)
	if out.Numel() == 0 {
		return out
	}
	g := core.PoolGeometry(op, a)
	in, res := poolBuffers(out, x)
	switch res.DType() {
	case tensor.Float32:
		avgPool(poolElems[float32](res), poolElems[float32](in), &g)
	case tensor.Float64:
		avgPool(poolElems[float64](res), poolElems[float64](in), &g)
	case tensor.Int64:
		avgPool(poolElems[int64](res), poolElems[int64](in), &g)
	}
	poolFinish(out, res)
	return out
}

func avgPool2dBackwardKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	if out.Numel() == 0 {
		return out
	}
	g := core.PoolGeometry(op, a)
	grad := args.AvgPool2dBackwardOf(a).GradOutput
	gr, res := poolBuffers(out, grad)
	rnd := poolRound(out.DType())
	switch res.DType() {
	case tensor.Float32:
		avgPoolBackward(poolElems[float32](res), poolElems[float32](gr), &g, rnd)
	case tensor.Float64:
		avgPoolBackward(poolElems[float64](res), poolElems[float64](gr), &g, nil)
	case tensor.Int64:
		avgPoolBackward(poolElems[int64](res), poolElems[int64](gr), &g, nil)
	}
	poolFinish(out, res)
	return out
}

// maxPoolKernel is max_pool2d_with_indices and max_pool3d_with_indices.
func maxPoolKernel(op *tensor.Op, a []any) any {
	outs := metaN(op, a)
	// Every output and index is written (maxPool and its 2-d kernels).
	out, idx := allocUninit(outs[0]), allocUninit(outs[1])
	if out.Numel() == 0 {
		return []*tensor.Tensor{out, idx}
	}
	g := core.PoolGeometry(op, a)
	in, res := poolBuffers(out, args.Self(a))
	ix := poolElems[int64](idx)
	switch res.DType() {
	case tensor.Float32:
		maxPool(poolElems[float32](res), ix, poolElems[float32](in), &g)
	case tensor.Float64:
		maxPool(poolElems[float64](res), ix, poolElems[float64](in), &g)
	}
	poolFinish(out, res)
	return []*tensor.Tensor{out, idx}
}

func maxPool2dBackwardKernel(op *tensor.Op, a []any) any {
	// Every element is written: maxPoolBackward zeroes each plane first.
	out := allocMetaUninit(op, a)
	if out.Numel() == 0 {
		return out
	}
	g := core.PoolGeometry(op, a)
	p := args.MaxPool2dWithIndicesBackwardOf(a)
	grad, indices := p.GradOutput, contiguous(p.Indices)
	inPlane, outPlane := g.In[1]*g.In[2], g.Out[1]*g.Out[2]
	ix := poolElems[int64](indices)
	gr, res := poolBuffers(out, grad)
	rnd := poolRound(out.DType())
	bad := int64(-1)
	switch res.DType() {
	case tensor.Float32:
		bad = maxPoolBackward(poolElems[float32](res), poolElems[float32](gr), ix, g.Planes, inPlane, outPlane, rnd)
	case tensor.Float64:
		bad = maxPoolBackward(poolElems[float64](res), poolElems[float64](gr), ix, g.Planes, inPlane, outPlane, nil)
	}
	if bad >= 0 {
		tensor.IndexPanicf("max_pool2d_with_indices_backward(): index %d is out of bounds for an input plane of %d elements", ix[bad], inPlane)
	}
	poolFinish(out, res)
	return out
}

// maxPoolBackward zeroes each input plane of dst, then adds each gradient
// to the input element its index names (-1: none). It returns the position
// of the first index out of its plane (its gradient is not added), or -1.
func maxPoolBackward[T poolFloat](dst, grad []T, idx []int64, planes, inPlane, outPlane int, rnd func(T) T) int64 {
	var bad atomic.Int64
	bad.Store(math.MaxInt64)
	poolParallel(planes, outPlane+inPlane/4, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			d := dst[p*inPlane : (p+1)*inPlane]
			clear(d)
			base := p * outPlane
			for k, i := range idx[base : base+outPlane] {
				if uint64(i) >= uint64(inPlane) {
					if i != -1 {
						for at := int64(base + k); ; {
							old := bad.Load()
							if at >= old || bad.CompareAndSwap(old, at) {
								break
							}
						}
					}
					continue
				}
				if rnd != nil {
					d[i] = rnd(d[i] + grad[base+k])
				} else {
					d[i] += grad[base+k]
				}
			}
		}
	})
	if b := bad.Load(); b != math.MaxInt64 {
		return b
	}
	return -1
}

// adaptivePoolKernel is adaptive_avg_pool1d, _adaptive_avg_pool2d and
// _adaptive_avg_pool3d.
func adaptivePoolKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	if out.Numel() == 0 {
		return out
	}
	g := core.PoolGeometry(op, a)
	in, res := poolBuffers(out, args.Self(a))
	var rnd func(float32) float32
	if op.Schema.Name == "_adaptive_avg_pool3d" {
		rnd = poolRound(out.DType()) // the 3-d kernel accumulates float16 in float16
	}
	switch res.DType() {
	case tensor.Float32:
		adaptiveAvgPool(poolElems[float32](res), poolElems[float32](in), &g, rnd)
	case tensor.Float64:
		adaptiveAvgPool(poolElems[float64](res), poolElems[float64](in), &g, nil)
	}
	poolFinish(out, res)
	return out
}

func adaptivePool2dBackwardKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	if out.Numel() == 0 {
		return out
	}
	g := core.PoolGeometry(op, a)
	grad := args.InternalAdaptiveAvgPool2dBackwardOf(a).GradOutput
	if grad.Numel() == 0 {
		return out
	}
	gr, res := poolBuffers(out, grad)
	rnd := poolRound(out.DType())
	switch res.DType() {
	case tensor.Float32:
		adaptiveAvgPoolBackward(poolElems[float32](res), poolElems[float32](gr), &g, rnd)
	case tensor.Float64:
		adaptiveAvgPoolBackward(poolElems[float64](res), poolElems[float64](gr), &g, nil)
	}
	poolFinish(out, res)
	return out
}

func init() {
	impls(avgPoolKernel, "aten::avg_pool1d.default", "aten::avg_pool2d.default", "aten::avg_pool3d.default")
	impl("aten::avg_pool2d_backward.default", avgPool2dBackwardKernel)
	impls(maxPoolKernel, "aten::max_pool2d_with_indices.default", "aten::max_pool3d_with_indices.default")
	impl("aten::max_pool2d_with_indices_backward.default", maxPool2dBackwardKernel)
	impls(adaptivePoolKernel, "aten::adaptive_avg_pool1d.default", "aten::_adaptive_avg_pool2d.default",
		"aten::_adaptive_avg_pool3d.default")
	impl("aten::_adaptive_avg_pool2d_backward.default", adaptivePool2dBackwardKernel)
}
