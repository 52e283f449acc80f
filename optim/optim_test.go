package optim_test

import (
	"math"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
)

type torchCase struct {
	name  string
	dtype gt.DType
	make  func([]*gt.Tensor) (optim.Optimizer, error)
	// steps[k][i] is parameter i after step k.
	steps [][][]float64
}

func vec(d gt.DType, xs []float64, shape ...int) *gt.Tensor {
	return gt.FromFloat64s(xs, shape...).To(d).Clone()
}

// ulps is how many float32 (or float64) steps apart a and b are.
func ulps(a, b float64, d gt.DType) float64 {
	if a == b {
		return 0
	}
	if d == gt.Float32 {
		x, y := int64(math.Float32bits(float32(a))), int64(math.Float32bits(float32(b)))
		if (x < 0) != (y < 0) {
			return math.Inf(1)
		}
		return math.Abs(float64(x - y))
	}
	x, y := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	return math.Abs(float64(x - y))
}

// PyTorch 1.13's torch.optim run on the same parameters and gradients
// (scripts/optim-golden.py). SGD must be bit-identical. Adam and AdamW
// follow PyTorch op for op, but PyTorch's CPU addcmul kernel computes
// self + value·t1·t2 with a fused multiply-add and goaten's addcmul (a
// decomposition into mul and add) rounds twice, so the second moment can be
// an ulp off; Adam gets a tolerance of a few ulps, scaled for the
// cancellation when a parameter passes through zero.
func TestAgainstPyTorch(t *testing.T) {
	for _, c := range torchCases {
		t.Run(c.name+"/"+c.dtype.String(), func(t *testing.T) {
			rtol, atol := 0.0, 0.0
			if strings.HasPrefix(c.name, "adam") {
				rtol, atol = 1e-6, 1e-8
				if c.dtype == gt.Float64 {
					rtol, atol = 1e-14, 1e-16
				}
			}
			ps := make([]*gt.Tensor, len(torchParams0))
			for i, p := range torchParams0 {
				ps[i] = vec(c.dtype, p, torchShapes[i]...)
			}
			opt, err := c.make(ps)
			if err != nil {
				t.Fatal(err)
			}
			for k, step := range c.steps {
				grads := make([]*gt.Tensor, len(ps))
				for i, g := range torchGrads[k] {
					if g != nil {
						grads[i] = vec(c.dtype, g, torchShapes[i]...)
					}
				}
				opt.StepWith(grads)
				for i, want := range step {
					got := ps[i].Float64s()
					for j := range want {
						if d := math.Abs(got[j] - want[j]); d > atol+rtol*math.Abs(want[j]) {
							u := ulps(got[j], want[j], c.dtype)
							t.Errorf("step %d, param %d[%d]: got %.9g, want %.9g (%g ulps)", k+1, i, j, got[j], want[j], u)
						}
					}
				}
			}
		})
	}
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
	sgd, _ := optim.NewSGD([]*gt.Tensor{one(1)}, optim.SGDConfig{LR: 0.5})
	check("sgd", run(sgd, 0.5, 0.25), []float64{0.75, 0.625})

	// Momentum 0.5, dampening 0.5: buf₁ = g₁ = 1 → p = 1 - 0.25 = 0.75;
	// buf₂ = 0.5·1 + 0.5·2 = 1.5 → p = 0.75 - 0.375 = 0.375.
	sgd, _ = optim.NewSGD([]*gt.Tensor{one(1)}, optim.SGDConfig{LR: 0.25, Momentum: 0.5, Dampening: 0.5})
	check("sgd momentum", run(sgd, 1, 2), []float64{0.75, 0.375})

	// Nesterov, momentum 0.5, weight decay 0.5, p = 2, g = 1:
	// step 1: g' = 1 + 1 = 2, buf = 2, d = 2 + 0.5·2 = 3, p = 2 - 0.25·3 = 1.25;
	// step 2: g' = 1 + 0.625 = 1.625, buf = 1 + 1.625 = 2.625, d = 1.625 + 1.3125 = 2.9375,
	//         p = 1.25 - 0.734375 = 0.515625.
	sgd, _ = optim.NewSGD([]*gt.Tensor{one(2)}, optim.SGDConfig{LR: 0.25, Momentum: 0.5, Nesterov: true, WeightDecay: 0.5})
	check("sgd nesterov", run(sgd, 1, 1), []float64{1.25, 0.515625})

	// Maximize climbs: p += lr·g.
	sgd, _ = optim.NewSGD([]*gt.Tensor{one(1)}, optim.SGDConfig{LR: 0.5, Maximize: true})
	check("sgd maximize", run(sgd, 1), []float64{1.5})

	adam, _ := optim.NewAdam([]*gt.Tensor{one(1)}, optim.AdamConfig{LR: 0.1, Beta1: 0.5, Beta2: 0.75, Eps: 0})
	// Step 1, g = 4: m = 2, v = 4, step size 0.1/(1-0.5) = 0.2, denom √4/√0.25 = 4: p = 1 - 0.2·2/4 = 0.9.
	// Step 2, g = -4: m = 1 - 2 = -1, v = 3 + 4 = 7, step size 0.1/0.75, denom √7/√0.4375 = 4:
	// p = 0.9 + (0.1/0.75)/4 = 0.9 + 0.1/3.
	check("adam", run(adam, 4, -4), []float64{0.9, 0.9 + 0.1/3})

	// AdamW with lr 0.1, weight decay 0.5 shrinks p by 5% first: 2·0.95 - 0.1.
	adamw, _ := optim.NewAdamW([]*gt.Tensor{one(2)}, optim.AdamConfig{LR: 0.1, Beta1: 0.5, Beta2: 0.75, WeightDecay: 0.5})
	check("adamw", run(adamw, 3), []float64{1.8})

	// AMSGrad keeps the largest v: after g = 4 then g = 0, v₂ = 0.75·v₁ < v₁, so v̂ uses v₁ = 4.
	// m₂ = 0.5·2 = 1, m̂ = 1/0.75; denom = √4/√0.4375; p = 0.9 - 0.1·(4/3)/(2/√0.4375).
	ams, _ := optim.NewAdam([]*gt.Tensor{one(1)}, optim.AdamConfig{LR: 0.1, Beta1: 0.5, Beta2: 0.75, AMSGrad: true})
	check("amsgrad", run(ams, 4, 0), []float64{0.9, 0.9 - 0.1*(4.0/3)/(2/math.Sqrt(0.4375))})
}

