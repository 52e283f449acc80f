package autograd

import (
	"github.com/goaten/goaten/aten/args"
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
	c.Set(args.AvgPool3dAt().Self, applyT(c.G(0), mats, geo.In[:]))
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
	c.Set(args.InternalAdaptiveAvgPool3dAt().Self, applyT(c.G(0), mats, geo.In[:]))
}

// registerPool registers the derivatives of the pooling family
// (aten/core/pool.go).
func registerPool() {
	// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
	def("aten::max_pool2d_with_indices", &Deriv{Outputs: []int{0}, Backward: func(c *Ctx) {
		p, at := args.MaxPool2dWithIndicesOf(c.Args()), args.MaxPool2dWithIndicesAt()
		c.Set(at.Self, tensor.MaxPool2dWithIndicesBackward(c.G(0), c.T(at.Self), p.KernelSize, p.Stride, p.Padding, p.Dilation, p.CeilMode, c.Out(1)))
	}})
	// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
	def("aten::max_pool2d_with_indices_backward", &Deriv{NonDiff: []int{args.MaxPool2dWithIndicesBackwardAt().Indices}, Backward: func(c *Ctx) {
		at := args.MaxPool2dWithIndicesBackwardAt()
		g, idx := c.G(0), c.T(at.Indices)
		if c.Needs(at.GradOutput) {
			c.Set(at.GradOutput, g.Flatten(tensor.WithStartDim(-2)).Gather(-1, idx.Flatten(tensor.WithStartDim(-2))).View(idx.Shape()))
		}
		if c.Needs(at.Self) {
			c.Set(at.Self, c.In(at.Self).ZerosLike())
		}
	}})
	// max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
	def("aten::max_pool3d_with_indices", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		at := args.MaxPool3dWithIndicesAt()
		sizes := c.Sizes(at.Self)
		g, idx := c.G(0), c.Out(1)
		flat := append(append([]int(nil), sizes[:len(sizes)-3]...), -1)
		z := zerosOf(g, append(append([]int(nil), sizes[:len(sizes)-3]...), sizes[len(sizes)-3]*sizes[len(sizes)-2]*sizes[len(sizes)-1]))
		c.Set(at.Self, z.ScatterAdd(-1, idx.Reshape(flat), g.Reshape(flat)).View(sizes))
	}})
	// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool2d", fn(func(c *Ctx) {
		p, at := args.AvgPool2dOf(c.Args()), args.AvgPool2dAt()
		c.Set(at.Self, tensor.AvgPool2dBackward(c.G(0), c.T(at.Self), p.KernelSize, p.Stride, p.Padding, p.CeilMode, p.CountIncludePad, boxOpt(p.DivisorOverride)))
	}))
	// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool2d_backward", &Deriv{Backward: func(c *Ctx) {
		p, at := args.AvgPool2dBackwardOf(c.Args()), args.AvgPool2dBackwardAt()
		if c.Needs(at.GradOutput) {
			c.Set(at.GradOutput, c.G(0).AvgPool2d(p.KernelSize, tensor.WithStride(p.Stride), tensor.WithPadding(p.Padding), tensor.WithCeilMode(p.CeilMode), tensor.WithCountIncludePad(p.CountIncludePad), tensor.Kw("divisor_override", boxOpt(p.DivisorOverride))))
		}
		if c.Needs(at.Self) {
			c.Set(at.Self, c.In(at.Self).ZerosLike())
		}
	}})
	// avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad)
	def("aten::avg_pool1d", fn(func(c *Ctx) {
		p, at := args.AvgPool1dOf(c.Args()), args.AvgPool1dAt()
		k, s, pad := p.KernelSize, p.Stride, p.Padding
		if len(s) == 0 {
			s = k
		}
		x := c.T(at.Self).Unsqueeze(-2)
		gi := tensor.AvgPool2dBackward(c.G(0).Unsqueeze(-2), x, []int{1, k[0]}, []int{1, s[0]}, []int{0, pad[0]}, p.CeilMode, p.CountIncludePad, nil)
		c.Set(at.Self, gi.Squeeze(-2))
	}))
	// avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
	def("aten::avg_pool3d", &Deriv{SelfUnused: true, Backward: avgPool3dBackward})
	// _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)
	def("aten::_adaptive_avg_pool2d", fn(func(c *Ctx) {
		at := args.InternalAdaptiveAvgPool2dAt()
		c.Set(at.Self, callT("aten::_adaptive_avg_pool2d_backward", c.G(0), c.T(at.Self)))
	}))
	// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self)
	def("aten::_adaptive_avg_pool2d_backward", fn(func(c *Ctx) {
		at := args.InternalAdaptiveAvgPool2dBackwardAt()
		if c.Needs(at.GradOutput) {
			go_ := c.In(at.GradOutput)
			c.Set(at.GradOutput, c.G(0).AdaptiveAvgPool2d([]int{go_.Size(-2), go_.Size(-1)}))
		}
		if c.Needs(at.Self) {
			c.Set(at.Self, c.In(at.Self).ZerosLike())
		}
	}))
	// adaptive_avg_pool1d(Tensor self, int[1] output_size)
	def("aten::adaptive_avg_pool1d", fn(func(c *Ctx) {
		at := args.AdaptiveAvgPool1dAt()
		gi := callT("aten::_adaptive_avg_pool2d_backward", c.G(0).Unsqueeze(-2), c.T(at.Self).Unsqueeze(-2))
		c.Set(at.Self, gi.Squeeze(-2))
	}))
	// _adaptive_avg_pool3d(Tensor self, SymInt[3] output_size)
	def("aten::_adaptive_avg_pool3d", &Deriv{SelfUnused: true, Backward: adaptiveAvgPool3dBackward})
}
