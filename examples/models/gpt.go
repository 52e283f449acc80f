package models

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// GPTConfig sizes a GPT-2 style decoder.
type GPTConfig struct {
	Vocab, Block, Layers, Heads, D, Hidden int
}

// CausalSelfAttention is GPT-2's attention: a packed q/k/v projection
// c_attn (rows [0:D] make q, [D:2D] k, [2D:3D] v), a causal mask and an
// output projection c_proj.
type CausalSelfAttention struct {
	nn.Base
	CAttn, CProj *nn.Linear
	Heads        int
}

// NewCausalSelfAttention makes the attention for width d and heads heads.
func NewCausalSelfAttention(d, heads int) *CausalSelfAttention {
	a := &CausalSelfAttention{Heads: heads}
	a.CAttn = nn.Register(a, "c_attn", nn.NewLinear(d, 3*d))
	a.CProj = nn.Register(a, "c_proj", nn.NewLinear(d, d))
	return a
}

// Forward is causal self-attention over x [B, T, D].
func (a *CausalSelfAttention) Forward(x *gt.Tensor) *gt.Tensor {
	b, t, d := x.Size(0), x.Size(1), x.Size(2)
	hd := d / a.Heads
	qkv := a.CAttn.Forward(x).Split(d, gt.WithDim(-1))
	heads := func(z *gt.Tensor) *gt.Tensor { // [B,T,D] -> [B,H,T,hd]
		return z.View([]int{b, t, a.Heads, hd}).Transpose(1, 2)
	}
	q, k, v := heads(qkv[0]), heads(qkv[1]), heads(qkv[2])
	scores := q.Matmul(k.Transpose(-2, -1)).DivScalar(math.Sqrt(float64(hd)))
	future := gt.Full(true, t, t).Triu(gt.WithDiagonal(1)) // j > i
	probs := scores.MaskedFillScalar(future, math.Inf(-1)).Softmax(-1)
	merged := probs.Matmul(v).Transpose(1, 2).Reshape([]int{b, t, d})
	return a.CProj.Forward(merged)
}

// Block is a pre-LayerNorm decoder block: x + attn(ln_1(x)), then
// x + mlp(ln_2(x)), the MLP c_fc, GELU (erf), c_proj.
type Block struct {
	nn.Base
	LN1, LN2 *nn.LayerNorm
	Attn     *CausalSelfAttention
	MLP      *nn.ModuleDict
	FC, Proj *nn.Linear // the MLP's c_fc and c_proj
}

// NewBlock makes a block of the given configuration.
func NewBlock(c GPTConfig) *Block {
	b := &Block{}
	b.LN1 = nn.Register(b, "ln_1", nn.NewLayerNorm(c.D))
	b.Attn = nn.Register(b, "attn", NewCausalSelfAttention(c.D, c.Heads))
	b.LN2 = nn.Register(b, "ln_2", nn.NewLayerNorm(c.D))
	b.FC, b.Proj = nn.NewLinear(c.D, c.Hidden), nn.NewLinear(c.Hidden, c.D)
	b.MLP = nn.Register(b, "mlp", nn.NewModuleDict().Set("c_fc", b.FC).Set("c_proj", b.Proj))
	return b
}

// Forward maps x [B, T, D] to [B, T, D].
func (b *Block) Forward(x *gt.Tensor) *gt.Tensor {
	x = x.Add(b.Attn.Forward(b.LN1.Forward(x)))
	return x.Add(b.Proj.Forward(b.FC.Forward(b.LN2.Forward(x)).Gelu()))
}

// GPT is token and learned position embeddings (wte, wpe), blocks h.0,
// h.1, ..., a final LayerNorm ln_f and an LM head tied to wte. The LM head
// is wte's weight, not a module of its own, so the state dict holds it
// once, as wte.weight (PyTorch's state dict lists the tied weight twice,
// also as lm_head.weight; the stored weights have it once).
type GPT struct {
	nn.Base
	WTE, WPE *nn.Embedding
	H        *nn.ModuleList
	Blocks   []*Block
	LNF      *nn.LayerNorm
	// Trace, when non-nil, receives embed, block0, block1, ...
	Trace map[string]*gt.Tensor
}

// NewGPTModule makes the decoder with PyTorch's default initialisation.
func NewGPTModule(c GPTConfig) (*GPT, error) {
	if c.Heads <= 0 || c.D%c.Heads != 0 {
		return nil, fmt.Errorf("width %d does not split into %d heads", c.D, c.Heads)
	}
	m := &GPT{}
	err := build(func() {
		m.WTE = nn.Register(m, "wte", nn.NewEmbedding(c.Vocab, c.D))
		m.WPE = nn.Register(m, "wpe", nn.NewEmbedding(c.Block, c.D))
		m.H = nn.NewModuleList()
		for range c.Layers {
			b := NewBlock(c)
			m.Blocks = append(m.Blocks, b)
			m.H.Append(b)
		}
		m.RegisterModule("h", m.H)
		m.LNF = nn.Register(m, "ln_f", nn.NewLayerNorm(c.D))
	})
	return m, err
}

// NewGPT builds the decoder and loads weights named wte.weight,
// wpe.weight, h.<i>.{ln_1,attn.c_attn,attn.c_proj,ln_2,mlp.c_fc,mlp.c_proj}.*,
// ln_f.*.
func NewGPT(weights map[string]*gt.Tensor, c GPTConfig) (*GPT, error) {
	m, err := NewGPTModule(c)
	if err != nil {
		return nil, err
	}
	return m, load(m, weights)
}

// Forward maps tokens [B, T] (int64, T ≤ block size) to logits [B, T, vocab].
func (m *GPT) Forward(tokens *gt.Tensor) *gt.Tensor {
	t := tokens.Size(1)
	pos := m.WPE.Weight.Slice(gt.WithStart(0), gt.WithEnd(t))
	x := trace(m.Trace, "embed", m.WTE.Forward(tokens).Add(pos))
	for i, b := range m.Blocks {
		x = trace(m.Trace, fmt.Sprintf("block%d", i), b.Forward(x))
	}
	return gt.Linear(m.LNF.Forward(x), m.WTE.Weight)
}

// GPTLoss is the mean cross-entropy of logits [B, T, V] against targets [B, T].
func GPTLoss(logits, targets *gt.Tensor) *gt.Tensor {
	v := logits.Size(-1)
	return Loss(logits.Reshape([]int{-1, v}), targets.Reshape([]int{-1}))
}
