package optim_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/safetensors"
)

// run is a small training run: a 3→4 tanh layer fitted to fixed targets,
// with two parameter groups, gradient clipping and a scheduler.
type run struct {
	w, b  *gt.Tensor
	opt   optim.Optimizer
	sched interface{ StateDict() ([]byte, error) }
	step  func(loss float64) // the scheduler's step
}

type runKind struct {
	name  string
	opt   func(w, b *gt.Tensor) (optim.Optimizer, error)
	sched func(optim.Optimizer) (any, error)
}

var runKinds = []runKind{
	{"sgd steplr",
		func(w, b *gt.Tensor) (optim.Optimizer, error) {
			o, err := optim.NewSGD([]*gt.Tensor{w}, optim.WithLR(0.1), optim.WithMomentum(0.9), optim.WithNesterov(true))
			if err == nil {
				err = o.AddParamGroup([]*gt.Tensor{b}, optim.WithLR(0.05), optim.WithWeightDecay(0.01))
			}
			return o, err
		},
		func(o optim.Optimizer) (any, error) { return optim.NewStepLR(o, 3, optim.WithGamma(0.5)) }},
	{"adam onecycle",
		func(w, b *gt.Tensor) (optim.Optimizer, error) {
			o, err := optim.NewAdam([]*gt.Tensor{w}, optim.WithAMSGrad(true))
			if err == nil {
				err = o.AddParamGroup([]*gt.Tensor{b}, optim.WithBetas(0.8, 0.99))
			}
			return o, err
		},
		func(o optim.Optimizer) (any, error) {
			return optim.NewOneCycleLR(o, []float64{0.05, 0.02}, optim.WithTotalSteps(12))
		}},
	{"adamw sequential",
		func(w, b *gt.Tensor) (optim.Optimizer, error) {
			o, err := optim.NewAdamW([]*gt.Tensor{w}, optim.WithLR(0.01))
			if err == nil {
				err = o.AddParamGroup([]*gt.Tensor{b}, optim.WithWeightDecay(0))
			}
			return o, err
		},
		func(o optim.Optimizer) (any, error) {
			warm, err := optim.NewLinearLR(o, optim.WithStartFactor(0.1), optim.WithTotalIters(3))
			if err != nil {
				return nil, err
			}
			cos, err := optim.NewCosineAnnealingLR(o, 7)
			if err != nil {
				return nil, err
			}
			return optim.NewSequentialLR(o, []optim.Scheduler{warm, cos}, []int{3})
		}},
	{"rmsprop plateau",
		func(w, b *gt.Tensor) (optim.Optimizer, error) {
			o, err := optim.NewRMSprop([]*gt.Tensor{w}, optim.WithCentered(true), optim.WithMomentum(0.5))
			if err == nil {
				err = o.AddParamGroup([]*gt.Tensor{b}, optim.WithLR(0.001))
			}
			return o, err
		},
		func(o optim.Optimizer) (any, error) {
			return optim.NewReduceLROnPlateau(o, optim.WithPatience(0), optim.WithFactor(0.5), optim.WithThreshold(0.5))
		}},
	{"adagrad exponential",
		func(w, b *gt.Tensor) (optim.Optimizer, error) {
			o, err := optim.NewAdagrad([]*gt.Tensor{w}, optim.WithLR(0.1), optim.WithLRDecay(0.01))
			if err == nil {
				err = o.AddParamGroup([]*gt.Tensor{b}, optim.WithInitialAccumulatorValue(0.1))
			}
			return o, err
		},
		func(o optim.Optimizer) (any, error) { return optim.NewExponentialLR(o, 0.9) }},
	{"adam multistep cosine-closed",
		func(w, b *gt.Tensor) (optim.Optimizer, error) {
			return optim.NewAdam([]*gt.Tensor{w, b}, optim.WithLR(0.02))
		},
		func(o optim.Optimizer) (any, error) { return optim.NewMultiStepLR(o, []int{2, 4, 4, 7}) }},
}

