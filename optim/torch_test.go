package optim_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/optim"
)

func setGrad(p, g *gt.Tensor) { autograd.SetGrad(p, g) }

// torch113 is what scripts/record_optim.py recorded from PyTorch 1.13.
type torch113 struct {
	TorchVersion string          `json:"torch_version"`
	Params0      []any           `json:"params0"`
	Grads        [][]any         `json:"grads"`
	ClipGrads    []any           `json:"clip_grads"`
	Optimizers   []optRecord     `json:"optimizers"`
	Schedulers   []schedRecord   `json:"schedulers"`
	Plateau      []plateauRecord `json:"plateau"`
	Clip         []clipRecord    `json:"clip"`
	LongP0       []float64       `json:"long_p0"`
	LongTarget   []float64       `json:"long_target"`
	LongWeight   []float64       `json:"long_weight"`
	Long         []longRecord    `json:"long"`
	Errors       []struct {
		Optimizer string         `json:"optimizer"`
		Kwargs    map[string]any `json:"kwargs"`
		Error     string         `json:"error"`
	} `json:"errors"`
}

type optRecord struct {
	Name      string         `json:"name"`
	Optimizer string         `json:"optimizer"`
	Kwargs    map[string]any `json:"kwargs"`
	Groups    []struct {
		Params []int          `json:"params"`
		Kwargs map[string]any `json:"kwargs"`
	} `json:"groups"`
	DType string                    `json:"dtype"`
	Steps [][][]float64             `json:"steps"` // steps[k][i]: parameter i after step k+1
	State map[string]map[string]any `json:"state"`
}

type longRecord struct {
	Name        string               `json:"name"`
	Optimizer   string               `json:"optimizer"`
	Kwargs      map[string]any       `json:"kwargs"`
	DType       string               `json:"dtype"`
	Steps       int                  `json:"steps"`
	Checkpoints map[string][]float64 `json:"checkpoints"` // step -> parameter
}

type schedRecord struct {
	Name      string           `json:"name"`
	Optimizer string           `json:"optimizer"`
	Groups    []map[string]any `json:"groups"`
	Scheduler string           `json:"scheduler"`
	Args      map[string]any   `json:"args"`
	Epochs    []int            `json:"epochs"`
	LRs       [][]float64      `json:"lrs"`
	Momenta   [][]float64      `json:"momenta"`
	InitialLR []float64        `json:"initial_lr"`
}

type plateauRecord struct {
	Name    string           `json:"name"`
	Groups  []map[string]any `json:"groups"`
	Kwargs  map[string]any   `json:"kwargs"`
	Metrics []float64        `json:"metrics"`
	LRs     [][]float64      `json:"lrs"`
}

type clipRecord struct {
	Name      string         `json:"name"`
	Kwargs    map[string]any `json:"kwargs"`
	DType     string         `json:"dtype"`
	TotalNorm *float64       `json:"total_norm"`
	Grads     [][]float64    `json:"grads"`
}

var (
	recOnce sync.Once
	rec     torch113
	recErr  error
)

func records(t *testing.T) *torch113 {
	t.Helper()
	recOnce.Do(func() {
		f, err := os.Open("testdata/torch113.json.gz")
		if err != nil {
			recErr = err
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			recErr = err
			return
		}
		recErr = json.NewDecoder(zr).Decode(&rec)
	})
	if recErr != nil {
		t.Fatal(recErr)
	}
	return &rec
}

// nested flattens a JSON nested list of numbers, returning its shape.
func nested(v any) ([]float64, []int) {
	l, ok := v.([]any)
	if !ok {
		return []float64{v.(float64)}, nil
	}
	var flat []float64
	var shape []int
	for i, e := range l {
		f, s := nested(e)
		if i == 0 {
			shape = append([]int{len(l)}, s...)
		}
		flat = append(flat, f...)
	}
	return flat, shape
}

func dtypeOf(name string) gt.DType {
	if name == "float64" {
		return gt.Float64
	}
	return gt.Float32
}

func tensorOf(v any, d gt.DType) *gt.Tensor {
	flat, shape := nested(v)
	return gt.FromFloat64s(flat, shape...).To(d).Clone()
}

