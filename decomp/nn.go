package decomp

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Layers over the core convolution, pooling, padding and embedding-bag ops,
// and attention.

func init() {
	def("aten::conv1d", convN(1, "conv1d", args.Conv1dOf))
	def("aten::conv2d", convN(2, "conv2d", func(a []any) args.Conv1d { return args.Conv1d(args.Conv2dOf(a)) }))
	def("aten::conv3d", convN(3, "conv3d", func(a []any) args.Conv1d { return args.Conv1d(args.Conv3dOf(a)) }))
	def("aten::conv1d.padding", convPaddingMode(1, "conv1d", args.Conv1dPaddingOf))
	def("aten::conv2d.padding", convPaddingMode(2, "conv2d", func(a []any) args.Conv1dPadding {
		return args.Conv1dPadding(args.Conv2dPaddingOf(a))
	}))
	def("aten::conv3d.padding", convPaddingMode(3, "conv3d", func(a []any) args.Conv1dPadding {
		return args.Conv1dPadding(args.Conv3dPaddingOf(a))
	}))
	def("aten::conv_transpose1d", convTransposeN(1, "conv_transpose1d", args.ConvTranspose1dOf))
	def("aten::conv_transpose2d.input", convTransposeN(2, "conv_transpose2d", func(a []any) args.ConvTranspose1d {
		return args.ConvTranspose1d(args.ConvTranspose2dOf(a))
	}))
	def("aten::conv_transpose3d.input", convTransposeN(3, "conv_transpose3d", func(a []any) args.ConvTranspose1d {
		return args.ConvTranspose1d(args.ConvTranspose3dOf(a))
	}))
	def("aten::max_pool1d", maxPool1d)
	def("aten::max_pool2d", maxPool2d)
	def("aten::max_pool3d", maxPool3d)
	def("aten::adaptive_avg_pool2d", adaptiveAvgPool(2, args.AdaptiveAvgPool2dOf))
	def("aten::adaptive_avg_pool3d", adaptiveAvgPool(3, func(a []any) args.AdaptiveAvgPool2d {
		return args.AdaptiveAvgPool2d(args.AdaptiveAvgPool3dOf(a))
	}))
	def("aten::pad", pad)
	def("aten::_scaled_dot_product_attention", sdpa113(args.InternalScaledDotProductAttentionOf))
	def("aten::_scaled_dot_product_attention_math", sdpa113(func(a []any) args.InternalScaledDotProductAttention {
		return args.InternalScaledDotProductAttention(args.InternalScaledDotProductAttentionMathOf(a))
	}))
	def("aten::scaled_dot_product_attention", sdpa)
	def("aten::embedding_bag", embeddingBag)
	def("aten::embedding_bag.padding_idx", embeddingBagPadding)
	def("aten::_embedding_bag_forward_only", embeddingBagForward)
}

// batchify adds the batch dim to an unbatched input of a conv layer.
func batchify(x *T, spatial int, name string) (*T, bool) {
	batched := x.Dim() == spatial+2
	if x.Dim() != spatial+1 && !batched {
		tensor.Panicf("Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s",
			spatial+1, spatial+2, name, tensor.ShapeString(x.Sizes()))
	}
	if batched {
		return x, true
	}
	return x.Unsqueeze(0), false
}

func unbatch(out *T, batched bool) *T {
	if batched {
		return out
	}
	return out.Squeeze(0)
}

// convN is conv1d, conv2d and conv3d; of reads the op's view (conv2d's
// and conv3d's convert to conv1d's).
func convN(n int, name string, of func([]any) args.Conv1d) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x, batched := batchify(p.Input, n, name)
		out := tensor.Convolution(x, p.Weight, p.Bias, p.Stride, p.Padding, p.Dilation, false, make([]int, n), p.Groups)
		return unbatch(out, batched)
	}
}

