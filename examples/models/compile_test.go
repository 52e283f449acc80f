package models_test

import (
	"slices"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/examples/models"
)

// same checks that a compiled result is the eager one, bit for bit: the
// compiled graph runs the same ops in the same order.
func same(t *testing.T, name string, got, want *gt.Tensor) {
	t.Helper()
	if got == nil || !slices.Equal(got.Sizes(), want.Sizes()) || got.DType() != want.DType() {
		t.Fatalf("%s: got %v, want %s %v", name, got, want.DType(), want.Sizes())
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		if g[i] != w[i] && !(g[i] != g[i] && w[i] != w[i]) {
			t.Fatalf("%s: element %d: compiled %v, eager %v", name, i, g[i], w[i])
		}
	}
}

// backends are the compile backends the models run with: the Eager one
// (the dispatcher's calls from a flattened graph) and compile/cpu's (fused
// tile programs), both bit for bit the eager results.
var backends = []struct {
	name string
	b    compile.Backend
}{{"eager", compile.Eager}, {"cpu", compilecpu.Backend}}

// compiled runs fn compiled (Fullgraph: one graph, no eager fallback) with
// the backend of the running subtest (the Eager one by default).
func compiled(t *testing.T, fn func(x *gt.Tensor) *gt.Tensor, x *gt.Tensor) *gt.Tensor {
	t.Helper()
	res, err := compile.Compile(fn, compile.Options{Fullgraph: true, Backend: backendOf(t)}).Call(x)
	if err != nil {
		t.Fatal(err)
	}
	return res.(*gt.Tensor)
}

// backendOf picks the backend named by the last element of t's name.
func backendOf(t *testing.T) compile.Backend {
	for _, b := range backends {
		if n := t.Name(); len(n) > len(b.name) && n[len(n)-len(b.name)-1:] == "/"+b.name {
			return b.b
		}
	}
	return compile.Eager
}

// The four models of testdata/models, compiled with each backend, give
// their eager outputs.
func TestCompiledModels(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, testCompiledModels)
	}
}

func testCompiledModels(t *testing.T) {
	mlp, err := models.NewMLP(load(t, "mlp", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	x := load(t, "mlp", "inputs")["x"]
	same(t, "mlp", compiled(t, mlp.Forward, x), mlp.Forward(x))

	cnn, err := models.NewCNN(load(t, "cnn", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	x = load(t, "cnn", "inputs")["x"]
	same(t, "cnn", compiled(t, cnn.Forward, x), cnn.Forward(x))

	enc, err := models.NewEncoderLayer(load(t, "transformer_encoder_layer", "weights"), 64, 4, 128)
	if err != nil {
		t.Fatal(err)
	}
	x = load(t, "transformer_encoder_layer", "inputs")["x"]
	same(t, "transformer encoder layer", compiled(t, enc.Forward, x), enc.Forward(x))

	cfg := models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256}
	gpt, err := models.NewGPT(load(t, "gpt_decoder", "weights"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := load(t, "gpt_decoder", "inputs")
	loss := func(tok *gt.Tensor) *gt.Tensor { return models.GPTLoss(gpt.Forward(tok), in["targets"]) }
	same(t, "gpt loss", compiled(t, loss, in["tokens"]), loss(in["tokens"]))
}

// The MLP's gradients through the compiled forward and loss (autograd over
// the compiled call: AOT autograd's forward and backward graphs, each run
// by the backend) are the eager gradients, bit for bit.
func TestCompiledMLPGradients(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, testCompiledMLPGradients)
	}
}

func testCompiledMLPGradients(t *testing.T) {
	grads := func(compiledRun bool) map[string]*gt.Tensor {
		m, err := models.NewMLP(load(t, "mlp", "weights"))
		if err != nil {
			t.Fatal(err)
		}
		in := load(t, "mlp", "inputs")
		fn := func(x *gt.Tensor) *gt.Tensor { return models.Loss(m.Forward(x), in["labels"]) }
		var loss *gt.Tensor
		if compiledRun {
			loss = compiled(t, fn, in["x"])
		} else {
			loss = fn(in["x"])
		}
		loss.Backward()
		out := map[string]*gt.Tensor{}
		for _, p := range m.NamedParameters() {
			out[p.Name] = p.Tensor.Grad()
		}
		return out
	}
	eager, comp := grads(false), grads(true)
	for name, g := range eager {
		same(t, "grad."+name, comp[name], g)
	}
}
