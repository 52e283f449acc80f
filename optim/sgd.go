package optim

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/tensor"
)

// SGD is torch.optim.SGD: stochastic gradient descent, optionally with
// momentum. Per parameter:
//
//	g = ±grad + weight_decay·p
//	buf = g (first step), else momentum·buf + (1-dampening)·g
//	g = g + momentum·buf (Nesterov), else buf
//	p = p - lr·g
//
// Options: WithLR (required), WithMomentum (0), WithDampening (0),
// WithWeightDecay (0), WithNesterov (false), WithMaximize (false). The
// state of a parameter is its "momentum_buffer".
type SGD struct{ optimizer }

var sgdKind = &kind{
	name:     "SGD",
	keys:     []string{"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"},
	defaults: ParamGroup{LR: math.NaN()},
	check: func(g *ParamGroup) error {
		switch {
		case g.Momentum < 0:
			return fmt.Errorf("Invalid momentum value: %s", pyFloat(g.Momentum))
		case g.WeightDecay < 0:
			return fmt.Errorf("Invalid weight_decay value: %s", pyFloat(g.WeightDecay))
		case g.Nesterov && (g.Momentum <= 0 || g.Dampening != 0):
			return fmt.Errorf("Nesterov momentum requires a momentum and zero dampening")
		}
		return checkSGDLR(g)
	},
	update: sgdUpdate,
}

// NewSGD makes an SGD optimizer over params (one group), checking the
// options as torch.optim.SGD does.
func NewSGD(params []*tensor.Tensor, opts ...Option) (*SGD, error) {
	o, err := newOptimizer(sgdKind, params, opts)
	if err != nil {
		return nil, err
	}
	return &SGD{o}, nil
}

// sgdUpdate is _single_tensor_sgd for one parameter.
func sgdUpdate(gr *ParamGroup, p, g *tensor.Tensor, s *ParamState) {
	if gr.Maximize {
		g = g.Neg()
	}
	if gr.WeightDecay != 0 {
		g = addAlpha(g, p, gr.WeightDecay)
	}
	if gr.Momentum != 0 {
		buf := s.Tensors["momentum_buffer"]
		if buf == nil {
			buf = g.Clone()
			s.Tensors["momentum_buffer"] = buf
		} else {
			addAlpha_(buf.MulScalar_(gr.Momentum), g, 1-gr.Dampening)
		}
		if gr.Nesterov {
			g = addAlpha(g, buf, gr.Momentum)
		} else {
			g = buf
		}
	}
	addAlpha_(p, g, -gr.LR)
}
