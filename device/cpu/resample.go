package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Resampling kernels: nearest and bilinear upsampling and grid_sampler_2d.
// Source indices and weights are computed in the precision PyTorch's CPU
// kernels use for the input's dtype and layout, so that indices taken at
// rounding boundaries (floor, round-half-even) match.

// resampleBF16 rounds a float32 to bfloat16 precision.
func resampleBF16(v float32) float32 { return tensor.BF16ToFloat32(tensor.Float32ToBF16(v)) }

// upsampleGather writes dst[n, c, oh, ow] = src[n, c, ih[oh], iw[ow]] for a
// strided 4-d src and a contiguous dst, moving raw elements.
func upsampleGather[E uint8 | uint16 | uint32 | uint64](dst, src []E, x *tensor.Tensor, ih, iw []int) {
	s := x.Sizes()
	st := x.Strides()
	ow := len(iw)
	plane := len(ih) * ow
	woff := make([]int, ow) // each output column's offset in a source row
	for j, w := range iw {
		woff[j] = w * st[3]
	}
	rep := nearestRepeat(iw, s[3], st[3])
	poolParallel(s[0]*s[1], plane, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			n, c := p/s[1], p%s[1]
			base := x.StorageOffset() + n*st[0] + c*st[1]
			k := p * plane
			for oh, h := range ih {
				d := dst[k : k+ow]
				if oh > 0 && h == ih[oh-1] {
					copy(d, dst[k-ow:k]) // the same source row as the output row above
				} else {
					row := base + h*st[2]
					switch rep {
					case 1:
						copy(d, src[row:row+ow])
					case 2:
						repeat2(d, src[row:row+ow/2])
					case 0:
						for j, o := range woff {
							d[j] = src[row+o]
						}
					default:
						repeatN(d, src[row:row+ow/rep], rep)
					}
				}
				k += ow
			}
		}
	})
}

// nearestRepeat reports how the source columns iw of a row of an input
// with w columns at stride st map to the output columns: k > 0 when the
// input row is unit-stride and each of its w elements repeats k times in
// turn (iw[j] = j/k; 1 is a plain copy), 0 otherwise.
func nearestRepeat(iw []int, w, st int) int {
	if w == 0 || len(iw)%w != 0 || (st != 1 && w > 1) {
		return 0
	}
	k := len(iw) / w
	for j, v := range iw {
		if v != j/k {
			return 0
		}
	}
	return k
}

// repeat2 sets d[2i] = d[2i+1] = s[i].
func repeat2[E any](d, s []E) {
	d = d[:2*len(s)]
	for i, v := range s {
		d[2*i] = v
		d[2*i+1] = v
	}
}

// repeatN sets d[k·i+j] = s[i] for j < k.
func repeatN[E any](d, s []E, k int) {
	d = d[:k*len(s)]
	for i, v := range s {
		r := d[k*i : k*i+k]
		for j := range r {
			r[j] = v
		}
	}
}

func upsampleNearest2dKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a) // upsampleGather writes all of it
	if out.Numel() == 0 {
		return out
	}
	x := args.UpsampleNearest2dOf(a).Input
	r := core.UpsampleGeometry(op, a)
	ih := core.NearestIndices(r.InH, r.OutH, r.ScaleH, r.ChannelsLast, x.DType())
	iw := core.NearestIndices(r.InW, r.OutW, r.ScaleW, r.ChannelsLast, x.DType())
	switch x.DType().ItemSize() {
	case 1:
		upsampleGather(data[uint8](out), data[uint8](x), x, ih, iw)
	case 2:
		upsampleGather(data[uint16](out), data[uint16](x), x, ih, iw)
	case 4:
		upsampleGather(data[uint32](out), data[uint32](x), x, ih, iw)
	case 8:
		upsampleGather(data[uint64](out), data[uint64](x), x, ih, iw)
	}
	return out
}

// upsampleTaps holds, per output position along one dim, the two input
// indices and their weights of linear interpolation.
type upsampleTaps[T poolFloat] struct {
	i0, i1 []int
	l0, l1 []T
}