// convPaddingMode handles padding="valid" (none) and "same": the output
// keeps the input size; odd total padding puts the extra element on the
// right with an explicit constant pad. of reads the op's view (the 2-d and
// 3-d ones convert to conv1d.padding's).
func convPaddingMode(n int, name string, of func([]any) args.Conv1dPadding) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x, batched := batchify(p.Input, n, name)
		w, b, stride, mode, dil, groups := p.Weight, p.Bias, p.Stride, p.Padding, p.Dilation, p.Groups
		padding := make([]int, n)
		switch mode {
		case "valid":
		case "same":
			// convolution_same's checks
			tensor.Check(w.Dim() > 2, "weight should have at least three dimensions")
			if w.Dim() != x.Dim() {
				tensor.Panicf("Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead",
					w.Dim(), w.Dim(), tensor.ShapeString(w.Sizes()), x.Dim(), tensor.ShapeString(x.Sizes()))
			}
			tensor.Check(w.Dim() == n+2, "weight should have at least three dimensions")
			if len(stride) != n && len(stride) != 1 {
				tensor.Panicf("stride cannot broadcast to %d dimensions", n)
			}
			if len(dil) != n && len(dil) != 1 {
				tensor.Panicf("dilation cannot broadcast to %d dimensions", n)
			}
			for _, s := range stride {
				tensor.Check(s == 1, "padding='same' is not supported for strided convolutions")
			}
			extra := make([]int, 2*n)
			asym := false
			for i := 0; i < n; i++ {
				d := dil[min(i, len(dil)-1)]
				total, ok := core.MulNoOverflow(d, w.Size(i+2)-1)
				if !ok {
					tensor.Panicf("padding='same': dilation %d times kernel size %d - 1 is past the int64 range", d, w.Size(i+2))
				}
				left := total / 2
				padding[i] = left
				if right := total - left; right != left {
					asym = true
					extra[2*(n-1-i)+1] = right - left
				}
			}
			if asym {
				x = x.ConstantPadNd(extra)
			}
		default:
			tensor.Panicf("Invalid padding string: '%s'", mode)
		}
		out := tensor.Convolution(x, w, b, stride, padding, dil, false, make([]int, n), groups)
		return unbatch(out, batched)
	}
}

// convTransposeN is conv_transpose1d, 2d and 3d; of reads the op's view
// (the 2-d and 3-d ones convert to conv_transpose1d's).
func convTransposeN(n int, name string, of func([]any) args.ConvTranspose1d) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x, batched := batchify(p.Input, n, name)
		out := tensor.Convolution(x, p.Weight, p.Bias, p.Stride, p.Padding, p.Dilation, true, p.OutputPadding, p.Groups)
		return unbatch(out, batched)
	}
}

func maxPool1d(op *tensor.Op, a []any) any {
	v := args.MaxPool1dOf(a)
	x := v.Self
	if x.Dim() != 2 && x.Dim() != 3 {
		tensor.Panicf("max_pool1d() Expected 2D or 3D input tensor, but got %s", tensor.ShapeString(x.Sizes()))
	}
	k, s, p, d, ceil := v.KernelSize, v.Stride, v.Padding, v.Dilation, v.CeilMode
	// check_max_pool1d
	if len(k) != 1 {
		tensor.Panicf("max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size %d", len(k))
	}
	if len(s) > 1 {
		tensor.Panicf("max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size %d", len(s))
	}
	if len(p) != 1 {
		tensor.Panicf("max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size %d", len(p))
	}
	if len(d) != 1 {
		tensor.Panicf("max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size %d", len(d))
	}
	if len(s) == 0 {
		s = k
	}
	if k[0] <= 0 {
		tensor.Panicf("max_pool1d() kernel_size must be greater than zero, but got %d", k[0])
	}
	if s[0] <= 0 {
		tensor.Panicf("max_pool1d() stride must be greater than zero, but got %d", s[0])
	}
	if p[0] < 0 {
		tensor.Panicf("max_pool1d() padding must be non-negative, but got %d", p[0])
	}
	if p[0] > k[0]/2 {
		tensor.Panicf("max_pool1d() padding should be at most half of kernel size, but got padding=%d and kernel_size=%d", p[0], k[0])
	}
	if d[0] <= 0 {
		tensor.Panicf("max_pool1d() dilation must be greater than zero, but got %d", d[0])
	}
	out, _ := x.Unsqueeze(-2).MaxPool2dWithIndices([]int{1, k[0]}, tensor.WithStride([]int{1, s[0]}), tensor.WithPadding([]int{0, p[0]}), tensor.WithDilation([]int{1, d[0]}), tensor.WithCeilMode(ceil))
	return out.Squeeze(-2)
}

func maxPool2d(op *tensor.Op, a []any) any {
	p := args.MaxPool2dOf(a)
	out, _ := p.Self.MaxPool2dWithIndices(p.KernelSize, tensor.WithStride(p.Stride), tensor.WithPadding(p.Padding), tensor.WithDilation(p.Dilation), tensor.WithCeilMode(p.CeilMode))
	return out
}