func newRun(t *testing.T, k runKind, w, b *gt.Tensor) *run {
	t.Helper()
	w.SetRequiresGrad(true)
	b.SetRequiresGrad(true)
	opt, err := k.opt(w, b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.sched(opt)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{w: w, b: b, opt: opt}
	switch s := s.(type) {
	case *optim.ReduceLROnPlateau:
		r.sched, r.step = s, s.Step
	case optim.Scheduler:
		r.sched, r.step = s, func(float64) { s.Step() }
	}
	return r
}

func freshParams() (w, b *gt.Tensor) {
	ws := make([]float32, 12)
	for i := range ws {
		ws[i] = float32(math.Sin(float64(i)*1.7)) * 0.5
	}
	return gt.FromFloat32s(ws, 3, 4), gt.FromFloat32s([]float32{0.1, -0.2, 0.05, 0}, 4)
}

var (
	runX = gt.FromFloat32s([]float32{1, 0.5, -1, 0.2, -0.3, 0.8, -1.5, 1, 0.1, 0.7, 0.7, -0.6, 0, -0.4, 1.2}, 5, 3)
	runY = gt.FromFloat32s([]float32{0.5, -0.5, 0.25, 0, 0.1, 0.9, -0.3, -0.7, 0.6, 0, 0.2, -0.1, -0.8, 0.3, 0.4, 0.5, 0, 0.1, -0.2, 0.7}, 5, 4)
)

func (r *run) train(steps int) {
	for i := 0; i < steps; i++ {
		r.opt.ZeroGrad()
		loss := runX.Matmul(r.w).Add(r.b).Tanh().Sub(runY).Square().Mean()
		loss.Backward()
		if _, err := optim.ClipGradNorm_(r.opt.Params(), 0.5); err != nil {
			panic(err)
		}
		r.opt.Step()
		r.step(loss.Item().Float64())
	}
}

func sameBits(t *testing.T, what string, got, want *gt.Tensor) {
	t.Helper()
	g, w := got.Float64s(), want.Float64s()
	for i := range w {
		if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
			t.Errorf("%s[%d]: %.9g, uninterrupted run has %.9g", what, i, g[i], w[i])
			return
		}
	}
}

// A run saved after 5 steps (parameters as safetensors, the optimizer's
// state dict, the scheduler's JSON), restored into a fresh optimizer and
// scheduler and run 7 more steps ends bit for bit where an uninterrupted
// 12-step run ends, for every optimizer with a scheduler.
func TestResumeBitForBit(t *testing.T) {
	for _, k := range runKinds {
		t.Run(k.name, func(t *testing.T) {
			w0, b0 := freshParams()
			ref := newRun(t, k, w0, b0)
			ref.train(12)

			w1, b1 := freshParams()
			a := newRun(t, k, w1, b1)
			a.train(5)
			params, err := safetensors.Marshal(map[string]*gt.Tensor{"w": a.w, "b": a.b}, nil)
			if err != nil {
				t.Fatal(err)
			}
			optState, err := a.opt.StateDict().Marshal()
			if err != nil {
				t.Fatal(err)
			}
			schedState, err := a.sched.StateDict()
			if err != nil {
				t.Fatal(err)
			}

			f, err := safetensors.Parse(params)
			if err != nil {
				t.Fatal(err)
			}
			b := newRun(t, k, f.Tensors["w"], f.Tensors["b"])
			sd, err := optim.ParseStateDict(optState)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.opt.LoadStateDict(sd); err != nil {
				t.Fatal(err)
			}
			if err := b.sched.(interface{ LoadStateDict([]byte) error }).LoadStateDict(schedState); err != nil {
				t.Fatal(err)
			}
			b.train(7)
			sameBits(t, "w", b.w, ref.w)
			sameBits(t, "b", b.b, ref.b)
			for i, g := range b.opt.ParamGroups() {
				rg := ref.opt.ParamGroups()[i]
				if g.LR != rg.LR || g.Momentum != rg.Momentum || g.Betas != rg.Betas {
					t.Errorf("group %d: lr %v momentum %v betas %v, uninterrupted: %v %v %v", i, g.LR, g.Momentum, g.Betas, rg.LR, rg.Momentum, rg.Betas)
				}
			}
			// The resumed state dict encodes as the uninterrupted one does.
			s1, _ := ref.opt.StateDict().Marshal()
			s2, _ := b.opt.StateDict().Marshal()
			if string(s1) != string(s2) {
				t.Error("the resumed optimizer's state dict differs from the uninterrupted one's")
			}
			j1, _ := ref.sched.StateDict()
			j2, _ := b.sched.StateDict()
			if string(j1) != string(j2) {
				t.Errorf("scheduler state %s, uninterrupted %s", j2, j1)
			}
		})
	}
}

