package newdevice

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
)

// Backward ops (the core set has them so that autograd can run on any
// device) and the remaining nn ops: distances, col2im, embedding bags, grid
// sampling. Most reuse the forward walks with the roles of input and output
// swapped.

// maskOut returns the raw value for output i of a backward op, or nil when
// output_mask leaves it out.
func maskOut(c *device.Call, i int, v []float64) any {
	if c.Out[i] == nil {
		return nil
	}
	return store(c.Out[i], v)
}

func convolutionBackward(c *device.Call) any {
	gout, in, w := c.Tensor(0), c.Tensor(1), c.Tensor(2)
	nd := in.Dim() - 2
	stride, pad, dil := spatial(c.Ints(4), nd), spatial(c.Ints(5), nd), spatial(c.Ints(6), nd)
	gv, iv, wv := vals(gout), vals(in), vals(w)
	gi, gw := make([]float64, len(iv)), make([]float64, len(wv))
	convWalk(in, w, gout, stride, pad, dil, c.Bool(7, false), c.Int(9, 1), func(o, i, k int) {
		gi[i] += gv[o] * wv[k]
		gw[k] += gv[o] * iv[i]
	})
	var gb []float64
	if c.Out[2] != nil {
		gb = make([]float64, gout.Size(1))
		sp := numel(gout.Sizes()[2:])
		for k, g := range gv {
			gb[(k/max(sp, 1))%gout.Size(1)] += g
		}
	}
	return []any{maskOut(c, 0, gi), maskOut(c, 1, gw), maskOut(c, 2, gb)}
}

func avgPool2dBackward(c *device.Call) any {
	gout, in := c.Tensor(0), c.Tensor(1)
	kernel := spatial(c.Ints(2), 2)
	stride := spatial(c.Ints(3), 2)
	if len(stride) == 0 {
		stride = kernel
	}
	pad := spatial(c.Ints(4), 2)
	include := c.Bool(6, true)
	divisor := c.Int(7, 0)
	gv := vals(gout)
	r := make([]float64, in.Numel())
	window(in, gout, kernel, stride, pad, ones(2), func(o int, idx []int, padded int) {
		d := float64(len(idx))
		switch {
		case divisor != 0:
			d = float64(divisor)
		case include:
			d = float64(padded)
		}
		for _, i := range idx {
			r[i] += gv[o] / d
		}
	})
	return store(c.Out[0], r)
}

func maxPool2dBackward(c *device.Call) any {
	gout, in, ix := c.Tensor(0), c.Tensor(1), c.Tensor(7)
	sp := numel(in.Sizes()[in.Dim()-2:])
	osp := numel(gout.Sizes()[gout.Dim()-2:])
	gv, iv := vals(gout), vals(ix)
	r := make([]float64, in.Numel())
	for o, g := range gv {
		r[(o/osp)*sp+int(iv[o])] += g
	}
	return store(c.Out[0], r)
}

func adaptiveAvgPool2dBackward(c *device.Call) any {
	gout, in := c.Tensor(0), c.Tensor(1)
	is, os := in.Sizes()[in.Dim()-2:], gout.Sizes()[gout.Dim()-2:]
	planes := numel(in.Sizes()[:in.Dim()-2])
	gv := vals(gout)
	r := make([]float64, in.Numel())
	for p := 0; p < planes; p++ {
		for oh := 0; oh < os[0]; oh++ {
			h0, h1 := oh*is[0]/os[0], ((oh+1)*is[0]+os[0]-1)/os[0]
			for ow := 0; ow < os[1]; ow++ {
				w0, w1 := ow*is[1]/os[1], ((ow+1)*is[1]+os[1]-1)/os[1]
				g := gv[(p*os[0]+oh)*os[1]+ow] / float64((h1-h0)*(w1-w0))
				for h := h0; h < h1; h++ {
					for w := w0; w < w1; w++ {
						r[(p*is[0]+h)*is[1]+w] += g
					}
				}
			}
		}
	}
	return store(c.Out[0], r)
}

func embeddingDenseBackward(c *device.Call) any {
	gout, ix := c.Tensor(0), c.Tensor(1)
	nw, padIdx, byFreq := c.Int(2, 0), c.Int(3, -1), c.Bool(4, false)
	d := c.Out[0].Size(1)
	gv, iv := vals(gout), vals(ix)
	count := map[int]int{}
	for _, i := range iv {
		count[int(i)]++
	}
	r := make([]float64, nw*d)
	for k, i := range iv {
		j := int(i)
		if j == padIdx {
			continue
		}
		scale := 1.0
		if byFreq {
			scale = 1 / float64(count[j])
		}
		for e := 0; e < d; e++ {
			r[j*d+e] += gv[k*d+e] * scale
		}
	}
	return store(c.Out[0], r)
}