// upsampleLinearWeights is compute_source_index_and_lambda over a dim: area-pixel
// source coordinates (or corner-aligned ones), copying for equal sizes. For
// bfloat16 PyTorch computes the scale from bfloat16 operands and stores
// the weights in bfloat16; the source coordinate stays in float32.
func upsampleLinearWeights[T poolFloat](in, out int, align bool, scale float64, d tensor.DType) upsampleTaps[T] {
	tp := upsampleTaps[T]{i0: make([]int, out), i1: make([]int, out), l0: make([]T, out), l1: make([]T, out)}
	reduced := d == tensor.BFloat16
	div := func(a, b int) T {
		if reduced {
			return T(resampleBF16(resampleBF16(float32(a)) / resampleBF16(float32(b))))
		}
		return T(a) / T(b)
	}
	var s T
	switch {
	case align:
		if out > 1 {
			s = div(in-1, out-1)
		}
	case scale > 0:
		s = T(1 / scale)
		if reduced {
			s = T(resampleBF16(float32(1 / scale)))
		}
	default:
		s = div(in, out)
	}
	for i := 0; i < out; i++ {
		if out == in {
			tp.i0[i], tp.i1[i], tp.l0[i], tp.l1[i] = i, i, 1, 0
			continue
		}
		var real T
		if align {
			real = s * T(i)
		} else {
			real = T(float64(float64(s)*(float64(i)+0.5)) - 0.5)
			if real < 0 {
				real = 0
			}
		}
		i0 := int(real)
		i1 := i0
		if i0 < in-1 {
			i1++
		}
		l1 := real - T(i0)
		l0 := 1 - l1
		if reduced {
			l1 = T(resampleBF16(float32(l1)))
			l0 = T(resampleBF16(float32(1 - l1)))
		}
		tp.i0[i], tp.i1[i], tp.l0[i], tp.l1[i] = i0, i1, l0, l1
	}
	return tp
}

// bilinear interpolates contiguous planes src (inH × inW) into dst. cl
// selects the formula of PyTorch's channels-last kernel (weights multiplied
// first); rnd, when not nil, rounds as its bfloat16 arithmetic does: every
// operation in the channels-first kernel, the weight products in the
// channels-last one. The channels-first formula interpolates along W first,
// so each input row is interpolated once and shared by the output rows
// that read it.
func bilinear[T poolFloat](dst, src []T, planes, inH, inW int, th, tw upsampleTaps[T], cl bool, rnd func(T) T) {
	outH, outW := len(th.i0), len(tw.i0)
	poolParallel(planes, outH*outW*4, 1, func(lo, hi int) {
		// rows caches two W-interpolated input rows, keyed by row index.
		rows := [2][]T{make([]T, outW), make([]T, outW)}
		keys := [2]int{-1, -1}
		row := func(h int, s []T) []T {
			for c := range keys {
				if keys[c] == h {
					return rows[c]
				}
			}
			c := 0
			if keys[0] >= 0 && keys[1] < 0 {
				c = 1
			} else if keys[0] >= 0 && keys[0] > keys[1] {
				c = 1 // evict the lower row: output rows move down
			}
			r, out := s[h*inW:(h+1)*inW], rows[c]
			for ow := range out {
				a, b, w0, w1 := tw.i0[ow], tw.i1[ow], tw.l0[ow], tw.l1[ow]
				if rnd != nil {
					out[ow] = rnd(rnd(r[a]*w0) + rnd(r[b]*w1))
				} else {
					out[ow] = T(r[a]*w0) + T(r[b]*w1)
				}
			}
			keys[c] = h
			return out
		}
		for p := lo; p < hi; p++ {
			s := src[p*inH*inW : (p+1)*inH*inW]
			d := dst[p*outH*outW : (p+1)*outH*outW]
			keys = [2]int{-1, -1}
			for oh := 0; oh < outH; oh++ {
				h0, h1 := th.l0[oh], th.l1[oh]
				o := d[oh*outW : (oh+1)*outW]
				if cl {
					r0, r1 := s[th.i0[oh]*inW:], s[th.i1[oh]*inW:]
					for ow := range o {
						a, b, w0, w1 := tw.i0[ow], tw.i1[ow], tw.l0[ow], tw.l1[ow]
						w00, w01, w10, w11 := h0*w0, h0*w1, h1*w0, h1*w1
						if rnd != nil {
							w00, w01, w10, w11 = rnd(w00), rnd(w01), rnd(w10), rnd(w11)
						}
						o[ow] = T(T(T(w00*r0[a])+T(w01*r0[b]))+T(w10*r1[a])) + T(w11*r1[b])
					}
					continue
				}
				t0 := row(th.i0[oh], s)
				t1 := row(th.i1[oh], s)
				if rnd != nil {
					for ow := range o {
						o[ow] = rnd(rnd(t0[ow]*h0) + rnd(t1[ow]*h1))
					}
				} else if o32, ok := any(o).([]float32); ok {
					asm.LerpF32(o32, any(t0).([]float32), float32(h0), any(t1).([]float32), float32(h1))
				} else {
					for ow := range o {
						o[ow] = T(t0[ow]*h0) + T(t1[ow]*h1)
					}
				}
			}
		}
	})
}

