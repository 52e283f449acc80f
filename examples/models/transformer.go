package models

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

// EncoderLayer is nn.TransformerEncoderLayer with batch_first=True,
// norm_first=False (post-norm), ReLU and no dropout (eval).
type EncoderLayer struct {
	SelfAttn         Attention
	Norm1, Norm2     LayerNorm
	Linear1, Linear2 Linear
	// Trace, when non-nil, receives self_attn, attn_probs, norm1, ffn.
	Trace map[string]*gt.Tensor
}

// NewEncoderLayer builds the layer for model width d, the given number of
// heads and feed-forward width, from nn.TransformerEncoderLayer's weights.
func NewEncoderLayer(weights map[string]*gt.Tensor, d, heads, ffn int) (*EncoderLayer, error) {
	if heads <= 0 || d%heads != 0 {
		return nil, fmt.Errorf("width %d does not split into %d heads", d, heads)
	}
	p := NewParams(weights)
	m := &EncoderLayer{
		SelfAttn: Attention{
			In:    Linear{Weight: p.Get("self_attn.in_proj_weight", 3*d, d), Bias: p.Get("self_attn.in_proj_bias", 3*d)},
			Out:   p.Linear("self_attn.out_proj", d, d),
			Heads: heads,
		},
		Norm1:   p.LayerNorm("norm1", d, 1e-5),
		Norm2:   p.LayerNorm("norm2", d, 1e-5),
		Linear1: p.Linear("linear1", d, ffn),
		Linear2: p.Linear("linear2", ffn, d),
	}
	return m, p.Err
}

// Forward maps x [B, T, D] to [B, T, D].
func (m *EncoderLayer) Forward(x *gt.Tensor) *gt.Tensor {
	sa, probs := m.SelfAttn.Forward(x)
	trace(m.Trace, "self_attn", sa)
	trace(m.Trace, "attn_probs", probs)
	h := trace(m.Trace, "norm1", m.Norm1.Forward(x.Add(sa)))
	ffn := trace(m.Trace, "ffn", m.Linear2.Forward(m.Linear1.Forward(h).Relu()))
	return m.Norm2.Forward(h.Add(ffn))
}