// normBackward computes dx, dw, db of a normalisation whose groups of flat
// indices share mean[g] and rstd[g], with per-element channel ch(i) for the
// weight.
func normBackward(c *device.Call, dy, x []float64, gs [][]int, mean, rstd []float64, w *gt.Tensor, ch func(i int) int, nch int) (dx, dw, db []float64) {
	var wv []float64
	if w != nil {
		wv = vals(w)
	}
	dx = make([]float64, len(x))
	dw, db = make([]float64, nch), make([]float64, nch)
	for g, idx := range gs {
		n := float64(len(idx))
		var s1, s2 float64
		for _, i := range idx {
			xh := (x[i] - mean[g]) * rstd[g]
			gi := dy[i]
			if wv != nil {
				gi *= wv[ch(i)]
			}
			s1 += gi
			s2 += gi * xh
			dw[ch(i)] += dy[i] * xh
			db[ch(i)] += dy[i]
		}
		for _, i := range idx {
			xh := (x[i] - mean[g]) * rstd[g]
			gi := dy[i]
			if wv != nil {
				gi *= wv[ch(i)]
			}
			dx[i] = rstd[g] / n * (n*gi - s1 - xh*s2)
		}
	}
	return dx, dw, db
}

func layerNormBackward(c *device.Call) any {
	dy, x := c.Tensor(0), c.Tensor(1)
	norm := c.Ints(2)
	axis := x.Dim() - len(norm)
	inner := numel(x.Sizes()[axis:])
	gs := make([][]int, numel(x.Sizes()[:axis]))
	for g := range gs {
		for i := 0; i < inner; i++ {
			gs[g] = append(gs[g], g*inner+i)
		}
	}
	dx, dw, db := normBackward(c, vals(dy), vals(x), gs, vals(c.Tensor(3)), vals(c.Tensor(4)), c.Tensor(5),
		func(i int) int { return i % max(inner, 1) }, inner)
	return []any{maskOut(c, 0, dx), maskOut(c, 1, dw), maskOut(c, 2, db)}
}

func groupNormBackward(c *device.Call) any {
	dy, x := c.Tensor(0), c.Tensor(1)
	N, C, HxW, G := c.Int(5, 0), c.Int(6, 0), c.Int(7, 0), c.Int(8, 1)
	per := C / max(G, 1) * HxW
	gs := make([][]int, N*G)
	for g := range gs {
		for i := 0; i < per; i++ {
			gs[g] = append(gs[g], g*per+i)
		}
	}
	dx, dw, db := normBackward(c, vals(dy), vals(x), gs, vals(c.Tensor(2)), vals(c.Tensor(3)), c.Tensor(4),
		func(i int) int { return (i / max(HxW, 1)) % C }, C)
	return []any{maskOut(c, 0, dx), maskOut(c, 1, dw), maskOut(c, 2, db)}
}

// col2im sums the columns of an im2col matrix back into an image.
func col2im(c *device.Call) any {
	in, out := c.Tensor(0), c.Out[0]
	ks, dil, pad, st := c.Ints(2), c.Ints(3), c.Ints(4), c.Ints(5)
	batched := in.Dim() == 3
	N := 1
	if batched {
		N = in.Size(0)
	}
	H, W := out.Size(out.Dim()-2), out.Size(out.Dim()-1)
	C := out.Size(out.Dim() - 3)
	oh := (H+2*pad[0]-dil[0]*(ks[0]-1)-1)/st[0] + 1
	ow := (W+2*pad[1]-dil[1]*(ks[1]-1)-1)/st[1] + 1
	v := vals(in)
	r := make([]float64, out.Numel())
	L := oh * ow
	for n := 0; n < N; n++ {
		for ch := 0; ch < C; ch++ {
			for ki := 0; ki < ks[0]; ki++ {
				for kj := 0; kj < ks[1]; kj++ {
					row := (ch*ks[0]+ki)*ks[1] + kj
					for l := 0; l < L; l++ {
						h := (l/ow)*st[0] - pad[0] + ki*dil[0]
						w := (l%ow)*st[1] - pad[1] + kj*dil[1]
						if h >= 0 && h < H && w >= 0 && w < W {
							r[((n*C+ch)*H+h)*W+w] += v[(n*C*ks[0]*ks[1]+row)*L+l]
						}
					}
				}
			}
		}
	}
	return store(out, r)
}

// pnorm is the p-norm of differences, as cdist and pdist define it.
func pnorm(d []float64, p float64) float64 {
	switch {
	case p == 0:
		n := 0.0
		for _, x := range d {
			if x != 0 {
				n++
			}
		}
		return n
	case math.IsInf(p, 1):
		m := 0.0
		for _, x := range d {
			m = math.Max(m, math.Abs(x))
		}
		return m
	}
	s := 0.0
	for _, x := range d {
		s += math.Pow(math.Abs(x), p)
	}
	return math.Pow(s, 1/p)
}