// kwOptions turns recorded keyword arguments into options, by PyTorch name.
func kwOptions(kw map[string]any) []optim.Option {
	var opts []optim.Option
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	num := func(v any) float64 {
		if s, ok := v.(string); ok && s == "inf" {
			return math.Inf(1)
		}
		return v.(float64)
	}
	nums := func(v any) []float64 {
		if l, ok := v.([]any); ok {
			out := make([]float64, len(l))
			for i, e := range l {
				out[i] = num(e)
			}
			return out
		}
		return []float64{num(v)}
	}
	for _, k := range keys {
		v := kw[k]
		var o optim.Option
		switch k {
		case "lr":
			o = optim.WithLR(num(v))
		case "momentum":
			o = optim.WithMomentum(num(v))
		case "dampening":
			o = optim.WithDampening(num(v))
		case "weight_decay":
			o = optim.WithWeightDecay(num(v))
		case "nesterov":
			o = optim.WithNesterov(v.(bool))
		case "maximize":
			o = optim.WithMaximize(v.(bool))
		case "betas":
			b := nums(v)
			o = optim.WithBetas(b[0], b[1])
		case "eps":
			o = optim.WithEps(num(v))
		case "amsgrad":
			o = optim.WithAMSGrad(v.(bool))
		case "alpha":
			o = optim.WithAlpha(num(v))
		case "centered":
			o = optim.WithCentered(v.(bool))
		case "lr_decay":
			o = optim.WithLRDecay(num(v))
		case "initial_accumulator_value":
			o = optim.WithInitialAccumulatorValue(num(v))
		case "gamma":
			o = optim.WithGamma(num(v))
		case "eta_min":
			o = optim.WithEtaMin(num(v))
		case "start_factor":
			o = optim.WithStartFactor(num(v))
		case "end_factor":
			o = optim.WithEndFactor(num(v))
		case "total_iters":
			o = optim.WithTotalIters(int(num(v)))
		case "total_steps":
			o = optim.WithTotalSteps(int(num(v)))
		case "epochs":
			o = optim.WithEpochs(int(num(v)))
		case "steps_per_epoch":
			o = optim.WithStepsPerEpoch(int(num(v)))
		case "pct_start":
			o = optim.WithPctStart(num(v))
		case "anneal_strategy":
			o = optim.WithAnnealStrategy(v.(string))
		case "cycle_momentum":
			o = optim.WithCycleMomentum(v.(bool))
		case "base_momentum":
			o = optim.WithBaseMomentum(nums(v)...)
		case "max_momentum":
			o = optim.WithMaxMomentum(nums(v)...)
		case "div_factor":
			o = optim.WithDivFactor(num(v))
		case "final_div_factor":
			o = optim.WithFinalDivFactor(num(v))
		case "three_phase":
			o = optim.WithThreePhase(v.(bool))
		case "mode":
			o = optim.WithMode(v.(string))
		case "factor":
			o = optim.WithFactor(num(v))
		case "patience":
			o = optim.WithPatience(int(num(v)))
		case "threshold":
			o = optim.WithThreshold(num(v))
		case "threshold_mode":
			o = optim.WithThresholdMode(v.(string))
		case "cooldown":
			o = optim.WithCooldown(int(num(v)))
		case "min_lr":
			o = optim.WithMinLR(nums(v)...)
		case "norm_type":
			o = optim.WithNormType(num(v))
		case "max_norm", "clip_value", "step_size", "milestones", "T_max", "max_lr":
			continue // positional
		default:
			panic("kwOptions: no option for " + k)
		}
		opts = append(opts, o)
	}
	return opts
}

// newOptimizer makes the optimizer class by name.
func newOptimizer(name string, ps []*gt.Tensor, opts ...optim.Option) (optim.Optimizer, error) {
	switch name {
	case "SGD":
		return optim.NewSGD(ps, opts...)
	case "Adam":
		return optim.NewAdam(ps, opts...)
	case "AdamW":
		return optim.NewAdamW(ps, opts...)
	case "RMSprop":
		return optim.NewRMSprop(ps, opts...)
	case "Adagrad":
		return optim.NewAdagrad(ps, opts...)
	}
	return nil, fmt.Errorf("no optimizer %s", name)
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
	if (x < 0) != (y < 0) {
		return math.Inf(1)
	}
	return math.Abs(float64(x - y))
}