func upsampleBilinear2dKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	if out.Numel() == 0 {
		return out
	}
	p := args.UpsampleBilinear2dOf(a)
	x, align := p.Input, p.AlignCorners
	r := core.UpsampleGeometry(op, a)
	in, res := poolBuffers(out, x)
	planes := r.N * r.C
	switch res.DType() {
	case tensor.Float32:
		th := upsampleLinearWeights[float32](r.InH, r.OutH, align, r.ScaleH, x.DType())
		tw := upsampleLinearWeights[float32](r.InW, r.OutW, align, r.ScaleW, x.DType())
		bilinear(poolElems[float32](res), poolElems[float32](in), planes, r.InH, r.InW, th, tw, r.ChannelsLast, poolRound(x.DType()))
	case tensor.Float64:
		th := upsampleLinearWeights[float64](r.InH, r.OutH, align, r.ScaleH, x.DType())
		tw := upsampleLinearWeights[float64](r.InW, r.OutW, align, r.ScaleW, x.DType())
		bilinear(poolElems[float64](res), poolElems[float64](in), planes, r.InH, r.InW, th, tw, r.ChannelsLast, nil)
	}
	poolFinish(out, res)
	return out
}

// gridAxis maps normalized grid coordinates to input coordinates along one
// spatial dim of size n, as the vectorized CPU grid sampler does.
type gridAxis[T poolFloat] struct {
	n       int
	align   bool
	padding int
	scale   T // (n-1)/2 with align_corners, else n/2
	maxVal  T // n-1
	// reflection: the span between the reflection borders, doubled, and its low end
	twiceSpan, low T
}

func newGridAxis[T poolFloat](n int, align bool, padding int) gridAxis[T] {
	a := gridAxis[T]{n: n, align: align, padding: padding, maxVal: T(n - 1)}
	if align {
		a.scale = T(n-1) / 2
		a.twiceSpan = T(n-1) * 2
	} else {
		a.scale = T(n) / 2
		a.twiceSpan = T(n) * 2
		a.low = -0.5
	}
	return a
}

// unnormalize maps [-1, 1] to [0, n-1] (align_corners) or [-0.5, n-0.5].
func (a *gridAxis[T]) unnormalize(c T) T {
	if a.align {
		return (c + 1) * a.scale
	}
	// PyTorch's compiled kernel fuses this multiply-add.
	return T(math.FMA(float64(c+1), float64(a.scale), -0.5))
}

// clip clamps to [0, n-1], sending NaN to 0 as the vector max instruction does.
func (a *gridAxis[T]) clip(c T) T {
	if !(c > 0) {
		return 0
	}
	return min(c, a.maxVal)
}

// reflect folds c into [low, low+twiceSpan/2] by reflecting at the borders;
// NaN and infinities become NaN.
func (a *gridAxis[T]) reflect(c T) T {
	if a.twiceSpan == 0 {
		return 0
	}
	in := c - a.low
	if in < 0 {
		in = -in
	}
	flips := T(math.Trunc(float64(in / a.twiceSpan)))
	extra := in - T(flips*a.twiceSpan)
	other := a.twiceSpan - extra
	if other < extra || other != other {
		extra = other
	}
	return extra + a.low
}

// pad applies the padding mode to an unnormalized coordinate.
func (a *gridAxis[T]) pad(c T) T {
	switch a.padding {
	case core.GridPadBorder:
		return a.clip(c)
	case core.GridPadReflection:
		return a.clip(a.reflect(c))
	}
	return c
}

// index returns the integer coordinate c (an integral float) if it is
// inside the input, else -1.
func (a *gridAxis[T]) index(c T) int {
	if c >= 0 && c < T(a.n) {
		return int(c)
	}
	return -1
}

// gridCubicCoeffs are the bicubic convolution weights (A = -0.75) of the four
// taps around a point at fraction t past the second tap.
func gridCubicCoeffs[T poolFloat](t T) [4]T {
	const A = -0.75
	// Each product is rounded before its sum, as amd64 builds compute them:
	// the explicit conversions keep compilers for FMA machines (arm64) from
	// fusing them.
	c1 := func(x T) T {
		p := T((A+2)*x) - (A + 3)
		return T(p*x*x) + 1
	}
	c2 := func(x T) T {
		p := T(A*x) - 5*A
		p = T(p*x) + 8*A
		return T(p*x) - 4*A
	}
	return [4]T{c2(t + 1), c1(t), c1(1 - t), c2(1 - t + 1)}
}

