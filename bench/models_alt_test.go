package bench

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/internal/cputime"
	"github.com/goaten/goaten/optim"
)

// TestModelsAlternating is the model part of issue 24's table: each model
// runs three ways — eager, compiled with the Eager backend and compiled
// with the cpu backend (compile/cpu) — on its own copy of the weights, the
// variants alternated call by call for MODELS_REPS rounds (on a shared
// machine only variants timed in the same minutes compare). It prints, per
// variant, the minimum and median wall time per call, the minimum CPU time
// of the process per call (every thread's: with -cpu 1 the wall time less
// the time the process waited for a CPU, which on a shared machine is the
// steadier figure), the allocations (objects and MB) and minor page faults
// per warm call, and the machine's load average; bench/peers/models_torch.py runs the same models in
// PyTorch 1.13, eager and traced with TorchScript's legacy fuser. It never
// fails: it measures. MODELS=mlp,gpt,cnn,gen picks the models (default all),
// MODELS_VARIANTS=eager,compiled-eager,compiled-cpu the variants (default
// all; one variant alone is what a CPU profile of a backend wants); run
// with -cpu 1,2 (bench/models.sh runs both and the peers):
//
//	MODELS_REPS=5 go test -run ModelsAlternating -cpu 1,2 -v ./bench/
//
// The cases: MLP 784-1024-1024-10 batch 256, training step (ZeroGrad,
// compiled loss, Backward, SGD step); BenchmarkGPT's decoder, forward and
// loss under no_grad, and the training step; a CNN of conv3×3-BN-ReLU
// blocks (3→32 channels, then two 32→32 blocks, on 16×3×32×32, batch
// statistics, global average pool and a linear layer to 10), forward and
// training step; and a GPT-2-small-shaped decoder (12 layers, width 768,
// 12 heads, vocabulary 50257, random weights) generating one token at a
// time with a kv-cache of 64 positions (one compiled graph for every
// position: the cache is a fixed-size input, the new key and value are
// selected into it by a mask and the padding is masked out of the scores).
// Its line adds the memory floor: the bytes of the weights a token reads
// once (every matrix, the tied embedding as the LM head) over the
// bandwidth measured in the same run with GOMAXPROCS goroutines
// (streamTriad), the STREAM-triad figure and the read-only one.
func TestModelsAlternating(t *testing.T) {
	reps, _ := strconv.Atoi(os.Getenv("MODELS_REPS"))
	if reps == 0 {
		t.Skip("a measurement, not a check (it never fails): set MODELS_REPS=N to run it")
	}
	want := map[string]bool{}
	for _, m := range strings.Split(os.Getenv("MODELS"), ",") {
		if m != "" {
			want[m] = true
		}
	}
	on := func(m string) bool { return len(want) == 0 || want[m] }
	fmt.Printf("# models, GOMAXPROCS %d, %d rounds, load average %s\n", runtime.GOMAXPROCS(0), reps, loadAvg())
	var cases []modelCase
	if on("mlp") {
		cases = append(cases, mlpCase(t))
	}
	if on("gpt") {
		cases = append(cases, gptCases(t)...)
	}
	if on("cnn") {
		cases = append(cases, cnnCases(t)...)
	}
	if on("gen") {
		cases = append(cases, genCase(t))
	}
	for _, c := range cases {
		runModelCase(t, c, reps)
	}
	fmt.Printf("# load average after: %s\n", loadAvg())
}

// modelCase is one row: a call per variant (made by mk for the backend:
// nil is eager).
type modelCase struct {
	name      string
	mk        func(b compile.Backend) func()
	floor     time.Duration // the memory floor, where there is one
	readFloor time.Duration // the floor at the read-only bandwidth
	bytes     float64
}

var modelVariants = []struct {
	name    string
	backend compile.Backend
}{{"eager", nil}, {"compiled-eager", compile.Eager}, {"compiled-cpu", compilecpu.Backend}}

