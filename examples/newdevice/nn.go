package newdevice

import (
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
	"gonum.org/v1/gonum/mat"
)

// Neural-network ops: matrix products with gonum/mat, convolution, pooling,
// normalisation, embedding, dropout, padding and upsampling.

// matmul multiplies a (m×k) by b (k×n) with gonum.
func matmul(a, b []float64, m, k, n int) []float64 {
	r := make([]float64, m*n)
	if m == 0 || n == 0 {
		return r
	}
	if k == 0 {
		return r
	}
	var c mat.Dense
	c.Mul(mat.NewDense(m, k, a), mat.NewDense(k, n, b))
	copy(r, c.RawMatrix().Data)
	return r
}

func mm(c *device.Call) any {
	a, b, out := c.Tensor(0), c.Tensor(1), c.Out[0]
	return store(out, matmul(vals(a), vals(b), a.Size(0), a.Size(1), b.Size(1)))
}

func bmm(c *device.Call) any {
	a, b, out := c.Tensor(0), c.Tensor(1), c.Out[0]
	bs, m, k, n := a.Size(0), a.Size(1), a.Size(2), b.Size(2)
	av, bv := vals(a), vals(b)
	r := make([]float64, 0, bs*m*n)
	for i := 0; i < bs; i++ {
		r = append(r, matmul(av[i*m*k:(i+1)*m*k], bv[i*k*n:(i+1)*k*n], m, k, n)...)
	}
	return store(out, r)
}

// addmm is beta*self + alpha*(mat1 @ mat2).
func addmm(c *device.Call) any {
	a, b, out := c.Tensor(1), c.Tensor(2), c.Out[0]
	beta, _ := c.Scalar(3)
	alpha, _ := c.Scalar(4)
	p := matmul(vals(a), vals(b), a.Size(0), a.Size(1), b.Size(1))
	self := expand(c.Tensor(0), out.Sizes())
	// Integer outputs take alpha and beta as integers.
	al, be := opRound(out.DType(), alpha.Float64()), opRound(out.DType(), beta.Float64())
	for i := range p {
		p[i] *= al
		if be != 0 {
			p[i] += be * self[i]
		}
	}
	return store(out, p)
}

// convWalk calls f(outIndex, inIndex, weightIndex) for every product term
// of an N-d convolution (or, transposed, of its adjoint).
func convWalk(in, w, out *gt.Tensor, stride, pad, dil []int, transposed bool, groups int, f func(o, i, k int)) {
	N, Cin, Cout := in.Size(0), in.Size(1), out.Size(1)
	is, ks, os := in.Sizes()[2:], w.Sizes()[2:], out.Sizes()[2:]
	nd := len(is)
	inSp, kSp, outSp := numel(is), numel(ks), numel(os)
	cinG, coutG := Cin/groups, Cout/groups
	ipos, kpos, opos := make([]int, nd), make([]int, nd), make([]int, nd)
	for n := 0; n < N; n++ {
		for g := 0; g < groups; g++ {
			for oc := 0; oc < coutG; oc++ {
				for ic := 0; ic < cinG; ic++ {
					var wbase int
					if transposed {
						wbase = ((g*cinG+ic)*coutG + oc) * kSp
					} else {
						wbase = ((g*coutG+oc)*cinG + ic) * kSp
					}
					ibase := (n*Cin + g*cinG + ic) * inSp
					obase := (n*Cout + g*coutG + oc) * outSp
					for k := 0; k < kSp; k++ {
						multi(k, ks, kpos)
						if transposed {
							for i := 0; i < inSp; i++ {
								multi(i, is, ipos)
								ok := true
								for d := range opos {
									opos[d] = ipos[d]*stride[d] - pad[d] + kpos[d]*dil[d]
									ok = ok && opos[d] >= 0 && opos[d] < os[d]
								}
								if ok {
									f(obase+flat(opos, os), ibase+i, wbase+k)
								}
							}
							continue
						}
						for o := 0; o < outSp; o++ {
							multi(o, os, opos)
							ok := true
							for d := range ipos {
								ipos[d] = opos[d]*stride[d] - pad[d] + kpos[d]*dil[d]
								ok = ok && ipos[d] >= 0 && ipos[d] < is[d]
							}
							if ok {
								f(obase+o, ibase+flat(ipos, is), wbase+k)
							}
						}
					}
				}
			}
		}
	}
}

