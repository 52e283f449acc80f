package optim

import (
	"github.com/goaten/goaten/tensor"
)

// Adagrad is torch.optim.Adagrad. Per parameter, at step t:
//
//	g = ±grad + weight_decay·p
//	clr = lr / (1 + (t-1)·lr_decay)
//	sum = sum + g²
//	p = p - clr · g / (√sum + eps)
//
// Options: WithLR (1e-2), WithLRDecay (0), WithWeightDecay (0),
// WithInitialAccumulatorValue (0), WithEps (1e-10), WithMaximize (false).
// Every parameter has a state from the start, as in PyTorch: its step
// count and "sum", filled with the group's initial_accumulator_value.
// (PyTorch 1.13 fills it from the constructor's value even for a group
// given its own, and a group added later with add_param_group has no
// state and fails at its first step; here every group uses its own.)
type Adagrad struct{ optimizer }

var adagradKind = &kind{
	name:     "Adagrad",
	keys:     []string{"lr", "lr_decay", "eps", "weight_decay", "initial_accumulator_value", "maximize"},
	defaults: ParamGroup{LR: 1e-2, Eps: 1e-10},
	hasStep:  true,
	eager:    true,
	check: func(g *ParamGroup) error {
		return firstErr(
			nonNegative("learning rate", g.LR),
			nonNegative("lr_decay value", g.LRDecay),
			nonNegative("weight_decay value", g.WeightDecay),
			nonNegative("initial_accumulator_value value", g.InitialAccumulatorValue),
			nonNegative("epsilon value", g.Eps))
	},
	init: func(g *ParamGroup, p *tensor.Tensor, s *ParamState) {
		s.Tensors["sum"] = p.FullLike(g.InitialAccumulatorValue)
	},
	update: adagradUpdate,
}

// NewAdagrad makes an Adagrad optimizer over params (one group).
func NewAdagrad(params []*tensor.Tensor, opts ...Option) (*Adagrad, error) {
	o, err := newOptimizer(adagradKind, params, opts)
	if err != nil {
		return nil, err
	}
	return &Adagrad{o}, nil
}

// adagradUpdate is _single_tensor_adagrad for one dense parameter.
func adagradUpdate(gr *ParamGroup, p, g *tensor.Tensor, s *ParamState) {
	s.Step++
	if gr.Maximize {
		g = g.Neg()
	}
	if gr.WeightDecay != 0 {
		g = addAlpha(g, p, gr.WeightDecay)
	}
	// float64(...) rounds the product as Python does: Go may otherwise
	// fuse the multiply into the add (arm64 does).
	clr := gr.LR / (1 + float64(float64(s.Step-1)*gr.LRDecay))
	sum := s.Tensors["sum"]
	sum.Addcmul_(g, g, tensor.WithValue(1))
	std := sum.Sqrt().AddScalar_(gr.Eps)
	p.Addcdiv_(g, std, tensor.WithValue(-clr))
}
