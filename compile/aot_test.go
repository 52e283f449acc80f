package compile_test

import (
	"math"
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

// A value made from factories alone — here a causal mask, full then triu —
// that both the forward and the backward read is recomputed in the backward
// graph instead of saved (a compiling backend folds it into a constant on
// both sides), and the gradients are still eager's.
func TestTraceJointRecomputesConstants(t *testing.T) {
	tensor.ManualSeed(1)
	w := tensor.Randn([]int{4, 4}).SetRequiresGrad(true)
	f := func(x *T) *T {
		mask := tensor.FullOf(tensor.Bool, true, 4, 4).Triu(tensor.WithDiagonal(1))
		s := x.Matmul(w)
		return s.MaskedFillScalar(mask, math.Inf(-1)).Softmax(-1).Mul(s).SumAll()
	}
	x := tensor.Randn([]int{4, 4})
	j, err := compile.TraceJoint(f, []*T{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fwd, bwd := j.Forward.Code(), j.Backward.Code()
	ret := fwd[strings.LastIndex(fwd, "return"):]
	if strings.Contains(ret, "triu") || !strings.Contains(bwd, "torch.ops.aten.full.default") || !strings.Contains(bwd, "torch.ops.aten.triu.default") {
		t.Errorf("the mask is saved, not recomputed:\n%s\n%s", fwd, bwd)
	}
	grad := func(compiled bool) *T {
		autograd.SetGrad(w, nil)
		g := f
		if compiled {
			g = compile.Fn1(f, compile.Options{Fullgraph: true})
		}
		g(x).Backward()
		return w.Grad()
	}
	sameValues(t, "w.grad", grad(true), grad(false))
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

// A training graph that updates state it closes over — a batch norm's
// running statistics (written by the op) and a step counter (add_) — runs
// through AOT autograd: the forward graph writes into the buffers where the
// eager function writes, so after 5 SGD steps the parameters and the
// buffers are eager's, bit for bit. Writes into an input or into a tensor
// that requires grad stay on autograd over the interpreted graph.
func TestCompiledTrainingBufferMutation(t *testing.T) {
	train := func(compiled bool) ([]*T, *compile.Compiled) {
		tensor.ManualSeed(0)
		w := tensor.Randn([]int{6, 4}).SetRequiresGrad(true)
		gamma := tensor.Randn([]int{4}).SetRequiresGrad(true)
		beta := tensor.Randn([]int{4}).SetRequiresGrad(true)
		mean, vr := tensor.Randn([]int{4}).MulScalar(0), tensor.Randn([]int{4}).MulScalar(0).AddScalar(1)
		steps := tensor.FromSlice([]int64{0})
		x := tensor.Randn([]int{5, 6})
		loss := func(x *T) *T {
			steps.AddScalar_(1)
			h := tensor.BatchNorm(x.Matmul(w), gamma, beta, mean, vr, true, 0.1, 1e-5, false)
			return h.Tanh().Pow(num(2)).SumAll()
		}
		var c *compile.Compiled
		if compiled {
			c = compile.Compile(loss, compile.Options{Fullgraph: true})
			loss = func(x *T) *T {
				r, err := c.Call(x)
				if err != nil {
					t.Fatal(err)
				}
				return r.(*T)
			}
		}
		for range 5 {
			for _, p := range []*T{w, gamma, beta} {
				autograd.SetGrad(p, nil)
			}
			loss(x).Backward()
			autograd.NoGrad(func() {
				for _, p := range []*T{w, gamma, beta} {
					p.Sub_(p.Grad().Mul(num(0.1)))
				}
			})
		}
		return []*T{w, gamma, beta, mean, vr, steps}, c
	}
	eager, _ := train(false)
	comp, c := train(true)
	for i, name := range []string{"w", "gamma", "beta", "running_mean", "running_var", "steps"} {
		sameValues(t, name, comp[i], eager[i])
	}
	if got := comp[5].Int64s()[0]; got != 5 {
		t.Errorf("the step counter is %d after 5 steps", got)
	}
	if j := c.Joints(); len(j) != 1 || j[0] == nil {
		t.Fatalf("not compiled through AOT autograd: %s", c.Explain())
	}
	if fwd := c.Joints()[0].Forward.Code(); !strings.Contains(fwd, "torch.ops.aten.add_.Scalar(") || !strings.Contains(fwd, "_native_batch_norm_legit") {
		t.Errorf("the forward graph does not update the buffers:\n%s", fwd)
	}

	// An input written in place, and a closed-over tensor that requires
	// grad (a non-leaf) written in place: autograd over the interpreted
	// graph.
	w := tensor.Randn([]int{3}).SetRequiresGrad(true)
	h := w.MulScalar(2)
	for name, f := range map[string]func(x *T) *T{
		"input":    func(x *T) *T { x.AddScalar_(1); return x.Mul(w).SumAll() },
		"non-leaf": func(x *T) *T { h.AddScalar_(1); return x.Mul(h).SumAll() },
	} {
		c := compile.Compile(f, compile.Options{Fullgraph: true})
		if _, err := c.Call(tensor.Randn([]int{3})); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if j := c.Joints(); len(j) != 1 || j[0] != nil {
			t.Errorf("%s written in place: joints %v, want the interpreted graph", name, j)
		}
	}
}

// A compiled function with dropout draws its masks when its forward graph
// runs, as eager does (the same seed gives the same gradient); its double
// backward, which would run the function again and draw new masks, is
// refused as PyTorch's AOT autograd refuses every double backward.
func TestCompiledDropoutDoubleBackward(t *testing.T) {
	w := tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
	f := func(x *T) *T { return tensor.Dropout(x.Matmul(w), 0.5, true).Tanh().SumAll() }
	x := tensor.Randn([]int{5, 4})
	grad := func(fn func(*T) *T) *T {
		tensor.ManualSeed(3)
		return autograd.Grad([]*T{fn(x)}, []*T{w}, nil, autograd.Options{})[0]
	}
	c := compile.Fn1(f, compile.Options{Fullgraph: true})
	sameValues(t, "grad", grad(c), grad(f))
	err := tensor.Try(func() {
		g := autograd.Grad([]*T{c(x)}, []*T{w}, nil, autograd.Options{CreateGraph: true})[0]
		autograd.Grad([]*T{g.SumAll()}, []*T{w}, nil, autograd.Options{})
	})
	if err == nil || !strings.Contains(err.Error(), "does not currently support double backward") {
		t.Errorf("double backward through dropout: %v", err)
	}
}
