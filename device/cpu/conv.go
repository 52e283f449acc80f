package cpu

import (
	"math"
	"runtime"
	"sync"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Convolutions as im2col + GEMM, the way PyTorch's slow CPU kernels run
// them; those of stride 1 on the padded image's grid ("wide", convWide
// below), where im2col is long contiguous copies. 1-d and 2-d convolutions are run as 3-d ones with leading spatial
// sizes of 1. float32 and float64 compute in their own precision, bfloat16
// in float32, integer dtypes in int64 (exact, wrapping).

// convGeom describes sliding a kernel over an image: img is the image's
// spatial size, grid the number of kernel positions along each dim.
type convGeom struct {
	c                        int // channels
	img, grid, k, s, p, d    [3]int
	imgLen, gridLen, kernLen int
}

func newConvGeom(c int, img, grid, k, s, p, d []int) *convGeom {
	g := &convGeom{c: c}
	off := 3 - len(img)
	for i := range 3 {
		g.img[i], g.grid[i], g.k[i], g.s[i], g.p[i], g.d[i] = 1, 1, 1, 1, 0, 1
		if i >= off {
			j := i - off
			g.img[i], g.grid[i], g.k[i], g.s[i], g.p[i], g.d[i] = img[j], grid[j], k[j], s[j], p[j], d[j]
		}
	}
	g.imgLen = g.img[0] * g.img[1] * g.img[2]
	g.gridLen = g.grid[0] * g.grid[1] * g.grid[2]
	g.kernLen = g.k[0] * g.k[1] * g.k[2]
	return g
}

// identity reports whether im2col would copy the image unchanged (a 1×1
// kernel, stride 1, no padding).
func (g *convGeom) identity() bool {
	return g.kernLen == 1 && g.img == g.grid && g.p == [3]int{}
}

// validRange is the range [lo, hi) of grid positions o in [0, n) for which
// o·s + off lies in [0, size).
func validRange(n, s, off, size int) (int, int) {
	lo := 0
	if off < 0 {
		lo = ceilDiv(-off, s)
	}
	hi := 0
	if size-off > 0 {
		hi = ceilDiv(size-off, s)
	}
	return min(lo, n), min(max(hi, lo), n)
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0, without the overflow of (a+b-1)/b
// when the stride b is near the int64 limit.
func ceilDiv(a, b int) int {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// im2col writes the c·kernLen × gridLen column matrix of the image x
// (c × img, contiguous) into cols.
func im2col[T gemmNum](x []T, g *convGeom, cols []T) {
	L := g.gridLen
	D, H, W := g.img[0], g.img[1], g.img[2]
	row := 0
	for c := range g.c {
		for kd := range g.k[0] {
			for kh := range g.k[1] {
				for kw := range g.k[2] {
					dst := cols[row*L : (row+1)*L]
					row++
					offW := kw*g.d[2] - g.p[2]
					lo, hi := validRange(g.grid[2], g.s[2], offW, W)
					i := 0
					for od := range g.grid[0] {
						id := od*g.s[0] - g.p[0] + kd*g.d[0]
						for oh := range g.grid[1] {
							ih := oh*g.s[1] - g.p[1] + kh*g.d[1]
							seg := dst[i : i+g.grid[2]]
							i += g.grid[2]
							if id < 0 || id >= D || ih < 0 || ih >= H {
								clear(seg)
								continue
							}
							src := x[((c*D+id)*H+ih)*W:]
							clear(seg[:lo])
							if g.s[2] == 1 {
								copy(seg[lo:hi], src[lo+offW:hi+offW])
							} else {
								for ow := lo; ow < hi; ow++ {
									seg[ow] = src[ow*g.s[2]+offW]
								}
							}
							clear(seg[hi:])
						}
					}
				}
			}
		}
	}
}

// im2colRow is what im2colPacker needs of one row of the im2col matrix
// (one channel and kernel offset): where its image plane starts, the
// offsets its kernel position adds to the input coordinates, and the range
// [lo, hi) of output columns that read the image rather than padding.
type im2colRow struct {
	plane, addD, addH, offW, lo, hi int
}

// im2colRows is the im2colRow of every row of g's im2col matrix.
func im2colRows(g *convGeom) []im2colRow {
	D, H, W := g.img[0], g.img[1], g.img[2]
	rows := make([]im2colRow, 0, g.c*g.kernLen)
	for c := range g.c {
		for kd := range g.k[0] {
			for kh := range g.k[1] {
				for kw := range g.k[2] {
					offW := kw*g.d[2] - g.p[2]
					lo, hi := validRange(g.grid[2], g.s[2], offW, W)
					rows = append(rows, im2colRow{plane: c * D * H * W, addD: kd*g.d[0] - g.p[0],
						addH: kh*g.d[1] - g.p[1], offW: offW, lo: lo, hi: hi})
				}
			}
		}
	}
	return rows
}

// im2colPacker returns a packer for asm.SgemmPacked/DgemmPacked that
// gathers the im2col matrix of the image x (c × img, contiguous; rows its
// im2colRows) straight into the GEMM's slivers, never writing the matrix
// itself: dst[p*nr+j] = cols[pc+p][jc+j] for j < w, 0 for w ≤ j < nr, with
// cols as im2col writes it.
func im2colPacker[T float32 | float64](x []T, g *convGeom, rows []im2colRow) func(dst []T, pc, jc, kc, w, nr int) {
	D, H, W := g.img[0], g.img[1], g.img[2]
	gw, sw := g.grid[2], g.s[2]
	return func(dst []T, pc, jc, kc, w, nr int) {
		for p := 0; w < nr && p < kc; p++ {
			clear(dst[p*nr+w : (p+1)*nr])
		}
		// The sliver's columns, a run along one row of output positions
		// at a time.
		ow, oh, od := jc%gw, jc/gw%g.grid[1], jc/gw/g.grid[1]
		for j := 0; j < w; {
			run := min(w-j, gw-ow)
			for p := range kc {
				r := &rows[pc+p]
				seg := dst[p*nr+j : p*nr+j+run]
				id, ih := od*g.s[0]+r.addD, oh*g.s[1]+r.addH
				a, b := max(ow, r.lo), min(ow+run, r.hi)
				if uint(id) >= uint(D) || uint(ih) >= uint(H) || a >= b {
					clear(seg)
					continue
				}
				src := x[r.plane+(id*H+ih)*W:]
				clear(seg[:a-ow])
				if sw == 1 {
					copy(seg[a-ow:b-ow], src[a+r.offW:b+r.offW])
				} else {
					for o := a; o < b; o++ {
						seg[o-ow] = src[o*sw+r.offW]
					}
				}
				clear(seg[b-ow:])
			}
			j += run
			if ow += run; ow == gw {
				ow = 0
				if oh++; oh == g.grid[1] {
					oh, od = 0, od+1
				}
			}
		}
	}
}

// isFloat reports whether T is float32 or float64 (the element types of
// the assembly GEMM).
func isFloat[T gemmNum]() bool {
	switch any(*new(T)).(type) {
	case float32, float64:
		return true
	}
	return false
}

// convPacked adds the convolution of one group of one image to y through
// the assembly GEMM with packed im2col slivers (T float32 or float64):
// y (m × n, row stride n) += w (m × k) · cols.
func convPacked[T gemmNum](m, n, k int, w []T, x []T, g *convGeom, rows []im2colRow, y []T) {
	switch w := any(w).(type) {
	case []float32:
		asm.SgemmPacked(false, m, n, k, 1, w, k, im2colPacker(any(x).([]float32), g, rows), 1, any(y).([]float32), n)
	case []float64:
		asm.DgemmPacked(false, m, n, k, 1, w, k, im2colPacker(any(x).([]float64), g, rows), 1, any(y).([]float64), n)
	}
}

// col2im adds the column matrix cols (c·kernLen × gridLen) back into the
// image x (c × img, contiguous): the adjoint of im2col.
func col2im[T gemmNum](cols []T, g *convGeom, x []T) {
	L := g.gridLen
	D, H, W := g.img[0], g.img[1], g.img[2]
	row := 0
	for c := range g.c {
		for kd := range g.k[0] {
			for kh := range g.k[1] {
				for kw := range g.k[2] {
					src := cols[row*L : (row+1)*L]
					row++
					offW := kw*g.d[2] - g.p[2]
					lo, hi := validRange(g.grid[2], g.s[2], offW, W)
					i := 0
					for od := range g.grid[0] {
						id := od*g.s[0] - g.p[0] + kd*g.d[0]
						for oh := range g.grid[1] {
							ih := oh*g.s[1] - g.p[1] + kh*g.d[1]
							seg := src[i : i+g.grid[2]]
							i += g.grid[2]
							if id < 0 || id >= D || ih < 0 || ih >= H {
								continue
							}
							dst := x[((c*D+id)*H+ih)*W:]
							if g.s[2] == 1 {
								d := dst[lo+offW : hi+offW]
								for j, v := range seg[lo:hi] {
									d[j] += v
								}
							} else {
								for ow := lo; ow < hi; ow++ {
									dst[ow*g.s[2]+offW] += seg[ow]
								}
							}
						}
					}
				}
			}
		}
	}
}

// asCompute returns t as a contiguous tensor of dtype ct and its elements.
func asCompute[T gemmNum](t *tensor.Tensor, ct tensor.DType) []T {
	c := contiguousAs(t, ct)
	return elems[T](c)
}

// resultBuf returns out's elements when out already has dtype ct, else a
// scratch tensor of dtype ct shaped like out (copied back by finish).
func resultBuf[T gemmNum](out *tensor.Tensor, ct tensor.DType) (*tensor.Tensor, []T) {
	t := out
	if out.DType() != ct {
		t = tensor.Empty(ct, out.Sizes()...)
	}
	return t, data[T](t)[:t.Numel()]
}

func finish(out, buf *tensor.Tensor) {
	if buf != out {
		copyInto(out, buf)
	}
}

// batchLoop runs f for every batch element, in parallel when the batch is
// large enough to keep every core busy (then each product runs serially);
// worker says which scratch buffer to use.
func batchLoop(n, work int, f func(worker, i int, parallelGemm bool)) {
	w := runtime.GOMAXPROCS(0)
	if w == 1 || n < w || work < gemmParallel {
		for i := range n {
			f(0, i, true)
		}
		return
	}
	parallel.For(w, func(t int) {
		for i := t; i < n; i += w {
			f(t, i, false)
		}
	})
}

func gemmFor[T gemmNum](parallel bool) func(m, n, k int, alpha T, a, b gmat[T], c []T, ldc int) {
	if parallel {
		return gemm[T]
	}
	return gemmSerial[T]
}

// convForward computes a convolution into out (contiguous, zeroed).
func convForward[T gemmNum](p *core.ConvParams, input, weight, bias, out *tensor.Tensor, ct tensor.DType) {
	x := asCompute[T](input, ct)
	w := asCompute[T](weight, ct)
	buf, y := resultBuf[T](out, ct)
	G := p.Groups
	inG, outG := p.InC/G, p.OutC/G
	inLen, outLen := prod(p.In), prod(p.Out)
	kLen := prod(p.Kernel)
	if depthwise2d(p) {
		if y32, ok := any(y).([]float32); ok {
			var b []float32
			if bias != nil {
				b = asCompute[float32](bias, ct)
			}
			convDepthwise(p, any(x).([]float32), any(w).([]float32), b, y32)
			finish(out, buf)
			return
		}
	}
	if wideForward(p, ct) {
		var b []T
		if bias != nil {
			b = asCompute[T](bias, ct)
		}
		if smallForward(p, ct) { // few channels: direct kernels (conv_small.go)
			convSmallForward(p, any(x).([]float32), any(w).([]float32), any(b).([]float32), any(y).([]float32))
			finish(out, buf)
			return
		}
		if winoForward(p, ct) { // 3×3, enough channels (conv_winograd.go)
			if convWinogradForward(p, any(x).([]float32), any(w).([]float32), any(b).([]float32), any(y).([]float32)) {
				finish(out, buf)
				return
			} // an output not finite: computed again exactly below
		}
		g := newWideGeom(p.InC, p.In, p.Kernel, p.Padding, p.Dilation)
		switch y := any(y).(type) {
		case []float32:
			convWide(g, p.N, G, outG, any(x).([]float32), any(w).([]float32), any(b).([]float32), y)
		case []float64:
			convWide(g, p.N, G, outG, any(x).([]float64), any(w).([]float64), any(b).([]float64), y)
		}
		finish(out, buf)
		return
	}
	if bias != nil {
		b := asCompute[T](bias, ct)
		for n := range p.N {
			for c := range p.OutC {
				seg := y[(n*p.OutC+c)*outLen : (n*p.OutC+c+1)*outLen]
				for i := range seg {
					seg[i] = b[c]
				}
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if !p.Transposed {
		geom := newConvGeom(inG, p.In, p.Out, p.Kernel, p.Stride, p.Padding, p.Dilation)
		ident := geom.identity()
		if !ident && isFloat[T]() {
			// Image by image, group by group: each product is split among
			// the cores by the GEMM itself, and im2col is gathered into its
			// slivers.
			kk, rows := inG*kLen, im2colRows(geom)
			for n := range p.N {
				for g := range G {
					xg := x[(n*p.InC+g*inG)*inLen : (n*p.InC+(g+1)*inG)*inLen]
					convPacked(outG, outLen, kk, w[g*outG*kk:(g+1)*outG*kk], xg, geom, rows, y[(n*p.OutC+g*outG)*outLen:])
				}
			}
			finish(out, buf)
			return
		}
		scratch := make([][]T, workers)
		batchLoop(p.N, p.N*p.OutC*outLen*inG*kLen, func(wk, n int, par bool) {
			mul := gemmFor[T](par)
			for g := range G {
				xg := x[(n*p.InC+g*inG)*inLen : (n*p.InC+(g+1)*inG)*inLen]
				cols := xg
				if !ident {
					if scratch[wk] == nil {
						scratch[wk] = make([]T, inG*kLen*outLen)
					}
					cols = scratch[wk]
					im2col(xg, geom, cols)
				}
				wg := gmat[T]{data: w, off: g * outG * inG * kLen, rs: inG * kLen, cs: 1}
				yg := y[(n*p.OutC+g*outG)*outLen:]
				mul(outG, outLen, inG*kLen, 1, wg, gmat[T]{data: cols, rs: outLen, cs: 1}, yg, outLen)
			}
		})
	} else {
		// Transposed: cols = Wᵀ·x, then scatter the columns into the output.
		geom := newConvGeom(outG, p.Out, p.In, p.Kernel, p.Stride, p.Padding, p.Dilation)
		scratch := make([][]T, workers)
		batchLoop(p.N, p.N*p.InC*inLen*outG*kLen, func(wk, n int, par bool) {
			mul := gemmFor[T](par)
			if scratch[wk] == nil {
				scratch[wk] = make([]T, outG*kLen*inLen)
			}
			cols := scratch[wk]
			for g := range G {
				clear(cols)
				wg := gmat[T]{data: w, off: g * inG * outG * kLen, rs: 1, cs: outG * kLen}
				xg := gmat[T]{data: x, off: (n*p.InC + g*inG) * inLen, rs: inLen, cs: 1}
				mul(outG*kLen, inLen, inG, 1, wg, xg, cols, inLen)
				col2im(cols, geom, y[(n*p.OutC+g*outG)*outLen:(n*p.OutC+(g+1)*outG)*outLen])
			}
		})
	}
	finish(out, buf)
}

// wideForward reports whether convWide computes the convolution p in
// compute dtype ct: an ordinary float convolution of stride 1 whose kernel
// is not a lone tap on an unpadded image (that one is a plain product).
func wideForward(p *core.ConvParams, ct tensor.DType) bool {
	if p.Transposed || (ct != tensor.Float32 && ct != tensor.Float64) || p.Empty || prod(p.Out) == 0 {
		return false
	}
	single := prod(p.Kernel) == 1
	for i, s := range p.Stride {
		if s != 1 {
			return false
		}
		single = single && p.Padding[i] == 0
	}
	return !single
}

// convBackward computes the gradients selected by mask into gi, gw (may be nil).
func convBackward[T gemmNum](p *core.ConvParams, gout, input, weight, gi, gw *tensor.Tensor, ct tensor.DType) {
	gy := asCompute[T](gout, ct)
	w := asCompute[T](weight, ct)
	G := p.Groups
	inG, outG := p.InC/G, p.OutC/G
	inLen, outLen := prod(p.In), prod(p.Out)
	kLen := prod(p.Kernel)
	var x []T
	if gw != nil {
		x = asCompute[T](input, ct)
	}
	workers := runtime.GOMAXPROCS(0)
	if gy32, ok := any(gy).([]float32); ok { // few channels: direct kernels (conv_small.go)
		if gi, gw = convSmallBackward(p, gy32, any(x).([]float32), any(w).([]float32), gi, gw); gi == nil && gw == nil {
			return
		}
	}
	if wideForward(p, ct) {
		// Stride 1: the weight gradient and (with the complementary
		// padding not negative) the input gradient, a convolution of gy by
		// the flipped, transposed weight, run wide.
		if gw != nil && winoWeightGrad(p, ct) { // 3×3, enough channels (conv_winograd.go)
			buf, dw := resultBuf[T](gw, ct)
			if convWinogradWeightGrad(p.N, p.InC, p.In[0], p.In[1], p.OutC, p.Padding[0], p.Padding[1], any(x).([]float32), any(gy).([]float32), any(dw).([]float32)) {
				finish(gw, buf)
				gw = nil
			} // not finite: computed again below
		}
		if gw != nil {
			buf, dw := resultBuf[T](gw, ct)
			g := newWideGeom(p.InC, p.In, p.Kernel, p.Padding, p.Dilation)
			var ok bool
			switch dw := any(dw).(type) {
			case []float32:
				ok = convWideWeightGrad(g, p.N, G, outG, any(x).([]float32), any(gy).([]float32), dw)
			case []float64:
				ok = convWideWeightGrad(g, p.N, G, outG, any(x).([]float64), any(gy).([]float64), dw)
			}
			if ok {
				finish(gw, buf)
				gw = nil
			} else {
				clear(dw) // not finite: computed again exactly below
			}
		}
		if gi != nil && winoInputGrad(p, ct) { // 3×3, enough channels (conv_winograd.go)
			buf, dx := resultBuf[T](gi, ct)
			if convWinogradInputGrad(p, any(gy).([]float32), any(w).([]float32), any(dx).([]float32)) {
				finish(gi, buf)
				gi = nil
			} // a gradient not finite: computed again exactly below
		}
		if gi != nil && unitStrideAdjoint(p) {
			buf, dx := resultBuf[T](gi, ct)
			g := newWideGeom(p.OutC, p.Out, p.Kernel, adjointPadding(p), p.Dilation)
			wt := flipTransposeWeight(w, G, outG, inG, kLen)
			switch dx := any(dx).(type) {
			case []float32:
				convWide(g, p.N, G, inG, any(gy).([]float32), any(wt).([]float32), nil, dx)
			case []float64:
				convWide(g, p.N, G, inG, any(gy).([]float64), any(wt).([]float64), nil, dx)
			}
			finish(gi, buf)
			gi = nil
		}
	}
	if !p.Transposed {
		geom := newConvGeom(inG, p.In, p.Out, p.Kernel, p.Stride, p.Padding, p.Dilation)
		if gi != nil && isFloat[T]() && unitStrideAdjoint(p) {
			// The input gradient of a stride-1 convolution is the
			// convolution of gy by the flipped, transposed weight with the
			// complementary padding: a packed GEMM, image by image.
			buf, dx := resultBuf[T](gi, ct)
			wt := flipTransposeWeight(w, G, outG, inG, kLen)
			adj := newConvGeom(outG, p.Out, p.In, p.Kernel, p.Stride, adjointPadding(p), p.Dilation)
			ident := adj.identity()
			kk, rows := outG*kLen, im2colRows(adj)
			for n := range p.N {
				for g := range G {
					gyg := gy[(n*p.OutC+g*outG)*outLen : (n*p.OutC+(g+1)*outG)*outLen]
					wtg, dxg := wt[g*inG*kk:(g+1)*inG*kk], dx[(n*p.InC+g*inG)*inLen:]
					if ident { // a 1×1 kernel: gy is the column matrix
						gemm(inG, inLen, kk, 1, gmat[T]{data: wtg, rs: kk, cs: 1}, gmat[T]{data: gyg, rs: outLen, cs: 1}, dxg, inLen)
						continue
					}
					convPacked(inG, inLen, kk, wtg, gyg, adj, rows, dxg)
				}
			}
			finish(gi, buf)
		} else if gi != nil {
			buf, dx := resultBuf[T](gi, ct)
			scratch := make([][]T, workers)
			batchLoop(p.N, p.N*p.OutC*outLen*inG*kLen, func(wk, n int, par bool) {
				mul := gemmFor[T](par)
				if scratch[wk] == nil {
					scratch[wk] = make([]T, inG*kLen*outLen)
				}
				cols := scratch[wk]
				for g := range G {
					clear(cols)
					wg := gmat[T]{data: w, off: g * outG * inG * kLen, rs: 1, cs: inG * kLen}
					gyg := gmat[T]{data: gy, off: (n*p.OutC + g*outG) * outLen, rs: outLen, cs: 1}
					mul(inG*kLen, outLen, outG, 1, wg, gyg, cols, outLen)
					col2im(cols, geom, dx[(n*p.InC+g*inG)*inLen:(n*p.InC+(g+1)*inG)*inLen])
				}
			})
			finish(gi, buf)
		}
		if gw != nil {
			buf, dw := resultBuf[T](gw, ct)
			ident := geom.identity()
			var scratch []T
			if !ident {
				scratch = make([]T, inG*kLen*outLen)
			}
			for n := range p.N {
				for g := range G {
					xg := x[(n*p.InC+g*inG)*inLen : (n*p.InC+(g+1)*inG)*inLen]
					cols := xg
					if !ident {
						cols = scratch
						im2col(xg, geom, cols)
					}
					gyg := gmat[T]{data: gy, off: (n*p.OutC + g*outG) * outLen, rs: outLen, cs: 1}
					gemm(outG, inG*kLen, outLen, 1, gyg, gmat[T]{data: cols, rs: 1, cs: outLen}, dw[g*outG*inG*kLen:], inG*kLen)
				}
			}
			finish(gw, buf)
		}
		return
	}
	// Transposed: the input gradient is an ordinary convolution of gy.
	geom := newConvGeom(outG, p.Out, p.In, p.Kernel, p.Stride, p.Padding, p.Dilation)
	if gi != nil {
		buf, dx := resultBuf[T](gi, ct)
		scratch := make([][]T, workers)
		batchLoop(p.N, p.N*p.InC*inLen*outG*kLen, func(wk, n int, par bool) {
			mul := gemmFor[T](par)
			if scratch[wk] == nil {
				scratch[wk] = make([]T, outG*kLen*inLen)
			}
			cols := scratch[wk]
			for g := range G {
				im2col(gy[(n*p.OutC+g*outG)*outLen:(n*p.OutC+(g+1)*outG)*outLen], geom, cols)
				wg := gmat[T]{data: w, off: g * inG * outG * kLen, rs: outG * kLen, cs: 1}
				mul(inG, inLen, outG*kLen, 1, wg, gmat[T]{data: cols, rs: inLen, cs: 1}, dx[(n*p.InC+g*inG)*inLen:], inLen)
			}
		})
		finish(gi, buf)
	}
	if gw != nil {
		buf, dw := resultBuf[T](gw, ct)
		cols := make([]T, outG*kLen*inLen)
		for n := range p.N {
			for g := range G {
				im2col(gy[(n*p.OutC+g*outG)*outLen:(n*p.OutC+(g+1)*outG)*outLen], geom, cols)
				xg := gmat[T]{data: x, off: (n*p.InC + g*inG) * inLen, rs: inLen, cs: 1}
				gemm(inG, outG*kLen, inLen, 1, xg, gmat[T]{data: cols, rs: 1, cs: inLen}, dw[g*inG*outG*kLen:], outG*kLen)
			}
		}
		finish(gw, buf)
	}
}

// unitStrideAdjoint reports whether the input gradient of the ordinary
// convolution p is itself an ordinary convolution of the output gradient
// (stride 1 everywhere and padding at most the dilated kernel's reach, so
// that the complementary padding is not negative).
func unitStrideAdjoint(p *core.ConvParams) bool {
	for i, s := range p.Stride {
		if s != 1 || p.Padding[i] > p.Dilation[i]*(p.Kernel[i]-1) {
			return false
		}
	}
	return true
}

// adjointPadding is the padding of the convolution of the output gradient
// that gives the input gradient of the stride-1 convolution p.
func adjointPadding(p *core.ConvParams) []int {
	pad := make([]int, len(p.Padding))
	for i := range pad {
		pad[i] = p.Dilation[i]*(p.Kernel[i]-1) - p.Padding[i]
	}
	return pad
}

// flipTransposeWeight returns the weight of the adjoint convolution: for
// each group, wt[c][o][kLen-1-k] = w[o][c][k] (every spatial dim flipped is
// the flat kernel index reversed), c < inG input and o < outG output
// channels.
func flipTransposeWeight[T gemmNum](w []T, groups, outG, inG, kLen int) []T {
	wt := make([]T, len(w))
	for g := range groups {
		for o := range outG {
			for c := range inG {
				src := w[((g*outG+o)*inG+c)*kLen:][:kLen]
				dst := wt[((g*inG+c)*outG+o)*kLen:][:kLen]
				for k, v := range src {
					dst[kLen-1-k] = v
				}
			}
		}
	}
	return wt
}

func prod(v []int) int {
	n := 1
	for _, x := range v {
		n *= x
	}
	return n
}

// depthwiseWrites reports whether the float32 depthwise kernels compute p
// (and so write every element of their results, which need no zeroing).
func depthwiseWrites(p *core.ConvParams, d tensor.DType) bool {
	return !p.Empty && d == tensor.Float32 && depthwise2d(p)
}

func convolutionKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	v := args.ConvolutionOf(a)
	input, weight, bias := v.Input, v.Weight, v.Bias
	p := core.ParseConv(op, a)
	if p.Empty || !depthwiseWrites(p, out.DType()) && !wideForward(p, gemmCompute(out.DType())) {
		clearElems(out) // the other paths add into it; an empty input gives zeros
	}
	if p.Empty || out.Numel() == 0 {
		return
	}
	switch ct := gemmCompute(out.DType()); ct {
	case tensor.Float32:
		convForward[float32](p, input, weight, bias, out, ct)
	case tensor.Float64:
		convForward[float64](p, input, weight, bias, out, ct)
	default:
		convForward[int64](p, input, weight, bias, out, ct)
	}
}

func convolutionBackwardKernel(outs []*tensor.Tensor, op *tensor.Op, a []any) {
	v := args.ConvolutionBackwardOf(a)
	gout, input, weight := v.GradOutput, v.Input, v.Weight
	p := core.ParseConv(op, a)
	dwAll := depthwiseWrites(p, input.DType()) && gout.DType() == tensor.Float32
	// convWide and convWideWeightGrad write every element too; the other
	// paths add into a zeroed result.
	dw := dwAll || wideForward(p, gemmCompute(input.DType()))
	for i, t := range outs {
		if t != nil && (p.Empty || !(dw && (i == 1 || i == 0 && (dwAll || unitStrideAdjoint(p))))) {
			clearElems(t)
		}
	}
	if p.Empty {
		return // zero gradients
	}
	gi, gw, gb := outs[0], outs[1], outs[2]
	if dwAll {
		convDepthwiseBackward(p, gout, input, weight, gi, gw, gb)
		return
	}
	if gi != nil || gw != nil {
		switch ct := gemmCompute(input.DType()); ct {
		case tensor.Float32:
			convBackward[float32](p, gout, input, weight, gi, gw, ct)
		case tensor.Float64:
			convBackward[float64](p, gout, input, weight, gi, gw, ct)
		default:
			convBackward[int64](p, gout, input, weight, gi, gw, ct)
		}
	}
	if gb != nil {
		biasGrad(gout, gb, p)
	}
}

// biasGrad sums grad_output over every dim but the channels into gb.
func biasGrad(gout, gb *tensor.Tensor, p *core.ConvParams) {
	outLen := prod(p.Out)
	if gout.DType() == tensor.Float32 && gout.IsContiguous() {
		// Each plane summed in float64 by the SIMD sum, planes in order.
		g := elems[float32](gout)
		s := make([]float64, p.OutC)
		for n := range p.N {
			for c := range p.OutC {
				s[c] += asm.SumF32(g[(n*p.OutC+c)*outLen : (n*p.OutC+c+1)*outLen])
			}
		}
		storeF64(gb.Storage(), gb.DType(), 0, 1, s)
		return
	}
	if gout.DType().IsFloat() {
		g := asCompute[float64](gout, tensor.Float64)
		s := make([]float64, p.OutC)
		for n := range p.N {
			for c := range p.OutC {
				for _, v := range g[(n*p.OutC+c)*outLen : (n*p.OutC+c+1)*outLen] {
					s[c] += v
				}
			}
		}
		storeF64(gb.Storage(), gb.DType(), 0, 1, s)
		return
	}
	g := asCompute[int64](gout, tensor.Int64)
	s := make([]int64, p.OutC)
	for n := range p.N {
		for c := range p.OutC {
			for _, v := range g[(n*p.OutC+c)*outLen : (n*p.OutC+c+1)*outLen] {
				s[c] += v
			}
		}
	}
	storeI64(gb.Storage(), gb.DType(), 0, 1, s)
}

func col2imKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	input := args.Col2imOf(a).Self
	c := core.ParseCol2im(input, a)
	if out.Numel() == 0 {
		return out
	}
	geom := newConvGeom(c.C, []int{c.OutH, c.OutW}, []int{c.BlocksH, c.BlocksW}, []int{c.KH, c.KW},
		[]int{c.SH, c.SW}, []int{c.PH, c.PW}, []int{c.DH, c.DW})
	if out.DType() == tensor.Float64 {
		col2imBatch[float64](input, out, geom, c.N, tensor.Float64)
	} else {
		// float16 and bfloat16 accumulate in float32 and round once.
		col2imBatch[float32](input, out, geom, c.N, tensor.Float32)
	}
	return out
}

func col2imBatch[T gemmNum](input, out *tensor.Tensor, geom *convGeom, n int, ct tensor.DType) {
	x := asCompute[T](input, ct)
	buf, y := resultBuf[T](out, ct)
	in, img := geom.c*geom.kernLen*geom.gridLen, geom.c*geom.imgLen
	for i := range n {
		col2im(x[i*in:(i+1)*in], geom, y[i*img:(i+1)*img])
	}
	finish(out, buf)
}

func init() {
	implOut("aten::convolution.default", convolutionKernel)
	implOuts("aten::convolution_backward.default", convolutionBackwardKernel)
	impl("aten::col2im.default", col2imKernel)
}

// A stride-1 convolution run "wide": on the grid of the zero-padded image
// rather than of the output. With the image padded to Dp×Hp×Wp, the output
// at (od, oh, ow) is column j = od·Hp·Wp + oh·Wp + ow of a product whose
// row for input channel c and tap t reads the padded plane of c
// contiguously from the tap's offset: the im2col operand is then a few
// long contiguous copies per sliver instead of one short run per output
// row. Columns with ow ≥ OW or oh ≥ OH (about (Hp·Wp)/(OH·OW) − 1 of the
// product, 7% for 56×56 images, 31% for 14×14) are junk, computed and
// dropped. Images of a chunk follow each other a plane apart, so that a
// small image's product is one GEMM for many images; an image's columns up
// to its last output (span) read only its own planes.

// wideGeom is the geometry of a wide convolution of images of c channels.
type wideGeom struct {
	c              int
	img, pad, out  [3]int // image, padding and output sizes, leading dims 1
	padded         [3]int // img + 2·pad
	plane, span    int    // a padded plane's size; columns up to an image's last output
	imgLen, outLen int
	off            []int // each tap's offset in a padded plane, kernel order
}

// newWideGeom is the wide geometry of a stride-1 convolution of images of c
// channels and sizes img by a kernel k dilated by dil with padding pad.
func newWideGeom(c int, img, k, pad, dil []int) *wideGeom {
	g := &wideGeom{c: c}
	var kk, dd [3]int
	off := 3 - len(img)
	for i := range 3 {
		g.img[i], kk[i], dd[i] = 1, 1, 1
		if i >= off {
			g.img[i], kk[i], g.pad[i], dd[i] = img[i-off], k[i-off], pad[i-off], dil[i-off]
		}
		g.padded[i] = g.img[i] + 2*g.pad[i]
		g.out[i] = g.padded[i] - dd[i]*(kk[i]-1)
	}
	Hp, Wp := g.padded[1], g.padded[2]
	g.plane = g.padded[0] * Hp * Wp
	g.span = ((g.out[0]-1)*Hp+g.out[1]-1)*Wp + g.out[2]
	g.imgLen = g.img[0] * g.img[1] * g.img[2]
	g.outLen = g.out[0] * g.out[1] * g.out[2]
	for a := range kk[0] {
		for b := range kk[1] {
			for e := range kk[2] {
				g.off = append(g.off, (a*dd[0]*Hp+b*dd[1])*Wp+e*dd[2])
			}
		}
	}
	return g
}

// needsPad reports whether the images need a padded copy.
func (g *wideGeom) needsPad() bool { return g.pad != [3]int{} }

// cols is the number of columns of a chunk of nb images.
func (g *wideGeom) cols(nb int) int { return (nb-1)*g.plane + g.span }

// chunk returns images n0 … n0+nb−1 of x (N×c×img, contiguous) as padded
// planes, in buf (nb·c·plane elements whose borders are zero and stay so)
// when the images need padding, else x itself.
func wideChunk[T float32 | float64](g *wideGeom, x []T, n0, nb int, buf []T) []T {
	if !g.needsPad() {
		return x[n0*g.c*g.imgLen : (n0+nb)*g.c*g.imgLen]
	}
	D, H, W := g.img[0], g.img[1], g.img[2]
	Hp, Wp := g.padded[1], g.padded[2]
	for p := range nb * g.c {
		src := x[(n0*g.c+p)*g.imgLen:]
		dst := buf[p*g.plane:]
		for d := range D {
			// The plane's rows at once, without a call per row.
			asm.CopyRows(dst[((d+g.pad[0])*Hp+g.pad[1])*Wp+g.pad[2]:], Wp, src[d*H*W:], W, H, W)
		}
	}
	return buf[:nb*g.c*g.plane]
}

// wideRowOffsets is the offset in a chunk's image of each row k = c·taps+t
// of the im2col operand of channels c0 … c0+rows/taps−1: the padded plane
// of channel c0+c from off[t] on.
func wideRowOffsets(g *wideGeom, c0, rows int) asm.RowOffsets {
	taps := len(g.off)
	rowOff := make([]int, rows)
	for k := range rowOff {
		rowOff[k] = (c0+k/taps)*g.plane + g.off[k%taps]
	}
	return asm.NewRowOffsets(rowOff)
}

// widePacker returns the packer (asm.SgemmPacked) of the im2col operand of
// a chunk xp (wideChunk) whose rows are at ro (wideRowOffsets) in each
// image, image after image. A run of a whole sliver (the usual case) is
// gathered by asm.GatherRows, the rows at their offsets copied back to
// back in one call.
func widePacker[T float32 | float64](g *wideGeom, xp []T, ro *asm.RowOffsets) func(dst []T, pc, jc, kc, w, nr int) {
	plane, imgStride := g.plane, g.c*g.plane
	return func(dst []T, pc, jc, kc, w, nr int) {
		for p := 0; w < nr && p < kc; p++ {
			clear(dst[p*nr+w : (p+1)*nr])
		}
		offs := ro.Offsets()[pc : pc+kc]
		for j := 0; j < w; {
			i, jj := (jc+j)/plane, (jc+j)%plane
			run := min(w-j, plane-jj)
			base := i*imgStride + jj
			if run == nr {
				asm.GatherRows(dst, xp, base, ro, pc, kc, nr)
				break
			}
			for p, o := range offs {
				copy(dst[p*nr+j:p*nr+j+run], xp[base+o:])
			}
			j += run
		}
	}
}

// wideExtract writes the outputs of a chunk's product yw (m rows of ld,
// the chunk's images a plane apart) to y (images of outC channels; the
// chunk's first image and row at y's start), adding bias[o] (nil: none):
// each output plane's rows in one asm.CopyRows or CopyRowsAdd call.
func wideExtract[T float32 | float64](g *wideGeom, yw []T, ld, m, nb, outC int, bias []T, y []T) {
	Hp, Wp := g.padded[1], g.padded[2]
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	for i := range nb {
		for o := range m {
			src := yw[o*ld+i*g.plane:]
			dst := y[(i*outC+o)*g.outLen:]
			for d := range OD {
				s, dr := src[d*Hp*Wp:], dst[d*OH*OW:]
				if bias == nil {
					asm.CopyRows(dr, OW, s, Wp, OH, OW)
				} else {
					asm.CopyRowsAdd(dr, OW, s, Wp, OH, OW, bias[o])
				}
			}
		}
	}
}

// scratchPools keep the wide convolutions' scratch buffers (*[]float32,
// *[]float64) from call to call: made afresh, a training step's megabytes
// of them cost more in zeroing and page faults than the copies they hold.
var scratchPools [2]sync.Pool

// getScratch returns a buffer of n elements from the pool (contents left
// over from an earlier use) or a new one; putScratch gives it back.
func getScratch[T float32 | float64](n int) *[]T {
	pool := &scratchPools[scratchPool[T]()]
	if v, ok := pool.Get().(*[]T); ok && cap(*v) >= n {
		*v = (*v)[:n]
		return v
	}
	s := make([]T, n)
	return &s
}

func putScratch[T float32 | float64](s *[]T) {
	if s != nil {
		scratchPools[scratchPool[T]()].Put(s)
	}
}

func scratchPool[T float32 | float64]() int {
	if _, ok := any(T(0)).(float64); ok {
		return 1
	}
	return 0
}

// wideChunkCols is about the number of columns a chunk of images takes in
// a wide product: enough that a GEMM call does real work, few enough that
// the chunk's operands stay in the L2 cache.
const wideChunkCols = 4096

// wideChunks splits N images into chunks of nb images for products of m
// rows and k depth, and reports whether the chunks should run in parallel
// (each product then too small for the GEMM to split).
func wideChunks(g *wideGeom, N, m, k int) (nb, chunks int, par bool) {
	nb = max(1, min(N, wideChunkCols/g.plane))
	chunks = (N + nb - 1) / nb
	work := m * g.cols(nb) * k
	par = chunks > 1 && runtime.GOMAXPROCS(0) > 1 && chunks*work >= gemmParallel && work < 160*160*160
	return nb, chunks, par
}

// forChunks runs f for every chunk, on the pool's goroutines when par is
// set; worker says which scratch buffers to use.
func forChunks(chunks int, par bool, f func(worker, chunk int)) {
	if !par {
		for c := range chunks {
			f(0, c)
		}
		return
	}
	w := min(runtime.GOMAXPROCS(0), chunks)
	parallel.For(w, func(t int) {
		for c := t; c < chunks; c += w {
			f(t, c)
		}
	})
}

// convWide sets y (N images of G·outG channels, g.out) to the stride-1
// convolution of x (N images of g.c = G·inG channels, g.img) by w (G
// groups of outG × inG·taps) plus bias (nil: none): one packed GEMM per
// chunk of images and group into a wide buffer, then the outputs copied
// out.
func convWide[T float32 | float64](g *wideGeom, N, G, outG int, x, w, bias, y []T) {
	inG, taps := g.c/G, len(g.off)
	kk := inG * taps
	nb, chunks, par := wideChunks(g, N, outG, kk)
	ld := g.cols(nb)
	workers := 1
	if par {
		workers = runtime.GOMAXPROCS(0)
	}
	type scratch struct {
		xp, yw []T
		held   []*[]T // for putScratch
	}
	bufs := make([]scratch, workers)
	defer func() {
		for _, s := range bufs {
			for _, b := range s.held {
				putScratch(b)
			}
		}
	}()
	// The im2col rows' offsets of each group, the same in every chunk.
	ros := make([]asm.RowOffsets, G)
	for gr := range G {
		ros[gr] = wideRowOffsets(g, gr*inG, kk)
	}
	forChunks(chunks, par, func(wk, ch int) {
		s := &bufs[wk]
		if s.yw == nil {
			yw := getScratch[T](outG * ld) // written by each product before it is read
			s.yw = *yw
			s.held = append(s.held, yw)
			if g.needsPad() {
				xp := getScratch[T](nb * g.c * g.plane)
				s.xp = *xp
				clear(s.xp) // the borders stay zero
				s.held = append(s.held, xp)
			}
		}
		n0 := ch * nb
		m := min(nb, N-n0)
		xp := wideChunk(g, x, n0, m, s.xp)
		cols := g.cols(m)
		for gr := range G {
			wg := w[gr*outG*kk : (gr+1)*outG*kk]
			switch wg := any(wg).(type) {
			case []float32:
				asm.SgemmPacked(false, outG, cols, kk, 1, wg, kk, widePacker(g, any(xp).([]float32), &ros[gr]), 0, any(s.yw).([]float32), ld)
			case []float64:
				asm.DgemmPacked(false, outG, cols, kk, 1, wg, kk, widePacker(g, any(xp).([]float64), &ros[gr]), 0, any(s.yw).([]float64), ld)
			}
			var b []T
			if bias != nil {
				b = bias[gr*outG : (gr+1)*outG]
			}
			wideExtract(g, s.yw, ld, outG, m, G*outG, b, y[(n0*G*outG+gr*outG)*g.outLen:])
		}
	})
}

// wideRows copies the im2col rows of channels c0 … c0+rows/taps−1 of a
// chunk of m images xp (wideChunk) into bt, rows ld apart: row k = c·taps+t
// is, image after image, the channel's padded plane from off[t] on.
func wideRows[T gemmNum](g *wideGeom, xp []T, c0, rows, m, ld int, bt []T) {
	taps := len(g.off)
	for k := range rows {
		c, t := k/taps, k%taps
		dst := bt[k*ld:]
		for i := range m {
			n := g.plane
			if i == m-1 {
				n = g.span
			}
			copy(dst[i*g.plane:][:n], xp[(i*g.c+c0+c)*g.plane+g.off[t]:])
		}
	}
}

// wideColsDirect lets convWideWeightGrad pack its rows straight from the
// padded images (off in a test, to compare with the copied rows).
var wideColsDirect = true

// wideColsPacker returns the packer (asm.SgemmPacked) of the transposed
// im2col operand of channels c0 … c0+inG−1 of a chunk xp (wideChunk), its
// columns tap by tap: column t·inG+c of op(B) is, down its rows (the wide
// columns, image after image), xp's plane of channel c0+c from off[t] on,
// as wideRows copies it. inG must be a multiple of the GEMM's sliver
// width, so that a sliver's columns are channels of one tap, a plane apart.
func wideColsPacker[T float32 | float64](g *wideGeom, xp []T, c0, inG int) func(dst []T, pc, jc, kc, w, nr int) {
	plane, imgStride := g.plane, g.c*g.plane
	return func(dst []T, pc, jc, kc, w, nr int) {
		for p := 0; w < nr && p < kc; p++ {
			clear(dst[p*nr+w : (p+1)*nr])
		}
		t, c := jc/inG, jc%inG
		for p := 0; p < kc; {
			i, q := (pc+p)/plane, (pc+p)%plane
			run := min(kc-p, plane-q)
			asm.PackCols(dst[p*nr:], xp[i*imgStride+(c0+c)*plane+g.off[t]+q:], plane, w, run, nr)
			p += run
		}
	}
}

// wideScatter writes rows rows of m images of gy (images of outC channels,
// the first image and row at gy's start) into the wide layout gw (rows ld
// apart, images a plane apart), leaving the junk columns as they are.
func wideScatter[T float32 | float64](g *wideGeom, gy []T, rows, m, outC, ld int, gw []T) {
	Hp, Wp := g.padded[1], g.padded[2]
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	for i := range m {
		for o := range rows {
			src := gy[(i*outC+o)*g.outLen:]
			dst := gw[o*ld+i*g.plane:]
			for d := range OD {
				asm.CopyRows(dst[d*Hp*Wp:], Wp, src[d*OH*OW:], OW, OH, OW)
			}
		}
	}
}

// wideBtElems bounds a chunk's copied im2col rows in convWideWeightGrad
// (1 MiB of float32), at least one image.
const wideBtElems = 1 << 18

// convWideWeightGrad sets dw (G groups of outG × inG·taps) to the weight
// gradient of the stride-1 convolution of x (N images of g.c = G·inG
// channels) whose output gradient is gy: per chunk of images and group,
// one GEMM of gy in the wide layout (zero in the junk columns) by the
// transposed im2col rows of the chunk (packed straight from the padded
// images when inG is a multiple of the GEMM's sliver width, else copied
// whole first: long contiguous runs); the chunks' sums added in order, so the result does not depend on
// how many goroutines ran them. A junk column's zero meets whatever the
// padded images hold there: where that is an infinity or a NaN the sum is
// NaN though the gradient may not be, so convWideWeightGrad reports false
// when dw is not all finite, and the caller computes it again exactly.
func convWideWeightGrad[T float32 | float64](g *wideGeom, N, G, outG int, x, gy, dw []T) bool {
	inG, taps := g.c/G, len(g.off)
	kk := inG * taps
	nb, _, _ := wideChunks(g, N, outG, kk)
	nb = max(1, min(nb, wideBtElems/(kk*g.plane)))
	chunks := (N + nb - 1) / nb
	ld := g.cols(nb)
	work := outG * ld * kk
	// Chunks in parallel when each product is too small for the GEMM to
	// split well, or when there are enough of them to share evenly: a
	// weight gradient's product is short and deep (outG × kk, the depth
	// the images' columns), which the GEMM splits over its few output
	// blocks only (16 images of 32→32 3×3 on 32×32: 1.5× on two cores
	// inside the GEMM, 1.9× by chunks).
	procs := runtime.GOMAXPROCS(0)
	par := chunks > 1 && procs > 1 && chunks*work >= gemmParallel && (work < 160*160*160 || chunks >= 4*procs)
	workers := 1
	if par {
		workers = procs
	}
	type scratch struct {
		xp, gw, bt []T
		held       []*[]T // for putScratch
	}
	bufs := make([]scratch, workers)
	size := G * outG * kk
	pp := getScratch[T](chunks * size) // each chunk's part is written whole
	defer putScratch(pp)
	parts := *pp
	defer func() {
		for _, s := range bufs {
			for _, b := range s.held {
				putScratch(b)
			}
		}
	}()
	// direct: the transposed im2col rows are packed straight from the
	// padded images (wideColsPacker), in the order tap by tap rather than
	// channel by channel, so that a sliver's rows are a plane apart; each
	// sum is the same (the same products in the same order, every sliver
	// whole in both orders), the columns put back in order after.
	direct := wideColsDirect && inG%asm.GemmTileCols[T]() == 0
	forChunks(chunks, par, func(wk, ch int) {
		s := &bufs[wk]
		if s.gw == nil {
			gw := getScratch[T](outG * ld)
			s.gw = *gw
			clear(s.gw) // the junk columns stay zero
			s.held = append(s.held, gw)
			if direct {
				bt := getScratch[T](outG * kk) // the product, tap by tap
				s.bt = *bt
				s.held = append(s.held, bt)
			} else {
				bt := getScratch[T](kk * ld) // rows copied whole
				s.bt = *bt
				s.held = append(s.held, bt)
			}
			if g.needsPad() {
				xp := getScratch[T](nb * g.c * g.plane)
				s.xp = *xp
				clear(s.xp)
				s.held = append(s.held, xp)
			}
		}
		n0 := ch * nb
		m := min(nb, N-n0)
		xp := wideChunk(g, x, n0, m, s.xp)
		cols := g.cols(m)
		for gr := range G {
			wideScatter(g, gy[(n0*G*outG+gr*outG)*g.outLen:], outG, m, G*outG, ld, s.gw)
			part := parts[ch*size+gr*outG*kk:][:outG*kk]
			if direct {
				pack := wideColsPacker(g, xp, gr*inG, inG)
				switch gw := any(s.gw).(type) {
				case []float32:
					asm.SgemmPacked(false, outG, kk, cols, 1, gw, ld, any(pack).(func([]float32, int, int, int, int, int)), 0, any(s.bt).([]float32), kk)
				case []float64:
					asm.DgemmPacked(false, outG, kk, cols, 1, gw, ld, any(pack).(func([]float64, int, int, int, int, int)), 0, any(s.bt).([]float64), kk)
				}
				for o := range outG {
					pr, br := part[o*kk:][:kk], s.bt[o*kk:][:kk]
					for t := range taps {
						for c, v := range br[t*inG : (t+1)*inG] {
							pr[c*taps+t] = v
						}
					}
				}
				continue
			}
			wideRows(g, xp, gr*inG, kk, m, ld, s.bt)
			switch gw := any(s.gw).(type) {
			case []float32:
				asm.Sgemm(false, true, outG, kk, cols, 1, gw, ld, any(s.bt).([]float32), ld, 0, any(part).([]float32), kk)
			case []float64:
				asm.Dgemm(false, true, outG, kk, cols, 1, gw, ld, any(s.bt).([]float64), ld, 0, any(part).([]float64), kk)
			}
		}
	})
	copy(dw[:size], parts)
	for ch := 1; ch < chunks; ch++ {
		for i, v := range parts[ch*size : (ch+1)*size] {
			dw[i] += v
		}
	}
	for _, v := range dw[:size] {
		if math.IsInf(float64(v), 0) || v != v {
			return false
		}
	}
	return true
}