// closeTo reports whether got is within atol + rtol·|want|.
func closeTo(got, want, rtol, atol float64) bool {
	return got == want || math.Abs(got-want) <= atol+rtol*math.Abs(want)
}

// bitEqual reports whether got and want are the same value (both recorded
// from float32 or float64 parameters through float64, so equal floats are
// equal bits; -0 and 0 are told apart).
func bitEqual(got, want float64) bool {
	return math.Float64bits(got) == math.Float64bits(want)
}

// TestOptimizersLongRunAgainstPyTorch runs 300 steps of Adam, AdamW,
// RMSprop and Adagrad on record_optim.py's quadratic (the gradient
// w·(p - target) computed from the parameter each step, so a difference of
// one ulp anywhere would feed back into every later step) and holds the
// parameter every 50 steps bit for bit to PyTorch 1.13's.
func TestOptimizersLongRunAgainstPyTorch(t *testing.T) {
	r := records(t)
	if len(r.Long) == 0 {
		t.Fatal("no long runs in testdata/torch113.json.gz")
	}
	for _, c := range r.Long {
		t.Run(c.Name+"/"+c.DType, func(t *testing.T) {
			d := dtypeOf(c.DType)
			n := len(r.LongP0)
			p := gt.FromFloat64s(r.LongP0, n).To(d).Clone()
			target := gt.FromFloat64s(r.LongTarget, n).To(d)
			w := gt.FromFloat64s(r.LongWeight, n).To(d)
			opt, err := newOptimizer(c.Optimizer, []*gt.Tensor{p}, kwOptions(c.Kwargs)...)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for k := 1; k <= c.Steps; k++ {
				opt.StepWith([]*gt.Tensor{p.Sub(target).Mul(w)})
				want, ok := c.Checkpoints[fmt.Sprint(k)]
				if !ok {
					continue
				}
				checked++
				got := p.Float64s()
				for j := range want {
					if !bitEqual(got[j], want[j]) {
						t.Fatalf("step %d, element %d: got %.17g, want %.17g (%g ulps)", k, j, got[j], want[j], ulps(got[j], want[j], d))
					}
				}
			}
			if checked != len(c.Checkpoints) || checked == 0 {
				t.Fatalf("checked %d of %d checkpoints", checked, len(c.Checkpoints))
			}
		})
	}
}

// setGroup applies recorded keyword arguments to an existing group, for a
// first group whose options differ from the optimizer's defaults.
func setGroup(g *optim.ParamGroup, kw map[string]any) {
	for k, v := range kw {
		switch k {
		case "lr":
			g.LR = v.(float64)
		case "momentum":
			g.Momentum = v.(float64)
		case "betas":
			b := v.([]any)
			g.Betas = [2]float64{b[0].(float64), b[1].(float64)}
		case "amsgrad":
			g.AMSGrad = v.(bool)
		case "centered":
			g.Centered = v.(bool)
		case "alpha":
			g.Alpha = v.(float64)
		case "lr_decay":
			g.LRDecay = v.(float64)
		default:
			panic("setGroup: " + k)
		}
	}
}

// buildOptimizer makes the recorded optimizer over ps, with its groups.
func buildOptimizer(t *testing.T, r optRecord, ps []*gt.Tensor) optim.Optimizer {
	t.Helper()
	if r.Groups == nil {
		opt, err := newOptimizer(r.Optimizer, ps, kwOptions(r.Kwargs)...)
		if err != nil {
			t.Fatal(err)
		}
		return opt
	}
	pick := func(idx []int) []*gt.Tensor {
		var out []*gt.Tensor
		for _, i := range idx {
			out = append(out, ps[i])
		}
		return out
	}
	opt, err := newOptimizer(r.Optimizer, pick(r.Groups[0].Params), kwOptions(r.Kwargs)...)
	if err != nil {
		t.Fatal(err)
	}
	setGroup(opt.ParamGroups()[0], r.Groups[0].Kwargs)
	for _, g := range r.Groups[1:] {
		if err := opt.AddParamGroup(pick(g.Params), kwOptions(g.Kwargs)...); err != nil {
			t.Fatal(err)
		}
	}
	return opt
}