// A nil gradient skips its parameter: it does not move, and Adam's step
// count for it does not advance.
func TestNilGradSkips(t *testing.T) {
	a, b := gt.FromFloat32s([]float32{1, 2}, 2), gt.FromFloat32s([]float32{3}, 1)
	opt, err := optim.NewAdam([]*gt.Tensor{a, b}, optim.DefaultAdam())
	if err != nil {
		t.Fatal(err)
	}
	opt.StepWith([]*gt.Tensor{gt.Ones(2), nil})
	if b.Float64s()[0] != 3 || opt.Steps(1) != 0 || opt.Steps(0) != 1 {
		t.Fatalf("b = %v, steps %d %d", b, opt.Steps(0), opt.Steps(1))
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
	opt, _ := optim.NewSGD([]*gt.Tensor{p}, optim.SGDConfig{LR: 1})
	opt.StepWith([]*gt.Tensor{gt.Ones(2, 2)})
	if got := row.Float64s(); got[0] != 2 || got[1] != 3 {
		t.Fatalf("view sees %v", got)
	}
	if p.Version() == v {
		t.Error("the parameter's version counter did not move")
	}
}

func TestConfigErrors(t *testing.T) {
	p := []*gt.Tensor{gt.Ones(2)}
	sgd := []struct {
		c    optim.SGDConfig
		want string
	}{
		{optim.SGDConfig{LR: -1}, "Invalid learning rate"},
		{optim.SGDConfig{LR: 1, Momentum: -0.5}, "Invalid momentum value"},
		{optim.SGDConfig{LR: 1, WeightDecay: -1}, "Invalid weight_decay value"},
		{optim.SGDConfig{LR: 1, Nesterov: true}, "Nesterov momentum requires a momentum and zero dampening"},
		{optim.SGDConfig{LR: 1, Nesterov: true, Momentum: 0.9, Dampening: 0.1}, "Nesterov momentum requires"},
	}
	for _, c := range sgd {
		if _, err := optim.NewSGD(p, c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.c, err, c.want)
		}
	}
	adam := []struct {
		edit func(*optim.AdamConfig)
		want string
	}{
		{func(c *optim.AdamConfig) { c.LR = -1 }, "Invalid learning rate"},
		{func(c *optim.AdamConfig) { c.LR = math.NaN() }, "Invalid learning rate"},
		{func(c *optim.AdamConfig) { c.Eps = -1 }, "Invalid epsilon value"},
		{func(c *optim.AdamConfig) { c.Beta1 = 1 }, "Invalid beta parameter at index 0"},
		{func(c *optim.AdamConfig) { c.Beta2 = -0.1 }, "Invalid beta parameter at index 1"},
		{func(c *optim.AdamConfig) { c.WeightDecay = -1 }, "Invalid weight_decay value"},
	}
	for _, c := range adam {
		cfg := optim.DefaultAdam()
		c.edit(&cfg)
		if _, err := optim.NewAdam(p, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", cfg, err, c.want)
		}
		if _, err := optim.NewAdamW(p, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AdamW %+v: got %v, want %q", cfg, err, c.want)
		}
	}
	for name, ps := range map[string][]*gt.Tensor{
		"empty":     nil,
		"nil":       {nil},
		"integer":   {gt.FromInt64s([]int64{1}, 1)},
		"duplicate": {p[0], p[0]},
	} {
		if _, err := optim.NewSGD(ps, optim.SGDConfig{LR: 1}); err == nil {
			t.Errorf("%s parameters: no error", name)
		}
	}
}

// Mismatched gradients panic with a *tensor.Error and change nothing.
func TestStepErrors(t *testing.T) {
	a, b := gt.Ones(2), gt.Ones(3)
	opt, _ := optim.NewSGD([]*gt.Tensor{a, b}, optim.SGDConfig{LR: 1})
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
