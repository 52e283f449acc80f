package optim_test

import (
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
)

// Step uses the gradients Backward accumulated, updates leaves that require
// grad in place without recording the update, and ZeroGrad clears them.
func TestStepFromBackward(t *testing.T) {
	for _, make := range []func([]*gt.Tensor) (optim.Optimizer, error){
		func(ps []*gt.Tensor) (optim.Optimizer, error) {
			return optim.NewSGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9), optim.WithWeightDecay(0.01))
		},
		func(ps []*gt.Tensor) (optim.Optimizer, error) { return optim.NewAdamW(ps) },
	} {
		w := gt.FromFloat32s([]float32{0.5, -1, 2}, 3).SetRequiresGrad(true)
		ref := w.Detach().Clone()
		opt, err := make([]*gt.Tensor{w})
		if err != nil {
			t.Fatal(err)
		}
		refOpt, _ := make([]*gt.Tensor{ref})
		x := gt.FromFloat32s([]float32{1, 2, 3}, 3)
		for step := 0; step < 3; step++ {
			opt.ZeroGrad()
			if w.Grad() != nil {
				t.Fatal("ZeroGrad left a gradient")
			}
			loss := w.Mul(w).Mul(x).SumAll() // dloss/dw = 2·w·x
			loss.Backward()
			want := ref.Mul(x).MulScalar(2)
			if !tensor.AllClose(w.Grad(), want, 0, 0) {
				t.Fatalf("grad %v, want %v", w.Grad(), want)
			}
			opt.Step()
			refOpt.StepWith([]*gt.Tensor{want})
			if !tensor.AllClose(w, ref, 0, 0) {
				t.Fatalf("step %d: w = %v, want %v", step, w, ref)
			}
			if !w.IsLeaf() || !w.RequiresGrad() {
				t.Fatal("the update was recorded: w is no longer a leaf that requires grad")
			}
		}
	}
}

// ZeroGrad(WithSetToNone(false)) is PyTorch 1.13's zero_grad(): the
// gradients stay, filled with zeros, so the next Step still moves a
// parameter with momentum (a nil gradient would skip it), and the next
// backward adds into the kept tensor.
func TestZeroGradSetToNoneFalse(t *testing.T) {
	w := gt.FromFloat32s([]float32{0.5, -1, 2}, 3).SetRequiresGrad(true)
	ref := w.Detach().Clone()
	opt, err := optim.NewSGD([]*gt.Tensor{w}, optim.WithLR(0.1), optim.WithMomentum(0.9))
	if err != nil {
		t.Fatal(err)
	}
	refOpt, _ := optim.NewSGD([]*gt.Tensor{ref}, optim.WithLR(0.1), optim.WithMomentum(0.9))
	w.Mul(w).SumAll().Backward()
	g := w.Grad()
	refOpt.StepWith([]*gt.Tensor{g.Clone()})
	opt.Step()
	opt.ZeroGrad(optim.WithSetToNone(false))
	if w.Grad() != g || !tensor.AllClose(g, ref.ZerosLike(), 0, 0) {
		t.Fatalf("ZeroGrad(WithSetToNone(false)): gradient %v (same tensor: %v), want zeros", w.Grad(), w.Grad() == g)
	}
	opt.Step() // momentum alone moves w
	refOpt.StepWith([]*gt.Tensor{ref.ZerosLike()})
	if !tensor.AllClose(w, ref, 0, 0) {
		t.Fatalf("step on a zero-filled gradient: w = %v, want %v", w, ref)
	}
	moved := w.Detach().Clone()
	opt.ZeroGrad()
	if w.Grad() != nil {
		t.Fatal("ZeroGrad() left a gradient")
	}
	opt.Step() // no gradient: skipped
	if !tensor.AllClose(w, moved, 0, 0) {
		t.Fatalf("step without gradients moved w: %v, want %v", w, moved)
	}
	w.MulScalar(2).SumAll().Backward()
	g = w.Grad()
	opt.ZeroGrad(optim.WithSetToNone(false))
	w.MulScalar(3).SumAll().Backward()
	if w.Grad() != g || !tensor.AllClose(g, ref.FullLike(3), 0, 0) {
		t.Fatalf("backward after a zero fill: %v, want 3s in the kept tensor", w.Grad())
	}
	err = tensor.Try(func() { opt.ZeroGrad(optim.WithLR(1)) })
	te, ok := tensor.AsError(err)
	if !ok || te.Kind != tensor.TypeError || te.Msg != "Optimizer.zero_grad() got an unexpected keyword argument 'lr'" {
		t.Fatalf("ZeroGrad(lr=1): %v", err)
	}
}
