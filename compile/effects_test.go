package compile_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
)

// A hand-written SGD update of a parameter the function closes over, in
// place under NoGrad (p.Sub_(lr·grad)), compiles with Fullgraph into one
// cached graph that records the no-grad region as PyTorch's Dynamo does
// (torch._C._set_grad_enabled(False) ... (True)), so that the update runs
// under no_grad when the graph runs; three calls give eager's parameter,
// loss and gradient bit for bit.
func TestCompiledParameterUpdateUnderNoGrad(t *testing.T) {
	x := tensor.Randn([]int{3, 4})
	gs := []*T{tensor.Randn([]int{4, 2}), tensor.Randn([]int{4, 2}), tensor.Randn([]int{4, 2})}
	run := func(compiled bool) (w *T, losses []*T) {
		tensor.ManualSeed(3)
		w = tensor.Randn([]int{4, 2}).SetRequiresGrad(true)
		step := func(g *T) *T {
			autograd.NoGrad(func() { w.Sub_(g.MulScalar(0.1)) })
			return x.Matmul(w).Tanh().SumAll()
		}
		var c *compile.Compiled
		if compiled {
			c = compile.Compile(step, compile.Options{Fullgraph: true})
			step = func(g *T) *T {
				res, err := c.Call(g)
				if err != nil {
					t.Fatal(err)
				}
				return res.(*T)
			}
		}
		for _, g := range gs {
			l := step(g)
			l.Backward()
			losses = append(losses, l.Detach())
		}
		if c != nil {
			if s := c.Stats(); s.Frames != 1 || s.Hits != 2 {
				t.Errorf("stats %+v: want one graph served twice from the cache", s)
			}
			code := c.Graphs()[0].Code()
			for _, want := range []string{
				"_set_grad_enabled = torch._C._set_grad_enabled(False)",
				"sub_ = torch.ops.aten.sub_.Tensor(_tensor_constant0, mul)",
				"_set_grad_enabled_1 = torch._C._set_grad_enabled(True)",
			} {
				if !strings.Contains(code, want) {
					t.Errorf("no %q in\n%s", want, code)
				}
			}
		}
		if !autograd.IsGradEnabled() {
			t.Fatal("grad mode is off after the calls")
		}
		return w, losses
	}
	we, le := run(false)
	wc, lc := run(true)
	sameValues(t, "w", wc, we)
	sameValues(t, "w.grad", wc.Grad(), we.Grad())
	for i := range le {
		sameValues(t, "loss", lc[i], le[i])
	}
}

// A hand-written training step — loss, Backward, an in-place SGD update
// under NoGrad from p.Grad(), the gradient cleared — compiles: Backward is
// a graph break, so the step runs in segments (one graph per call, the Go
// code re-run), and 5 steps give eager's parameter and losses bit for bit.
// With Fullgraph it is PyTorch's graph-break error, and the refused call
// changes nothing.
func TestCompiledHandWrittenSGD(t *testing.T) {
	x := tensor.Randn([]int{5, 4})
	newStep := func() (*T, func(x *T) *T) {
		tensor.ManualSeed(4)
		w := tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
		return w, func(x *T) *T {
			loss := x.Matmul(w).Sigmoid().SumAll()
			loss.Backward()
			autograd.NoGrad(func() { w.Sub_(w.Grad().MulScalar(0.5)) })
			autograd.SetGrad(w, nil)
			return loss
		}
	}
	we, step := newStep()
	var le []*T
	for range 5 {
		le = append(le, step(x))
	}
	wc, step := newStep()
	c := compile.Compile(step, compile.Options{Logf: t.Logf})
	for i := range 5 {
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "loss", res.(*T), le[i])
	}
	if s := c.Stats(); s.Eager != 0 || s.Frames != 0 || s.Segments+s.SegmentHits != 5 || s.SegmentHits == 0 {
		t.Errorf("stats %+v: want 5 calls in segments, served from the cache after the first, none eager", s)
	}
	sameValues(t, "w", wc, we)
	if wc.Grad() != nil {
		t.Errorf("w.grad = %v after SetGrad(w, nil)", wc.Grad())
	}

	wf, step := newStep()
	w0 := wf.Clone()
	_, err := compile.Compile(step, compile.Options{Fullgraph: true}).Call(x)
	if err == nil || !strings.Contains(err.Error(), "Unsupported Tensor.backward() call\n  Explanation: ") {
		t.Fatalf("fullgraph: got %v, want the Tensor.backward() graph break", err)
	}
	sameValues(t, "w after the refused call", wf, w0)
	if wf.Grad() != nil {
		t.Errorf("w.grad = %v after the refused call", wf.Grad())
	}
}

