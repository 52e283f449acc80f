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
