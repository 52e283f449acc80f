package models

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

// GPTConfig sizes a GPT-2 style decoder.
type GPTConfig struct {
	Vocab, Block, Layers, Heads, D, Hidden int
}

// Block is a pre-LayerNorm decoder block: x + attn(ln1(x)), then
// x + mlp(ln2(x)) with a GELU (erf) MLP.
type Block struct {
	LN1, LN2 LayerNorm
	Attn     Attention
	FC, Proj Linear
}

// Forward maps x [B, T, D] to [B, T, D].
func (b *Block) Forward(x *gt.Tensor) *gt.Tensor {
	a, _ := b.Attn.Forward(b.LN1.Forward(x))
	x = x.Add(a)
	return x.Add(b.Proj.Forward(b.FC.Forward(b.LN2.Forward(x)).Gelu()))
}

// GPT is token and learned position embeddings, Blocks, a final LayerNorm
// and an LM head tied to the token embedding.
type GPT struct {
	WTE, WPE *gt.Tensor
	Blocks   []Block
	LNF      LayerNorm
	// Trace, when non-nil, receives embed, block0, block1, ...
	Trace map[string]*gt.Tensor
}

// NewGPT builds the decoder from weights named wte.weight, wpe.weight,
// h.<i>.{ln_1,attn.c_attn,attn.c_proj,ln_2,mlp.c_fc,mlp.c_proj}.*, ln_f.*.
func NewGPT(weights map[string]*gt.Tensor, c GPTConfig) (*GPT, error) {
	if c.Heads <= 0 || c.D%c.Heads != 0 {
		return nil, fmt.Errorf("width %d does not split into %d heads", c.D, c.Heads)
	}
	p := NewParams(weights)
	m := &GPT{
		WTE: p.Get("wte.weight", c.Vocab, c.D),
		WPE: p.Get("wpe.weight", c.Block, c.D),
		LNF: p.LayerNorm("ln_f", c.D, 1e-5),
	}
	for i := range c.Layers {
		h := fmt.Sprintf("h.%d.", i)
		m.Blocks = append(m.Blocks, Block{
			LN1: p.LayerNorm(h+"ln_1", c.D, 1e-5),
			LN2: p.LayerNorm(h+"ln_2", c.D, 1e-5),
			Attn: Attention{
				In:     p.Linear(h+"attn.c_attn", c.D, 3*c.D),
				Out:    p.Linear(h+"attn.c_proj", c.D, c.D),
				Heads:  c.Heads,
				Causal: true,
			},
			FC:   p.Linear(h+"mlp.c_fc", c.D, c.Hidden),
			Proj: p.Linear(h+"mlp.c_proj", c.Hidden, c.D),
		})
	}
	return m, p.Err
}

// Forward maps tokens [B, T] (int64, T ≤ block size) to logits [B, T, vocab].
func (m *GPT) Forward(tokens *gt.Tensor) *gt.Tensor {
	t := tokens.Size(1)
	pos := m.WPE.Slice(gt.WithStart(0), gt.WithEnd(t))
	x := trace(m.Trace, "embed", gt.Embedding(m.WTE, tokens).Add(pos))
	for i := range m.Blocks {
		x = trace(m.Trace, fmt.Sprintf("block%d", i), m.Blocks[i].Forward(x))
	}
	return gt.Linear(m.LNF.Forward(x), m.WTE)
}

// GPTLoss is the mean cross-entropy of logits [B, T, V] against targets [B, T].
func GPTLoss(logits, targets *gt.Tensor) *gt.Tensor {
	v := logits.Size(-1)
	return Loss(logits.Reshape([]int{-1, v}), targets.Reshape([]int{-1}))
}