// spatial repeats a one-element int list to nd entries.
func spatial(v []int, nd int) []int {
	if len(v) == 1 && nd > 1 {
		out := make([]int, nd)
		for i := range out {
			out[i] = v[0]
		}
		return out
	}
	return v
}

func convolution(c *device.Call) any {
	in, w, out := c.Tensor(0), c.Tensor(1), c.Out[0]
	nd := in.Dim() - 2
	stride, pad, dil := spatial(c.Ints(3), nd), spatial(c.Ints(4), nd), spatial(c.Ints(5), nd)
	r := make([]float64, out.Numel())
	iv, wv := vals(in), vals(w)
	convWalk(in, w, out, stride, pad, dil, c.Bool(6, false), c.Int(8, 1), func(o, i, k int) {
		r[o] += iv[i] * wv[k]
	})
	if b := c.Tensor(2); b != nil {
		bv := vals(b)
		sp := numel(out.Sizes()[2:])
		for k := range r {
			r[k] += bv[(k/sp)%out.Size(1)]
		}
	}
	return store(out, r)
}

// window walks the pooling windows of a [N, C, *spatial] input: for each
// output element its flat index and the input's flat indices in its window
// (padding excluded) and the window's size with padding counted.
func window(in, out *gt.Tensor, kernel, stride, pad, dil []int, f func(o int, idx []int, padded int)) {
	nd := len(kernel)
	is, os := in.Sizes()[in.Dim()-nd:], out.Sizes()[out.Dim()-nd:]
	planes := numel(in.Sizes()[:in.Dim()-nd])
	inSp, outSp := numel(is), numel(os)
	opos, ipos, kpos := make([]int, nd), make([]int, nd), make([]int, nd)
	var idx []int
	for p := 0; p < planes; p++ {
		for o := 0; o < outSp; o++ {
			multi(o, os, opos)
			idx = idx[:0]
			padded := 1
			for d := range kernel {
				lo := opos[d]*stride[d] - pad[d]
				hi := min(lo+(kernel[d]-1)*dil[d]+1, is[d]+pad[d])
				padded *= hi - lo
			}
			for k := 0; k < numel(kernel); k++ {
				multi(k, kernel, kpos)
				ok := true
				for d := range ipos {
					ipos[d] = opos[d]*stride[d] - pad[d] + kpos[d]*dil[d]
					ok = ok && ipos[d] >= 0 && ipos[d] < is[d]
				}
				if ok {
					idx = append(idx, p*inSp+flat(ipos, is))
				}
			}
			f(p*outSp+o, idx, padded)
		}
	}
}

