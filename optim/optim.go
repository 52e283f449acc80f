// Package optim is torch.optim for Go: the optimizers SGD, Adam, AdamW,
// RMSprop and Adagrad with parameter groups, the learning-rate schedulers
// StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR,
// OneCycleLR and ReduceLROnPlateau, gradient clipping (ClipGradNorm_,
// ClipGradValue_), and state dicts that save and resume a run bit for bit.
//
// # Options are PyTorch's keyword arguments
//
// Every hyper-parameter is a functional option named after PyTorch's
// argument, and one left out takes PyTorch 1.13's default:
//
//	opt, err := optim.NewAdam(params)                                 // lr=1e-3, betas=(0.9, 0.999), eps=1e-8
//	opt, err := optim.NewAdamW(params, optim.WithWeightDecay(0))      // an explicit zero is a value, not "unset"
//	opt, err := optim.NewSGD(params, optim.WithLR(0.1), optim.WithMomentum(0.9))
//	sched, err := optim.NewStepLR(opt, 30, optim.WithGamma(0.5))
//
// SGD has no default learning rate, as in PyTorch: NewSGD without WithLR
// fails with "parameter group didn't specify a value of required
// optimization parameter lr". Invalid values fail with PyTorch's
// ValueError text ("Invalid learning rate: -0.1"), an option the
// constructor does not take with its TypeError text.
//
// # Parameter groups
//
// A constructor makes one group of its parameters; AddParamGroup adds more,
// each with its own options over the optimizer's defaults, as
// add_param_group (and the list-of-dicts form of the constructors) does:
//
//	opt, _ := optim.NewSGD(backbone, optim.WithLR(1e-2), optim.WithMomentum(0.9))
//	_ = opt.AddParamGroup(head, optim.WithLR(1e-3))
//	opt.ParamGroups()[1].LR = 5e-4 // param_groups[1]['lr'] = 5e-4
//
// The constructor's options are the defaults and the first group's; a
// first group that differs from the defaults is set through its fields.
//
// The updates follow PyTorch 1.13's single-tensor code op for op, in place
// and under autograd.NoGrad. Step reads the gradients Backward accumulated
// (p.Grad()); StepWith takes them by position in Params(). A parameter with
// no gradient is skipped, its state untouched.
//
// Misuse in StepWith (a gradient whose shape or dtype does not match its
// parameter) panics with a *tensor.Error before any parameter changes, as
// tensor math does; bad options, parameters and state dicts are errors.
package optim

