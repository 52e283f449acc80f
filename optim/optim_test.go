package optim_test

import (
	"math"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
)

func vec(d gt.DType, xs []float64, shape ...int) *gt.Tensor {
	return gt.FromFloat64s(xs, shape...).To(d).Clone()
}

// Steps worked out by hand (in float64, exactly representable numbers).
func TestHandComputed(t *testing.T) {
	one := func(x float64) *gt.Tensor { return gt.FromFloat64s([]float64{x}, 1) }
	run := func(opt optim.Optimizer, grads ...float64) []float64 {
		var out []float64
		for _, g := range grads {
			opt.StepWith([]*gt.Tensor{one(g)})
			out = append(out, opt.Params()[0].Float64s()[0])
		}
		return out
	}
	check := func(name string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-15*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%s: step %d: got %.17g, want %.17g", name, i+1, got[i], want[i])
			}
		}
	}

	// p = 1, g = 0.5, 0.25: p -= 0.5·g.
	sgd, _ := optim.NewSGD([]*gt.Tensor{one(1)}, optim.WithLR(0.5))
	check("sgd", run(sgd, 0.5, 0.25), []float64{0.75, 0.625})

	// Momentum 0.5, dampening 0.5: buf₁ = g₁ = 1 → p = 1 - 0.25 = 0.75;
	// buf₂ = 0.5·1 + 0.5·2 = 1.5 → p = 0.75 - 0.375 = 0.375.
	sgd, _ = optim.NewSGD([]*gt.Tensor{one(1)}, optim.WithLR(0.25), optim.WithMomentum(0.5), optim.WithDampening(0.5))
	check("sgd momentum", run(sgd, 1, 2), []float64{0.75, 0.375})

	// Nesterov, momentum 0.5, weight decay 0.5, p = 2, g = 1:
	// step 1: g' = 1 + 1 = 2, buf = 2, d = 2 + 0.5·2 = 3, p = 2 - 0.25·3 = 1.25;
	// step 2: g' = 1 + 0.625 = 1.625, buf = 1 + 1.625 = 2.625, d = 1.625 + 1.3125 = 2.9375,
	//         p = 1.25 - 0.734375 = 0.515625.
	sgd, _ = optim.NewSGD([]*gt.Tensor{one(2)}, optim.WithLR(0.25), optim.WithMomentum(0.5), optim.WithNesterov(true), optim.WithWeightDecay(0.5))
	check("sgd nesterov", run(sgd, 1, 1), []float64{1.25, 0.515625})

	// Maximize climbs: p += lr·g.
	sgd, _ = optim.NewSGD([]*gt.Tensor{one(1)}, optim.WithLR(0.5), optim.WithMaximize(true))
	check("sgd maximize", run(sgd, 1), []float64{1.5})

	adam, _ := optim.NewAdam([]*gt.Tensor{one(1)}, optim.WithLR(0.1), optim.WithBetas(0.5, 0.75), optim.WithEps(0))
	// Step 1, g = 4: m = 2, v = 4, step size 0.1/(1-0.5) = 0.2, denom √4/√0.25 = 4: p = 1 - 0.2·2/4 = 0.9.
	// Step 2, g = -4: m = 1 - 2 = -1, v = 3 + 4 = 7, step size 0.1/0.75, denom √7/√0.4375 = 4:
	// p = 0.9 + (0.1/0.75)/4 = 0.9 + 0.1/3.
	check("adam", run(adam, 4, -4), []float64{0.9, 0.9 + 0.1/3})

	// AdamW with lr 0.1, weight decay 0.5 shrinks p by 5% first: 2·0.95 - 0.1.
	adamw, _ := optim.NewAdamW([]*gt.Tensor{one(2)}, optim.WithLR(0.1), optim.WithBetas(0.5, 0.75), optim.WithEps(0), optim.WithWeightDecay(0.5))
	check("adamw", run(adamw, 3), []float64{1.8})

	// AMSGrad keeps the largest v: after g = 4 then g = 0, v₂ = 0.75·v₁ < v₁, so v̂ uses v₁ = 4.
	// m₂ = 0.5·2 = 1, m̂ = 1/0.75; denom = √4/√0.4375; p = 0.9 - 0.1·(4/3)/(2/√0.4375).
	ams, _ := optim.NewAdam([]*gt.Tensor{one(1)}, optim.WithLR(0.1), optim.WithBetas(0.5, 0.75), optim.WithEps(0), optim.WithAMSGrad(true))
	check("amsgrad", run(ams, 4, 0), []float64{0.9, 0.9 - 0.1*(4.0/3)/(2/math.Sqrt(0.4375))})
}

