package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Depthwise 2-d convolutions (one input and one output channel per group)
// of float32, read in place by the asm.DWPlan kernels: no padded copies.
// Each kernel call runs the N planes of one channel, which share its
// weights; channels are shared among the cores. A column stride s > 1 is
// run on rows dealt into s phases (a copy of the channel's planes), the
// input gradient of a strided convolution phase by phase of the result;
// but the gradients of a 3×3 convolution of stride 2 and padding 1 on
// even planes (dwS2, MobileNet's downsampling) read the planes in place
// in one pass where asm has vector kernels for them.

// dwMaxDim bounds the sizes, paddings and dilated kernels the in-place
// path takes (offsets in bytes then stay far from overflowing).
const dwMaxDim = 1 << 20

// depthwise2d reports whether p is a 2-d convolution with one input and
// one output channel per group (a depthwise convolution) of sizes the
// in-place kernels take.
func depthwise2d(p *core.ConvParams) bool {
	if p.Transposed || p.Dim != 2 || p.Groups != p.InC || p.OutC != p.InC || p.N*p.InC == 0 || prod(p.Out) == 0 {
		return false
	}
	for i := range 2 {
		if p.In[i] > dwMaxDim || p.Out[i] > dwMaxDim || p.Padding[i] > dwMaxDim || p.Stride[i] > dwMaxDim ||
			p.Dilation[i]*(p.Kernel[i]-1) > dwMaxDim {
			return false
		}
	}
	return true
}

// dwSide is the geometry of one spatial dim of a depthwise convolution:
// input size n, output size out, kernel k dilated by d, stride s, padding p.
type dwSide struct{ n, out, k, s, p, d int }

func dwSides(p *core.ConvParams) (rows, cols dwSide) {
	side := func(i int) dwSide {
		return dwSide{p.In[i], p.Out[i], p.Kernel[i], p.Stride[i], p.Padding[i], p.Dilation[i]}
	}
	return side(0), side(1)
}

// phases returns the length of each of the s phases a row of n elements
// is dealt into (phase q holds elements q, q+s, …) and where each starts.
func phases(n, s int) (length, start []int) {
	length, start = make([]int, s), make([]int, s)
	at := 0
	for q := range s {
		length[q] = max(0, (n-q+s-1)/s)
		start[q] = at
		at += length[q]
	}
	return length, start
}

// planePhases reports whether the columns of planes of this dim's size are
// dealt plane by plane (stride 2, an even number of columns: the even
// columns of every row, then the odd ones, as two planes of half the
// width), not row by row (each row its even columns, then its odd ones).
func (g dwSide) planePhases() bool { return g.s == 2 && g.n%2 == 0 }

// forward returns, for the kernel taps 0 … k−1 along the columns of planes
// of rows rows, the offset into the (dealt) input row of the element output
// 0 reads, and the range of outputs that read the image: input index
// o·s + t·d − p, in phase (t·d − p) mod s when s > 1; and the length of the
// rows the offsets count in.
func (g dwSide) forward(rows int) (off, lo, hi []int, ldx int) {
	_, start := phases(g.n, g.s)
	ldx = g.n
	if g.planePhases() {
		ldx = g.n / 2
		start[1] = rows * ldx
	}
	for t := range g.k {
		e := t*g.d - g.p
		a, b := validRange(g.out, g.s, e, g.n)
		q := ((e % g.s) + g.s) % g.s
		off, lo, hi = append(off, start[q]+(e-q)/g.s), append(lo, a), append(hi, b)
	}
	return off, lo, hi, ldx
}

// dwDeal deals the columns of n planes of rows rows of w elements (x,
// planes xPlane apart) into s phases each, into dst (planes of rows·w),
// as dwSide.planePhases says.
func dwDeal(dst, x []float32, n, xPlane, rows, w, s int) {
	_, start := phases(w, s)
	plane := rows * w
	for i := range n {
		src, d := x[i*xPlane:][:plane], dst[i*plane:][:plane]
		if (dwSide{n: w, s: s}).planePhases() {
			asm.DealF32(d[:plane/2], d[plane/2:], src)
			continue
		}
		for r := range rows {
			row, out := src[r*w:][:w], d[r*w:][:w]
			for q := range s {
				o := out[start[q]:]
				for j, k := 0, q; k < w; j, k = j+1, k+s {
					o[j] = row[k]
				}
			}
		}
	}
}