import (
	"fmt"
	"math"
	"slices"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// Optimizer updates parameters in place from their gradients. SGD, Adam
// (and AdamW), RMSprop and Adagrad implement it; schedulers drive any
// Optimizer through its ParamGroups.
type Optimizer interface {
	// Params returns every group's parameters, group after group: the
	// order of StepWith's gradients and of the state dict's indices.
	Params() []*tensor.Tensor
	// ParamGroups returns the groups (param_groups); their fields may be
	// changed between steps.
	ParamGroups() []*ParamGroup
	// AddParamGroup adds params as a new group whose options override the
	// optimizer's defaults (add_param_group).
	AddParamGroup(params []*tensor.Tensor, opts ...Option) error
	// StepWith applies one update: grads[i] is the gradient of Params()[i],
	// or nil to leave that parameter alone this step.
	StepWith(grads []*tensor.Tensor)
	// Step is StepWith(Grads(Params())): it uses the gradients that
	// backward passes accumulated into the parameters.
	Step()
	// ZeroGrad resets the parameters' gradients: drops them by default,
	// or fills them with zeros with WithSetToNone(false).
	ZeroGrad(opts ...Option)
	// State is a parameter's state (optimizer.state[p]), nil before its
	// first step.
	State(p *tensor.Tensor) *ParamState
	// StateDict returns the optimizer's state (state_dict).
	StateDict() *StateDict
	// LoadStateDict replaces the state and the groups' hyper-parameters with
	// those of sd (load_state_dict).
	LoadStateDict(sd *StateDict) error
}

// ParamGroup is one parameter group: its parameters and hyper-parameters
// (a param_groups dict, typed). Each optimizer uses the fields of its own
// options (Has tells which); the others stay zero. Schedulers write LR, and
// OneCycleLR also Momentum or Betas[0].
type ParamGroup struct {
	Params []*tensor.Tensor

	LR                      float64    // lr: every optimizer
	Momentum                float64    // momentum: SGD, RMSprop
	Dampening               float64    // dampening: SGD
	WeightDecay             float64    // weight_decay: every optimizer
	Nesterov                bool       // nesterov: SGD
	Maximize                bool       // maximize: every optimizer
	Betas                   [2]float64 // betas: Adam, AdamW
	Eps                     float64    // eps: Adam, AdamW, RMSprop, Adagrad
	AMSGrad                 bool       // amsgrad: Adam, AdamW
	Alpha                   float64    // alpha: RMSprop
	Centered                bool       // centered: RMSprop
	LRDecay                 float64    // lr_decay: Adagrad
	InitialAccumulatorValue float64    // initial_accumulator_value: Adagrad

	// InitialLR is group['initial_lr']: the learning rate the first
	// scheduler attached to the group started from (its base_lrs), nil
	// before any.
	InitialLR *float64

	kind *kind
}

// Has reports whether the group's optimizer has the hyper-parameter with
// PyTorch's name key ("momentum", "betas", ...).
func (g *ParamGroup) Has(key string) bool { return g.kind != nil && slices.Contains(g.kind.keys, key) }

// field points at the hyper-parameter named key.
func (g *ParamGroup) field(key string) any {
	switch key {
	case "lr":
		return &g.LR
	case "momentum":
		return &g.Momentum
	case "dampening":
		return &g.Dampening
	case "weight_decay":
		return &g.WeightDecay
	case "nesterov":
		return &g.Nesterov
	case "maximize":
		return &g.Maximize
	case "betas":
		return &g.Betas
	case "eps":
		return &g.Eps
	case "amsgrad":
		return &g.AMSGrad
	case "alpha":
		return &g.Alpha
	case "centered":
		return &g.Centered
	case "lr_decay":
		return &g.LRDecay
	case "initial_accumulator_value":
		return &g.InitialAccumulatorValue
	}
	panic("optim: unknown hyper-parameter " + key)
}

func (g *ParamGroup) set(key string, v any) {
	switch p := g.field(key).(type) {
	case *float64:
		*p = v.(float64)
	case *bool:
		*p = v.(bool)
	case *[2]float64:
		*p = v.([2]float64)
	}
}

// ParamState is one parameter's state (optimizer.state[p]): the update
// count and the named running tensors, by PyTorch's names
// ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq",
// "square_avg", "grad_avg", "sum").
type ParamState struct {
	Step    int
	Tensors map[string]*tensor.Tensor
}

// kind describes one optimizer: its name, options, defaults and update.
type kind struct {
	name     string   // "SGD", "AdamW": the class name
	keys     []string // option names, in PyTorch's defaults order
	defaults ParamGroup
	hasStep  bool // the state counts steps
	// check validates hyper-parameters with PyTorch's ValueError messages.
	check func(g *ParamGroup) error
	// init fills a new parameter's state (nil: empty state).
	init func(g *ParamGroup, p *tensor.Tensor, s *ParamState)
	// eager: state is made when the parameter is added (Adagrad), not at
	// its first step.
	eager  bool
	update func(g *ParamGroup, p, grad *tensor.Tensor, s *ParamState)
}

// optimizer is what every optimizer embeds: the groups, the state, and the
// methods of the Optimizer interface.
type optimizer struct {
	kind     *kind
	defaults ParamGroup
	groups   []*ParamGroup
	state    map[*tensor.Tensor]*ParamState
	// lrGiven: the defaults have a learning rate (false only for SGD
	// constructed without one).
	lrGiven bool
}

// newOptimizer checks the options as the PyTorch constructor does, then
// makes the first group from params.
func newOptimizer(k *kind, params []*tensor.Tensor, opts []Option) (optimizer, error) {
	o := optimizer{kind: k, defaults: k.defaults, state: map[*tensor.Tensor]*ParamState{}}
	o.defaults.kind = k
	kw, err := parseOptions(k.name+".__init__", opts, k.keys...)
	if err != nil {
		return o, err
	}
	for name, v := range kw {
		o.defaults.set(name, v)
	}
	_, given := kw["lr"]
	o.lrGiven = given || !math.IsNaN(k.defaults.LR)
	if err := k.check(&o.defaults); err != nil {
		return o, err
	}
	if len(params) == 0 {
		return o, fmt.Errorf("optimizer got an empty parameter list")
	}
	return o, o.addGroup(params, nil)
}

// Params returns every group's parameters, group after group.
func (o *optimizer) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, g := range o.groups {
		ps = append(ps, g.Params...)
	}
	return ps
}

// params is Params for reading only: one group's own list, without a copy.
func (o *optimizer) params() []*tensor.Tensor {
	if len(o.groups) == 1 {
		return o.groups[0].Params
	}
	return o.Params()
}

// ParamGroups returns the parameter groups; changing a field (LR, ...)
// changes the next step.
func (o *optimizer) ParamGroups() []*ParamGroup { return o.groups }

// AddParamGroup adds params as a new group, its options overriding the
// optimizer's defaults (add_param_group). The parameters must be
// floating-point leaves not already in a group.
func (o *optimizer) AddParamGroup(params []*tensor.Tensor, opts ...Option) error {
	return o.addGroup(params, opts)
}

