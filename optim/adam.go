package optim

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/tensor"
)

// Adam is torch.optim.Adam (Kingma & Ba, with bias correction), or
// torch.optim.AdamW (Loshchilov & Hutter) when made by NewAdamW. Per
// parameter, at step t:
//
//	Adam:  g = ±grad + weight_decay·p
//	AdamW: g = ±grad; p = p·(1 - lr·weight_decay)
//	m = β1·m + (1-β1)·g
//	v = β2·v + (1-β2)·g²
//	v̂ = max(v̂, v) with AMSGrad, else v
//	p = p - lr/(1-β1ᵗ) · m / (√v̂/√(1-β2ᵗ) + eps)
//
// Options: WithLR (1e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithWeightDecay (0 for Adam, 1e-2 for AdamW), WithAMSGrad (false),
// WithMaximize (false). A parameter's state is its step count and
// "exp_avg", "exp_avg_sq" and, with AMSGrad, "max_exp_avg_sq".
type Adam struct{ optimizer }

var adamKeys = []string{"lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"}

func checkAdam(g *ParamGroup) error {
	switch {
	case !(g.LR >= 0):
		return fmt.Errorf("Invalid learning rate: %s", pyFloat(g.LR))
	case !(g.Eps >= 0):
		return fmt.Errorf("Invalid epsilon value: %s", pyFloat(g.Eps))
	case !(g.Betas[0] >= 0 && g.Betas[0] < 1):
		return fmt.Errorf("Invalid beta parameter at index 0: %s", pyFloat(g.Betas[0]))
	case !(g.Betas[1] >= 0 && g.Betas[1] < 1):
		return fmt.Errorf("Invalid beta parameter at index 1: %s", pyFloat(g.Betas[1]))
	case !(g.WeightDecay >= 0):
		return fmt.Errorf("Invalid weight_decay value: %s", pyFloat(g.WeightDecay))
	}
	return nil
}

var adamKind = &kind{
	name:     "Adam",
	keys:     adamKeys,
	defaults: ParamGroup{LR: 1e-3, Betas: [2]float64{0.9, 0.999}, Eps: 1e-8},
	hasStep:  true,
	check:    checkAdam,
	init:     adamInit,
	update:   func(gr *ParamGroup, p, g *tensor.Tensor, s *ParamState) { adamUpdate(gr, p, g, s, false) },
}

var adamWKind = &kind{
	name:     "AdamW",
	keys:     adamKeys,
	defaults: ParamGroup{LR: 1e-3, Betas: [2]float64{0.9, 0.999}, Eps: 1e-8, WeightDecay: 1e-2},
	hasStep:  true,
	check:    checkAdam,
	init:     adamInit,
	update:   func(gr *ParamGroup, p, g *tensor.Tensor, s *ParamState) { adamUpdate(gr, p, g, s, true) },
}

// NewAdam makes an Adam optimizer (L2 weight decay added to the gradient).
func NewAdam(params []*tensor.Tensor, opts ...Option) (*Adam, error) {
	o, err := newOptimizer(adamKind, params, opts)
	if err != nil {
		return nil, err
	}
	return &Adam{o}, nil
}

// NewAdamW makes an AdamW optimizer (weight decay applied to the
// parameter, default 1e-2).
func NewAdamW(params []*tensor.Tensor, opts ...Option) (*Adam, error) {
	o, err := newOptimizer(adamWKind, params, opts)
	if err != nil {
		return nil, err
	}
	return &Adam{o}, nil
}

func adamInit(g *ParamGroup, p *tensor.Tensor, s *ParamState) {
	s.Tensors["exp_avg"] = p.ZerosLike()
	s.Tensors["exp_avg_sq"] = p.ZerosLike()
	if g.AMSGrad {
		s.Tensors["max_exp_avg_sq"] = p.ZerosLike()
	}
}

// adamUpdate is _single_tensor_adam (or _adamw) for one parameter.
func adamUpdate(gr *ParamGroup, p, g *tensor.Tensor, s *ParamState, decoupled bool) {
	beta1, beta2 := gr.Betas[0], gr.Betas[1]
	if gr.Maximize {
		g = g.Neg()
	}
	s.Step++
	if decoupled {
		// float64(...) rounds the product as Python does: Go may otherwise
		// fuse the multiply into the subtraction (arm64 does).
		p.MulScalar_(1 - float64(gr.LR*gr.WeightDecay))
	} else if gr.WeightDecay != 0 {
		g = addAlpha(g, p, gr.WeightDecay)
	}
	expAvg, expAvgSq := s.Tensors["exp_avg"], s.Tensors["exp_avg_sq"]
	addAlpha_(expAvg.MulScalar_(beta1), g, 1-beta1)
	expAvgSq.MulScalar_(beta2).Addcmul_(g, g, tensor.WithValue(1-beta2))

	bc1 := 1 - powInt(beta1, s.Step)
	bc2 := 1 - powInt(beta2, s.Step)
	stepSize := gr.LR / bc1
	v := expAvgSq
	if gr.AMSGrad {
		m := s.Tensors["max_exp_avg_sq"]
		if m == nil { // amsgrad switched on after the first step
			m = p.ZerosLike()
			s.Tensors["max_exp_avg_sq"] = m
		}
		m.Copy_(m.Maximum(expAvgSq))
		v = m
	}
	denom := v.Sqrt().DivScalar(math.Sqrt(bc2)).AddScalar_(gr.Eps)
	p.Addcdiv_(expAvg, denom, tensor.WithValue(-stepSize))
}