// The JSON part of a state dict uses PyTorch's names.
func TestStateDictLayout(t *testing.T) {
	w, b := freshParams()
	opt, _ := optim.NewAdam([]*gt.Tensor{w}, optim.WithAMSGrad(true))
	opt.AddParamGroup([]*gt.Tensor{b}, optim.WithLR(0.5))
	opt.StepWith([]*gt.Tensor{gt.Ones(3, 4), nil})
	sd := opt.StateDict()
	if len(sd.State) != 1 || sd.State[0].Step != 1 || sd.State[0].Tensors["max_exp_avg_sq"] == nil {
		t.Fatalf("state %+v", sd.State)
	}
	g := sd.ParamGroups[1]
	if g["lr"] != 0.5 || fmt.Sprint(g["betas"]) != "[0.9 0.999]" || fmt.Sprint(g["params"]) != "[1]" || g["amsgrad"] != true {
		t.Errorf("group %v", g)
	}
	raw, err := sd.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Names, ",") != "state.0.exp_avg,state.0.exp_avg_sq,state.0.max_exp_avg_sq" {
		t.Errorf("tensors %v", f.Names)
	}
	var js map[string]any
	if err := json.Unmarshal([]byte(f.Metadata["goaten.optim"]), &js); err != nil {
		t.Fatal(err)
	}
	want := `{"optimizer":"Adam","param_groups":[{"amsgrad":true,"betas":[0.9,0.999],"eps":1e-8,"lr":0.001,"maximize":false,"params":[0],"weight_decay":0},{"amsgrad":true,"betas":[0.9,0.999],"eps":1e-8,"lr":0.5,"maximize":false,"params":[1],"weight_decay":0}],"state":{"0":{"step":1}}}`
	if got, _ := json.Marshal(js); string(got) != want {
		t.Errorf("JSON\n%s\nwant\n%s", got, want)
	}
}