func runModelCase(t *testing.T, c modelCase, reps int) {
	variants := modelVariants
	if sel := os.Getenv("MODELS_VARIANTS"); sel != "" {
		variants = nil
		for _, v := range modelVariants {
			if slices.Contains(strings.Split(sel, ","), v.name) {
				variants = append(variants, v)
			}
		}
		if len(variants) == 0 {
			t.Fatalf("MODELS_VARIANTS=%q names none of eager, compiled-eager, compiled-cpu", sel)
		}
	}
	fs := make([]func(), len(variants))
	for i, v := range variants {
		fs[i] = c.mk(v.backend)
		fs[i]()
		fs[i]() // warm: the trace, the compile, the arena
	}
	type stat struct {
		wall, cpu       []float64
		allocs, mb, flt float64
	}
	st := make([]stat, len(fs))
	var m0, m1 runtime.MemStats
	for r := range reps {
		for k := range fs {
			i := (k + r) % len(fs) // each variant first in turn
			runtime.GC()
			runtime.ReadMemStats(&m0)
			f0 := cputime.MinorFaults()
			c0 := cputime.Process()
			start := time.Now()
			fs[i]()
			el := time.Since(start)
			c1 := cputime.Process()
			f1 := cputime.MinorFaults()
			runtime.ReadMemStats(&m1)
			st[i].wall = append(st[i].wall, float64(el.Nanoseconds())/1e6)
			st[i].cpu = append(st[i].cpu, float64((c1-c0).Nanoseconds())/1e6)
			st[i].allocs += float64(m1.Mallocs - m0.Mallocs)
			st[i].mb += float64(m1.TotalAlloc-m0.TotalAlloc) / 1e6
			st[i].flt += float64(f1 - f0)
		}
	}
	for i, v := range variants {
		w := slices.Clone(st[i].wall)
		slices.Sort(w)
		n := float64(reps)
		line := fmt.Sprintf("model %-14s %-15s min %9.2f ms  median %9.2f ms  cpu min %9.2f ms  allocs %7.0f  MB %8.2f  faults %7.0f",
			c.name, v.name, w[0], w[len(w)/2], slices.Min(st[i].cpu), st[i].allocs/n, st[i].mb/n, st[i].flt/n)
		if c.floor > 0 {
			line += fmt.Sprintf("  floor %.2f ms (%.0f MB at %.1f GB/s)  min/floor %.2f",
				c.floor.Seconds()*1e3, c.bytes/1e6, c.bytes/c.floor.Seconds()/1e9, w[0]/(c.floor.Seconds()*1e3))
			line += fmt.Sprintf("  read floor %.2f ms (%.1f GB/s)  min/read floor %.2f",
				c.readFloor.Seconds()*1e3, c.bytes/c.readFloor.Seconds()/1e9, w[0]/(c.readFloor.Seconds()*1e3))
		}
		fmt.Println(line)
	}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// compiled compiles fn (Fullgraph) with backend, failing t on an error.
func compiledCall(t *testing.T, fn any, backend compile.Backend) func(...*gt.Tensor) any {
	cc := compile.Compile(fn, compile.Options{Fullgraph: true, Backend: backend})
	return func(in ...*gt.Tensor) any {
		r, err := cc.Call(in...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

func mlpCase(t *testing.T) modelCase {
	x := gt.Randn(mlpBatch, mlpSizes[0])
	labels := gt.Rand(mlpBatch).MulScalar(float64(mlpSizes[len(mlpSizes)-1])).To(gt.Int64)
	return modelCase{name: "mlp/train", mk: func(backend compile.Backend) func() {
		m := newMLP()
		params := append(append([]*gt.Tensor{}, m.w...), m.b...)
		for _, p := range params {
			p.SetRequiresGrad(true)
		}
		opt, err := optim.NewSGD(params, optim.WithLR(0.01))
		if err != nil {
			t.Fatal(err)
		}
		loss := func(x *gt.Tensor) *gt.Tensor { return m.forward(x, labels) }
		if backend == nil {
			return func() { opt.ZeroGrad(); loss(x).Backward(); opt.Step() }
		}
		call := compiledCall(t, loss, backend)
		return func() { opt.ZeroGrad(); call(x).(*gt.Tensor).Backward(); opt.Step() }
	}}
}

func gptCases(t *testing.T) []modelCase {
	gt.ManualSeed(0)
	w := gptWeights(gptConfig)
	tok := gt.Rand(8, gptConfig.Block).MulScalar(float64(gptConfig.Vocab)).To(gt.Int64)
	model := func() *models.GPT {
		m, err := models.NewGPT(w, gptConfig)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	fwd := modelCase{name: "gpt/forward", mk: func(backend compile.Backend) func() {
		m := model()
		loss := func(tok *gt.Tensor) *gt.Tensor { return models.GPTLoss(m.Forward(tok), tok) }
		if backend == nil {
			return func() { autograd.NoGrad(func() { loss(tok) }) }
		}
		call := compiledCall(t, loss, backend)
		return func() { autograd.NoGrad(func() { call(tok) }) }
	}}
	train := modelCase{name: "gpt/train", mk: func(backend compile.Backend) func() {
		m := model()
		loss := func(tok *gt.Tensor) *gt.Tensor { return models.GPTLoss(m.Forward(tok), tok) }
		if backend == nil {
			return func() { m.ZeroGrad(); loss(tok).Backward() }
		}
		call := compiledCall(t, loss, backend)
		return func() { m.ZeroGrad(); call(tok).(*gt.Tensor).Backward() }
	}}
	return []modelCase{fwd, train}
}

// cnn is conv3×3-BN-ReLU blocks (batch statistics), a global average pool
// and a linear layer.
type cnn struct {
	conv, gamma, beta []*gt.Tensor
	fcW, fcB          *gt.Tensor
}

var cnnChannels = []int{3, 32, 32, 32}

func newCNN() *cnn {
	gt.ManualSeed(1)
	m := &cnn{}
	for i := 0; i+1 < len(cnnChannels); i++ {
		in, out := cnnChannels[i], cnnChannels[i+1]
		m.conv = append(m.conv, gt.Randn(out, in, 3, 3).MulScalar(math.Sqrt(2/float64(9*in))))
		m.gamma = append(m.gamma, gt.Ones(out))
		m.beta = append(m.beta, gt.Zeros(out))
	}
	c := cnnChannels[len(cnnChannels)-1]
	m.fcW, m.fcB = gt.Randn(10, c).MulScalar(1/math.Sqrt(float64(c))), gt.Zeros(10)
	return m
}

func (m *cnn) params() []*gt.Tensor {
	p := append(append(append([]*gt.Tensor{}, m.conv...), m.gamma...), m.beta...)
	return append(p, m.fcW, m.fcB)
}

func (m *cnn) loss(x, labels *gt.Tensor) *gt.Tensor {
	h := x
	for i := range m.conv {
		h = gt.Conv2d(h, m.conv[i], gt.WithPadding([]int{1, 1}))
		h = gt.BatchNorm(h, m.gamma[i], m.beta[i], nil, nil, true, 0.1, 1e-5, false).Relu()
	}
	h = h.AdaptiveAvgPool2d([]int{1, 1}).Flatten(gt.WithStartDim(1))
	return gt.Linear(h, m.fcW, gt.WithBias(m.fcB)).CrossEntropyLoss(labels)
}

func cnnCases(t *testing.T) []modelCase {
	gt.ManualSeed(2)
	x := gt.Randn(16, cnnChannels[0], 32, 32)
	labels := gt.Rand(16).MulScalar(10).To(gt.Int64)
	fwd := modelCase{name: "cnn/forward", mk: func(backend compile.Backend) func() {
		m := newCNN()
		if backend == nil {
			return func() { autograd.NoGrad(func() { m.loss(x, labels) }) }
		}
		call := compiledCall(t, m.loss, backend)
		return func() { autograd.NoGrad(func() { call(x, labels) }) }
	}}
	train := modelCase{name: "cnn/train", mk: func(backend compile.Backend) func() {
		m := newCNN()
		opt, err := optim.NewSGD(m.params(), optim.WithLR(0.01))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.params() {
			p.SetRequiresGrad(true)
		}
		if backend == nil {
			return func() { opt.ZeroGrad(); m.loss(x, labels).Backward(); opt.Step() }
		}
		call := compiledCall(t, m.loss, backend)
		return func() { opt.ZeroGrad(); call(x, labels).(*gt.Tensor).Backward(); opt.Step() }
	}}
	return []modelCase{fwd, train}
}

// gen is the GPT-2-small-shaped decoder's weights.
type gen struct {
	layers                     int
	d, heads, vocab, ctx       int
	wte                        *gt.Tensor
	ln1w, ln1b, ln2w, ln2b     []*gt.Tensor
	attnW, attnB, projW, projB []*gt.Tensor
	fcW, fcB, outW, outB       []*gt.Tensor
	lnfW, lnfB                 *gt.Tensor
}

func newGen(layers, d, heads, vocab, ctx int) *gen {
	gt.ManualSeed(3)
	g := &gen{layers: layers, d: d, heads: heads, vocab: vocab, ctx: ctx}
	r := func(shape ...int) *gt.Tensor { return gt.Randn(shape).MulScalar(0.02) }
	g.wte = r(vocab, d)
	for range layers {
		g.ln1w, g.ln1b = append(g.ln1w, gt.Ones(d)), append(g.ln1b, gt.Zeros(d))
		g.ln2w, g.ln2b = append(g.ln2w, gt.Ones(d)), append(g.ln2b, gt.Zeros(d))
		g.attnW, g.attnB = append(g.attnW, r(3*d, d)), append(g.attnB, gt.Zeros(3*d))
		g.projW, g.projB = append(g.projW, r(d, d)), append(g.projB, gt.Zeros(d))
		g.fcW, g.fcB = append(g.fcW, r(4*d, d)), append(g.fcB, gt.Zeros(4*d))
		g.outW, g.outB = append(g.outW, r(d, 4*d)), append(g.outB, gt.Zeros(d))
	}
	g.lnfW, g.lnfB = gt.Ones(d), gt.Zeros(d)
	return g
}

// weightBytes is what one token reads: every matrix once, the tied
// embedding as the LM head.
func (g *gen) weightBytes() float64 {
	n := g.wte.Numel()
	for l := range g.layers {
		n += g.attnW[l].Numel() + g.projW[l].Numel() + g.fcW[l].Numel() + g.outW[l].Numel()
	}
	return 4 * float64(n)
}

// step is one token: in = [x [1,1,D] (the token's embedding plus its
// position's), add [1,1,1,ctx] (0 up to the position, -inf after), sel
// [ctx,1] (true at the position), k0, v0, k1, v1, ... [1,H,ctx,hd]]; it
// returns the logits [1,1,V] and each layer's new key and value
// [1,H,1,hd].
func (g *gen) step(in ...*gt.Tensor) []*gt.Tensor {
	x, add, sel := in[0], in[1], in[2]
	d, hd := g.d, g.d/g.heads
	out := []*gt.Tensor{nil}
	heads := func(z *gt.Tensor) *gt.Tensor { return z.View([]int{1, 1, g.heads, hd}).Transpose(1, 2) }
	for l := range g.layers {
		a := gt.LayerNorm(x, []int{d}, gt.WithWeight(g.ln1w[l]), gt.WithBias(g.ln1b[l]))
		qkv := gt.Linear(a, g.attnW[l], gt.WithBias(g.attnB[l])).Split(d, gt.WithDim(-1))
		q, k, v := heads(qkv[0]), heads(qkv[1]), heads(qkv[2])
		kall := gt.Where(sel, k, in[3+2*l])
		vall := gt.Where(sel, v, in[4+2*l])
		s := q.Matmul(kall.Transpose(-2, -1)).DivScalar(math.Sqrt(float64(hd))).Add(add)
		o := s.Softmax(-1).Matmul(vall).Transpose(1, 2).Reshape([]int{1, 1, d})
		x = x.Add(gt.Linear(o, g.projW[l], gt.WithBias(g.projB[l])))
		h := gt.LayerNorm(x, []int{d}, gt.WithWeight(g.ln2w[l]), gt.WithBias(g.ln2b[l]))
		h = gt.Linear(h, g.fcW[l], gt.WithBias(g.fcB[l])).Gelu()
		x = x.Add(gt.Linear(h, g.outW[l], gt.WithBias(g.outB[l])))
		out = append(out, k, v)
	}
	out[0] = gt.Linear(gt.LayerNorm(x, []int{d}, gt.WithWeight(g.lnfW), gt.WithBias(g.lnfB)), g.wte)
	return out
}

func genCase(t *testing.T) modelCase {
	g := newGen(12, 768, 12, 50257, 64)
	hd := g.d / g.heads
	// The token inputs of each position: an embedding row, the additive
	// mask and the selection.
	var xs, adds, sels []*gt.Tensor
	for p := range g.ctx {
		xs = append(xs, gt.Randn(1, 1, g.d))
		m := make([]float32, g.ctx)
		s := make([]bool, g.ctx)
		for j := p + 1; j < g.ctx; j++ {
			m[j] = float32(math.Inf(-1))
		}
		s[p] = true
		adds = append(adds, gt.FromFloat32s(m, 1, 1, 1, g.ctx))
		sels = append(sels, gt.FromBools(s, g.ctx, 1))
	}
	floor, readFloor := streamTriad(g.weightBytes())
	return modelCase{name: "gpt2-gen/token", floor: floor, readFloor: readFloor, bytes: g.weightBytes(), mk: func(backend compile.Backend) func() {
		cache := make([]*gt.Tensor, 2*g.layers)
		for i := range cache {
			cache[i] = gt.Zeros(1, g.heads, g.ctx, hd)
		}
		run := g.step
		if backend != nil {
			call := compiledCall(t, g.step, backend)
			run = func(in ...*gt.Tensor) []*gt.Tensor {
				r := call(in...).([]any)
				out := make([]*gt.Tensor, len(r))
				for i, v := range r {
					out[i] = v.(*gt.Tensor)
				}
				return out
			}
		}
		pos := 0
		in := make([]*gt.Tensor, 3+len(cache))
		copy(in[3:], cache)
		return func() {
			in[0], in[1], in[2] = xs[pos], adds[pos], sels[pos]
			out := run(in...)
			for i, kv := range out[1:] {
				cache[i].Narrow(2, pos, 1).Copy_(kv)
			}
			pos = (pos + 1) % g.ctx
		}
	}}
}

// streamTriad is the time to move bytes at the bandwidth of the best of
// STREAM's triad (a[i] = b[i] + 3c[i] in plain Go) and package asm's add
// kernel (SIMD, so not bound by the loop's instructions) on 16M float32
// (12 bytes an element), split among GOMAXPROCS goroutines, best of ten;
// and the time to read bytes at the bandwidth of asm.SumF32 over two such
// arrays (8 bytes an element, nothing written), the bound of a workload
// that only reads, as a token's weights are read. On this project's VM one
// core reads at about two thirds of its triad figure: the triad's write
// stream keeps more lines in flight than a read stream alone.
func streamTriad(bytes float64) (triadFloor, readFloor time.Duration) {
	xs, ys := randFloat32s(n16M, 1), randFloat32s(n16M, 2)
	ds := make([]float32, n16M)
	copy(ds, xs)
	best := func(perElem float64, f func(lo, hi int)) float64 {
		b := time.Duration(math.MaxInt64)
		for range 10 {
			start := time.Now()
			split(n16M, f)
			b = min(b, time.Since(start))
		}
		return perElem * float64(n16M) / b.Seconds()
	}
	triad := best(12, func(lo, hi int) {
		d, a, c := ds[lo:hi], xs[lo:hi], ys[lo:hi]
		for i := range d {
			d[i] = a[i] + 3*c[i]
		}
	})
	add := best(12, func(lo, hi int) { asm.AddF32(ds[lo:hi], xs[lo:hi], ys[lo:hi]) })
	read := best(8, func(lo, hi int) { asm.SumF32(xs[lo:hi]); asm.SumF32(ys[lo:hi]) })
	fmt.Printf("# STREAM triad %.1f GB/s, asm add kernel %.1f GB/s, asm sum (read only) %.1f GB/s (GOMAXPROCS %d)\n",
		triad/1e9, add/1e9, read/1e9, runtime.GOMAXPROCS(0))
	return time.Duration(bytes / max(triad, add) * 1e9), time.Duration(bytes / read * 1e9)
}
