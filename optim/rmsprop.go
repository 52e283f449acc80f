package optim

import (
	"github.com/goaten/goaten/tensor"
)

// RMSprop is torch.optim.RMSprop (Hinton's RMSprop; centered as in Graves
// 2013). Per parameter:
//
//	g = ±grad + weight_decay·p
//	v = α·v + (1-α)·g²
//	centered: ḡ = α·ḡ + (1-α)·g; avg = √(v - ḡ²) + eps, else avg = √v + eps
//	momentum > 0: buf = momentum·buf + g/avg; p = p - lr·buf
//	else:         p = p - lr·g/avg
//
// Options: WithLR (1e-2), WithAlpha (0.99), WithEps (1e-8),
// WithWeightDecay (0), WithMomentum (0), WithCentered (false),
// WithMaximize (false). A parameter's state is its step count,
// "square_avg", and "momentum_buffer" (momentum > 0) and "grad_avg"
// (centered).
type RMSprop struct{ optimizer }

var rmspropKind = &kind{
	name:     "RMSprop",
	keys:     []string{"lr", "momentum", "alpha", "eps", "centered", "weight_decay", "maximize"},
	defaults: ParamGroup{LR: 1e-2, Alpha: 0.99, Eps: 1e-8},
	hasStep:  true,
	check: func(g *ParamGroup) error {
		return firstErr(
			nonNegative("learning rate", g.LR),
			nonNegative("epsilon value", g.Eps),
			nonNegative("momentum value", g.Momentum),
			nonNegative("weight_decay value", g.WeightDecay),
			nonNegative("alpha value", g.Alpha))
	},
	init: func(g *ParamGroup, p *tensor.Tensor, s *ParamState) {
		s.Tensors["square_avg"] = p.ZerosLike()
		if g.Momentum > 0 {
			s.Tensors["momentum_buffer"] = p.ZerosLike()
		}
		if g.Centered {
			s.Tensors["grad_avg"] = p.ZerosLike()
		}
	},
	update: rmspropUpdate,
}

// NewRMSprop makes an RMSprop optimizer over params (one group).
func NewRMSprop(params []*tensor.Tensor, opts ...Option) (*RMSprop, error) {
	o, err := newOptimizer(rmspropKind, params, opts)
	if err != nil {
		return nil, err
	}
	return &RMSprop{o}, nil
}

// stateTensor is s.Tensors[name], made of zeros if an option that needs it
// was switched on after the parameter's first step.
func stateTensor(s *ParamState, name string, p *tensor.Tensor) *tensor.Tensor {
	t := s.Tensors[name]
	if t == nil {
		t = p.ZerosLike()
		s.Tensors[name] = t
	}
	return t
}

// rmspropUpdate is _single_tensor_rmsprop for one parameter.
func rmspropUpdate(gr *ParamGroup, p, g *tensor.Tensor, s *ParamState) {
	s.Step++
	if gr.Maximize {
		g = g.Neg()
	}
	if gr.WeightDecay != 0 {
		g = addAlpha(g, p, gr.WeightDecay)
	}
	squareAvg := s.Tensors["square_avg"]
	squareAvg.MulScalar_(gr.Alpha).Addcmul_(g, g, tensor.WithValue(1-gr.Alpha))
	var avg *tensor.Tensor
	if gr.Centered {
		gradAvg := stateTensor(s, "grad_avg", p)
		addAlpha_(gradAvg.MulScalar_(gr.Alpha), g, 1-gr.Alpha)
		avg = squareAvg.Addcmul(gradAvg, gradAvg, tensor.WithValue(-1)).Sqrt_()
	} else {
		avg = squareAvg.Sqrt()
	}
	avg = avg.AddScalar_(gr.Eps)
	if gr.Momentum > 0 {
		buf := stateTensor(s, "momentum_buffer", p)
		buf.MulScalar_(gr.Momentum).Addcdiv_(g, avg)
		addAlpha_(p, buf, -gr.LR)
	} else {
		p.Addcdiv_(g, avg, tensor.WithValue(-gr.LR))
	}
}