// dwForwardPlan is the plan of the forward convolution (rows along dim 0,
// columns along dim 1; the columns dealt into phases when strided).
func dwForwardPlan(rows, cols dwSide) *asm.DWPlan {
	rowOff := make([]int, rows.k)
	for t := range rowOff {
		rowOff[t] = t*rows.d - rows.p
	}
	colOff, lo, hi, ldx := cols.forward(rows.n)
	return asm.NewDWPlan(rows.n, rows.out, cols.out, rows.s, ldx, rows.n*cols.n, rowOff, colOff, lo, hi)
}

// convDepthwise sets y (N×C planes of OH×OW) to the depthwise convolution
// of x (N×C planes of H×W) by w (C kernels of kH·kW) plus bias (nil: none).
func convDepthwise(p *core.ConvParams, x, w, bias, y []float32) {
	rows, cols := dwSides(p)
	plan := dwForwardPlan(rows, cols)
	N, C := p.N, p.InC
	inLen, outLen, kLen := rows.n*cols.n, rows.out*cols.out, rows.k*cols.k
	parallel.Range(C, max(1, grain/(N*outLen*kLen)), 1, func(lo, hi int) {
		var dealt []float32
		if cols.s > 1 {
			dealt = make([]float32, N*inLen)
		}
		for c := lo; c < hi; c++ {
			init := float32(0)
			if bias != nil {
				init = bias[c]
			}
			src, stride := x[c*inLen:], C*inLen
			if cols.s > 1 {
				dwDeal(dealt, src, N, stride, rows.n, cols.n, cols.s)
				src, stride = dealt, inLen
			}
			asm.DepthwiseConvF32(plan, y[c*outLen:], C*outLen, src, stride, N, w[c*kLen:(c+1)*kLen], init)
		}
	})
}

// convDepthwiseBackward computes the gradients of a float32 depthwise
// convolution (gi, gw, gb: those asked for, else nil), channel by channel,
// so that a channel's output gradient is read from memory once: the weight
// gradient, the bias gradient (each plane summed in float64 by the SIMD
// sum, planes in order, as biasGrad sums them) and the input gradient.
func convDepthwiseBackward(p *core.ConvParams, gout, input, weight, gi, gw, gb *tensor.Tensor) {
	gy := asCompute[float32](gout, tensor.Float32)
	var x, w, dx, dw []float32
	var bufX, bufW *tensor.Tensor
	if gw != nil {
		x = asCompute[float32](input, tensor.Float32)
		bufW, dw = resultBuf[float32](gw, tensor.Float32)
	}
	if gi != nil {
		w = asCompute[float32](weight, tensor.Float32)
		bufX, dx = resultBuf[float32](gi, tensor.Float32)
	}
	var db []float64
	if gb != nil {
		db = make([]float64, p.OutC)
	}
	rows, cols := dwSides(p)
	plan := dwForwardPlan(rows, cols)
	var adj []dwPhase
	if gi != nil && !(dwS2(rows, cols) && asm.DepthwiseS2Vector()) {
		adj = dwInputGradPhases(rows, cols)
	}
	N, C := p.N, p.InC
	inLen, outLen, kLen := rows.n*cols.n, rows.out*cols.out, rows.k*cols.k
	parallel.Range(C, max(1, grain/(2*N*outLen*kLen)), 1, func(lo, hi int) {
		var s dwScratch
		for c := lo; c < hi; c++ {
			if dw != nil {
				s.weightGrad(plan, rows, cols, x[c*inLen:], C*inLen, gy[c*outLen:], C*outLen, N, dw[c*kLen:(c+1)*kLen])
			}
			if db != nil {
				for n := range N {
					db[c] += asm.SumF32(gy[(n*C+c)*outLen:][:outLen])
				}
			}
			if dx != nil {
				s.inputGrad(adj, rows, cols, gy[c*outLen:], C*outLen, N, w[c*kLen:(c+1)*kLen], dx[c*inLen:], C*inLen)
			}
		}
	})
	if gw != nil {
		finish(gw, bufW)
	}
	if gi != nil {
		finish(gi, bufX)
	}
	if gb != nil {
		storeF64(gb.Storage(), gb.DType(), 0, 1, db)
	}
}