func cdist(c *device.Call) any {
	out := c.Out[0]
	p := c.Float(2, 2)
	os := out.Sizes()
	P, R := os[len(os)-2], os[len(os)-1]
	x1, x2 := c.Tensor(0), c.Tensor(1)
	M := x1.Size(-1)
	batch := os[:len(os)-2]
	a := expand(x1, append(append([]int(nil), batch...), P, M))
	b := expand(x2, append(append([]int(nil), batch...), R, M))
	r := make([]float64, out.Numel())
	d := make([]float64, M)
	for bi := 0; bi < numel(batch); bi++ {
		for i := 0; i < P; i++ {
			for j := 0; j < R; j++ {
				for k := range d {
					d[k] = a[(bi*P+i)*M+k] - b[(bi*R+j)*M+k]
				}
				r[(bi*P+i)*R+j] = pnorm(d, p)
			}
		}
	}
	return store(out, r)
}

func pdist(c *device.Call) any {
	x, out := c.Tensor(0), c.Out[0]
	p := c.Float(1, 2)
	N, M := x.Size(0), x.Size(1)
	v := vals(x)
	r := make([]float64, 0, out.Numel())
	d := make([]float64, M)
	for i := 0; i < N; i++ {
		for j := i + 1; j < N; j++ {
			for k := range d {
				d[k] = v[i*M+k] - v[j*M+k]
			}
			r = append(r, pnorm(d, p))
		}
	}
	return store(out, r)
}

func backward() table {
	t := table{}
	t.add(convolutionBackward, "aten::convolution_backward.default")
	t.add(avgPool2dBackward, "aten::avg_pool2d_backward.default")
	t.add(maxPool2dBackward, "aten::max_pool2d_with_indices_backward.default")
	t.add(adaptiveAvgPool2dBackward, "aten::_adaptive_avg_pool2d_backward.default")
	t.add(embeddingDenseBackward, "aten::embedding_dense_backward.default")
	t.add(layerNormBackward, "aten::native_layer_norm_backward.default")
	t.add(groupNormBackward, "aten::native_group_norm_backward.default")
	t.add(col2im, "aten::col2im.default")
	t.add(cdist, "aten::_cdist_forward.default")
	t.add(pdist, "aten::_pdist_forward.default")
	t.add(embeddingBag, "aten::_embedding_bag.default")
	t.add(gridSampler, "aten::grid_sampler_2d.default")
	return t
}

// embeddingBag is _embedding_bag(weight, indices, offsets, scale_grad,
// mode, sparse, per_sample_weights, include_last_offset, padding_idx) ->
// (output, offset2bag, bag_size, max_indices), mode 0 sum, 1 mean, 2 max.
// As in PyTorch, bag_size is zero in sum mode and max_indices repeats
// bag_size unless the mode is max.
func embeddingBag(c *device.Call) any {
	weight := c.Tensor(0)
	idx, offs := vals(c.Tensor(1)), vals(c.Tensor(2))
	mode, pad := c.Int(4, 0), c.Int(8, -1)
	var psw []float64
	if t := c.Tensor(6); t != nil {
		psw = vals(t)
	}
	out := c.Out[0]
	bags, dim := out.Size(0), out.Size(1)
	wv := vals(weight)
	rows := weight.Size(0)
	for i, v := range idx {
		if int(v) != pad && (v < 0 || int(v) >= rows) {
			fail(fmt.Sprintf("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be %d (Index %d is out of bounds: %d, range 0 to %d)", int(v), i, int(v), rows))
		}
	}
	n := len(idx)
	o2b := make([]float64, c.Out[1].Numel())
	if len(o2b) > 0 {
		b, k := 0, 1
		for i := 0; i < n; i++ {
			for k < len(offs) && int(offs[k]) <= i {
				k++
				b++
			}
			o2b[i] = float64(b)
		}
	}
	r := make([]float64, bags*dim)
	sizes := make([]float64, bags)
	argmax := make([]float64, bags*dim)
	for b := 0; b < bags; b++ {
		start, end := int(offs[b]), n
		if b+1 < len(offs) {
			end = int(offs[b+1])
		}
		acc := r[b*dim : (b+1)*dim]
		cnt := 0
		for i := start; i < end; i++ {
			v := int(idx[i])
			if v == pad {
				continue
			}
			row := wv[v*dim : (v+1)*dim]
			for j, x := range row {
				switch {
				case mode == 2:
					if cnt == 0 || x > acc[j] {
						acc[j], argmax[b*dim+j] = x, float64(v)
					}
				case psw != nil:
					acc[j] += psw[i] * x
				default:
					acc[j] += x
				}
			}
			cnt++
		}
		if mode == 1 && cnt > 0 {
			for j := range acc {
				acc[j] = round(weight.DType(), acc[j]) / float64(cnt)
			}
		}
		if mode != 0 {
			sizes[b] = float64(cnt)
		}
	}
	maxIdx := sizes
	if mode == 2 {
		maxIdx = argmax
	}
	return []any{store(out, r), store(c.Out[1], o2b), store(c.Out[2], sizes), store(c.Out[3], pad0(maxIdx, c.Out[3]))}
}