// A nil gradient skips its parameter: it does not move, and Adam's step
// count for it does not advance.
func TestNilGradSkips(t *testing.T) {
	a, b := gt.FromFloat32s([]float32{1, 2}, 2), gt.FromFloat32s([]float32{3}, 1)
	opt, err := optim.NewAdam([]*gt.Tensor{a, b})
	if err != nil {
		t.Fatal(err)
	}
	opt.StepWith([]*gt.Tensor{gt.Ones(2), nil})
	if b.Float64s()[0] != 3 || opt.State(b) != nil || opt.State(a).Step != 1 {
		t.Fatalf("b = %v, states %v %v", b, opt.State(a), opt.State(b))
	}
	if a.Float64s()[0] >= 1 {
		t.Fatalf("a did not move: %v", a)
	}
}

// Updates are in place: views of a parameter see them.
func TestInPlace(t *testing.T) {
	p := gt.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	row := p.Select(0, 1)
	v := p.Version()
	opt, _ := optim.NewSGD([]*gt.Tensor{p}, optim.WithLR(1))
	opt.StepWith([]*gt.Tensor{gt.Ones(2, 2)})
	if got := row.Float64s(); got[0] != 2 || got[1] != 3 {
		t.Fatalf("view sees %v", got)
	}
	if p.Version() == v {
		t.Error("the parameter's version counter did not move")
	}
}