// dwScratch holds a goroutine's scratch buffers for the depthwise
// gradients, made on first use.
type dwScratch struct {
	acc, dealt, phase, wt []float32
}

// weightGrad sets gw (one channel's kH·kW taps) to the weight gradient of
// the channel whose N input planes are x (xPlane apart) and output
// gradient planes gy (gPlane apart): asm.DepthwiseGradF32's partial sums
// (asm.DepthwiseGradS2F32's for a 3×3 kernel of stride 2, dwS2, where a
// vector kernel runs it) added in float64. When they are not all finite the channel is summed
// again exactly (DepthwiseGradExactF32), so that an infinity or a NaN meets
// only the gradients it is paired with, never a zero of the padding
// (0·Inf).
func (s *dwScratch) weightGrad(plan *asm.DWPlan, rows, cols dwSide, x []float32, xPlane int, gy []float32, gPlane, N int, gw []float32) {
	if s.acc == nil {
		s.acc = make([]float32, plan.DWGradLen())
	}
	lanes := asm.DWLanes()
	sum := func() bool {
		finite := true
		for kh := range rows.k {
			for kw := range cols.k {
				v := asm.SumF32(s.acc[plan.DWGradAt(kh, kw):][:lanes])
				gw[kh*cols.k+kw] = float32(v)
				finite = finite && !math.IsInf(v, 0) && v == v
			}
		}
		return finite
	}
	if dwS2(rows, cols) && asm.DepthwiseS2Vector() {
		// Read in place (no dealt planes), only the pairs inside the
		// image: nothing to sum again.
		asm.DepthwiseGradS2F32(gy, gPlane, x, xPlane, N, rows.out, cols.out, s.acc)
		sum()
		return
	}
	if cols.s > 1 {
		if s.dealt == nil {
			s.dealt = make([]float32, N*rows.n*cols.n)
		}
		dwDeal(s.dealt, x, N, xPlane, rows.n, cols.n, cols.s)
		x, xPlane = s.dealt, rows.n*cols.n
	}
	asm.DepthwiseGradF32(plan, gy, gPlane, x, xPlane, N, s.acc)
	if !sum() {
		asm.DepthwiseGradExactF32(plan, gy, gPlane, x, xPlane, N, s.acc)
		sum()
	}
}

// dwPhase is one phase of the input gradient of a depthwise convolution:
// the result's rows a, a+sh, … and columns b, b+sw, … (n×m of them), the
// plan of the correlation of gy that gives them and the kernel index of
// each of its taps.
type dwPhase struct {
	a, b, n, m int
	plan       *asm.DWPlan
	taps       []int
}

// dwInputGradPhases lists the phases of the input gradient: for each, the
// taps that reach it, flipped (the last kernel row and column first). With
// stride 1 there is one phase, the whole result.
func dwInputGradPhases(rows, cols dwSide) []dwPhase {
	var ph []dwPhase
	rowLen, _ := phases(rows.n, rows.s)
	colLen, _ := phases(cols.n, cols.s)
	// adjoint lists, for result index a + s·i along a dim, the kernel taps
	// that reach it (last first) and the output index i + off they read.
	adjoint := func(g dwSide, a int) (taps, off []int) {
		for t := g.k - 1; t >= 0; t-- {
			if e := a + g.p - t*g.d; e%g.s == 0 {
				taps, off = append(taps, t), append(off, e/g.s)
			}
		}
		return taps, off
	}
	for a := range rows.s {
		for b := range cols.s {
			n, m := rowLen[a], colLen[b]
			if n == 0 || m == 0 {
				continue
			}
			rt, ro := adjoint(rows, a)
			ct, co := adjoint(cols, b)
			lo, hi := make([]int, len(co)), make([]int, len(co))
			for i, o := range co {
				lo[i], hi[i] = validRange(m, 1, o, cols.out)
			}
			var taps []int
			for _, r := range rt {
				for _, c := range ct {
					taps = append(taps, r*cols.k+c)
				}
			}
			ph = append(ph, dwPhase{a, b, n, m, asm.NewDWPlan(rows.out, n, m, 1, cols.out, rows.out*cols.out, ro, co, lo, hi), taps})
		}
	}
	return ph
}

