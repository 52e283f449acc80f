package bench

import (
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/examples/models"
)

// tenOps is a 10-op elementwise graph: the function BenchmarkCompile runs
// eagerly and compiled.
func tenOps(x, y *gt.Tensor) *gt.Tensor {
	a := x.Mul(y).Add(x)
	b := a.Sigmoid().Mul(a)
	c := b.Sub(y).Abs()
	d := c.Add(x).Neg()
	return d.Exp().Mul(b)
}

// BenchmarkCompile compares a compiled call on a cache hit (guard check and
// the Interpreter over the dispatcher, the Eager backend) with the same ten
// ops run eagerly, on small tensors (per-call overhead) and 64x64.
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{1, 64} {
		x, y := gt.Randn(n, n), gt.Randn(n, n)
		name := map[int]string{1: "1x1", 64: "64x64"}[n]
		b.Run("eager/10ops/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = tenOps(x, y)
			}
		})
		c := compile.Compile(tenOps)
		if _, err := c.Call(x, y); err != nil {
			b.Fatal(err)
		}
		b.Run("compiled/10ops/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Call(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTrace reports the cost of tracing (fake mode) per recorded op:
// the GPT forward with its loss, and its training step with Backward.
func BenchmarkTrace(b *testing.B) {
	gt.ManualSeed(0)
	cfg := models.GPTConfig{Vocab: 64, Block: 16, Layers: 2, Heads: 4, D: 32, Hidden: 128}
	w := gptWeights(cfg)
	m, err := models.NewGPT(w, cfg)
	if err != nil {
		b.Fatal(err)
	}
	tok := gt.Rand(2, cfg.Block).MulScalar(float64(cfg.Vocab)).To(gt.Int64)
	fwd := func(t *gt.Tensor) *gt.Tensor { return models.GPTLoss(m.Forward(t), t) }
	b.Run("gpt/forward", func(b *testing.B) {
		var nodes int
		start := time.Now()
		for b.Loop() {
			gm, err := compile.Trace(fwd, []*gt.Tensor{tok}, compile.TraceOptions{Mode: compile.Fake})
			if err != nil {
				b.Fatal(err)
			}
			nodes = gm.Graph.Len()
		}
		el := time.Since(start)
		b.ReportMetric(float64(nodes), "nodes")
		b.ReportMetric(float64(el.Microseconds())/float64(b.N)/float64(nodes), "µs/node")
	})
}