func ones(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// avgPool: avg_pool1d/2d/3d(self, kernel, stride, padding, ceil_mode,
// count_include_pad[, divisor_override]).
func avgPool(nd int) device.Lowering {
	return func(c *device.Call) any {
		in, out := c.Tensor(0), c.Out[0]
		kernel := spatial(c.Ints(1), nd)
		stride := spatial(c.Ints(2), nd)
		if len(stride) == 0 {
			stride = kernel
		}
		pad := spatial(c.Ints(3), nd)
		include := c.Bool(5, true)
		divisor := 0
		if len(c.Args) > 6 {
			divisor = c.Int(6, 0)
		}
		v := vals(in)
		r := make([]float64, out.Numel())
		window(in, out, kernel, stride, pad, ones(nd), func(o int, idx []int, padded int) {
			s := 0.0
			for _, i := range idx {
				s += v[i]
			}
			switch {
			case divisor != 0:
				r[o] = s / float64(divisor)
			case include:
				r[o] = s / float64(padded)
			default:
				r[o] = s / float64(len(idx))
			}
		})
		return store(out, r)
	}
}

// maxPool: max_pool2d/3d_with_indices(self, kernel, stride, padding,
// dilation, ceil_mode) -> (values, indices in the spatial plane).
func maxPool(nd int) device.Lowering {
	return func(c *device.Call) any {
		in, out := c.Tensor(0), c.Out[0]
		kernel := spatial(c.Ints(1), nd)
		stride := spatial(c.Ints(2), nd)
		if len(stride) == 0 {
			stride = kernel
		}
		pad, dil := spatial(c.Ints(3), nd), spatial(c.Ints(4), nd)
		v := vals(in)
		sp := numel(in.Sizes()[in.Dim()-nd:])
		r, ix := make([]float64, out.Numel()), make([]float64, out.Numel())
		window(in, out, kernel, stride, pad, dil, func(o int, idx []int, _ int) {
			best := -1
			for _, i := range idx {
				if best < 0 || v[i] > v[best] || v[i] != v[i] && v[best] == v[best] {
					best = i
				}
			}
			r[o], ix[o] = v[best], float64(best%sp)
		})
		return []any{store(out, r), store(c.Out[1], ix)}
	}
}

// adaptiveAvgPool averages adaptive windows over the last nd dims.
func adaptiveAvgPool(nd int) device.Lowering {
	return func(c *device.Call) any {
		in, out := c.Tensor(0), c.Out[0]
		is, os := in.Sizes()[in.Dim()-nd:], out.Sizes()[out.Dim()-nd:]
		planes := numel(in.Sizes()[:in.Dim()-nd])
		v := vals(in)
		r := make([]float64, out.Numel())
		opos, ipos := make([]int, nd), make([]int, nd)
		lo, hi := make([]int, nd), make([]int, nd)
		inSp, outSp := numel(is), numel(os)
		for p := 0; p < planes; p++ {
			for o := 0; o < outSp; o++ {
				multi(o, os, opos)
				size := 1
				for d := range opos {
					lo[d] = opos[d] * is[d] / os[d]
					hi[d] = ((opos[d]+1)*is[d] + os[d] - 1) / os[d]
					size *= hi[d] - lo[d]
				}
				s := 0.0
				sizes := make([]int, nd)
				for d := range sizes {
					sizes[d] = hi[d] - lo[d]
				}
				for k := 0; k < size; k++ {
					multi(k, sizes, ipos)
					for d := range ipos {
						ipos[d] += lo[d]
					}
					s += v[p*inSp+flat(ipos, is)]
				}
				r[p*outSp+o] = s / float64(size)
			}
		}
		return store(out, r)
	}
}

// normalize computes, for each group of flat indices, (x-mean)*rstd and
// returns the values, means and rstds.
func normalize(v []float64, gs [][]int, eps float64) ([]float64, []float64, []float64) {
	r := make([]float64, len(v))
	means, rstds := make([]float64, len(gs)), make([]float64, len(gs))
	for g, idx := range gs {
		m, s := 0.0, 0.0
		for _, i := range idx {
			m += v[i]
		}
		m /= float64(max(len(idx), 1))
		for _, i := range idx {
			s += (v[i] - m) * (v[i] - m)
		}
		rstd := 1 / math.Sqrt(s/float64(max(len(idx), 1))+eps)
		for _, i := range idx {
			r[i] = (v[i] - m) * rstd
		}
		means[g], rstds[g] = m, rstd
	}
	return r, means, rstds
}

// affine applies per-channel weight and bias: channel(i) says which.
func affine(r []float64, w, b *gt.Tensor, channel func(i int) int) {
	var wv, bv []float64
	if w != nil {
		wv = vals(w)
	}
	if b != nil {
		bv = vals(b)
	}
	for i := range r {
		ch := channel(i)
		if wv != nil {
			r[i] *= wv[ch]
		}
		if bv != nil {
			r[i] += bv[ch]
		}
	}
}

func layerNorm(c *device.Call) any {
	in := c.Tensor(0)
	norm := c.Ints(1)
	axis := in.Dim() - len(norm)
	inner := numel(in.Sizes()[axis:])
	gs := make([][]int, numel(in.Sizes()[:axis]))
	for g := range gs {
		for i := 0; i < inner; i++ {
			gs[g] = append(gs[g], g*inner+i)
		}
	}
	eps := c.Float(4, 1e-5)
	v := vals(in)
	r, m, s := normalize(v, gs, eps)
	affine(r, c.Tensor(2), c.Tensor(3), func(i int) int { return i % inner })
	if d := in.DType(); d == gt.Float32 || d == gt.BFloat16 {
		layerNormF32(v, r, m, s, inner, eps, c.Tensor(2), c.Tensor(3), d == gt.BFloat16)
	}
	return []any{store(c.Out[0], r), store(c.Out[1], m), store(c.Out[2], s)}
}

func groupNorm(c *device.Call) any {
	in := c.Tensor(0)
	N, C, HxW, G := c.Int(3, 0), c.Int(4, 0), c.Int(5, 0), c.Int(6, 1)
	per := C / G * HxW
	gs := make([][]int, N*G)
	for g := range gs {
		for i := 0; i < per; i++ {
			gs[g] = append(gs[g], g*per+i)
		}
	}
	r, m, s := normalize(vals(in), gs, c.Float(7, 1e-5))
	affine(r, c.Tensor(1), c.Tensor(2), func(i int) int { return (i / max(HxW, 1)) % C })
	return []any{store(c.Out[0], r), store(c.Out[1], m), store(c.Out[2], s)}
}

// batchNorm runs the three _native_batch_norm_legit variants: args are
// (input, weight, bias, running_mean?, running_var?, training, momentum,
// eps) with the running statistics and/or training left out by some.
func batchNorm(hasStats, hasTraining bool) device.Lowering {
	return func(c *device.Call) any {
		in := c.Tensor(0)
		var rm, rv *gt.Tensor
		i := 3
		if hasStats {
			rm, rv = c.Tensor(3), c.Tensor(4)
			i = 5
		}
		training := false
		if hasTraining {
			training = c.Bool(i, false)
			i++
		}
		momentum, eps := c.Float(i, 0.1), c.Float(i+1, 1e-5)
		C := in.Size(1)
		sp := numel(in.Sizes()[2:])
		ch := func(k int) int { return (k / max(sp, 1)) % C }
		v := vals(in)
		gs := make([][]int, C)
		for k := range v {
			gs[ch(k)] = append(gs[ch(k)], k)
		}
		var r, means, rstds []float64
		var newMean, newVar any
		if training {
			r, means, rstds = normalize(v, gs, eps)
			if rm != nil {
				nm, nv := append([]float64(nil), vals(rm)...), append([]float64(nil), vals(rv)...)
				for k := range nm {
					n := float64(len(gs[k]))
					vr := 1/(rstds[k]*rstds[k]) - eps
					nm[k] = (1-momentum)*nm[k] + momentum*means[k]
					nv[k] = (1-momentum)*nv[k] + momentum*vr*n/math.Max(n-1, 1)
				}
				newMean, newVar = store(rm, nm), store(rv, nv)
			}
		} else {
			rmv, rvv := vals(rm), vals(rv)
			r = make([]float64, len(v))
			for k, x := range v {
				r[k] = (x - rmv[ch(k)]) / math.Sqrt(rvv[ch(k)]+eps)
			}
		}
		affine(r, c.Tensor(1), c.Tensor(2), ch)
		res := []any{store(c.Out[0], r), store(c.Out[1], pad0(means, c.Out[1])), store(c.Out[2], pad0(rstds, c.Out[2]))}
		if hasStats && hasTraining {
			res = append(res, newMean, newVar)
		}
		return res
	}
}

// pad0 returns v sized for out (empty when out is).
func pad0(v []float64, out *gt.Tensor) []float64 {
	r := make([]float64, out.Numel())
	copy(r, v)
	return r
}

func embedding(c *device.Call) any {
	w, ix, out := c.Tensor(0), c.Tensor(1), c.Out[0]
	d := w.Size(1)
	wv := vals(w)
	r := make([]float64, 0, out.Numel())
	for _, i := range vals(ix) {
		j := int(i)
		if j < 0 || j >= w.Size(0) {
			fail("index out of range in self")
		}
		r = append(r, wv[j*d:(j+1)*d]...)
	}
	return Array{r}
}

func dropout(c *device.Call) any {
	in, out := c.Tensor(0), c.Out[0]
	p := c.Float(1, 0.5)
	train := c.Bool(2, true)
	v := vals(in)
	r, mask := make([]float64, len(v)), make([]float64, len(v))
	var u []float64
	if train && len(v) > 0 {
		u = gt.Rand(len(v)).Float64s()
	}
	scale := 1.0
	if train && p < 1 {
		scale = 1 / (1 - p)
	}
	for i, x := range v {
		if !train || u[i] >= p {
			mask[i] = 1
		}
		r[i] = x * mask[i] * scale // NaN input stays NaN, as in PyTorch
	}
	return []any{store(out, r), store(c.Out[1], mask)}
}

// padIndex maps an output index to a source index for reflection and
// replication padding over the last len(pad)/2 dims.
func padding(reflect bool) device.Lowering {
	return func(c *device.Call) any {
		x, out := c.Tensor(0), c.Out[0]
		lo := padLo(c.Ints(1), x.Dim())
		return padGather(x, out, 0, func(d, i int) int {
			n := x.Sizes()[d]
			j := i - lo[d]
			if reflect {
				if j < 0 {
					j = -j
				}
				if j >= n {
					j = 2*(n-1) - j
				}
				return j
			}
			return min(max(j, 0), n-1)
		})
	}
}

// scales reads the scale_factors argument of an upsample op (nil: derive
// from sizes).
func scales(c *device.Call, i int) []float64 {
	if f, ok := c.Args[i].([]float64); ok {
		return f
	}
	return nil
}

func upsampleNearest(c *device.Call) any {
	in, out := c.Tensor(0), c.Out[0]
	sf := scales(c, 2)
	is, os := in.Sizes()[2:], out.Sizes()[2:]
	return padGather(in, out, 0, func(d, i int) int {
		if d < 2 {
			return i
		}
		k := d - 2
		scale := float64(is[k]) / float64(os[k])
		if sf != nil {
			scale = 1 / sf[k]
		}
		return min(int(math.Floor(float64(i)*float64(float32(scale)))), is[k]-1)
	})
}

func upsampleBilinear(c *device.Call) any {
	in, out := c.Tensor(0), c.Out[0]
	align := c.Bool(2, false)
	sf := scales(c, 3)
	N, C := in.Size(0), in.Size(1)
	H, W, OH, OW := in.Size(2), in.Size(3), out.Size(2), out.Size(3)
	src := func(o, inS, outS, k int) (int, int, float64) {
		var x float64
		switch {
		case align && outS > 1:
			x = float64(o) * float64(inS-1) / float64(outS-1)
		case align:
			x = 0
		default:
			scale := float64(inS) / float64(outS)
			if sf != nil {
				scale = 1 / sf[k]
			}
			x = math.Max(0, (float64(o)+0.5)*scale-0.5)
		}
		i0 := min(int(x), inS-1)
		i1 := min(i0+1, inS-1)
		return i0, i1, x - float64(i0)
	}
	v := vals(in)
	r := make([]float64, out.Numel())
	for p := 0; p < N*C; p++ {
		for oh := 0; oh < OH; oh++ {
			h0, h1, lh := src(oh, H, OH, 0)
			for ow := 0; ow < OW; ow++ {
				w0, w1, lw := src(ow, W, OW, 1)
				b := p * H * W
				r[(p*OH+oh)*OW+ow] = (1-lh)*((1-lw)*v[b+h0*W+w0]+lw*v[b+h0*W+w1]) +
					lh*((1-lw)*v[b+h1*W+w0]+lw*v[b+h1*W+w1])
			}
		}
	}
	return store(out, r)
}

func nn() table {
	t := table{}
	t.add(mm, "aten::mm.default")
	t.add(bmm, "aten::bmm.default")
	t.add(addmm, "aten::addmm.default")
	t.add(convolution, "aten::convolution.default")
	t.add(avgPool(1), "aten::avg_pool1d.default")
	t.add(avgPool(2), "aten::avg_pool2d.default")
	t.add(avgPool(3), "aten::avg_pool3d.default")
	t.add(maxPool(2), "aten::max_pool2d_with_indices.default")
	t.add(maxPool(3), "aten::max_pool3d_with_indices.default")
	t.add(adaptiveAvgPool(1), "aten::adaptive_avg_pool1d.default")
	t.add(adaptiveAvgPool(2), "aten::_adaptive_avg_pool2d.default")
	t.add(adaptiveAvgPool(3), "aten::_adaptive_avg_pool3d.default")
	t.add(layerNorm, "aten::native_layer_norm.default")
	t.add(groupNorm, "aten::native_group_norm.default")
	t.add(batchNorm(true, true), "aten::_native_batch_norm_legit.default")
	t.add(batchNorm(false, true), "aten::_native_batch_norm_legit.no_stats")
	t.add(batchNorm(true, false), "aten::_native_batch_norm_legit_no_training.default")
	t.add(embedding, "aten::embedding.default")
	t.add(dropout, "aten::native_dropout.default")
	t.add(padding(true), "aten::reflection_pad1d.default", "aten::reflection_pad2d.default", "aten::reflection_pad3d.default")
	t.add(padding(false), "aten::replication_pad2d.default", "aten::replication_pad3d.default")
	t.add(upsampleNearest, "aten::upsample_nearest2d.vec")
	t.add(upsampleBilinear, "aten::upsample_bilinear2d.vec")
	return t
}

// layerNormF32 redoes a float32 layer norm the way PyTorch's kernel rounds
// it: statistics held in float32, y = fma(fma(x, rstd, -rstd*mean), w, b).
// It matters for rows whose variance is tiny against eps. A bfloat16 input
// has its statistics rounded to bfloat16 as well.
func layerNormF32(v, r, m, s []float64, inner int, eps float64, w, b *gt.Tensor, reduced bool) {
	var wv, bv []float64
	if w != nil {
		wv = vals(w)
	}
	if b != nil {
		bv = vals(b)
	}
	for g := range m {
		mu := float32(m[g])
		variance := 1/(s[g]*s[g]) - eps
		rs := float32(1) / float32(math.Sqrt(float64(float32(float32(variance)+float32(eps)))))
		if reduced {
			mu, rs = float32(bf16(float64(mu))), float32(bf16(float64(rs)))
		}
		m[g], s[g] = float64(mu), float64(rs)
		bias := -rs * mu
		if reduced {
			bias = float32(bf16(float64(bias)))
		}
		for j := 0; j < inner; j++ {
			i := g*inner + j
			t := float32(math.FMA(v[i], float64(rs), float64(bias)))
			gw, cb := 1.0, 0.0
			if wv != nil {
				gw = wv[j]
			}
			if bv != nil {
				cb = bv[j]
			}
			r[i] = float64(float32(math.FMA(float64(t), gw, cb)))
		}
	}
}