// inputGrad sets the N planes of gx (gxPlane apart) to the input gradient
// of the channel whose kernel is w and output gradient planes gy (gPlane
// apart): in place when there is one phase (stride 1), in one pass for a
// 3×3 kernel of stride 2 (dwS2) where a vector kernel runs it, else phase
// by phase (inputGradPhases).
func (s *dwScratch) inputGrad(ph []dwPhase, rows, cols dwSide, gy []float32, gPlane, N int, w, gx []float32, gxPlane int) {
	if rows.s == 1 && cols.s == 1 {
		f := ph[0]
		s.wt = s.wt[:0]
		for _, t := range f.taps {
			s.wt = append(s.wt, w[t])
		}
		asm.DepthwiseConvF32(f.plan, gx, gxPlane, gy, gPlane, N, s.wt, 0)
		return
	}
	if dwS2(rows, cols) && asm.DepthwiseS2Vector() {
		asm.DepthwiseInputGradS2F32(gx, gxPlane, gy, gPlane, N, rows.out, cols.out, w)
		return
	}
	s.inputGradPhases(ph, rows, cols, gy, gPlane, N, w, gx, gxPlane)
}

// dwS2 reports whether the convolution is a 3×3 one of stride 2 and
// padding 1 on planes of even sizes, whose input gradient
// asm.DepthwiseInputGradS2F32 computes in one pass, each element's sum as
// its phase plane adds it.
func dwS2(rows, cols dwSide) bool {
	for _, g := range []dwSide{rows, cols} {
		if g.k != 3 || g.s != 2 || g.p != 1 || g.d != 1 || g.n != 2*g.out {
			return false
		}
	}
	return true
}

// inputGradPhases is inputGrad for a stride past 1: each phase into
// scratch planes (zero for a phase no tap reaches: a stride past the
// kernel's reach), then the phases of each row of gx merged into it.
func (s *dwScratch) inputGradPhases(ph []dwPhase, rows, cols dwSide, gy []float32, gPlane, N int, w, gx []float32, gxPlane int) {
	inLen := rows.n * cols.n
	if s.phase == nil {
		s.phase = make([]float32, N*inLen)
	}
	// Phase (a, b)'s N planes from at[a][b] on.
	at := make([][]int, rows.s)
	for a := range at {
		at[a] = make([]int, cols.s)
	}
	off := 0
	for _, f := range ph {
		sub := f.n * f.m
		at[f.a][f.b] = off
		out := s.phase[off : off+N*sub]
		off += N * sub
		if len(f.taps) == 0 {
			clear(out)
			continue
		}
		s.wt = s.wt[:0]
		for _, t := range f.taps {
			s.wt = append(s.wt, w[t])
		}
		asm.DepthwiseConvF32(f.plan, out, sub, gy, gPlane, N, s.wt, 0)
	}
	colLen, _ := phases(cols.n, cols.s)
	rowLen, _ := phases(rows.n, rows.s)
	if cols.planePhases() {
		// Each row phase's even and odd columns merged row by row
		// straight into its rows of gx, rows.s apart.
		half := cols.n / 2
		for n := range N {
			for a, nr := range rowLen {
				if nr == 0 {
					continue
				}
				even := s.phase[at[a][0]+n*nr*half:][:nr*half]
				odd := s.phase[at[a][1]+n*nr*half:][:nr*half]
				asm.MergeRowsF32(gx[n*gxPlane+a*cols.n:], rows.s*cols.n, even, odd, nr, half)
			}
		}
		return
	}
	for n := range N {
		for ih := range rows.n {
			a, i := ih%rows.s, ih/rows.s
			dst := gx[n*gxPlane+ih*cols.n:][:cols.n]
			src := func(b int) []float32 {
				m := colLen[b]
				return s.phase[at[a][b]+(n*rowLen[a]+i)*m:][:m]
			}
			if cols.s == 2 {
				even, odd := src(0), src(1)
				for j, v := range odd {
					p := dst[2*j:][:2]
					p[0], p[1] = even[j], v
				}
				if len(even) > len(odd) {
					dst[cols.n-1] = even[len(odd)]
				}
				continue
			}
			for b := range cols.s {
				for j, v := range src(b) {
					dst[b+j*cols.s] = v
				}
			}
		}
	}
}