func (o *optimizer) addGroup(params []*tensor.Tensor, opts []Option) error {
	g := o.defaults
	g.Params = slices.Clone(params)
	kw, err := parseOptions("add_param_group", opts, o.kind.keys...)
	if err != nil {
		return err
	}
	for name, v := range kw {
		g.set(name, v)
	}
	if _, given := kw["lr"]; !given && !o.lrGiven {
		return fmt.Errorf("parameter group didn't specify a value of required optimization parameter lr")
	}
	if err := o.kind.check(&g); err != nil {
		return err
	}
	seen := map[*tensor.Tensor]bool{}
	for _, h := range o.groups {
		for _, p := range h.Params {
			seen[p] = true
		}
	}
	mine := map[*tensor.Tensor]bool{}
	for i, p := range g.Params {
		switch {
		case p == nil:
			return fmt.Errorf("optimizer can only optimize Tensors, but parameter %d is nil", i)
		case !p.DType().IsFloat():
			return fmt.Errorf("parameter %d is %s; optimizers update floating-point tensors", i, p.DType())
		case !p.IsLeaf():
			return fmt.Errorf("can't optimize a non-leaf Tensor")
		case mine[p]:
			return fmt.Errorf("optimizer contains a parameter group with duplicate parameters (parameter %d)", i)
		case seen[p]:
			return fmt.Errorf("some parameters appear in more than one parameter group")
		}
		mine[p] = true
	}
	o.groups = append(o.groups, &g)
	if o.kind.eager {
		noGrad(func() {
			for _, p := range g.Params {
				o.newState(&g, p)
			}
		})
	}
	return nil
}

func (o *optimizer) newState(g *ParamGroup, p *tensor.Tensor) *ParamState {
	s := &ParamState{Tensors: map[string]*tensor.Tensor{}}
	if o.kind.init != nil {
		o.kind.init(g, p, s)
	}
	o.state[p] = s
	return s
}

// State is p's state, nil before its first step (Adagrad's exists from
// the start, as PyTorch's does).
func (o *optimizer) State(p *tensor.Tensor) *ParamState { return o.state[p] }

// StepWith updates every parameter that has a gradient in grads, which
// follows Params().
func (o *optimizer) StepWith(grads []*tensor.Tensor) {
	checkGrads(o.params(), grads)
	// The state lives in Go: a compiler tracing this goroutine is told
	// first (a graph break in a cached graph; see compile).
	autograd.NoteEffect("Optimizer.step")
	noGrad(func() {
		i := 0
		for _, g := range o.groups {
			for _, p := range g.Params {
				grad := grads[i]
				i++
				if grad == nil {
					continue
				}
				s := o.state[p]
				if s == nil {
					s = o.newState(g, p)
				}
				o.kind.update(g, p, grad, s)
			}
		}
	})
}

// Step updates every parameter from the gradient backward passes have
// accumulated into it (optimizer.step()).
func (o *optimizer) Step() { o.StepWith(Grads(o.params())) }

// ZeroGrad resets the parameters' gradients (optimizer.zero_grad): by
// default it drops them (set_to_none=True, PyTorch 2's default), so the
// next backward pass starts from nothing; ZeroGrad(WithSetToNone(false)) is
// PyTorch 1.13's default, each gradient kept and filled with zeros. An
// option other than WithSetToNone panics with PyTorch's TypeError.
func (o *optimizer) ZeroGrad(opts ...Option) {
	kw, err := parseOptions("Optimizer.zero_grad", opts, "set_to_none")
	if err != nil {
		tensor.TypePanicf("%s", err.Error())
	}
	autograd.ZeroGrads(o.params(), kw.bool("set_to_none", true))
}

// checkGrads panics unless grads pairs up with params: same count, and each
// non-nil gradient has its parameter's shape, dtype and device.
func checkGrads(params, grads []*tensor.Tensor) {
	if len(grads) != len(params) {
		tensor.Panicf("optimizer step: got %d gradients for %d parameters", len(grads), len(params))
	}
	for i, g := range grads {
		if g == nil {
			continue
		}
		p := params[i]
		// The messages are formatted only when they are needed (a step
		// allocates nothing here).
		switch {
		case !slices.Equal(g.Sizes(), p.Sizes()):
			tensor.Panicf("optimizer step: gradient %d has shape %s but its parameter has shape %s", i, tensor.ShapeString(g.Sizes()), tensor.ShapeString(p.Sizes()))
		case g.DType() != p.DType():
			tensor.Panicf("optimizer step: gradient %d is %s but its parameter is %s", i, g.DType(), p.DType())
		case g.Device() != p.Device():
			tensor.Panicf("optimizer step: gradient %d is on %s but its parameter is on %s", i, g.Device(), p.Device())
		}
	}
}

// nonNegative is PyTorch's `if not 0.0 <= v: raise ValueError(...)` (NaN
// fails too).
func nonNegative(what string, v float64) error {
	if !(v >= 0) {
		return fmt.Errorf("Invalid %s: %s", what, pyFloat(v))
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkSGDLR is SGD's `if lr is not required and lr < 0.0`: its learning
// rate has no default (NaN until given) and NaN passes, as in PyTorch.
func checkSGDLR(g *ParamGroup) error {
	if g.LR < 0 {
		return fmt.Errorf("Invalid learning rate: %s", pyFloat(g.LR))
	}
	return nil
}

// addAlpha_ is self.add_(other, alpha=alpha).
func addAlpha_(self, other *tensor.Tensor, alpha float64) {
	self.Add_(other, tensor.WithAlpha(alpha))
}

// addAlpha is self.add(other, alpha=alpha).
func addAlpha(self, other *tensor.Tensor, alpha float64) *tensor.Tensor {
	return self.Add(other, tensor.WithAlpha(alpha))
}
