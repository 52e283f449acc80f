package models_test

import (
	"math"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/examples/models"
)

// The MLP's loss.Backward() gives PyTorch's gradient for every parameter
// (grads.safetensors: grad.<param>) and for the logits (grad.logits), to
// 1e-5 relative: |diff| <= 1e-5·(|want| + max|want|), the second term
// standing in for elements that cancel to nearly zero.
func TestMLPGradients(t *testing.T) {
	m, err := models.NewMLP(load(t, "mlp", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	params := m.NamedParameters() // fc1.weight, fc1.bias, fc2.weight, fc2.bias
	in, want := load(t, "mlp", "inputs"), load(t, "mlp", "grads")
	logits := m.Forward(in["x"])
	autograd.RetainGrad(logits)
	loss := models.Loss(logits, in["labels"])
	loss.Backward()
	check := func(name string, got *gt.Tensor) {
		t.Helper()
		w := want[name]
		if w == nil {
			t.Fatalf("grads.safetensors has no %s", name)
		}
		scale := 0.0
		for _, v := range w.Float64s() {
			scale = math.Max(scale, math.Abs(v))
		}
		compareTol(t, name, got, w, 1e-5, 1e-5*scale)
	}
	check("grad.logits", logits.Grad())
	for _, p := range params {
		check("grad."+p.Name, p.Tensor.Grad())
	}
	if len(want) != len(params)+1 {
		t.Errorf("grads.safetensors holds %d gradients, the test checks %d", len(want), len(params)+1)
	}
}