// gridAxis maps normalized grid coordinates to input coordinates along one
// spatial dim of size n, with padding mode 0 (zeros), 1 (border) or 2
// (reflection).
type gridAxis struct {
	n, padding int
	align      bool
}

func (a gridAxis) unnormalize(c float64) float64 {
	if a.align {
		return (c + 1) * float64(a.n-1) / 2
	}
	return ((c+1)*float64(a.n) - 1) / 2
}

func (a gridAxis) clip(c float64) float64 {
	if !(c > 0) {
		return 0
	}
	return math.Min(c, float64(a.n-1))
}

func (a gridAxis) reflect(c float64) float64 {
	low, span := -0.5, float64(a.n)*2
	if a.align {
		low, span = 0, float64(a.n-1)*2
	}
	if span == 0 {
		return 0
	}
	in := math.Abs(c - low)
	extra := in - math.Trunc(in/span)*span
	if other := span - extra; other < extra || other != other {
		extra = other
	}
	return extra + low
}

func (a gridAxis) pad(c float64) float64 {
	switch a.padding {
	case 1:
		return a.clip(c)
	case 2:
		return a.clip(a.reflect(c))
	}
	return c
}

// index is c as an index into the dim, or -1 outside it.
func (a gridAxis) index(c float64) int {
	if c >= 0 && c < float64(a.n) {
		return int(c)
	}
	return -1
}

func cubic(t float64) [4]float64 {
	const A = -0.75
	c1 := func(x float64) float64 { return ((A+2)*x-(A+3))*x*x + 1 }
	c2 := func(x float64) float64 { return ((A*x-5*A)*x+8*A)*x - 4*A }
	return [4]float64{c2(t + 1), c1(t), c1(1 - t), c2(2 - t)}
}

// gridSampler is grid_sampler_2d(input, grid, mode, padding_mode,
// align_corners), mode 0 bilinear, 1 nearest, 2 bicubic.
func gridSampler(c *device.Call) any {
	in, grid, out := c.Tensor(0), c.Tensor(1), c.Out[0]
	mode, padding, align := c.Int(2, 0), c.Int(3, 0), c.Bool(4, false)
	N, C, H, W := in.Size(0), in.Size(1), in.Size(2), in.Size(3)
	gH, gW := grid.Size(1), grid.Size(2)
	ax, ay := gridAxis{W, padding, align}, gridAxis{H, padding, align}
	v, g := vals(in), vals(grid)
	r := make([]float64, out.Numel())
	at := func(n, ch, y, x int) float64 {
		if y < 0 || x < 0 {
			return 0
		}
		return v[((n*C+ch)*H+y)*W+x]
	}
	for n := 0; n < N; n++ {
		for p := 0; p < gH*gW; p++ {
			gx, gy := g[(n*gH*gW+p)*2], g[(n*gH*gW+p)*2+1]
			for ch := 0; ch < C; ch++ {
				var val float64
				switch mode {
				case 0:
					x, y := ax.pad(ax.unnormalize(gx)), ay.pad(ay.unnormalize(gy))
					x0, y0 := math.Floor(x), math.Floor(y)
					we, ns := x-x0, y-y0
					ix0, iy0, ix1, iy1 := ax.index(x0), ay.index(y0), ax.index(x0+1), ay.index(y0+1)
					val = at(n, ch, iy0, ix0)*(1-ns)*(1-we) + at(n, ch, iy0, ix1)*(1-ns)*we +
						at(n, ch, iy1, ix0)*ns*(1-we) + at(n, ch, iy1, ix1)*ns*we
				case 1:
					x, y := ax.pad(ax.unnormalize(gx)), ay.pad(ay.unnormalize(gy))
					val = at(n, ch, ay.index(math.RoundToEven(y)), ax.index(math.RoundToEven(x)))
				default:
					x, y := ax.unnormalize(gx), ay.unnormalize(gy)
					fx, fy := math.Floor(x), math.Floor(y)
					cx, cy := cubic(x-fx), cubic(y-fy)
					for i := 0; i < 4; i++ {
						row := 0.0
						for j := 0; j < 4; j++ {
							row += cx[j] * at(n, ch, ay.index(ay.pad(fy-1+float64(i))), ax.index(ax.pad(fx-1+float64(j))))
						}
						val += cy[i] * row
					}
				}
				r[(n*C+ch)*gH*gW+p] = val
			}
		}
	}
	return store(out, r)
}
