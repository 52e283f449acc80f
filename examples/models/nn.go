// Package models rebuilds small PyTorch models with goaten ops: an MLP, a
// CNN, a Transformer encoder layer and a GPT-style decoder. Their weights
// and expected outputs, recorded from PyTorch 1.13, live in
// testdata/models/<name> as safetensors files; the tests load them and
// compare outputs, the MLP's gradients, and five training steps with
// package optim.
package models

import (
	"fmt"
	"math"
	"slices"

	gt "github.com/goaten/goaten"
)

// Linear is nn.Linear: y = x·Wᵀ + b (Bias may be nil).
type Linear struct {
	Weight, Bias *gt.Tensor
}

// Forward applies the layer to x [..., in] giving [..., out].
func (l *Linear) Forward(x *gt.Tensor) *gt.Tensor { return gt.Linear(x, l.Weight, gt.WithBias(l.Bias)) }

// LayerNorm is nn.LayerNorm over the last dimension.
type LayerNorm struct {
	Weight, Bias *gt.Tensor
	Eps          float64
}

// Forward normalises x over its last dimension.
func (n *LayerNorm) Forward(x *gt.Tensor) *gt.Tensor {
	return gt.LayerNorm(x, []int{n.Weight.Size(0)}, gt.WithWeight(n.Weight), gt.WithBias(n.Bias), gt.WithEps(n.Eps))
}

// Conv2d is nn.Conv2d with square stride, padding 'zeros' and no dilation.
type Conv2d struct {
	Weight, Bias    *gt.Tensor
	Stride, Padding int
}

// Forward convolves x [N, C, H, W].
func (c *Conv2d) Forward(x *gt.Tensor) *gt.Tensor {
	return gt.Conv2d(x, c.Weight, gt.WithBias(c.Bias), gt.WithStride([]int{c.Stride, c.Stride}), gt.WithPadding([]int{c.Padding, c.Padding}))
}

// Attention is multi-head scaled dot-product attention with a packed
// q/k/v projection (rows [0:D] make q, [D:2D] k, [2D:3D] v) and an output
// projection, as nn.MultiheadAttention and GPT-2's c_attn/c_proj.
type Attention struct {
	In, Out Linear
	Heads   int
	Causal  bool
}

// Forward is self-attention over x [B, T, D]. It also returns the
// attention probabilities [B, H, T, T].
func (a *Attention) Forward(x *gt.Tensor) (y, probs *gt.Tensor) {
	b, t, d := x.Size(0), x.Size(1), x.Size(2)
	hd := d / a.Heads
	qkv := a.In.Forward(x).Split(d, gt.WithDim(-1))
	heads := func(z *gt.Tensor) *gt.Tensor { // [B,T,D] -> [B,H,T,hd]
		return z.View([]int{b, t, a.Heads, hd}).Transpose(1, 2)
	}
	q, k, v := heads(qkv[0]), heads(qkv[1]), heads(qkv[2])
	scores := q.Matmul(k.Transpose(-2, -1)).DivScalar(math.Sqrt(float64(hd)))
	if a.Causal {
		future := gt.Full(true, t, t, gt.WithDtype(gt.Bool)).Triu(gt.WithDiagonal(1)) // j > i
		scores = scores.MaskedFillScalar(future, math.Inf(-1))
	}
	probs = scores.Softmax(-1)
	merged := probs.Matmul(v).Transpose(1, 2).Reshape([]int{b, t, d})
	return a.Out.Forward(merged), probs
}

// Params hands out named weights, checking each one's shape; the first
// problem is kept in Err.
type Params struct {
	m   map[string]*gt.Tensor
	Err error
}

// NewParams wraps a name → tensor map (what safetensors.Load returns).
func NewParams(m map[string]*gt.Tensor) *Params { return &Params{m: m} }

// Get returns the float32 tensor called name, which must have the given shape.
func (p *Params) Get(name string, shape ...int) *gt.Tensor {
	t := p.m[name]
	switch {
	case p.Err != nil:
	case t == nil:
		p.Err = fmt.Errorf("no parameter %q", name)
	case t.DType() != gt.Float32 || !slices.Equal(t.Sizes(), shape):
		p.Err = fmt.Errorf("parameter %q is %s %v, want float32 %v", name, t.DType(), t.Sizes(), shape)
	default:
		return t
	}
	return nil
}

// Linear reads prefix.weight [out, in] and prefix.bias [out].
func (p *Params) Linear(prefix string, in, out int) Linear {
	return Linear{Weight: p.Get(prefix+".weight", out, in), Bias: p.Get(prefix+".bias", out)}
}

// LayerNorm reads prefix.weight and prefix.bias, both [d].
func (p *Params) LayerNorm(prefix string, d int, eps float64) LayerNorm {
	return LayerNorm{Weight: p.Get(prefix+".weight", d), Bias: p.Get(prefix+".bias", d), Eps: eps}
}

// trace stores t under name when m is non-nil, and returns t.
func trace(m map[string]*gt.Tensor, name string, t *gt.Tensor) *gt.Tensor {
	if m != nil {
		m[name] = t
	}
	return t
}
