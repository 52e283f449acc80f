package export

import (
	"bytes"
	"testing"

	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// Small programs for FuzzLoad's seed corpus, one for each feature of the
// schema the loader reads: symbolic size expressions of a dynamic
// sequence length (gptSeed), an unbacked size out of a cond (unbackedSeed)
// and an auto_functionalized call (autoFuncSeed); the joint program is
// jointArchive, the TorchBind object with its effect tokens fooArchive.

// attnNet is a one-head attention over a sequence of dynamic length:
// scores (T, T), softmax, the weighted values flattened to T*4.
type attnNet struct {
	nn.Base
	W *tensor.Tensor
}

func (n *attnNet) Forward(x *tensor.Tensor) *tensor.Tensor {
	q := x.Matmul(n.W)
	a := q.Matmul(x.Transpose(0, 1)).Softmax(-1).Matmul(x)
	return a.Reshape([]int{a.Size(0) * a.Size(1)})
}

// gptSeed is attnNet exported with a dynamic sequence length and saved.
func gptSeed(t testing.TB) []byte {
	n := &attnNet{}
	n.W = n.RegisterParameter("w", tensor.Arange(0, 16).Reshape([]int{4, 4}).To(tensor.Float32).MulScalar(0.1))
	x := tensor.Arange(0, 20).Reshape([]int{5, 4}).To(tensor.Float32).MulScalar(0.05)
	ep, err := Export(n, []*tensor.Tensor{x}, Options{
		InputNames: []string{"x"}, DynamicShapes: []map[int]*Dimension{{0: Dim("seq", 2, 64)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return saved(t, ep)
}

// unbackedNet's cond returns a branch-dependent number of rows (u0).
type unbackedNet struct{ nn.Base }

func (*unbackedNet) Forward(x *tensor.Tensor) []*tensor.Tensor {
	y := hop.Cond(x.SumAll().GtScalar(2.0),
		func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{a[0].Relu()} },
		func(a ...*tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{a[0].Narrow(0, 0, 1).MulScalar(3.0)}
		},
		[]*tensor.Tensor{x})
	return []*tensor.Tensor{y[0].Exp()}
}

func unbackedSeed(t testing.TB) []byte {
	ep, err := Export(&unbackedNet{}, []*tensor.Tensor{tensor.Arange(0, 8).Reshape([]int{2, 4}).To(tensor.Float32)})
	if err != nil {
		t.Fatal(err)
	}
	return saved(t, ep)
}

var fuzzMutOp = library.Define("fuzzseed::bump(Tensor(a!) x, Tensor y) -> Tensor")

func init() {
	fuzzMutOp.Impl("CPU", func(a library.Args) any {
		x, y := a.Tensor("x"), a.Tensor("y")
		x.Add_(y)
		return x.Mul(y)
	})
	fuzzMutOp.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
}

// mutNet calls a mutable custom op on an intermediate: export keeps an
// auto_functionalized node.
type mutNet struct{ nn.Base }

func (*mutNet) Forward(x *tensor.Tensor) []*tensor.Tensor {
	h := x.AddScalar(1)
	r := fuzzMutOp.Call(h, x).(*tensor.Tensor)
	return []*tensor.Tensor{r, h}
}

func autoFuncSeed(t testing.TB) []byte {
	ep, err := Export(&mutNet{}, []*tensor.Tensor{tensor.Arange(0, 8).Reshape([]int{2, 4}).To(tensor.Float32)})
	if err != nil {
		t.Fatal(err)
	}
	return saved(t, ep)
}

func saved(t testing.TB, ep *ExportedProgram) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFuzzSeeds: each seed program of FuzzLoad has the feature it stands
// for in its model.json, and loads.
func TestFuzzSeeds(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want []string
	}{
		{"gpt", gptSeed(t), []string{`"expr_str":"4*s0"`, `"range_constraints":{"s0"`}},
		{"unbacked", unbackedSeed(t), []string{`{"as_expr":{"expr_str":"u0","hint":null}}`, `torch.ops.higher_order.cond`}},
		{"auto_functionalized", autoFuncSeed(t), []string{`torch.ops.higher_order.auto_functionalized`, `"as_operator":"torch.ops.fuzzseed.bump.default"`}},
		{"joint", jointArchive(t), []string{`"gradient_to_parameter"`, `"loss_output"`}},
		{"torchbind", fooArchive(t), []string{`"as_custom_obj"`, `"token"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var model []byte
			for _, e := range unzip(t, c.b) {
				if e.name == modelPath {
					model = e.data
				}
			}
			for _, w := range c.want {
				if !bytes.Contains(model, []byte(w)) {
					t.Errorf("model.json lacks %s:\n%s", w, model)
				}
			}
			if _, err := Load(bytes.NewReader(c.b), int64(len(c.b))); err != nil {
				t.Error(err)
			}
		})
	}
}
