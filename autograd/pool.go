package autograd

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Pooling and resampling ops that are linear in their input and separable
// over the spatial dims: out = (M_0 ⊗ M_1 ⊗ ...) x with one small matrix per
// dim (out_d × in_d). Their gradient is the transposed map, applied as one
// matrix product per dim, so it runs on any device and is differentiable.

// applyT contracts the last len(mats) dims of g (sizes out_d) with the
// matrices (out_d × in_d, row-major float64), giving sizes in_d.
func applyT(g *T, mats [][]float64, ins []int) *T {
	k := len(mats)
	for j := 0; j < k; j++ {
		d := g.Dim() - k + j
		out := g.Size(d)
		m := floats(mats[j], []int{out, ins[j]}, g.DType(), g)
		g = g.MovedimInt(d, -1).Matmul(m).MovedimInt(-1, d)
	}
	return g
}

// avgPool3dBackward is avg_pool3d(self, kernel_size, stride, padding,
// ceil_mode, count_include_pad, divisor_override).
func avgPool3dBackward(c *Ctx) {
	geo := core.PoolGeometry(c.on.d.op, c.on.args)
	mats := make([][]float64, 3)
	for d := 0; d < 3; d++ {
		in, out := geo.In[d], geo.Out[d]
		m := make([]float64, out*in)
		for o := 0; o < out; o++ {
			lo := o*geo.Stride[d] - geo.Pad[d]
			hi := min(lo+geo.Kernel[d], in+geo.Pad[d])
			pool := hi - lo
			lo, hi = max(lo, 0), min(hi, in)
			div := 1.0
			switch {
			case geo.Divisor != 0:
				if d == 0 {
					div = float64(geo.Divisor)
				}
			case geo.CountIncludePad:
				div = float64(pool)
			default:
				div = float64(max(hi-lo, 0))
			}
			for i := lo; i < hi; i++ {
				m[o*in+i] = 1 / div
			}
		}
		mats[d] = m
	}
	c.Set(0, applyT(c.G(0), mats, geo.In[:]))
}

// adaptiveAvgPool3dBackward is _adaptive_avg_pool3d(self, output_size).
func adaptiveAvgPool3dBackward(c *Ctx) {
	geo := core.PoolGeometry(c.on.d.op, c.on.args)
	mats := make([][]float64, 3)
	for d := 0; d < 3; d++ {
		in, out := geo.In[d], geo.Out[d]
		m := make([]float64, out*in)
		for o := 0; o < out; o++ {
			lo, hi := core.AdaptiveStart(o, out, in), core.AdaptiveEnd(o, out, in)
			for i := lo; i < hi; i++ {
				m[o*in+i] = 1 / float64(hi-lo)
			}
		}
		mats[d] = m
	}
	c.Set(0, applyT(c.G(0), mats, geo.In[:]))
}

// upsampleNearestBackward is upsample_nearest2d.vec(input, output_size, scale_factors).
func upsampleNearestBackward(c *Ctx) {
	r := core.UpsampleGeometry(c.on.d.op, c.on.args)
	d := c.In(0).DType()
	mats := [][]float64{
		oneHot(core.NearestIndices(r.InH, r.OutH, r.ScaleH, r.ChannelsLast, d), r.InH),
		oneHot(core.NearestIndices(r.InW, r.OutW, r.ScaleW, r.ChannelsLast, d), r.InW),
	}
	c.Set(0, applyT(c.G(0), mats, []int{r.InH, r.InW}))
}

func oneHot(idx []int, in int) []float64 {
	m := make([]float64, len(idx)*in)
	for o, i := range idx {
		m[o*in+i] = 1
	}
	return m
}

// upsampleBilinearBackward is upsample_bilinear2d.vec(input, output_size,
// align_corners, scale_factors).
func upsampleBilinearBackward(c *Ctx) {
	r := core.UpsampleGeometry(c.on.d.op, c.on.args)
	align := c.Bool(2)
	d := c.In(0).DType()
	mats := [][]float64{
		linearWeights(r.InH, r.OutH, align, r.ScaleH, d),
		linearWeights(r.InW, r.OutW, align, r.ScaleW, d),
	}
	c.Set(0, applyT(c.G(0), mats, []int{r.InH, r.InW}))
}

// linearWeights is the interpolation matrix of one dim of a bilinear
// upsample (PyTorch's compute_source_index_and_lambda), with the weights
// rounded as the forward kernel computes them.
func linearWeights(in, out int, align bool, scale float64, d tensor.DType) []float64 {
	m := make([]float64, out*in)
	f32 := d != tensor.Float64
	rd := func(v float64) float64 {
		if f32 {
			return float64(float32(v))
		}
		return v
	}
	var s float64
	switch {
	case align:
		if out > 1 {
			s = rd(rd(float64(in-1)) / rd(float64(out-1)))
		}
	case scale > 0:
		s = rd(1 / scale)
	default:
		s = rd(float64(in) / float64(out))
	}
	for o := 0; o < out; o++ {
		if out == in {
			m[o*in+o] = 1
			continue
		}
		var real float64
		if align {
			real = rd(s * float64(o))
		} else {
			real = rd(s*(float64(o)+0.5) - 0.5)
			if real < 0 {
				real = 0
			}
		}
		i0 := int(real)
		i1 := i0
		if i0 < in-1 {
			i1++
		}
		l1 := rd(real - float64(i0))
		l0 := rd(1 - l1)
		m[o*in+i0] += l0
		m[o*in+i1] += l1
	}
	return m
}
