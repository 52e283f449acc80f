package main

import (
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// GPTConfig sizes the model.
type GPTConfig struct {
	Vocab, Block, Layers, Heads, D int
}

// Attention is causal multi-head self-attention built from two Linear
// layers: qkv projects x to the queries, keys and values of every head,
// proj mixes the heads' outputs.
type Attention struct {
	nn.Base
	QKV, Proj *nn.Linear
	Heads     int
}

// NewAttention makes attention of width d with heads heads.
func NewAttention(d, heads int) *Attention {
	a := &Attention{Heads: heads}
	a.QKV = nn.Register(a, "qkv", nn.NewLinear(d, 3*d))
	a.Proj = nn.Register(a, "proj", nn.NewLinear(d, d))
	return a
}

// Forward maps x [B, T, D] to [B, T, D]; mask [T, T] is true where a
// position may not look (the future).
func (a *Attention) Forward(x, mask *gt.Tensor) *gt.Tensor {
	s := x.Sizes()
	b, t, d := s[0], s[1], s[2]
	hd := d / a.Heads
	heads := func(u *gt.Tensor) *gt.Tensor { // [B, T, D] -> [B, H, T, hd]
		return u.Reshape([]int{b, t, a.Heads, hd}).Transpose(1, 2)
	}
	qkv := a.QKV.Forward(x)
	q, k, v := heads(qkv.Narrow(2, 0, d)), heads(qkv.Narrow(2, d, d)), heads(qkv.Narrow(2, 2*d, d))
	att := q.Matmul(k.Transpose(2, 3)).MulScalar(1 / math.Sqrt(float64(hd)))
	att = att.MaskedFillScalar(mask, math.Inf(-1)).Softmax(-1)
	y := att.Matmul(v).Transpose(1, 2).Reshape([]int{b, t, d})
	return a.Proj.Forward(y)
}

// Block is a pre-LayerNorm transformer block: x + attn(ln1(x)), then
// x + fc2(gelu(fc1(ln2(x)))).
type Block struct {
	nn.Base
	LN1  *nn.LayerNorm
	Attn *Attention
	LN2  *nn.LayerNorm
	FC1  *nn.Linear
	GELU *nn.GELU
	FC2  *nn.Linear
}

// NewBlock makes a block of width d.
func NewBlock(d, heads int) *Block {
	b := &Block{}
	b.LN1 = nn.Register(b, "ln1", nn.NewLayerNorm(d))
	b.Attn = nn.Register(b, "attn", NewAttention(d, heads))
	b.LN2 = nn.Register(b, "ln2", nn.NewLayerNorm(d))
	b.FC1 = nn.Register(b, "fc1", nn.NewLinear(d, 4*d))
	b.GELU = nn.Register(b, "gelu", nn.NewGELU())
	b.FC2 = nn.Register(b, "fc2", nn.NewLinear(4*d, d))
	return b
}

// Forward maps x [B, T, D] to [B, T, D].
func (b *Block) Forward(x, mask *gt.Tensor) *gt.Tensor {
	x = x.Add(b.Attn.Forward(b.LN1.Forward(x), mask))
	return x.Add(b.FC2.Forward(b.GELU.Forward(b.FC1.Forward(b.LN2.Forward(x)))))
}

// GPT is a character-level decoder: token and position embeddings, blocks,
// a final LayerNorm and a linear head to the vocabulary.
type GPT struct {
	nn.Base
	Tok, Pos *nn.Embedding
	Blocks   *nn.ModuleList
	LNF      *nn.LayerNorm
	Head     *nn.Linear
	Config   GPTConfig
}

// NewGPT makes the model; after goaten.ManualSeed its weights are those of
// the same PyTorch model (bench/peers/examples_charlm.py) after
// torch.manual_seed.
func NewGPT(c GPTConfig) *GPT {
	m := &GPT{Config: c}
	m.Tok = nn.Register(m, "tok", nn.NewEmbedding(c.Vocab, c.D))
	m.Pos = nn.Register(m, "pos", nn.NewEmbedding(c.Block, c.D))
	m.Blocks = nn.Register(m, "blocks", nn.NewModuleList())
	for range c.Layers {
		m.Blocks.Append(NewBlock(c.D, c.Heads))
	}
	m.LNF = nn.Register(m, "ln_f", nn.NewLayerNorm(c.D))
	m.Head = nn.Register(m, "head", nn.NewLinear(c.D, c.Vocab))
	return m
}

// Forward maps tokens [B, T] (int64, T ≤ Block) to logits [B, T, Vocab].
func (m *GPT) Forward(tokens *gt.Tensor) *gt.Tensor {
	t := tokens.Sizes()[1]
	mask := gt.Ones(t, t).Triu(tensor.WithDiagonal(1)).To(gt.Bool)
	x := m.Tok.Forward(tokens).Add(m.Pos.Forward(gt.Arange(0, t)))
	for _, b := range m.Blocks.Modules() {
		x = b.(*Block).Forward(x, mask)
	}
	return m.Head.Forward(m.LNF.Forward(x))
}
