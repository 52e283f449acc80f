package bench

import (
	"fmt"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/examples/models"
)

// gptConfig is the GPT-2 style decoder of BenchmarkGPT: examples/models'
// GPT with 4 pre-LayerNorm blocks of width 256 (8 heads, MLP 1024, GELU),
// block size 128 and a 512-token vocabulary, on a batch of 8×128 tokens.
var gptConfig = models.GPTConfig{Vocab: 512, Block: 128, Layers: 4, Heads: 8, D: 256, Hidden: 1024}

// gptWeights draws the decoder's weights as GPT-2 initialises them
// (N(0, 0.02) matrices and embeddings, zero biases, unit LayerNorm gains).
func gptWeights(c models.GPTConfig) map[string]*gt.Tensor {
	w := map[string]*gt.Tensor{}
	r := func(shape ...int) *gt.Tensor { return gt.Randn(shape).MulScalar(0.02) }
	w["wte.weight"], w["wpe.weight"] = r(c.Vocab, c.D), r(c.Block, c.D)
	ln := func(p string) { w[p+".weight"], w[p+".bias"] = gt.Ones(c.D), gt.Zeros(c.D) }
	lin := func(p string, in, out int) { w[p+".weight"], w[p+".bias"] = r(out, in), gt.Zeros(out) }
	for i := range c.Layers {
		h := fmt.Sprintf("h.%d.", i)
		ln(h + "ln_1")
		ln(h + "ln_2")
		lin(h+"attn.c_attn", c.D, 3*c.D)
		lin(h+"attn.c_proj", c.D, c.D)
		lin(h+"mlp.c_fc", c.D, c.Hidden)
		lin(h+"mlp.c_proj", c.Hidden, c.D)
	}
	ln("ln_f")
	return w
}

// BenchmarkGPT runs examples/models' GPT decoder: the forward pass with the
// language-model loss, and a training step (gradients cleared, forward,
// backward). bench/peers/gpt_torch.py runs the same model in PyTorch.
func BenchmarkGPT(b *testing.B) {
	gt.ManualSeed(0)
	w := gptWeights(gptConfig)
	m, err := models.NewGPT(w, gptConfig)
	if err != nil {
		b.Fatal(err)
	}
	tok := gt.Rand(8, gptConfig.Block).MulScalar(float64(gptConfig.Vocab)).To(gt.Int64)
	b.Run("goaten/forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			// The weights are nn parameters (they require grad): no graph here.
			autograd.NoGrad(func() { _ = models.GPTLoss(m.Forward(tok), tok) })
		}
	})
	b.Run("goaten/train", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.ZeroGrad()
			models.GPTLoss(m.Forward(tok), tok).Backward()
		}
	})
}
