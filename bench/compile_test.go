package bench

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/tensor"
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
		c := compile.Compile(tenOps, compile.Options{Backend: compile.Eager}) // issue 20's numbers: the Eager backend
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

// chain is a function to time on its inputs; bytes is what a fused run
// must move (its inputs read once, its result written once).
type chain struct {
	name   string
	f      any
	inputs []*gt.Tensor
	bytes  int
}

// chains are issue 24's pointwise chains on 16M float32.
func chains() []chain {
	x := gt.FromFloat32s(randFloat32s(n16M, 1), 16384, 1024)
	r := gt.FromFloat32s(randFloat32s(n16M, 2), 16384, 1024)
	bias := gt.FromFloat32s(randFloat32s(1024, 3), 1024)
	w := gt.FromFloat32s(randFloat32s(1024, 4), 1024)
	x3 := gt.FromFloat32s(randFloat32s(n16M, 5), 16, 1024, 1024)
	mask := gt.FromFloat32s(randFloat32s(1<<20, 6), 1024, 1024)
	return []chain{
		{"sigmoid_chain", func(x *gt.Tensor) *gt.Tensor { return x.MulScalar(2).AddScalar(1).Sigmoid().Mul(x) },
			[]*gt.Tensor{x}, 8 * n16M},
		{"gelu_bias", func(x, b *gt.Tensor) *gt.Tensor { return x.Add(b).Gelu() },
			[]*gt.Tensor{x, bias}, 8*n16M + 4*1024},
		{"layer_norm_residual", func(x, r, w, b *gt.Tensor) *gt.Tensor {
			return tensor.LayerNorm(x.Add(r), []int{1024}, tensor.WithWeight(w), tensor.WithBias(b))
		}, []*gt.Tensor{x, r, w, bias}, 12*n16M + 8*1024},
		{"softmax_mask", func(x, m *gt.Tensor) *gt.Tensor { return x.DivScalar(8).Add(m).Softmax(-1) },
			[]*gt.Tensor{x3, mask}, 8*n16M + 4<<20},
	}
}

// BenchmarkCompileCPU runs issue 24's chains on 16M float32 three ways:
// eagerly (each op allocating its result), compiled with the Eager backend
// (the same dispatcher calls from a flattened graph) and compiled with the
// cpu backend (compile/cpu: one tiled program per chain). SetBytes counts
// the bytes a fused run must move, so MB/s reads as the achieved share of
// the memory bandwidth. GOATEN_TILE sets the cpu backend's tile size in
// elements for every group (default: the backend picks each group's tile).
func BenchmarkCompileCPU(b *testing.B) {
	opts := compilecpu.Options{}
	if v, err := strconv.Atoi(os.Getenv("GOATEN_TILE")); err == nil {
		opts.TileElems = v
	}
	for _, c := range chains() {
		in := c.inputs
		call := func(cc *compile.Compiled) func() {
			return func() {
				if _, err := cc.Call(in...); err != nil {
					b.Fatal(err)
				}
			}
		}
		eager := compile.Compile(c.f, compile.Options{Backend: compile.Eager})
		direct := directCall(c.f, in)
		b.Run(fmt.Sprintf("eager/%s/16M", c.name), func(b *testing.B) { run(b, n16M, c.bytes, direct) })
		b.Run(fmt.Sprintf("compiled-eager/%s/16M", c.name), func(b *testing.B) { run(b, n16M, c.bytes, call(eager)) })
		fused := compile.Compile(c.f, compile.Options{Backend: compilecpu.New(opts)})
		b.Run(fmt.Sprintf("compiled-cpu/%s/16M", c.name), func(b *testing.B) { run(b, n16M, c.bytes, call(fused)) })
	}
}

// BenchmarkCompileCPUMemory shows the memory plan on a block with matrix
// products, which run through the dispatcher: x@W1+b1, gelu, @W2+b2,
// layer_norm of the sum with x, on 1024×1024 float32. With the Eager
// backend each call allocates every intermediate (six of 4 MiB); with the
// cpu backend the products' results and the group outputs they read reuse
// the arena's storages, so a warm call allocates its result (4 MiB) and the
// kernels' own scratch.
func BenchmarkCompileCPUMemory(b *testing.B) {
	const n = 1024
	x := gt.FromFloat32s(randFloat32s(n*n, 1), n, n)
	w1 := gt.FromFloat32s(randFloat32s(n*n, 2), n, n)
	w2 := gt.FromFloat32s(randFloat32s(n*n, 3), n, n)
	b1 := gt.FromFloat32s(randFloat32s(n, 4), n)
	b2 := gt.FromFloat32s(randFloat32s(n, 5), n)
	f := func(x, w1, b1, w2, b2 *gt.Tensor) *gt.Tensor {
		h := x.Mm(w1).Add(b1).Gelu()
		return tensor.LayerNorm(h.Mm(w2).Add(b2).Add(x), []int{n})
	}
	for _, c := range []struct {
		name string
		b    compile.Backend
	}{{"compiled-eager", compile.Eager}, {"compiled-cpu", compilecpu.Backend}} {
		cc := compile.Compile(f, compile.Options{Backend: c.b})
		b.Run(c.name+"/mlp_block/1024", func(b *testing.B) {
			run(b, n*n, 4*n*n*4, func() { // x, w1, w2 read, the result written
				if _, err := cc.Call(x, w1, b1, w2, b2); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// directCall calls f (a func of 1, 2 or 4 tensors) on in eagerly.
func directCall(f any, in []*gt.Tensor) func() {
	switch f := f.(type) {
	case func(*gt.Tensor) *gt.Tensor:
		return func() { f(in[0]) }
	case func(a, b *gt.Tensor) *gt.Tensor:
		return func() { f(in[0], in[1]) }
	case func(a, b, c, d *gt.Tensor) *gt.Tensor:
		return func() { f(in[0], in[1], in[2], in[3]) }
	}
	panic("directCall: unsupported function type")
}