func maxPool3d(op *tensor.Op, a []any) any {
	p := args.MaxPool3dOf(a)
	out, _ := p.Self.MaxPool3dWithIndices(p.KernelSize, tensor.WithStride(p.Stride), tensor.WithPadding(p.Padding), tensor.WithDilation(p.Dilation), tensor.WithCeilMode(p.CeilMode))
	return out
}

// adaptiveAvgPool is a mean over the spatial dims for a 1x1(x1) output,
// else the core adaptive pooling; of reads the op's view (the 3-d one
// converts to the 2-d one's).
func adaptiveAvgPool(n int, of func([]any) args.AdaptiveAvgPool2d) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x, size := p.Self, p.OutputSize
		name := "adaptive_avg_pool2d"
		if n == 3 {
			name = "adaptive_avg_pool3d"
		}
		if len(size) != n {
			tensor.Panicf("%s: output_size must be %d", name, n)
		}
		all1 := true
		for _, s := range size {
			if s < 0 {
				tensor.Panicf("%s: elements of output_size must be greater than or equal to 0 but received %s", name, tensor.ShapeString(size))
			}
			all1 = all1 && s == 1
		}
		if all1 && x.Dim() >= n {
			dims := make([]int, n)
			for i := range dims {
				dims[i] = -1 - i
			}
			return x.MeanDim(dims, tensor.WithKeepdim(true))
		}
		return call("aten::_"+name, x, size)
	}
}

// pad is F.pad: constant_pad_nd, or the reflection, replication and
// circular pads of the last 1 to 3 dims.
func pad(op *tensor.Op, a []any) any {
	v := args.PadOf(a)
	x, p, mode := v.Self, v.Pad, v.Mode
	switch mode {
	case "reflect", "constant", "replicate", "circular":
	default:
		tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Msg: "Unrecognised padding mode " + mode})
	}
	r := x.Dim()
	tensor.Check(len(p)%2 == 0, "Padding length must be divisible by 2")
	if len(p) > 2*r {
		tensor.Panicf("Padding length should be less than or equal to two times the input dimension but got padding length %d and input of dimension %d", len(p), r)
	}
	if mode == "constant" {
		return x.ConstantPadNd(p, tensor.WithValue(v.Value.Or(0)))
	}
	if v.Value.Ok && v.Value.V != 0 {
		tensor.Panicf("Padding mode \"%s\" doesn't take in value argument", mode)
	}
	k := len(p) / 2
	if k >= 1 && k <= 3 && (r == k+1 || r == k+2) {
		switch mode {
		case "reflect":
			return call("aten::reflection_pad"+itoa1(k)+"d", x, p)
		case "replicate":
			if k == 1 {
				return x.Unsqueeze(-2).ReplicationPad2d([]int{p[0], p[1], 0, 0}).Squeeze(-2)
			}
			return call("aten::replication_pad"+itoa1(k)+"d", x, p)
		case "circular":
			return padCircular(x, p)
		}
	}
	tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Msg: "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"})
	return nil
}

func itoa1(k int) string { return string(rune('0' + k)) }

// padCircular wraps each padded dim around: crop negative pads, then
// concatenate the tail before and the head after, dim by dim.
func padCircular(x *T, p []int) *T {
	n := x.Dim() - 2
	if len(p)+4 != 2*x.Dim() {
		tensor.Panicf("Expected padding of length %d but got %d", 2*n, len(p))
	}
	for i := 0; i < n; i++ {
		l, r := p[2*(n-i-1)], p[2*(n-i-1)+1]
		s := x.Size(2 + i)
		tensor.Check(l <= s && r <= s, "Padding value causes wrapping around more than once.")
		tensor.Check(s+l+r >= 0, "Negative padding value is resulting in an empty dimension")
	}
	for i := 0; i < n; i++ {
		d := 2 + i
		l, r := p[2*(n-i-1)], p[2*(n-i-1)+1]
		s := x.Size(d)
		x = x.Slice(tensor.WithDim(d), tensor.WithStart(max(-l, 0)), tensor.WithEnd(s-max(-r, 0)))
	}
	for i := 0; i < n; i++ {
		d := 2 + i
		l, r := p[2*(n-i-1)], p[2*(n-i-1)+1]
		s := x.Size(d)
		parts := []*T{}
		if l > 0 {
			parts = append(parts, x.Slice(tensor.WithDim(d), tensor.WithStart(s-l), tensor.WithEnd(s)))
		}
		parts = append(parts, x)
		if r > 0 {
			parts = append(parts, x.Slice(tensor.WithDim(d), tensor.WithStart(0), tensor.WithEnd(r)))
		}
		x = tensor.Cat(parts, tensor.WithDim(d))
	}
	return x
}

