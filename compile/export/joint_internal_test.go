package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// sumNet's loss is sum(x @ w).
type sumNet struct {
	nn.Base
	W *tensor.Tensor
}

func (n *sumNet) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Matmul(n.W).SumAll() }

func jointArchive(t testing.TB) []byte {
	t.Helper()
	n := &sumNet{}
	n.W = n.RegisterParameter("w", tensor.FromSlice([]float32{1, -2, 0.5, 3, 0, 1}, 3, 2))
	x := tensor.FromSlice([]float32{0.5, 1, -1, 2, 0, 1}, 2, 3).SetRequiresGrad(true)
	ep, err := ExportJoint(n, []*tensor.Tensor{x}, JointOptions{Options: Options{InputNames: []string{"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLoadJointSpecs: a joint program's output specs are saved in the
// schema's loss_output, gradient_to_parameter and gradient_to_user_input
// fields; Load refuses a gradient whose target is not a parameter or a
// user input.
func TestLoadJointSpecs(t *testing.T) {
	b := jointArchive(t)
	var model string
	withModel(t, b, func(p map[string]any) {
		var sb strings.Builder
		for _, s := range path(p, "graph_module", "signature", "output_specs").([]any) {
			for k := range s.(map[string]any) {
				sb.WriteString(k + " ")
			}
		}
		model = sb.String()
	})
	if model != "loss_output gradient_to_parameter gradient_to_user_input " {
		t.Errorf("output spec kinds %q", model)
	}
	cases := []struct {
		name string
		edit func(p map[string]any)
		want string
	}{
		{"gradient of a non-parameter", func(p map[string]any) {
			path(p, "graph_module", "signature", "output_specs", 1, "gradient_to_parameter").(map[string]any)["parameter_name"] = "v"
		}, `output spec 1 is the gradient of "v", which is not a parameter input`},
		{"gradient of a non-input", func(p map[string]any) {
			path(p, "graph_module", "signature", "output_specs", 2, "gradient_to_user_input").(map[string]any)["user_input_name"] = "p_w"
		}, `output spec 2 is the gradient of "p_w", which is not a user input`},
	}
	for _, c := range cases {
		bad := withModel(t, b, c.edit)
		_, err := Load(bytes.NewReader(bad), int64(len(bad)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	ep, err := Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ep.RunJoint(tensor.FromSlice([]float32{0.5, 1, -1, 2, 0, 1}, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	// d/dw sum(x @ w) = x^T @ ones: the column sums of x, repeated; d/dx
	// = ones @ w^T: the row sums of w, repeated.
	if got := res.ParamGrads["w"].Float64s(); !equalFloats(got, []float64{2.5, 2.5, 1, 1, 0, 0}) {
		t.Errorf("gradient of w %v", got)
	}
	if got := res.InputGrads["x"].Float64s(); !equalFloats(got, []float64{-1, 3.5, 1, -1, 3.5, 1}) {
		t.Errorf("gradient of x %v", got)
	}
	if got := res.Loss.Float64s(); !equalFloats(got, []float64{1}) {
		t.Errorf("loss %v, want 1", got)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
