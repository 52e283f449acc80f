package bench

import (
	"runtime"
	"slices"
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/optim"
)

// trainPair is one model's training step twice over, on separate copies of
// its weights: eager (forward, loss, Backward, SGD step) and with the
// forward and loss compiled (the Eager backend: AOT autograd's forward and
// backward graphs, the same SGD step).
type trainPair struct {
	eager, compiled func()
}

// newTrainPair builds the steps of loss (made by mk over fresh parameters)
// and checks the compiled one hits the cache from its second call on.
func newTrainPair(b *testing.B, mk func() (loss func(*gt.Tensor) *gt.Tensor, params []*gt.Tensor), x *gt.Tensor) trainPair {
	step := func(compiled bool) func() {
		loss, params := mk()
		opt, err := optim.NewSGD(params, optim.WithLR(0.01))
		if err != nil {
			b.Fatal(err)
		}
		if !compiled {
			return func() {
				opt.ZeroGrad()
				loss(x).Backward()
				opt.Step()
			}
		}
		cc := compile.Compile(loss, compile.Options{Fullgraph: true, Backend: compile.Eager})
		run := func() {
			opt.ZeroGrad()
			l, err := cc.Call(x)
			if err != nil {
				b.Fatal(err)
			}
			l.(*gt.Tensor).Backward()
			opt.Step()
		}
		run() // the trace and the compile, outside the timing
		if j := cc.Joints(); len(j) != 1 || j[0] == nil {
			b.Fatalf("the compiled loss is not one AOT autograd graph: %s", cc.Explain())
		}
		return run
	}
	return trainPair{eager: step(false), compiled: step(true)}
}

// stepCost records the time and sums the allocations of the steps it runs.
type stepCost struct {
	t             []time.Duration
	allocs, bytes uint64
	before, after runtime.MemStats
}

func (c *stepCost) add(step func()) {
	runtime.ReadMemStats(&c.before)
	start := time.Now()
	step()
	c.t = append(c.t, time.Since(start))
	runtime.ReadMemStats(&c.after)
	c.allocs += c.after.Mallocs - c.before.Mallocs
	c.bytes += c.after.TotalAlloc - c.before.TotalAlloc
}

// median is the median step time (the load of a shared machine makes the
// mean follow its worst moments).
func (c *stepCost) median() time.Duration {
	s := slices.Clone(c.t)
	slices.Sort(s)
	return s[len(s)/2]
}

// report gives the median step time, the mean allocations and megabytes
// allocated as ms/name, allocs/name and MB/name.
func (c *stepCost) report(b *testing.B, name string) {
	n := float64(len(c.t))
	b.ReportMetric(c.median().Seconds()*1e3, "ms/"+name)
	b.ReportMetric(float64(c.allocs)/n, "allocs/"+name)
	b.ReportMetric(float64(c.bytes)/n/1e6, "MB/"+name)
}

// BenchmarkTrainStepCompiled runs a training step of the MLP of
// BenchmarkMLP and the GPT of BenchmarkGPT eagerly and with the forward and
// loss compiled (compile.Compile, the Eager backend), side by side: each
// iteration runs one eager step and one compiled step, in alternating
// order, so the machine's load falls on both alike. ms/eager and
// ms/compiled are the median step times, compiled/eager the median of each
// pair's ratio, allocs/ and MB/ each step's allocations; ns/op is the
// pair's.
// lossMaker makes a fresh model and returns its loss function and its
// parameters (which require grad).
type lossMaker = func() (func(*gt.Tensor) *gt.Tensor, []*gt.Tensor)

// mlpLossMaker makes newMLP's loss against labels.
func mlpLossMaker(labels *gt.Tensor) lossMaker {
	return func() (func(*gt.Tensor) *gt.Tensor, []*gt.Tensor) {
		m := newMLP()
		params := append(append([]*gt.Tensor{}, m.w...), m.b...)
		for _, p := range params {
			p.SetRequiresGrad(true)
		}
		return func(x *gt.Tensor) *gt.Tensor { return m.forward(x, labels) }, params
	}
}

// gptLossMaker makes a GPT of config c on weights w and its next-token loss.
func gptLossMaker(b *testing.B, w map[string]*gt.Tensor, c models.GPTConfig) lossMaker {
	return func() (func(*gt.Tensor) *gt.Tensor, []*gt.Tensor) {
		m, err := models.NewGPT(w, c)
		if err != nil {
			b.Fatal(err)
		}
		return func(t *gt.Tensor) *gt.Tensor { return models.GPTLoss(m.Forward(t), t) }, m.Parameters()
	}
}