// An optimizer step inside a compiled function (the gradients given as
// inputs) keeps its state in Go: a graph break, so the function runs in
// segments and the state — SGD's momentum buffer, Adam's exp_avg,
// exp_avg_sq and step count — is made of real tensors equal to eager's
// after 3 calls. With Fullgraph it is refused before the optimizer does
// anything.
func TestCompiledOptimizerStep(t *testing.T) {
	gs := []*T{tensor.Randn([]int{4, 2}), tensor.Randn([]int{4, 2}), tensor.Randn([]int{4, 2})}
	makers := map[string]func(ps []*T) (optim.Optimizer, error){
		"sgd": func(ps []*T) (optim.Optimizer, error) {
			return optim.NewSGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9))
		},
		"adam": func(ps []*T) (optim.Optimizer, error) { return optim.NewAdam(ps, optim.WithLR(0.01)) },
	}
	for name, newOpt := range makers {
		t.Run(name, func(t *testing.T) {
			run := func(opts *compile.Options) (*T, optim.Optimizer, error) {
				tensor.ManualSeed(5)
				w := tensor.Randn([]int{4, 2}).SetRequiresGrad(true)
				opt, err := newOpt([]*T{w})
				if err != nil {
					t.Fatal(err)
				}
				step := func(g *T) *T {
					opt.StepWith([]*T{g})
					return w.SumAll()
				}
				var c *compile.Compiled
				if opts != nil {
					c = compile.Compile(step, *opts)
				}
				for _, g := range gs {
					if c == nil {
						step(g)
						continue
					}
					if _, err := c.Call(g); err != nil {
						return w, opt, err
					}
				}
				return w, opt, nil
			}
			we, oe, _ := run(nil)
			wc, oc, err := run(&compile.Options{Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			sameValues(t, "w", wc, we)
			se, sc := oe.State(we), oc.State(wc)
			if sc == nil || sc.Step != se.Step || len(sc.Tensors) != len(se.Tensors) || len(se.Tensors) == 0 {
				t.Fatalf("compiled state %+v, eager %+v", sc, se)
			}
			for k, v := range se.Tensors {
				sameValues(t, k, sc.Tensors[k], v)
			}

			wf, of, err := run(&compile.Options{Fullgraph: true})
			if err == nil || !strings.Contains(err.Error(), "Unsupported Optimizer.step() call\n  Explanation: ") {
				t.Fatalf("fullgraph: got %v, want the Optimizer.step() graph break", err)
			}
			tensor.ManualSeed(5)
			sameValues(t, "w after the refused call", wf, tensor.Randn([]int{4, 2}))
			if s := of.State(wf); s != nil {
				t.Errorf("state %+v after the refused call", s)
			}
		})
	}
}

// A fake Trace never leaves its tensors in real objects: a Backward into a
// parameter the function closes over is recorded, and the parameter's
// .grad is as it was when the trace ends (nil, or the same real tensor with
// the same values); an optimizer step is refused before it changes its
// state.
func TestTraceLeavesRealStateAlone(t *testing.T) {
	w := tensor.Randn([]int{3}).SetRequiresGrad(true)
	v := tensor.Randn([]int{3}).SetRequiresGrad(true)
	g0 := tensor.Randn([]int{3})
	autograd.SetGrad(v, g0)
	g0copy := g0.Clone()
	f := func(x *T) *T {
		loss := x.Mul(w).Add(x.Mul(v)).SumAll()
		loss.Backward()
		return loss
	}
	gm, err := compile.Trace(f, []*T{tensor.Randn([]int{3})}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gm.Code(), "torch.ops.aten.add_.Tensor(_tensor_constant") {
		t.Errorf("the accumulation into v.grad is not in the graph:\n%s", gm.Code())
	}
	if w.Grad() != nil {
		t.Errorf("w.grad = %v after the trace, want nil", w.Grad())
	}
	if v.Grad() != g0 {
		t.Errorf("v.grad is another tensor after the trace")
	}
	sameValues(t, "v.grad", v.Grad(), g0copy)

	opt, err := optim.NewSGD([]*T{w}, optim.WithLR(0.1), optim.WithMomentum(0.9))
	if err != nil {
		t.Fatal(err)
	}
	w0 := w.Clone()
	g := func(x *T) *T {
		opt.StepWith([]*T{x})
		return w.SumAll()
	}
	_, err = compile.Trace(g, []*T{tensor.Randn([]int{3})}, compile.TraceOptions{Mode: compile.Fake})
	if err == nil || !strings.Contains(err.Error(), "Optimizer.step() in a fake trace") {
		t.Fatalf("got %v, want the optimizer step refused", err)
	}
	if s := opt.State(w); s != nil {
		t.Errorf("state %+v after the refused trace", s)
	}
	sameValues(t, "w", w, w0)
}

// A training step that reads tensor data (the loss's value, for a log)
// between Backward and the optimizer step, and inside the step's no-grad
// region, runs in several segments; an input that requires grad gets its
// gradient accumulated as eager's. Three steps give eager's parameters,
// input gradient, momentum buffer and losses bit for bit.
func TestCompiledStepWithDataReads(t *testing.T) {
	newStep := func() (w, x *T, opt optim.Optimizer, step func(x *T) *T) {
		tensor.ManualSeed(6)
		w = tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
		x = tensor.Randn([]int{5, 4}).SetRequiresGrad(true)
		opt, err := optim.NewSGD([]*T{w}, optim.WithLR(0.1), optim.WithMomentum(0.9))
		if err != nil {
			t.Fatal(err)
		}
		return w, x, opt, func(x *T) *T {
			opt.ZeroGrad()
			loss := x.Matmul(w).Tanh().SumAll()
			loss.Backward()
			if loss.Item().Float64() > 1e9 { // a data-dependent read: a segment ends
				return loss
			}
			autograd.NoGrad(func() {
				if w.Grad().Abs().Max().Item().Float64() > 1e9 { // another, under no_grad
					w.Grad().Zero_()
				}
			})
			opt.Step()
			return loss
		}
	}
	we, xe, oe, step := newStep()
	var le []*T
	for range 3 {
		le = append(le, step(xe))
	}
	for _, b := range []struct {
		name    string
		backend compile.Backend
	}{{"eager", compile.Eager}, {"cpu", compilecpu.Backend}} {
		t.Run(b.name, func(t *testing.T) {
			wc, xc, oc, step := newStep()
			c := compile.Compile(step, compile.Options{Backend: b.backend, Logf: t.Logf})
			for i := range 3 {
				res, err := c.Call(xc)
				if err != nil {
					t.Fatal(err)
				}
				sameValues(t, "loss", res.(*T), le[i])
			}
			if s := c.Stats(); s.Eager != 0 || s.Segments+s.SegmentHits < 9 {
				t.Errorf("stats %+v: want at least 3 segments a call, none eager", s)
			}
			sameValues(t, "w", wc, we)
			sameValues(t, "w.grad", wc.Grad(), we.Grad())
			sameValues(t, "x.grad", xc.Grad(), xe.Grad())
			sameValues(t, "momentum_buffer", oc.State(wc).Tensors["momentum_buffer"], oe.State(we).Tensors["momentum_buffer"])
			if !autograd.IsGradEnabled() {
				t.Fatal("grad mode is off after the calls")
			}
		})
	}
}

// Clearing the .grad of an input inside a compiled function clears the
// caller's tensor's, as eager does: a .grad write is a graph break, and in
// segments the input's .grad follows its stand-in's.
func TestCompiledClearsInputGrad(t *testing.T) {
	x := tensor.Randn([]int{3}).SetRequiresGrad(true)
	c := compile.Compile(func(x *T) *T {
		autograd.SetGrad(x, nil)
		return x.MulScalar(2)
	}, compile.Options{Logf: t.Logf})
	for range 2 {
		autograd.SetGrad(x, tensor.Randn([]int{3}))
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "2x", res.(*T), x.MulScalar(2))
		if x.Grad() != nil {
			t.Fatalf("x.grad = %v after the call cleared it", x.Grad())
		}
	}
}