// Option errors not covered by PyTorch's recorded messages
// (TestErrorsAgainstPyTorch), and parameter-list errors.
func TestConfigErrors(t *testing.T) {
	p := []*gt.Tensor{gt.Ones(2)}
	for _, c := range []struct {
		make func() error
		want string
	}{
		{func() error { _, err := optim.NewSGD(p, optim.WithLR(1), optim.WithLR(2)); return err }, "SGD.__init__() got multiple values for keyword argument 'lr'"},
		{func() error { _, err := optim.NewAdam(p, optim.WithLR(math.NaN())); return err }, "Invalid learning rate: nan"},
		{func() error { _, err := optim.NewAdamW(p, optim.WithMomentum(0.9)); return err }, "AdamW.__init__() got an unexpected keyword argument 'momentum'"},
		{func() error { _, err := optim.NewRMSprop(p, optim.WithBetas(0.9, 0.9)); return err }, "RMSprop.__init__() got an unexpected keyword argument 'betas'"},
		{func() error { _, err := optim.NewAdagrad(p, optim.WithGamma(0.9)); return err }, "Adagrad.__init__() got an unexpected keyword argument 'gamma'"},
		{func() error { _, err := optim.NewSGD(nil, optim.WithLR(1)); return err }, "optimizer got an empty parameter list"},
		{func() error { _, err := optim.NewSGD([]*gt.Tensor{nil}, optim.WithLR(1)); return err }, "optimizer can only optimize Tensors"},
		{func() error {
			_, err := optim.NewSGD([]*gt.Tensor{gt.FromInt64s([]int64{1}, 1)}, optim.WithLR(1))
			return err
		}, "optimizers update floating-point tensors"},
		{func() error { _, err := optim.NewSGD([]*gt.Tensor{p[0], p[0]}, optim.WithLR(1)); return err }, "duplicate parameters"},
		{func() error {
			w := gt.Ones(2).SetRequiresGrad(true)
			_, err := optim.NewSGD([]*gt.Tensor{w.MulScalar(2)}, optim.WithLR(1))
			return err
		}, "can't optimize a non-leaf Tensor"},
		{func() error {
			o, _ := optim.NewSGD(p, optim.WithLR(1))
			return o.AddParamGroup(p)
		}, "some parameters appear in more than one parameter group"},
		{func() error {
			o, _ := optim.NewAdam(p)
			return o.AddParamGroup([]*gt.Tensor{gt.Ones(1)}, optim.WithBetas(0.9, 1.5))
		}, "Invalid beta parameter at index 1: 1.5"},
		{func() error {
			o, _ := optim.NewAdam(p)
			return o.AddParamGroup([]*gt.Tensor{gt.Ones(1)}, optim.WithNesterov(true))
		}, "add_param_group() got an unexpected keyword argument 'nesterov'"},
	} {
		if err := c.make(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// Options left out take PyTorch's defaults, and an explicit zero is a value.
func TestDefaults(t *testing.T) {
	p := []*gt.Tensor{gt.Ones(2)}
	adam, _ := optim.NewAdam(p)
	g := *adam.ParamGroups()[0]
	if g.LR != 1e-3 || g.Betas != [2]float64{0.9, 0.999} || g.Eps != 1e-8 || g.WeightDecay != 0 || g.AMSGrad {
		t.Errorf("Adam defaults %+v", g)
	}
	adamw, _ := optim.NewAdamW(p)
	if g := adamw.ParamGroups()[0]; g.WeightDecay != 1e-2 {
		t.Errorf("AdamW weight decay %v", g.WeightDecay)
	}
	adamw, _ = optim.NewAdamW(p, optim.WithWeightDecay(0), optim.WithBetas(0, 0.99))
	if g := adamw.ParamGroups()[0]; g.WeightDecay != 0 || g.Betas[0] != 0 {
		t.Errorf("explicit zeros lost: %+v", g)
	}
	rms, _ := optim.NewRMSprop(p)
	if g := rms.ParamGroups()[0]; g.LR != 1e-2 || g.Alpha != 0.99 || g.Eps != 1e-8 || g.Momentum != 0 || g.Centered {
		t.Errorf("RMSprop defaults %+v", g)
	}
	ada, _ := optim.NewAdagrad(p)
	if g := ada.ParamGroups()[0]; g.LR != 1e-2 || g.Eps != 1e-10 || g.LRDecay != 0 || g.InitialAccumulatorValue != 0 {
		t.Errorf("Adagrad defaults %+v", g)
	}
	if !rms.ParamGroups()[0].Has("alpha") || rms.ParamGroups()[0].Has("betas") {
		t.Error("Has is wrong for RMSprop")
	}
	// A later group inherits the defaults it does not override.
	sgd, _ := optim.NewSGD(p, optim.WithLR(0.1), optim.WithMomentum(0.9))
	if err := sgd.AddParamGroup([]*gt.Tensor{gt.Ones(3)}, optim.WithLR(0.01)); err != nil {
		t.Fatal(err)
	}
	if g := sgd.ParamGroups()[1]; g.LR != 0.01 || g.Momentum != 0.9 {
		t.Errorf("second group %+v", g)
	}
	if n := len(sgd.Params()); n != 2 {
		t.Errorf("%d params", n)
	}
	// Adam with the defaults takes a finite step (eps is not zero).
	w := gt.FromFloat32s([]float32{1, 2}, 2)
	adam, _ = optim.NewAdam([]*gt.Tensor{w})
	adam.StepWith([]*gt.Tensor{gt.Zeros(2)})
	if got := w.Float64s(); got[0] != 1 || got[1] != 2 {
		t.Errorf("a zero gradient moved the parameter: %v", got)
	}
}

// Mismatched gradients panic with a *tensor.Error and change nothing.
func TestStepErrors(t *testing.T) {
	a, b := gt.Ones(2), gt.Ones(3)
	opt, _ := optim.NewSGD([]*gt.Tensor{a, b}, optim.WithLR(1))
	for name, grads := range map[string][]*gt.Tensor{
		"too few":     {gt.Ones(2)},
		"wrong shape": {gt.Ones(2), gt.Ones(2)},
		"wrong dtype": {gt.Ones(2), gt.Ones(3).To(gt.Float64)},
	} {
		err := gt.Try(func() { opt.StepWith(grads) })
		if _, ok := tensor.AsError(err); !ok {
			t.Errorf("%s: got %v, want a *tensor.Error", name, err)
		}
		if a.Float64s()[0] != 1 {
			t.Fatalf("%s: the first parameter moved before the error", name)
		}
	}
}

// TestStepWithBadGrads checks StepWith's messages for gradients that do not
// pair up with the parameters (formatted only when a check fails).
func TestStepWithBadGrads(t *testing.T) {
	p := gt.Zeros(2, 3).SetRequiresGrad(true)
	opt, err := optim.NewSGD([]*gt.Tensor{p}, optim.WithLR(0.1))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		grads []*gt.Tensor
		want  string
	}{
		{nil, "optimizer step: got 0 gradients for 1 parameters"},
		{[]*gt.Tensor{gt.Zeros(3, 2)}, "optimizer step: gradient 0 has shape [3, 2] but its parameter has shape [2, 3]"},
		{[]*gt.Tensor{gt.Zeros(2, 3).To(gt.Float64)}, "optimizer step: gradient 0 is "},
	} {
		err := tensor.Try(func() { opt.StepWith(c.grads) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("StepWith(%v): %v, want %q", c.grads, err, c.want)
		}
	}
	if err := tensor.Try(func() { opt.StepWith([]*gt.Tensor{gt.Ones(2, 3)}) }); err != nil {
		t.Errorf("StepWith(a matching gradient): %v", err)
	}
}
