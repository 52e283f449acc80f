package compile_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

// The joint graph of a function of an input and a parameter it closes over,
// and its split: the forward returns the output and the activations the
// backward uses; the backward takes them and the tangent.
func TestTraceJoint(t *testing.T) {
	w := tensor.Randn([]int{4, 2}).SetRequiresGrad(true)
	f := func(x *T) *T { return x.Matmul(w).Tanh().SumAll() }
	j, err := compile.TraceJoint(f, []*T{tensor.Randn([]int{3, 4})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"forward": `def forward(self, primals_1, primals_2):
    mm = torch.ops.aten.mm.default(primals_1, primals_2);  primals_2 = None
    tanh = torch.ops.aten.tanh.default(mm);  mm = None
    sum_1 = torch.ops.aten.sum.dim_IntList(tanh, None)
    t = torch.ops.aten.t.default(primals_1);  primals_1 = None
    return (sum_1, tanh, t)`,
		"backward": `def forward(self, tanh, t, tangents_1):
    unsqueeze = torch.ops.aten.unsqueeze.default(tangents_1, 0);  tangents_1 = None
    unsqueeze_1 = torch.ops.aten.unsqueeze.default(unsqueeze, 1);  unsqueeze = None
    expand = torch.ops.aten.expand.default(unsqueeze_1, [3, 2]);  unsqueeze_1 = None
    tanh_backward = torch.ops.aten.tanh_backward.default(expand, tanh);  expand = tanh = None
    mm_1 = torch.ops.aten.mm.default(t, tanh_backward);  t = tanh_backward = None
    return (mm_1,)`,
	}
	for name, gm := range map[string]interface{ Code() string }{"forward": j.Forward, "backward": j.Backward} {
		if got := strings.TrimSpace(gm.Code()); got != want[name] {
			t.Errorf("%s graph:\n%s\nwant\n%s", name, got, want[name])
		}
	}
	if len(j.Params) != 1 || j.Params[0] != w || j.NumSaved != 2 {
		t.Errorf("params %d, saved %d", len(j.Params), j.NumSaved)
	}
}

// A compiled training step (forward, loss, Backward, SGD) gives the eager
// parameters after 5 steps: the backward graph runs the derivatives eager
// autograd runs, in an order that keeps each sum's operands.
func TestCompiledTraining(t *testing.T) {
	train := func(compiled bool) []*T {
		tensor.ManualSeed(0)
		w1 := tensor.Randn([]int{8, 16}).SetRequiresGrad(true)
		b1 := tensor.Randn([]int{16}).SetRequiresGrad(true)
		w2 := tensor.Randn([]int{16, 3}).SetRequiresGrad(true)
		x := tensor.Randn([]int{5, 8})
		y := tensor.FromSlice([]int64{0, 2, 1, 1, 0})
		loss := func(x *T) *T { return x.Matmul(w1).Add(b1).Relu().Matmul(w2).CrossEntropyLoss(y) }
		if compiled {
			loss = compile.Fn1(loss, compile.Options{Fullgraph: true})
		}
		for range 5 {
			for _, p := range []*T{w1, b1, w2} {
				autograd.SetGrad(p, nil)
			}
			loss(x).Backward()
			autograd.NoGrad(func() {
				for _, p := range []*T{w1, b1, w2} {
					p.Sub_(p.Grad().Mul(num(0.1)))
				}
			})
		}
		return []*T{w1, b1, w2}
	}
	eager, comp := train(false), train(true)
	for i := range eager {
		sameValues(t, "parameter", comp[i], eager[i])
	}
}
