package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerConv registers the derivatives of the convolution family
// (aten/core/conv.go): convolution, its backward and col2im.
func registerConv() {
	// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
	def("aten::convolution", fn(convolutionBackward))
	// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask)
	def("aten::convolution_backward", fn(convolutionDoubleBackward))
	// col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride)
	def("aten::col2im", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.Col2imOf(c.Args()), args.Col2imAt()
		c.Set(at.Self, im2col(c.G(0), p.KernelSize, p.Dilation, p.Padding, p.Stride))
	}})
}

// convolutionBackward is convolution: convolution_backward with the mask
// of the inputs that need a gradient.
func convolutionBackward(c *Ctx) {
	p, at := args.ConvolutionOf(c.Args()), args.ConvolutionAt()
	x, w, g := c.T(at.Input), c.T(at.Weight), c.G(0)
	var biasSizes any
	if b := c.In(at.Bias); b != nil {
		biasSizes = b.Shape()
	}
	mask := []bool{c.Needs(at.Input), c.Needs(at.Weight), c.Needs(at.Bias)}
	res := tensor.Call("aten::convolution_backward", g, x, w, biasSizes, p.Stride, p.Padding, p.Dilation,
		p.Transposed, p.OutputPadding, p.Groups, mask).([]*T)
	c.Set(at.Input, res[0])
	c.Set(at.Weight, res[1])
	c.Set(at.Bias, res[2])
}

// convolutionDoubleBackward differentiates convolution_backward. The
// convolution is bilinear in (input, weight), so each gradient is again a
// convolution or one of its adjoints.
func convolutionDoubleBackward(c *Ctx) {
	p, at := args.ConvolutionBackwardOf(c.Args()), args.ConvolutionBackwardAt()
	gO, x, w := c.T(at.GradOutput), c.T(at.Input), c.T(at.Weight)
	ggI, ggW, ggB := c.G(0), c.G(1), c.G(2)
	stride, pad, dil, tr, opad, groups := p.Stride, p.Padding, p.Dilation, p.Transposed, p.OutputPadding, p.Groups
	conv := func(in, wt *T) *T {
		return tensor.Convolution(in, wt, nil, stride, pad, dil, tr, opad, groups)
	}
	if c.Needs(at.GradOutput) {
		var r *T
		if ggI != nil {
			r = conv(ggI, w)
		}
		if ggW != nil {
			t := conv(x, ggW)
			if r == nil {
				r = t
			} else {
				r = r.Add(t)
			}
		}
		if ggB != nil {
			s := make([]int, gO.Dim())
			for i := range s {
				s[i] = 1
			}
			s[1] = ggB.Numel()
			b := ggB.Reshape(s)
			if r == nil {
				r = b.Expand(gO.Sizes())
			} else {
				r = r.Add(b)
			}
		}
		c.Set(at.GradOutput, r)
	}
	if c.Needs(at.Input) && ggW != nil {
		r := tensor.Call("aten::convolution_backward", gO, x, ggW, nil, stride, pad, dil, tr, opad, groups, []bool{true, false, false}).([]*T)
		c.Set(at.Input, r[0])
	}
	if c.Needs(at.Weight) && ggI != nil {
		r := tensor.Call("aten::convolution_backward", gO, ggI, w, nil, stride, pad, dil, tr, opad, groups, []bool{false, true, false}).([]*T)
		c.Set(at.Weight, r[1])
	}
}

// im2col unfolds sliding blocks of an (N, C, H, W) or (C, H, W) image into
// columns (N, C*kh*kw, L): the adjoint of col2im.
func im2col(g *T, kernel, dilation, padding, stride []int) *T {
	batched := g.Dim() == 4
	if !batched {
		g = g.Unsqueeze(0)
	}
	N, C, H, W := g.Size(0), g.Size(1), g.Size(2), g.Size(3)
	ph, pw := padding[0], padding[1]
	oh := (H+2*ph-(dilation[0]*(kernel[0]-1)+1))/stride[0] + 1
	ow := (W+2*pw-(dilation[1]*(kernel[1]-1)+1))/stride[1] + 1
	p := g.ConstantPadNd([]int{pw, pw, ph, ph})
	var cols []*T
	for i := 0; i < kernel[0]; i++ {
		for j := 0; j < kernel[1]; j++ {
			h0, w0 := i*dilation[0], j*dilation[1]
			s := p.Slice(tensor.WithDim(2), tensor.WithStart(h0), tensor.WithEnd(h0+stride[0]*(oh-1)+1), tensor.WithStep(stride[0])).Slice(tensor.WithDim(3), tensor.WithStart(w0), tensor.WithEnd(w0+stride[1]*(ow-1)+1), tensor.WithStep(stride[1]))
			cols = append(cols, s)
		}
	}
	out := tensor.Stack(cols, tensor.WithDim(2)).Reshape([]int{N, C * kernel[0] * kernel[1], oh * ow})
	if !batched {
		out = out.Squeeze(0)
	}
	return out
}