// attention is softmax(q k^T * scale + mask) v, with q and k each scaled
// (by scaleQK) to sqrt(scale); a bool mask (or is_causal's lower triangle)
// marks the positions that take part.
func attention(q, k, v, mask *T, dropout float64, causal bool, scaleQK func(*T) *T) (*T, *T) {
	if causal {
		tensor.Check(mask == nil, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
		l, sz := q.Size(-2), k.Size(-2)
		mask = triangle(fullOn(q, []int{l, sz}, true, tensor.Bool), 0, true)
	}
	if mask != nil && mask.DType() == tensor.Bool {
		mask = tensor.Where(mask, scalarLike(q, 0, q.DType()), scalarLike(q, math.Inf(-1), q.DType()))
	}
	attn := matmul(scaleQK(q), scaleQK(mT(k)))
	if mask != nil {
		attn = attn.Add(mask)
	}
	attn = attn.Softmax(-1)
	if dropout > 0 {
		attn = call("aten::dropout", attn, dropout, true)
	}
	return matmul(attn, v), attn
}

// sdpa113 is 1.13's math path: q and k divided by the fourth root of the
// embedding size; it returns the attention weights too. of reads the op's
// view (_scaled_dot_product_attention_math's converts to
// _scaled_dot_product_attention's).
func sdpa113(of func([]any) args.InternalScaledDotProductAttention) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		q := p.Query
		f := math.Sqrt(math.Sqrt(float64(q.Size(-1))))
		div := func(x *T) *T { return x.DivScalar(f) }
		out, w := attention(q, p.Key, p.Value, p.AttnMask, p.DropoutP, p.IsCausal, div)
		return []*T{out, w}
	}
}

func sdpa(op *tensor.Op, a []any) any {
	p := args.ScaledDotProductAttentionOf(a)
	q := p.Query
	s := math.Sqrt(p.Scale.Or(1 / math.Sqrt(float64(q.Size(-1)))))
	mul := func(x *T) *T { return x.MulScalar(s) }
	out, _ := attention(q, p.Key, p.Value, p.AttnMask, p.DropoutP, p.IsCausal, mul)
	return out
}

func embeddingBag(op *tensor.Op, a []any) any {
	p := args.EmbeddingBagOf(a)
	return invoke("aten::_embedding_bag", args.InternalEmbeddingBag{
		Weight: p.Weight, Indices: p.Indices, Offsets: p.Offsets, ScaleGradByFreq: p.ScaleGradByFreq, Mode: p.Mode,
		Sparse: p.Sparse, PerSampleWeights: p.PerSampleWeights, IncludeLastOffset: p.IncludeLastOffset, PaddingIdx: -1,
	}.Box())
}

func embeddingBagPadding(op *tensor.Op, a []any) any {
	p := args.EmbeddingBagPaddingIdxOf(a)
	return invoke("aten::_embedding_bag", args.InternalEmbeddingBag{
		Weight: p.Weight, Indices: p.Indices, Offsets: p.Offsets, ScaleGradByFreq: p.ScaleGradByFreq, Mode: p.Mode,
		Sparse: p.Sparse, PerSampleWeights: p.PerSampleWeights, IncludeLastOffset: p.IncludeLastOffset, PaddingIdx: p.PaddingIdx.Or(-1),
	}.Box())
}

// embeddingBagForward is _embedding_bag without the backward's bookkeeping:
// in sum mode with include_last_offset, bag_size and max_indices keep
// offsets' length (PyTorch leaves them unfilled; they are zeros here).
func embeddingBagForward(op *tensor.Op, a []any) any {
	p := args.InternalEmbeddingBagForwardOnlyOf(a)
	r := invoke("aten::_embedding_bag", args.InternalEmbeddingBag(p).Box()).([]*T)
	if off := p.Offsets; p.Mode == 0 && p.IncludeLastOffset {
		r[2] = fullOn(off, off.Shape(), 0, off.DType())
		r[3] = fullOn(off, off.Shape(), 0, off.DType())
	}
	return r
}
