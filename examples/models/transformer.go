package models

import (
	"fmt"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// EncoderLayer is nn.TransformerEncoderLayer(d, heads, ffn, dropout=0,
// batch_first=True): post-norm, ReLU. Its state dict is the nn layer's.
type EncoderLayer struct {
	*nn.TransformerEncoderLayer
	// Trace, when non-nil, receives self_attn, attn_probs (per head),
	// norm1, ffn.
	Trace map[string]*gt.Tensor
}

// NewEncoderLayerModule makes the layer with PyTorch's default
// initialisation, in eval mode.
func NewEncoderLayerModule(d, heads, ffn int) (*EncoderLayer, error) {
	if heads <= 0 || d%heads != 0 {
		return nil, fmt.Errorf("width %d does not split into %d heads", d, heads)
	}
	var l *nn.TransformerEncoderLayer
	err := build(func() {
		l = nn.NewTransformerEncoderLayer(d, heads, nn.DimFeedforward(ffn), nn.DropoutP(0), nn.BatchFirst(true))
	})
	if err != nil {
		return nil, err
	}
	l.Eval()
	return &EncoderLayer{TransformerEncoderLayer: l}, nil
}

// NewEncoderLayer builds the layer for model width d, the given number of
// heads and feed-forward width, and loads nn.TransformerEncoderLayer's
// weights (self_attn.in_proj_weight, self_attn.out_proj.*, linear1.*, ...).
func NewEncoderLayer(weights map[string]*gt.Tensor, d, heads, ffn int) (*EncoderLayer, error) {
	m, err := NewEncoderLayerModule(d, heads, ffn)
	if err != nil {
		return nil, err
	}
	return m, load(m, weights)
}

// Forward maps x [B, T, D] to [B, T, D]. Without Trace it is the nn
// layer's Forward; with it, the same computation step by step.
func (m *EncoderLayer) Forward(x *gt.Tensor) *gt.Tensor {
	if m.Trace == nil {
		return m.TransformerEncoderLayer.Forward(x)
	}
	l := m.TransformerEncoderLayer
	sa, probs := l.SelfAttn.ForwardOptions(x, x, x, nn.AttentionOptions{PerHead: true})
	trace(m.Trace, "self_attn", sa)
	trace(m.Trace, "attn_probs", probs)
	h := trace(m.Trace, "norm1", l.Norm1.Forward(x.Add(sa)))
	ffn := trace(m.Trace, "ffn", l.Linear2.Forward(l.Linear1.Forward(h).Relu()))
	return l.Norm2.Forward(h.Add(ffn))
}