func BenchmarkTrainStepCompiled(b *testing.B) {
	x := gt.Randn(mlpBatch, mlpSizes[0])
	labels := gt.Rand(mlpBatch).MulScalar(float64(mlpSizes[len(mlpSizes)-1])).To(gt.Int64)
	mlpLoss := mlpLossMaker(labels)
	gt.ManualSeed(0)
	w := gptWeights(gptConfig)
	tok := gt.Rand(8, gptConfig.Block).MulScalar(float64(gptConfig.Vocab)).To(gt.Int64)
	gptLoss := gptLossMaker(b, w, gptConfig)
	// The 2-layer GPT of BenchmarkTrace on 2×16 tokens: small products, so
	// the per-op costs (dispatch, autograd, the compiled graphs' runs) show.
	small := models.GPTConfig{Vocab: 64, Block: 16, Layers: 2, Heads: 4, D: 32, Hidden: 128}
	ws := gptWeights(small)
	tokSmall := gt.Rand(2, small.Block).MulScalar(float64(small.Vocab)).To(gt.Int64)
	gptSmallLoss := gptLossMaker(b, ws, small)
	for _, c := range []struct {
		name string
		mk   lossMaker
		x    *gt.Tensor
	}{{"mlp", mlpLoss, x}, {"gpt", gptLoss, tok}, {"gpt-small", gptSmallLoss, tokSmall}} {
		b.Run(c.name+"/train", func(b *testing.B) {
			p := newTrainPair(b, c.mk, c.x)
			var eager, compiled stepCost
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if i%2 == 0 {
					eager.add(p.eager)
					compiled.add(p.compiled)
				} else {
					compiled.add(p.compiled)
					eager.add(p.eager)
				}
				i++
			}
			eager.report(b, "eager")
			compiled.report(b, "compiled")
			// The median of the pairs' ratios: a pair's two steps ran a
			// few milliseconds apart, under about the same load.
			ratios := make([]float64, len(eager.t))
			for k := range ratios {
				ratios[k] = compiled.t[k].Seconds() / eager.t[k].Seconds()
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "compiled/eager")
		})
	}
}

// BenchmarkTrainWholeStepCompiled runs the training step of the MLP, the
// GPT and the small GPT eagerly and compiled whole (compile.Compile of one
// Go function doing ZeroGrad, the forward and the loss, Backward and an SGD
// step with momentum, or Adam for gpt-small-adam), side by side as
// BenchmarkTrainStepCompiled does;
// compiled/eager is the median of the pairs' ratios. The whole step runs in
// segments (the Backward is a graph break): each call runs the Go function
// on traced tensors, which follow the last call's trace of the segment
// (compile/replay.go), then runs the segment's compiled graph.
func BenchmarkTrainWholeStepCompiled(b *testing.B) {
	x := gt.Randn(mlpBatch, mlpSizes[0])
	labels := gt.Rand(mlpBatch).MulScalar(float64(mlpSizes[len(mlpSizes)-1])).To(gt.Int64)
	small := models.GPTConfig{Vocab: 64, Block: 16, Layers: 2, Heads: 4, D: 32, Hidden: 128}
	ws := gptWeights(small)
	tok := gt.Rand(2, small.Block).MulScalar(float64(small.Vocab)).To(gt.Int64)
	gt.ManualSeed(0)
	wl := gptWeights(gptConfig)
	tokLarge := gt.Rand(8, gptConfig.Block).MulScalar(float64(gptConfig.Vocab)).To(gt.Int64)
	gptSmall := gptLossMaker(b, ws, small)
	for _, c := range []struct {
		name string
		mk   lossMaker
		x    *gt.Tensor
		adam bool
	}{
		{"mlp", mlpLossMaker(labels), x, false},
		{"gpt", gptLossMaker(b, wl, gptConfig), tokLarge, false},
		{"gpt-small", gptSmall, tok, false},
		{"gpt-small-adam", gptSmall, tok, true},
	} {
		b.Run(c.name+"/train", func(b *testing.B) {
			step := func(compiled bool) func() {
				loss, params := c.mk()
				var opt optim.Optimizer
				var err error
				if c.adam {
					opt, err = optim.NewAdam(params, optim.WithLR(1e-3))
				} else {
					opt, err = optim.NewSGD(params, optim.WithLR(0.01), optim.WithMomentum(0.9))
				}
				if err != nil {
					b.Fatal(err)
				}
				whole := func(x *gt.Tensor) *gt.Tensor {
					opt.ZeroGrad()
					l := loss(x)
					l.Backward()
					opt.Step()
					return l
				}
				if !compiled {
					return func() { whole(c.x) }
				}
				cc := compile.Compile(whole, compile.Options{Backend: compile.Eager, Logf: func(string, ...any) {}})
				run := func() {
					if _, err := cc.Call(c.x); err != nil {
						b.Fatal(err)
					}
				}
				if c.adam {
					// Three graphs with the step (its bias corrections
					// change), then the step runs eagerly and the forward
					// and backward's graph is replayed.
					for range 5 {
						run()
					}
					if s := cc.Stats(); s.Eager != 0 || s.Segments != 4 || s.SegmentReplays != 1 {
						b.Fatalf("the whole step did not run in segments, its trace replayed: %+v", s)
					}
					return run
				}
				run()
				run() // the first step's graph (new momentum buffers), then the steady one
				run() // the steady graph's trace replayed
				if s := cc.Stats(); s.Eager != 0 || s.Segments != 2 || s.SegmentReplays != 1 {
					b.Fatalf("the whole step did not run in segments, its trace replayed: %+v", s)
				}
				return run
			}
			eagerStep, compiledStep := step(false), step(true)
			var eager, compiled stepCost
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if i%2 == 0 {
					eager.add(eagerStep)
					compiled.add(compiledStep)
				} else {
					compiled.add(compiledStep)
					eager.add(eagerStep)
				}
				i++
			}
			eager.report(b, "eager")
			compiled.report(b, "compiled")
			ratios := make([]float64, len(eager.t))
			for k := range ratios {
				ratios[k] = compiled.t[k].Seconds() / eager.t[k].Seconds()
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "compiled/eager")
		})
	}
}