// gridSample samples input planes (N × C × H × W, contiguous) at grid
// locations (N × gH × gW × 2, strided) into dst (N × C × gH × gW).
func gridSample[T poolFloat](dst, src []T, grid *tensor.Tensor, gdata []T, N, C, H, W, mode int, ax, ay gridAxis[T]) {
	gs := grid.Strides()
	gH, gW := grid.Size(1), grid.Size(2)
	outPlane := gH * gW
	poolParallel(N*outPlane, C*16, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			n, pos := k/outPlane, k%outPlane
			h, w := pos/gW, pos%gW
			goff := grid.StorageOffset() + n*gs[0] + h*gs[1] + w*gs[2]
			gx, gy := gdata[goff], gdata[goff+gs[3]]
			in := src[n*C*H*W : (n+1)*C*H*W]
			out := dst[n*C*outPlane+pos:]
			switch mode {
			case core.GridBilinear:
				x, y := ax.pad(ax.unnormalize(gx)), ay.pad(ay.unnormalize(gy))
				xw, yn := T(math.Floor(float64(x))), T(math.Floor(float64(y)))
				we, ns := x-xw, y-yn
				ew, sn := 1-we, 1-ns
				nw, ne, sw, se := sn*ew, sn*we, ns*ew, ns*we
				ix0, iy0 := ax.index(xw), ay.index(yn)
				ix1, iy1 := ax.index(xw+1), ay.index(yn+1)
				for c := 0; c < C; c++ {
					p := in[c*H*W:]
					var vnw, vne, vsw, vse T
					if iy0 >= 0 {
						if ix0 >= 0 {
							vnw = p[iy0*W+ix0]
						}
						if ix1 >= 0 {
							vne = p[iy0*W+ix1]
						}
					}
					if iy1 >= 0 {
						if ix0 >= 0 {
							vsw = p[iy1*W+ix0]
						}
						if ix1 >= 0 {
							vse = p[iy1*W+ix1]
						}
					}
					out[c*outPlane] = T(vnw*nw) + T(vne*ne) + T(vsw*sw) + T(vse*se)
				}
			case core.GridNearest:
				x, y := ax.pad(ax.unnormalize(gx)), ay.pad(ay.unnormalize(gy))
				ix := ax.index(T(math.RoundToEven(float64(x))))
				iy := ay.index(T(math.RoundToEven(float64(y))))
				for c := 0; c < C; c++ {
					var v T
					if ix >= 0 && iy >= 0 {
						v = in[c*H*W+iy*W+ix]
					}
					out[c*outPlane] = v
				}
			case core.GridBicubic:
				x, y := ax.unnormalize(gx), ay.unnormalize(gy)
				fx, fy := T(math.Floor(float64(x))), T(math.Floor(float64(y)))
				cx, cy := gridCubicCoeffs(x-fx), gridCubicCoeffs(y-fy)
				var ixs, iys [4]int
				for j := 0; j < 4; j++ {
					ixs[j] = ax.index(ax.pad(fx - 1 + T(j)))
					iys[j] = ay.index(ay.pad(fy - 1 + T(j)))
				}
				for c := 0; c < C; c++ {
					p := in[c*H*W:]
					var acc T
					for i := 0; i < 4; i++ {
						var row T
						for j := 0; j < 4; j++ {
							var v T
							if iys[i] >= 0 && ixs[j] >= 0 {
								v = p[iys[i]*W+ixs[j]]
							}
							row += T(cx[j] * v)
						}
						acc += T(cy[i] * row)
					}
					out[c*outPlane] = acc
				}
			}
		}
	})
}

func gridSampler2dKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	if out.Numel() == 0 {
		return out
	}
	p := args.GridSampler2dOf(a)
	x, grid := p.Input, p.Grid
	mode, padding, align := p.InterpolationMode, p.PaddingMode, p.AlignCorners
	in := contiguous(x)
	s := x.Sizes()
	N, C, H, W := s[0], s[1], s[2], s[3]
	switch x.DType() {
	case tensor.Float32:
		ax, ay := newGridAxis[float32](W, align, padding), newGridAxis[float32](H, align, padding)
		gridSample(data[float32](out), poolElems[float32](in), grid, data[float32](grid), N, C, H, W, mode, ax, ay)
	case tensor.Float64:
		ax, ay := newGridAxis[float64](W, align, padding), newGridAxis[float64](H, align, padding)
		gridSample(data[float64](out), poolElems[float64](in), grid, data[float64](grid), N, C, H, W, mode, ax, ay)
	}
	return out
}

func init() {
	impl("aten::upsample_nearest2d.vec", upsampleNearest2dKernel)
	impl("aten::upsample_bilinear2d.vec", upsampleBilinear2dKernel)
	impl("aten::grid_sampler_2d.default", gridSampler2dKernel)
}
