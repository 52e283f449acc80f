package optim_test

import (
	"fmt"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
)

// A learning-rate schedule: three epochs of linear warm-up from a tenth of
// the rate, then cosine annealing, as PyTorch's SequentialLR of LinearLR
// and CosineAnnealingLR gives it.
func ExampleSequentialLR() {
	w := gt.Zeros(4).SetRequiresGrad(true)
	opt, _ := optim.NewSGD([]*gt.Tensor{w}, optim.WithLR(0.1), optim.WithMomentum(0.9))
	warmup, _ := optim.NewLinearLR(opt, optim.WithStartFactor(0.1), optim.WithTotalIters(3))
	cosine, _ := optim.NewCosineAnnealingLR(opt, 5)
	sched, _ := optim.NewSequentialLR(opt, []optim.Scheduler{warmup, cosine}, []int{3})
	for epoch := 0; epoch < 9; epoch++ {
		fmt.Printf("epoch %d: lr %.4f\n", epoch, opt.ParamGroups()[0].LR)
		// ... train: opt.ZeroGrad(), loss.Backward(), opt.Step() ...
		sched.Step()
	}
	// Output:
	// epoch 0: lr 0.0100
	// epoch 1: lr 0.0400
	// epoch 2: lr 0.0700
	// epoch 3: lr 0.1000
	// epoch 4: lr 0.0905
	// epoch 5: lr 0.0655
	// epoch 6: lr 0.0345
	// epoch 7: lr 0.0095
	// epoch 8: lr 0.0000
}

// StepLR divides the rate of every parameter group by ten every two epochs.
func ExampleStepLR() {
	backbone, head := gt.Zeros(3).SetRequiresGrad(true), gt.Zeros(2).SetRequiresGrad(true)
	opt, _ := optim.NewAdamW([]*gt.Tensor{backbone}, optim.WithLR(1e-3))
	_ = opt.AddParamGroup([]*gt.Tensor{head}, optim.WithLR(1e-2), optim.WithWeightDecay(0))
	sched, _ := optim.NewStepLR(opt, 2)
	for epoch := 0; epoch < 5; epoch++ {
		fmt.Printf("epoch %d: %.0e\n", epoch, sched.LastLR())
		sched.Step()
	}
	// Output:
	// epoch 0: [1e-03 1e-02]
	// epoch 1: [1e-03 1e-02]
	// epoch 2: [1e-04 1e-03]
	// epoch 3: [1e-04 1e-03]
	// epoch 4: [1e-05 1e-04]
}

// A training step with gradient clipping.
func Example_clipGradNorm() {
	w := gt.FromFloat32s([]float32{1, 2}, 2).SetRequiresGrad(true)
	opt, _ := optim.NewSGD([]*gt.Tensor{w}, optim.WithLR(0.1))
	opt.ZeroGrad()
	w.Mul(gt.FromFloat32s([]float32{30, 40}, 2)).SumAll().Backward() // gradient (30, 40), norm 50
	total, _ := optim.ClipGradNorm_(opt.Params(), 5)
	fmt.Printf("norm %.0f, clipped gradient %.4f\n", total.Item().Float64(), w.Grad().Float64s())
	opt.Step()
	fmt.Printf("w %.4f\n", w.Detach().Float64s())
	// Output:
	// norm 50, clipped gradient [3.0000 4.0000]
	// w [0.7000 1.6000]
}

// Options left out are PyTorch's defaults; an explicit zero is a value.
func ExampleNewAdamW() {
	w := gt.Zeros(2).SetRequiresGrad(true)
	opt, _ := optim.NewAdamW([]*gt.Tensor{w})
	g := opt.ParamGroups()[0]
	fmt.Println(g.LR, g.Betas, g.Eps, g.WeightDecay)
	opt, _ = optim.NewAdamW([]*gt.Tensor{w}, optim.WithWeightDecay(0))
	fmt.Println(opt.ParamGroups()[0].WeightDecay)
	_, err := optim.NewSGD([]*gt.Tensor{w})
	fmt.Println(err)
	// Output:
	// 0.001 [0.9 0.999] 1e-08 0.01
	// 0
	// parameter group didn't specify a value of required optimization parameter lr
}
