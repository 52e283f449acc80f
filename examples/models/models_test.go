package models_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/safetensors"
)

// Tolerances for float32 results against PyTorch's: |got - want| <= atol + rtol·|want|
// elementwise. Summation order differs from MKL/oneDNN, so errors of a few
// ulps compound through the layers; PyTorch's own manual re-implementation
// of these models differs from the modules by up to 5e-7.
const (
	rtol = 1e-5
	atol = 1e-6
)

// dir is where the model files are: testdata/models in this repository, or
// MODELS_DIR (e.g. ../shared/models).
func dir(name string) string {
	if d := os.Getenv("MODELS_DIR"); d != "" {
		return filepath.Join(d, name)
	}
	return filepath.Join("..", "..", "testdata", "models", name)
}

// load reads <model>/<file>.safetensors.
func load(t testing.TB, model, file string) map[string]*gt.Tensor {
	t.Helper()
	f, err := safetensors.Load(filepath.Join(dir(model), file+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return f.Tensors
}

// compare checks got against want with the forward tolerances.
func compare(t *testing.T, name string, got, want *gt.Tensor) {
	t.Helper()
	compareTol(t, name, got, want, rtol, atol)
}

// compareTol checks |got - want| <= atol + rtol·|want| elementwise and logs
// the largest differences.
func compareTol(t *testing.T, name string, got, want *gt.Tensor, rtol, atol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: not computed", name)
		return
	}
	if !slices.Equal(got.Sizes(), want.Sizes()) || got.DType() != want.DType() {
		t.Errorf("%s: got %s %v, want %s %v", name, got.DType(), got.Sizes(), want.DType(), want.Sizes())
		return
	}
	g, w := got.Float64s(), want.Float64s()
	var maxAbs, maxRel float64
	bad := -1
	for i := range g {
		d := math.Abs(g[i] - w[i])
		if math.IsNaN(g[i]) != math.IsNaN(w[i]) || d > atol+rtol*math.Abs(w[i]) {
			if bad < 0 {
				bad = i
			}
		}
		maxAbs = math.Max(maxAbs, d)
		if w[i] != 0 {
			maxRel = math.Max(maxRel, d/math.Abs(w[i]))
		}
	}
	t.Logf("%-22s max |diff| %.2g, max rel %.2g", name, maxAbs, maxRel)
	if bad >= 0 {
		t.Errorf("%s: element %d is %g, want %g (max |diff| %g)", name, bad, g[bad], w[bad], maxAbs)
	}
}

// compareTrace compares every "intermediate.<name>" output with trace[name].
func compareTrace(t *testing.T, outputs, trace map[string]*gt.Tensor) {
	t.Helper()
	var names []string
	for k := range outputs {
		if len(k) > len("intermediate.") && k[:len("intermediate.")] == "intermediate." {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("no intermediate outputs recorded")
	}
	for _, k := range names {
		compare(t, k, trace[k[len("intermediate."):]], outputs[k])
	}
}

func TestMLP(t *testing.T) {
	m, err := models.NewMLP(load(t, "mlp", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	in, out := load(t, "mlp", "inputs"), load(t, "mlp", "outputs")
	m.Trace = map[string]*gt.Tensor{}
	logits := m.Forward(in["x"])
	compare(t, "logits", logits, out["logits"])
	compare(t, "loss", models.Loss(logits, in["labels"]), out["loss"])
	compareTrace(t, out, m.Trace)
}

func TestCNN(t *testing.T) {
	m, err := models.NewCNN(load(t, "cnn", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	in, out := load(t, "cnn", "inputs"), load(t, "cnn", "outputs")
	m.Trace = map[string]*gt.Tensor{}
	compare(t, "logits", m.Forward(in["x"]), out["logits"])
	compareTrace(t, out, m.Trace)
}

func TestTransformerEncoderLayer(t *testing.T) {
	m, err := models.NewEncoderLayer(load(t, "transformer_encoder_layer", "weights"), 64, 4, 128)
	if err != nil {
		t.Fatal(err)
	}
	in, out := load(t, "transformer_encoder_layer", "inputs"), load(t, "transformer_encoder_layer", "outputs")
	m.Trace = map[string]*gt.Tensor{}
	compare(t, "y", m.Forward(in["x"]), out["y"])
	compareTrace(t, out, m.Trace)
	m.Trace = nil // nn.TransformerEncoderLayer's own Forward
	compare(t, "y (nn layer)", m.Forward(in["x"]), out["y"])
}

func TestGPTDecoder(t *testing.T) {
	cfg := models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256}
	m, err := models.NewGPT(load(t, "gpt_decoder", "weights"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	in, out := load(t, "gpt_decoder", "inputs"), load(t, "gpt_decoder", "outputs")
	m.Trace = map[string]*gt.Tensor{}
	logits := m.Forward(in["tokens"])
	compare(t, "logits", logits, out["logits"])
	compare(t, "loss", models.GPTLoss(logits, in["targets"]), out["loss"])
	compareTrace(t, out, m.Trace)
}

// Wrong or missing weights are errors, not panics.
func TestBadWeights(t *testing.T) {
	w := load(t, "mlp", "weights")
	delete(w, "fc2.bias")
	if _, err := models.NewMLP(w); err == nil {
		t.Error("missing fc2.bias: no error")
	}
	w = load(t, "mlp", "weights")
	w["fc1.weight"] = w["fc1.weight"].Transpose(0, 1)
	if _, err := models.NewMLP(w); err == nil {
		t.Error("transposed fc1.weight: no error")
	}
	if _, err := models.NewGPT(load(t, "gpt_decoder", "weights"), models.GPTConfig{Vocab: 97, Block: 32, Layers: 3, Heads: 4, D: 64, Hidden: 256}); err == nil {
		t.Error("a third block that the weights lack: no error")
	}
	if _, err := models.NewEncoderLayer(load(t, "transformer_encoder_layer", "weights"), 64, 5, 128); err == nil {
		t.Error("64 wide with 5 heads: no error")
	}
}