// Bad state dicts are errors and leave the optimizer as it was.
func TestLoadStateDictErrors(t *testing.T) {
	w, b := freshParams()
	src, _ := optim.NewAdam([]*gt.Tensor{w, b})
	src.StepWith([]*gt.Tensor{gt.Ones(3, 4), gt.Ones(4)})
	good, _ := src.StateDict().Marshal()

	edit := func(f func(sd *optim.StateDict)) *optim.StateDict {
		sd, err := optim.ParseStateDict(good)
		if err != nil {
			t.Fatal(err)
		}
		f(sd)
		return sd
	}
	for _, c := range []struct {
		name string
		sd   *optim.StateDict
		want string
	}{
		{"other optimizer", edit(func(sd *optim.StateDict) { sd.Optimizer = "SGD" }), "loaded state dict is for SGD, not Adam"},
		{"groups", edit(func(sd *optim.StateDict) { sd.ParamGroups = append(sd.ParamGroups, sd.ParamGroups[0]) }), "different number of parameter groups"},
		{"group size", edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["params"] = []int{0} }), "doesn't match the size of optimizer's group"},
		{"missing key", edit(func(sd *optim.StateDict) { delete(sd.ParamGroups[0], "eps") }), `missing "eps"`},
		{"unknown key", edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["nesterov"] = true }), `Adam has no hyper-parameter "nesterov"`},
		{"bad value", edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["lr"] = -1.0 }), "Invalid learning rate: -1.0"},
		{"bad betas", edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["betas"] = []any{0.9} }), "not two numbers"},
		{"shape", edit(func(sd *optim.StateDict) { sd.State[1].Tensors["exp_avg"] = gt.Zeros(5) }), "exp_avg has shape [5] but the parameter has shape [4]"},
		{"missing tensor", edit(func(sd *optim.StateDict) { delete(sd.State[0].Tensors, "exp_avg_sq") }), `has no "exp_avg_sq"`},
		{"unknown tensor", edit(func(sd *optim.StateDict) { sd.State[0].Tensors["sum"] = gt.Zeros(3, 4) }), `Adam has no state "sum"`},
		{"integer tensor", edit(func(sd *optim.StateDict) { sd.State[1].Tensors["exp_avg"] = gt.FromInt64s([]int64{1, 2, 3, 4}, 4) }), "not floating point"},
		{"stray index", edit(func(sd *optim.StateDict) { sd.State[7] = sd.State[0] }), "state for parameter 7"},
		{"negative step", edit(func(sd *optim.StateDict) { sd.State[0].Step = -1 }), "invalid step -1"},
		{"nil", nil, "nil"},
	} {
		w2, b2 := freshParams()
		dst, _ := optim.NewAdam([]*gt.Tensor{w2, b2}, optim.WithLR(0.3))
		before, _ := dst.StateDict().Marshal()
		err := dst.LoadStateDict(c.sd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		if after, _ := dst.StateDict().Marshal(); string(after) != string(before) {
			t.Errorf("%s: a failed load changed the optimizer", c.name)
		}
	}

	// Bytes that are not a state dict.
	plain, _ := safetensors.Marshal(map[string]*gt.Tensor{"x": gt.Ones(1)}, nil)
	withMeta := func(meta string, tensors map[string]*gt.Tensor) []byte {
		b, _ := safetensors.Marshal(tensors, map[string]string{"goaten.optim": meta})
		return b
	}
	for name, b := range map[string][]byte{
		"garbage":       []byte("not a file"),
		"truncated":     good[:len(good)-3],
		"no metadata":   plain,
		"bad JSON":      withMeta("{", nil),
		"bad state key": withMeta(`{"optimizer":"Adam","state":{"x":{}},"param_groups":[]}`, nil),
		"stray tensor":  withMeta(`{"optimizer":"Adam","state":{},"param_groups":[]}`, map[string]*gt.Tensor{"state.0.exp_avg": gt.Ones(1)}),
		"bad name":      withMeta(`{"optimizer":"Adam","state":{"0":{"step":1}},"param_groups":[]}`, map[string]*gt.Tensor{"exp_avg": gt.Ones(1)}),
		"null group":    withMeta(`{"optimizer":"Adam","state":{},"param_groups":[null]}`, nil),
	} {
		if _, err := optim.ParseStateDict(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Schedulers' state dicts round-trip, and bad ones are errors.
func TestSchedulerStateErrors(t *testing.T) {
	opt, _ := optim.NewSGD([]*gt.Tensor{gt.Zeros(2)}, optim.WithLR(0.1))
	s, _ := optim.NewStepLR(opt, 2)
	s.Step()
	good, _ := s.StateDict()
	for name, b := range map[string]string{
		"not JSON":        "{",
		"other scheduler": strings.Replace(string(good), `"StepLR"`, `"LinearLR"`, 1),
		"missing key":     strings.Replace(string(good), `"last_epoch":1,`, "", 1),
		"unknown key":     strings.Replace(string(good), `{`, `{"verbose":false,`, 1),
		"bad config":      strings.Replace(string(good), `"step_size":2`, `"step_size":0`, 1),
		"config key":      strings.Replace(string(good), `"step_size":2`, `"stepsize":2`, 1),
		"groups":          strings.Replace(string(good), `"base_lrs":[0.1]`, `"base_lrs":[0.1,0.2]`, 1),
	} {
		if b == string(good) {
			t.Fatalf("%s: the edit did not apply to %s", name, good)
		}
		s2, _ := optim.NewStepLR(opt, 5)
		before, _ := s2.StateDict()
		if err := s2.LoadStateDict([]byte(b)); err == nil {
			t.Errorf("%s: no error", name)
		}
		if after, _ := s2.StateDict(); string(after) != string(before) {
			t.Errorf("%s: a failed load changed the scheduler: %s", name, after)
		}
	}
	s2, _ := optim.NewStepLR(opt, 5)
	if err := s2.LoadStateDict(good); err != nil {
		t.Fatal(err)
	}
	if again, _ := s2.StateDict(); string(again) != string(good) {
		t.Errorf("round trip: %s, want %s", again, good)
	}

	p, _ := optim.NewReduceLROnPlateau(opt)
	pj, _ := p.StateDict()
	if !strings.Contains(string(pj), `"best":"inf"`) {
		t.Errorf("plateau state %s", pj)
	}
	p.Step(3)
	pj, _ = p.StateDict()
	p2, _ := optim.NewReduceLROnPlateau(opt, optim.WithMode("max"))
	if err := p2.LoadStateDict(pj); err != nil || p2.Best() != 3 {
		t.Errorf("plateau load: %v, best %v", err, p2.Best())
	}
	if err := p2.LoadStateDict([]byte(strings.Replace(string(pj), `"min"`, `"sideways"`, 1))); err == nil || p2.Best() != 3 {
		t.Errorf("bad mode: %v", err)
	}
}