// TestOptimizersAgainstPyTorch replays four steps of each recorded
// optimizer (float32 and float64, one or two parameter groups, parameters
// without a gradient on some steps) and compares the parameters after every
// step and the final state (step counts and state tensors by PyTorch's
// names), bit for bit: every update follows PyTorch's ops in PyTorch's
// order, and addcmul (the running average of g²) fuses its multiply-add as
// PyTorch's CPU kernel does (device/cpu's addcmul).
func TestOptimizersAgainstPyTorch(t *testing.T) {
	r := records(t)
	for _, c := range r.Optimizers {
		t.Run(c.Name+"/"+c.DType, func(t *testing.T) {
			d := dtypeOf(c.DType)
			ps := make([]*gt.Tensor, len(r.Params0))
			for i, p := range r.Params0 {
				ps[i] = tensorOf(p, d)
			}
			opt := buildOptimizer(t, c, ps)
			index := map[*gt.Tensor]int{}
			for i, p := range opt.Params() {
				index[p] = i
			}
			worst := 0.0
			for k, step := range c.Steps {
				grads := make([]*gt.Tensor, len(ps))
				for i, g := range r.Grads[k] {
					if g != nil {
						grads[index[ps[i]]] = tensorOf(g, d)
					}
				}
				opt.StepWith(grads)
				for i, want := range step {
					got := ps[i].Float64s()
					for j := range want {
						worst = max(worst, ulps(got[j], want[j], d))
						if !bitEqual(got[j], want[j]) {
							t.Errorf("step %d, param %d[%d]: got %.17g, want %.17g (%g ulps)", k+1, i, j, got[j], want[j], ulps(got[j], want[j], d))
						}
					}
				}
			}
			if worst > 0 {
				t.Logf("largest difference from PyTorch: %g ulps", worst)
			}
			sd := opt.StateDict()
			for key, want := range c.State {
				var idx int
				fmt.Sscan(key, &idx)
				s := sd.State[idx]
				if s == nil {
					t.Errorf("parameter %d has no state; PyTorch's has %v", idx, keysOf(want))
					continue
				}
				for name, v := range want {
					if name == "step" {
						if s.Step != int(v.(float64)) {
							t.Errorf("parameter %d: step %d, want %v", idx, s.Step, v)
						}
						continue
					}
					st := s.Tensors[name]
					if st == nil {
						t.Errorf("parameter %d has no state %q", idx, name)
						continue
					}
					wantFlat, _ := nested(v)
					got := st.Float64s()
					for j := range wantFlat {
						if !bitEqual(got[j], wantFlat[j]) {
							t.Errorf("parameter %d: %s[%d] = %.17g, want %.17g", idx, name, j, got[j], wantFlat[j])
						}
					}
				}
				for name := range s.Tensors {
					if _, ok := want[name]; !ok {
						t.Errorf("parameter %d has state %q that PyTorch's has not", idx, name)
					}
				}
			}
			for idx := range sd.State {
				if _, ok := c.State[fmt.Sprint(idx)]; !ok && len(sd.State[idx].Tensors) > 0 {
					t.Errorf("parameter %d has state; PyTorch's has none", idx)
				}
			}
		})
	}
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// buildScheduler makes the recorded scheduler(s) on opt.
func buildScheduler(t *testing.T, c schedRecord, opt optim.Optimizer) []optim.Scheduler {
	t.Helper()
	must := func(s optim.Scheduler, err error) optim.Scheduler {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	opts := kwOptions(c.Args)
	a := c.Args
	switch c.Scheduler {
	case "StepLR":
		return []optim.Scheduler{must(optim.NewStepLR(opt, int(a["step_size"].(float64)), opts...))}
	case "MultiStepLR":
		var ms []int
		for _, m := range a["milestones"].([]any) {
			ms = append(ms, int(m.(float64)))
		}
		return []optim.Scheduler{must(optim.NewMultiStepLR(opt, ms, opts...))}
	case "ExponentialLR":
		return []optim.Scheduler{must(optim.NewExponentialLR(opt, a["gamma"].(float64)))}
	case "CosineAnnealingLR":
		return []optim.Scheduler{must(optim.NewCosineAnnealingLR(opt, int(a["T_max"].(float64)), opts...))}
	case "LinearLR":
		return []optim.Scheduler{must(optim.NewLinearLR(opt, opts...))}
	case "OneCycleLR":
		var maxLR []float64
		switch v := a["max_lr"].(type) {
		case float64:
			maxLR = []float64{v}
		case []any:
			for _, x := range v {
				maxLR = append(maxLR, x.(float64))
			}
		}
		return []optim.Scheduler{must(optim.NewOneCycleLR(opt, maxLR, opts...))}
	case "chain":
		return []optim.Scheduler{
			must(optim.NewStepLR(opt, 3, optim.WithGamma(0.5))),
			must(optim.NewExponentialLR(opt, 0.9)),
		}
	case "SequentialLR":
		warm := must(optim.NewLinearLR(opt, optim.WithStartFactor(0.25), optim.WithTotalIters(3)))
		cos := must(optim.NewCosineAnnealingLR(opt, 8, optim.WithEtaMin(1e-4)))
		return []optim.Scheduler{must(optim.NewSequentialLR(opt, []optim.Scheduler{warm, cos}, []int{3}))}
	}
	t.Fatalf("no scheduler %s", c.Scheduler)
	return nil
}

func schedOptimizer(t *testing.T, name string, groups []map[string]any) optim.Optimizer {
	t.Helper()
	opt, err := newOptimizer(name, []*gt.Tensor{gt.Zeros(2)}, kwOptions(groups[0])...)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups[1:] {
		if err := opt.AddParamGroup([]*gt.Tensor{gt.Zeros(2)}, kwOptions(g)...); err != nil {
			t.Fatal(err)
		}
	}
	return opt
}

func momenta(opt optim.Optimizer) []float64 {
	var out []float64
	for _, g := range opt.ParamGroups() {
		if g.Has("betas") {
			out = append(out, g.Betas[0])
		} else {
			out = append(out, g.Momentum)
		}
	}
	return out
}

// TestSchedulersAgainstPyTorch replays each recorded scheduler: the groups'
// learning rates (and momentum or beta1, which OneCycleLR cycles) after
// construction and after every step() or step(epoch), and each group's
// initial_lr. The arithmetic is PyTorch's, in Python's order, in float64:
// every learning rate must be bit-identical.
func TestSchedulersAgainstPyTorch(t *testing.T) {
	for _, c := range records(t).Schedulers {
		t.Run(c.Name, func(t *testing.T) {
			opt := schedOptimizer(t, c.Optimizer, c.Groups)
			scheds := buildScheduler(t, c, opt)
			check := func(k int) {
				t.Helper()
				got := groupLRs(opt)
				for i := range c.LRs[k] {
					if got[i] != c.LRs[k][i] {
						t.Errorf("step %d, group %d: lr %.17g, want %.17g", k, i, got[i], c.LRs[k][i])
					}
				}
				if last := scheds[len(scheds)-1].LastLR(); !equal(last, got) {
					t.Errorf("step %d: LastLR %v, groups have %v", k, last, got)
				}
				m := momenta(opt)
				for i := range c.Momenta[k] {
					if m[i] != c.Momenta[k][i] {
						t.Errorf("step %d, group %d: momentum %.17g, want %.17g", k, i, m[i], c.Momenta[k][i])
					}
				}
			}
			check(0)
			n := len(c.LRs) - 1
			for k := 1; k <= n; k++ {
				for _, s := range scheds {
					if c.Epochs != nil {
						s.StepTo(c.Epochs[k-1])
					} else {
						s.Step()
					}
				}
				check(k)
			}
			for i, g := range opt.ParamGroups() {
				if g.InitialLR == nil || *g.InitialLR != c.InitialLR[i] {
					t.Errorf("group %d: initial_lr %v, want %v", i, g.InitialLR, c.InitialLR[i])
				}
			}
		})
	}
}

func groupLRs(opt optim.Optimizer) []float64 {
	var out []float64
	for _, g := range opt.ParamGroups() {
		out = append(out, g.LR)
	}
	return out
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPlateauAgainstPyTorch replays ReduceLROnPlateau on recorded metrics:
// the learning rates after each step must be PyTorch's exactly.
func TestPlateauAgainstPyTorch(t *testing.T) {
	for _, c := range records(t).Plateau {
		t.Run(c.Name, func(t *testing.T) {
			opt := schedOptimizer(t, "SGD", c.Groups)
			s, err := optim.NewReduceLROnPlateau(opt, kwOptions(c.Kwargs)...)
			if err != nil {
				t.Fatal(err)
			}
			for k, m := range c.Metrics {
				s.Step(m)
				if got := groupLRs(opt); !equal(got, c.LRs[k]) {
					t.Errorf("after metric %d (%v): lrs %v, want %v", k, m, got, c.LRs[k])
				}
			}
		})
	}
}

// TestClipAgainstPyTorch replays clip_grad_norm_ and clip_grad_value_ on
// recorded gradients (one parameter has none). Clipping by value is
// exact. The norms are goaten's reductions, whose summation order differs
// from PyTorch's vectorised one, so the total norm and the clipped
// gradients get a relative tolerance of 2 ulps-ish: 1e-6 (float32), 1e-14
// (float64).
func TestClipAgainstPyTorch(t *testing.T) {
	r := records(t)
	for _, c := range r.Clip {
		t.Run(c.Name+"/"+c.DType, func(t *testing.T) {
			d := dtypeOf(c.DType)
			rtol := 1e-6
			if d == gt.Float64 {
				rtol = 1e-14
			}
			var ps []*gt.Tensor
			for _, g := range r.ClipGrads {
				if g == nil {
					ps = append(ps, gt.Zeros(1).To(d))
					continue
				}
				p := tensorOf(g, d).ZerosLike().SetRequiresGrad(true)
				setGrad(p, tensorOf(g, d))
				ps = append(ps, p)
			}
			if cv, ok := c.Kwargs["clip_value"]; ok {
				optim.ClipGradValue_(ps, cv.(float64))
				rtol = 0
			} else {
				total, err := optim.ClipGradNorm_(ps, c.Kwargs["max_norm"].(float64), kwOptions(c.Kwargs)...)
				if err != nil {
					t.Fatal(err)
				}
				if total.DType() != d || total.Dim() != 0 {
					t.Errorf("total norm is %s %v, want a 0-d %s", total.DType(), total.Sizes(), d)
				}
				if got := total.Item().Float64(); !closeTo(got, *c.TotalNorm, rtol, 0) {
					t.Errorf("total norm %.17g, want %.17g (%g ulps)", got, *c.TotalNorm, ulps(got, *c.TotalNorm, d))
				}
			}
			for i, want := range c.Grads {
				if want == nil {
					if ps[i].Grad() != nil {
						t.Errorf("parameter %d got a gradient", i)
					}
					continue
				}
				got := ps[i].Grad().Float64s()
				for j := range want {
					if !closeTo(got[j], want[j], rtol, 0) {
						t.Errorf("grad %d[%d] = %.17g, want %.17g (%g ulps)", i, j, got[j], want[j], ulps(got[j], want[j], d))
					}
				}
			}
		})
	}
}

// TestErrorsAgainstPyTorch checks the error text of invalid options
// against PyTorch's ValueError and TypeError messages.
func TestErrorsAgainstPyTorch(t *testing.T) {
	for _, c := range records(t).Errors {
		_, err := newOptimizer(c.Optimizer, []*gt.Tensor{gt.Zeros(2).SetRequiresGrad(true)}, kwOptions(c.Kwargs)...)
		if err == nil || err.Error() != c.Error {
			t.Errorf("%s(%v): got %v, want %q", c.Optimizer, c.Kwargs, err, c.Error)
		}
	}
}
