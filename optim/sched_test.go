package optim_test

import (
	"math"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
)

func TestSchedulerErrors(t *testing.T) {
	sgd := func() optim.Optimizer {
		o, _ := optim.NewSGD([]*gt.Tensor{gt.Zeros(2)}, optim.WithLR(0.1))
		return o
	}
	ada := func() optim.Optimizer {
		o, _ := optim.NewAdagrad([]*gt.Tensor{gt.Zeros(2)})
		return o
	}
	for _, c := range []struct {
		make func() error
		want string
	}{
		{func() error { _, err := optim.NewStepLR(sgd(), 0); return err }, "step_size must be positive"},
		{func() error { _, err := optim.NewStepLR(sgd(), 2, optim.WithEtaMin(1)); return err }, "StepLR.__init__() got an unexpected keyword argument 'eta_min'"},
		{func() error { _, err := optim.NewCosineAnnealingLR(sgd(), 0); return err }, "T_max must be positive"},
		{func() error { _, err := optim.NewLinearLR(sgd(), optim.WithStartFactor(1.5)); return err }, "Starting multiplicative factor expected to be between 0 and 1."},
		{func() error { _, err := optim.NewLinearLR(sgd(), optim.WithStartFactor(0)); return err }, "Starting multiplicative factor expected to be between 0 and 1."},
		{func() error { _, err := optim.NewLinearLR(sgd(), optim.WithEndFactor(-0.5)); return err }, "Ending multiplicative factor expected to be between 0 and 1."},
		{func() error { _, err := optim.NewOneCycleLR(sgd(), []float64{0.1}); return err }, "You must define either total_steps OR (epochs AND steps_per_epoch)"},
		{func() error {
			_, err := optim.NewOneCycleLR(sgd(), []float64{0.1}, optim.WithTotalSteps(0))
			return err
		}, "Expected positive integer total_steps, but got 0"},
		{func() error { _, err := optim.NewOneCycleLR(sgd(), []float64{0.1}, optim.WithEpochs(2)); return err }, "Expected positive integer steps_per_epoch, but got 0"},
		{func() error {
			_, err := optim.NewOneCycleLR(sgd(), []float64{0.1}, optim.WithTotalSteps(5), optim.WithPctStart(1.5))
			return err
		}, "Expected float between 0 and 1 pct_start, but got 1.5"},
		{func() error {
			_, err := optim.NewOneCycleLR(sgd(), []float64{0.1}, optim.WithTotalSteps(5), optim.WithAnnealStrategy("exp"))
			return err
		}, "anneal_strategy must by one of 'cos' or 'linear', instead got exp"},
		{func() error {
			_, err := optim.NewOneCycleLR(sgd(), []float64{0.1, 0.2}, optim.WithTotalSteps(5))
			return err
		}, "expected 1 values for max_lr, got 2"},
		{func() error {
			_, err := optim.NewOneCycleLR(ada(), []float64{0.1}, optim.WithTotalSteps(5))
			return err
		}, "optimizer must support momentum with `cycle_momentum` option enabled"},
		{func() error { _, err := optim.NewReduceLROnPlateau(sgd(), optim.WithFactor(1)); return err }, "Factor should be < 1.0."},
		{func() error { _, err := optim.NewReduceLROnPlateau(sgd(), optim.WithMode("up")); return err }, "mode up is unknown!"},
		{func() error { _, err := optim.NewReduceLROnPlateau(sgd(), optim.WithThresholdMode("x")); return err }, "threshold mode x is unknown!"},
		{func() error { _, err := optim.NewReduceLROnPlateau(sgd(), optim.WithMinLR(1, 2)); return err }, "expected 1 min_lrs, got 2"},
		{func() error {
			o := sgd()
			s, _ := optim.NewStepLR(o, 2)
			_, err := optim.NewSequentialLR(o, []optim.Scheduler{s}, []int{3})
			return err
		}, "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points"},
		{func() error {
			s, _ := optim.NewStepLR(sgd(), 2)
			_, err := optim.NewSequentialLR(sgd(), []optim.Scheduler{s}, nil)
			return err
		}, "to be different than the optimizer passed in"},
	} {
		if err := c.make(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// OneCycleLR stepped past total_steps panics, as PyTorch raises.
func TestOneCyclePastEnd(t *testing.T) {
	o, _ := optim.NewSGD([]*gt.Tensor{gt.Zeros(2)}, optim.WithLR(0.1))
	s, err := optim.NewOneCycleLR(o, []float64{1}, optim.WithTotalSteps(3))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		s.Step()
	}
	defer func() {
		r := recover()
		if err, ok := r.(error); !ok || !strings.Contains(err.Error(), "Tried to step 5 times. The specified number of total steps is 3") {
			t.Errorf("got %v", r)
		}
	}()
	s.Step()
}

// Two schedulers on one optimizer chain: the second starts from the
// first's initial_lr and both scale the current rate.
func TestChainedInitialLR(t *testing.T) {
	o, _ := optim.NewSGD([]*gt.Tensor{gt.Zeros(2)}, optim.WithLR(1))
	a, _ := optim.NewLinearLR(o, optim.WithStartFactor(0.5), optim.WithTotalIters(2))
	b, _ := optim.NewExponentialLR(o, 0.5)
	if g := o.ParamGroups()[0]; *g.InitialLR != 1 || g.LR != 0.5 {
		t.Fatalf("initial_lr %v lr %v", *g.InitialLR, g.LR)
	}
	a.Step()
	b.Step()
	// LinearLR: 0.5 → 0.75 (×1.5), ExponentialLR: ×0.5.
	if lr := o.ParamGroups()[0].LR; lr != 0.375 {
		t.Errorf("lr %v, want 0.375", lr)
	}
}

func TestClipGradNormEdges(t *testing.T) {
	// No gradients: a 0-d float32 zero, nothing else happens.
	p := gt.Ones(3).SetRequiresGrad(true)
	total, err := optim.ClipGradNorm_([]*gt.Tensor{p}, 1)
	if err != nil || total.Dim() != 0 || total.Item().Float64() != 0 || total.DType() != gt.Float32 {
		t.Errorf("no grads: %v %v", total, err)
	}
	// A NaN gradient with error_if_nonfinite: an error, gradients untouched.
	setGrad(p, gt.FromFloat32s([]float32{1, float32(math.NaN()), 2}, 3))
	_, err = optim.ClipGradNorm_([]*gt.Tensor{p}, 1, optim.WithErrorIfNonfinite(true))
	if err == nil || !strings.Contains(err.Error(), "The total norm of order 2.0 for gradients from `parameters` is non-finite") {
		t.Errorf("got %v", err)
	}
	if g := p.Grad().Float64s(); g[0] != 1 || g[2] != 2 {
		t.Errorf("gradient changed: %v", g)
	}
	// Without it the gradients are scaled by the NaN coefficient, as PyTorch does.
	total, err = optim.ClipGradNorm_([]*gt.Tensor{p}, 1)
	if err != nil || !math.IsNaN(total.Item().Float64()) || !math.IsNaN(p.Grad().Float64s()[0]) {
		t.Errorf("NaN norm: %v %v %v", total, p.Grad(), err)
	}
	// Infinity norm of an infinite gradient.
	setGrad(p, gt.FromFloat32s([]float32{1, float32(math.Inf(-1)), 2}, 3))
	_, err = optim.ClipGradNorm_([]*gt.Tensor{p}, 1, optim.WithNormType(math.Inf(1)), optim.WithErrorIfNonfinite(true))
	if err == nil || !strings.Contains(err.Error(), "order inf") {
		t.Errorf("got %v", err)
	}
	// Clipping leaves a parameter that requires grad a leaf, records nothing.
	setGrad(p, gt.FromFloat32s([]float32{3, 4, 0}, 3))
	total, _ = optim.ClipGradNorm_([]*gt.Tensor{p}, 1)
	if total.Item().Float64() != 5 || p.Grad().RequiresGrad() {
		t.Errorf("total %v, grad requires grad %v", total, p.Grad().RequiresGrad())
	}
}
