package optim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Option is one keyword argument of a constructor in this package, named
// as in PyTorch: WithLR(0.1) is lr=0.1. An argument left out takes
// PyTorch's default, so an explicit zero (WithWeightDecay(0) for AdamW,
// WithBetas(0, 0.99)) is never confused with "not given". A constructor
// rejects an option it does not take with PyTorch's TypeError words
// ("SGD.__init__() got an unexpected keyword argument 'betas'"), and one
// given twice ("got multiple values for keyword argument 'lr'").
type Option struct {
	name  string
	value any // float64, bool, int, string, [2]float64, []float64
}

// Name is the PyTorch argument name the option sets.
func (o Option) Name() string { return o.name }

func (o Option) String() string { return fmt.Sprintf("%s=%v", o.name, o.value) }

// Optimizer hyper-parameters. Each is also a parameter group's key
// (AddParamGroup) and a field of ParamGroup.

// WithLR sets the learning rate (lr).
func WithLR(v float64) Option { return Option{"lr", v} }

// WithMomentum sets the momentum factor (SGD, RMSprop).
func WithMomentum(v float64) Option { return Option{"momentum", v} }

// WithDampening sets SGD's dampening of the momentum.
func WithDampening(v float64) Option { return Option{"dampening", v} }

// WithWeightDecay sets the weight decay: an L2 penalty added to the
// gradient, or for AdamW the decoupled decay of the parameter.
func WithWeightDecay(v float64) Option { return Option{"weight_decay", v} }

// WithNesterov turns on SGD's Nesterov momentum.
func WithNesterov(v bool) Option { return Option{"nesterov", v} }

// WithMaximize makes the optimizer climb the objective instead of
// descending it.
func WithMaximize(v bool) Option { return Option{"maximize", v} }

// WithBetas sets Adam's coefficients of the running averages of the
// gradient and of its square (betas).
func WithBetas(beta1, beta2 float64) Option { return Option{"betas", [2]float64{beta1, beta2}} }

// WithEps sets the term added to a denominator (eps): Adam, RMSprop,
// Adagrad, and ReduceLROnPlateau's smallest learning-rate change.
func WithEps(v float64) Option { return Option{"eps", v} }

// WithAMSGrad turns on Adam's AMSGrad variant (amsgrad).
func WithAMSGrad(v bool) Option { return Option{"amsgrad", v} }

// WithAlpha sets RMSprop's smoothing constant.
func WithAlpha(v float64) Option { return Option{"alpha", v} }

// WithCentered turns on centered RMSprop (normalising by an estimate of the
// gradient's variance).
func WithCentered(v bool) Option { return Option{"centered", v} }

// WithLRDecay sets Adagrad's learning-rate decay (lr_decay).
func WithLRDecay(v float64) Option { return Option{"lr_decay", v} }

// WithInitialAccumulatorValue sets Adagrad's starting value of the sum of
// squared gradients (initial_accumulator_value).
func WithInitialAccumulatorValue(v float64) Option {
	return Option{"initial_accumulator_value", v}
}

// WithSetToNone is ZeroGrad's set_to_none: true (the default, PyTorch 2's)
// drops the gradients, false (PyTorch 1.13's default) fills them with zeros.
func WithSetToNone(v bool) Option { return Option{"set_to_none", v} }

// Scheduler arguments.

// WithGamma sets the multiplicative decay of StepLR and MultiStepLR.
func WithGamma(v float64) Option { return Option{"gamma", v} }

// WithEtaMin sets CosineAnnealingLR's minimum learning rate (eta_min).
func WithEtaMin(v float64) Option { return Option{"eta_min", v} }

// WithStartFactor sets LinearLR's factor at the first step (start_factor).
func WithStartFactor(v float64) Option { return Option{"start_factor", v} }

// WithEndFactor sets LinearLR's factor once warm-up ends (end_factor).
func WithEndFactor(v float64) Option { return Option{"end_factor", v} }

// WithTotalIters sets how many steps LinearLR takes from start to end
// factor (total_iters).
func WithTotalIters(n int) Option { return Option{"total_iters", n} }

// WithTotalSteps sets OneCycleLR's number of steps in the cycle
// (total_steps).
func WithTotalSteps(n int) Option { return Option{"total_steps", n} }

// WithEpochs sets OneCycleLR's number of epochs; with WithStepsPerEpoch it
// stands for total_steps.
func WithEpochs(n int) Option { return Option{"epochs", n} }

// WithStepsPerEpoch sets OneCycleLR's steps per epoch (steps_per_epoch).
func WithStepsPerEpoch(n int) Option { return Option{"steps_per_epoch", n} }

// WithPctStart sets the fraction of OneCycleLR's cycle spent raising the
// learning rate (pct_start).
func WithPctStart(v float64) Option { return Option{"pct_start", v} }

// WithAnnealStrategy sets OneCycleLR's annealing: "cos" or "linear"
// (anneal_strategy).
func WithAnnealStrategy(s string) Option { return Option{"anneal_strategy", s} }

// WithCycleMomentum turns OneCycleLR's inverse cycling of the momentum (or
// Adam's beta1) on or off (cycle_momentum).
func WithCycleMomentum(v bool) Option { return Option{"cycle_momentum", v} }

