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

// registerPool registers the derivatives of the pooling family
// (aten/core/pool.go).
func registerPool() {
	// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
	def("aten::max_pool2d_with_indices", &Deriv{Outputs: []int{0}, Backward: func(c *Ctx) {
		c.Set(0, tensor.MaxPool2dWithIndicesBackward(c.G(0), c.T(0), c.Ints(1), c.Ints(2), c.Ints(3), c.Ints(4), c.Bool(5), c.Out(1)))
	}})
	// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
	def("aten::max_pool2d_with_indices_backward", &Deriv{NonDiff: []int{7}, Backward: func(c *Ctx) {
		g, idx := c.G(0), c.T(7)
		if c.Needs(0) {
			c.Set(0, g.Flatten(tensor.WithStartDim(-2)).Gather(-1, idx.Flatten(tensor.WithStartDim(-2))).View(idx.Shape()))
		}
		if c.Needs(1) {
			c.Set(1, c.In(1).ZerosLike())
		}
	}})
	// max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
	def("aten::max_pool3d_with_indices", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		sizes := c.Sizes(0)
		g, idx := c.G(0), c.Out(1)
		flat := append(append([]int(nil), sizes[:len(sizes)-3]...), -1)
		z := zerosOf(g, append(append([]int(nil), sizes[:len(sizes)-3]...), sizes[len(sizes)-3]*sizes[len(sizes)-2]*sizes[len(sizes)-1]))
		c.Set(0, z.ScatterAdd(-1, idx.Reshape(flat), g.Reshape(flat)).View(sizes))
	}})
	// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool2d", fn(func(c *Ctx) {
		c.Set(0, tensor.AvgPool2dBackward(c.G(0), c.T(0), c.Ints(1), c.Ints(2), c.Ints(3), c.Bool(4), c.Bool(5), c.Arg(6)))
	}))
	// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool2d_backward", &Deriv{Backward: func(c *Ctx) {
		if c.Needs(0) {
			c.Set(0, c.G(0).AvgPool2d(c.Ints(2), tensor.WithStride(c.Ints(3)), tensor.WithPadding(c.Ints(4)), tensor.WithCeilMode(c.Bool(5)), tensor.WithCountIncludePad(c.Bool(6)), tensor.Kw("divisor_override", c.Arg(7))))
		}
		if c.Needs(1) {
			c.Set(1, c.In(1).ZerosLike())
		}
	}})
	// avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad)
	def("aten::avg_pool1d", fn(func(c *Ctx) {
		k, s, p := c.Ints(1), c.Ints(2), c.Ints(3)
		if len(s) == 0 {
			s = k
		}
		x := c.T(0).Unsqueeze(-2)
		gi := tensor.AvgPool2dBackward(c.G(0).Unsqueeze(-2), x, []int{1, k[0]}, []int{1, s[0]}, []int{0, p[0]}, c.Bool(4), c.Bool(5), nil)
		c.Set(0, gi.Squeeze(-2))
	}))
	// avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool3d", &Deriv{SelfUnused: true, Backward: avgPool3dBackward})
	// _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)
	def("aten::_adaptive_avg_pool2d", fn(func(c *Ctx) {
		c.Set(0, callT("aten::_adaptive_avg_pool2d_backward", c.G(0), c.T(0)))
	}))
	// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self)
	def("aten::_adaptive_avg_pool2d_backward", fn(func(c *Ctx) {
		if c.Needs(0) {
			go_ := c.In(0)
			c.Set(0, c.G(0).AdaptiveAvgPool2d([]int{go_.Size(-2), go_.Size(-1)}))
		}
		if c.Needs(1) {
			c.Set(1, c.In(1).ZerosLike())
		}
	}))
	// adaptive_avg_pool1d(Tensor self, int[1] output_size)
	def("aten::adaptive_avg_pool1d", fn(func(c *Ctx) {
		gi := callT("aten::_adaptive_avg_pool2d_backward", c.G(0).Unsqueeze(-2), c.T(0).Unsqueeze(-2))
		c.Set(0, gi.Squeeze(-2))
	}))
	// _adaptive_avg_pool3d(Tensor self, SymInt[3] output_size)
	def("aten::_adaptive_avg_pool3d", &Deriv{SelfUnused: true, Backward: adaptiveAvgPool3dBackward})
}