// WithBaseMomentum sets OneCycleLR's lowest momentum: one value for every
// parameter group, or one per group (base_momentum).
func WithBaseMomentum(v ...float64) Option { return Option{"base_momentum", v} }

// WithMaxMomentum sets OneCycleLR's highest momentum: one value for every
// parameter group, or one per group (max_momentum).
func WithMaxMomentum(v ...float64) Option { return Option{"max_momentum", v} }

// WithDivFactor sets OneCycleLR's initial learning rate as max_lr/div_factor.
func WithDivFactor(v float64) Option { return Option{"div_factor", v} }

// WithFinalDivFactor sets OneCycleLR's final learning rate as
// initial_lr/final_div_factor.
func WithFinalDivFactor(v float64) Option { return Option{"final_div_factor", v} }

// WithThreePhase makes OneCycleLR's cycle three phases (three_phase).
func WithThreePhase(v bool) Option { return Option{"three_phase", v} }

// WithMode sets ReduceLROnPlateau's mode: "min" (the metric should fall) or
// "max".
func WithMode(s string) Option { return Option{"mode", s} }

// WithFactor sets ReduceLROnPlateau's reduction factor: new_lr = lr·factor.
func WithFactor(v float64) Option { return Option{"factor", v} }

// WithPatience sets how many epochs without improvement ReduceLROnPlateau
// waits before reducing.
func WithPatience(n int) Option { return Option{"patience", n} }

// WithThreshold sets ReduceLROnPlateau's threshold for a significant
// improvement.
func WithThreshold(v float64) Option { return Option{"threshold", v} }

// WithThresholdMode sets ReduceLROnPlateau's threshold mode: "rel" or
// "abs" (threshold_mode).
func WithThresholdMode(s string) Option { return Option{"threshold_mode", s} }

// WithCooldown sets how many epochs ReduceLROnPlateau waits after a
// reduction before counting bad epochs again.
func WithCooldown(n int) Option { return Option{"cooldown", n} }

// WithMinLR sets ReduceLROnPlateau's lower bound on the learning rate: one
// value for every parameter group, or one per group (min_lr).
func WithMinLR(v ...float64) Option { return Option{"min_lr", v} }

// Gradient clipping.

// WithNormType sets ClipGradNorm_'s p-norm (norm_type; math.Inf(1) for the
// largest absolute value).
func WithNormType(p float64) Option { return Option{"norm_type", p} }

// WithErrorIfNonfinite makes ClipGradNorm_ fail when the total norm is NaN
// or infinite (error_if_nonfinite).
func WithErrorIfNonfinite(v bool) Option { return Option{"error_if_nonfinite", v} }

// kwargs is the keyword arguments a constructor received, checked against
// the names it takes.
type kwargs map[string]any

// parseOptions checks opts against the names a constructor (called what in
// messages, as Python names it: "SGD.__init__") takes.
func parseOptions(what string, opts []Option, names ...string) (kwargs, error) {
	kw := kwargs{}
	for _, o := range opts {
		if !contains(names, o.name) {
			return nil, fmt.Errorf("%s() got an unexpected keyword argument '%s'", what, o.name)
		}
		if _, dup := kw[o.name]; dup {
			return nil, fmt.Errorf("%s() got multiple values for keyword argument '%s'", what, o.name)
		}
		kw[o.name] = o.value
	}
	return kw, nil
}

func contains(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

func (kw kwargs) float(name string, def float64) float64 {
	if v, ok := kw[name]; ok {
		return v.(float64)
	}
	return def
}

func (kw kwargs) int(name string, def int) int {
	if v, ok := kw[name]; ok {
		return v.(int)
	}
	return def
}

func (kw kwargs) bool(name string, def bool) bool {
	if v, ok := kw[name]; ok {
		return v.(bool)
	}
	return def
}

func (kw kwargs) string(name string, def string) string {
	if v, ok := kw[name]; ok {
		return v.(string)
	}
	return def
}

// perGroup is a value-or-list argument (OneCycleLR's max_lr and momenta,
// ReduceLROnPlateau's min_lr): one value for every group, or one per group
// (PyTorch's "expected 2 values for max_lr, got 3").
func perGroup(name string, vs []float64, def float64, groups int) ([]float64, error) {
	if vs == nil {
		vs = []float64{def}
	}
	if len(vs) == 1 {
		out := make([]float64, groups)
		for i := range out {
			out[i] = vs[0]
		}
		return out, nil
	}
	if len(vs) != groups {
		return nil, fmt.Errorf("expected %d values for %s, got %d", groups, name, len(vs))
	}
	return append([]float64(nil), vs...), nil
}

func (kw kwargs) floats(name string) []float64 {
	if v, ok := kw[name]; ok {
		if v.([]float64) == nil {
			return []float64{}
		}
		return v.([]float64)
	}
	return nil
}

// pyFloat formats a float as Python's repr (and str) does in messages:
// the shortest digits that round-trip, positional from 1e-4 up to 1e16
// ("0.0001", "-1.0", "1234.5"), scientific outside ("1e-05", "1e+16").
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	e := strconv.FormatFloat(v, 'e', -1, 64) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	f := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(f, ".") {
		f += ".0"
	}
	return f
}
