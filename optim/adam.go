package optim

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/tensor"
)

// AdamConfig holds torch.optim.Adam's and AdamW's hyper-parameters. Start
// from DefaultAdam or DefaultAdamW: the zero value is not PyTorch's default.
type AdamConfig struct {
	LR           float64
	Beta1, Beta2 float64
	Eps          float64
	WeightDecay  float64
	AMSGrad      bool
	Maximize     bool
}

// DefaultAdam is torch.optim.Adam's default: lr 1e-3, betas (0.9, 0.999),
// eps 1e-8, no weight decay.
func DefaultAdam() AdamConfig { return AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// DefaultAdamW is torch.optim.AdamW's default: Adam's, with weight decay 1e-2.
func DefaultAdamW() AdamConfig {
	c := DefaultAdam()
	c.WeightDecay = 1e-2
	return c
}

// Adam is Adam (Kingma & Ba) with bias correction, or AdamW (Loshchilov &
// Hutter) when its weight decay is decoupled. Per parameter, at step t:
//
//	Adam:  g = ±grad + weight_decay·p
//	AdamW: g = ±grad; p = p·(1 - lr·weight_decay)
//	m = β1·m + (1-β1)·g
//	v = β2·v + (1-β2)·g²
//	v̂ = max(v̂, v) with AMSGrad, else v
//	p = p - lr/(1-β1ᵗ) · m / (√v̂/√(1-β2ᵗ) + eps)
type Adam struct {
	AdamConfig
	decoupled bool
	params    []*tensor.Tensor
	state     []adamState
}

type adamState struct {
	step                  int
	expAvg, expAvgSq, max *tensor.Tensor
}

// NewAdam makes an Adam optimizer (L2 weight decay added to the gradient).
func NewAdam(params []*tensor.Tensor, c AdamConfig) (*Adam, error) {
	return newAdam(params, c, false)
}

// NewAdamW makes an AdamW optimizer (weight decay applied to the parameter).
func NewAdamW(params []*tensor.Tensor, c AdamConfig) (*Adam, error) {
	return newAdam(params, c, true)
}

func newAdam(params []*tensor.Tensor, c AdamConfig, decoupled bool) (*Adam, error) {
	switch {
	case !(c.LR >= 0):
		return nil, fmt.Errorf("Invalid learning rate: %v", c.LR)
	case !(c.Eps >= 0):
		return nil, fmt.Errorf("Invalid epsilon value: %v", c.Eps)
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return nil, fmt.Errorf("Invalid beta parameter at index 0: %v", c.Beta1)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return nil, fmt.Errorf("Invalid beta parameter at index 1: %v", c.Beta2)
	case !(c.WeightDecay >= 0):
		return nil, fmt.Errorf("Invalid weight_decay value: %v", c.WeightDecay)
	}
	if err := checkParams(params); err != nil {
		return nil, err
	}
	return &Adam{AdamConfig: c, decoupled: decoupled, params: params, state: make([]adamState, len(params))}, nil
}

// Params returns the parameters.
func (o *Adam) Params() []*tensor.Tensor { return o.params }

// Steps is how many updates parameter i has had.
func (o *Adam) Steps(i int) int { return o.state[i].step }

// Moments returns parameter i's running averages of the gradient and of its
// square (nil before its first step).
func (o *Adam) Moments(i int) (expAvg, expAvgSq *tensor.Tensor) {
	return o.state[i].expAvg, o.state[i].expAvgSq
}

// StepWith updates every parameter that has a gradient in grads.
func (o *Adam) StepWith(grads []*tensor.Tensor) {
	checkGrads(o.params, grads)
	noGrad(func() { o.step(grads) })
}

func (o *Adam) step(grads []*tensor.Tensor) {
	for i, p := range o.params {
		g := grads[i]
		if g == nil {
			continue
		}
		s := &o.state[i]
		if s.expAvg == nil {
			s.expAvg = p.ZerosLike()
			s.expAvgSq = p.ZerosLike()
			if o.AMSGrad {
				s.max = p.ZerosLike()
			}
		}
		if o.Maximize {
			g = g.Neg()
		}
		s.step++
		if o.decoupled {
			p.MulScalar_(1 - o.LR*o.WeightDecay)
		} else if o.WeightDecay != 0 {
			g = addAlpha(g, p, o.WeightDecay)
		}
		addAlpha_(s.expAvg.MulScalar_(o.Beta1), g, 1-o.Beta1)
		s.expAvgSq.MulScalar_(o.Beta2).Addcmul_(g, g, tensor.WithValue(1-o.Beta2))

		bc1 := 1 - powInt(o.Beta1, s.step)
		bc2 := 1 - powInt(o.Beta2, s.step)
		stepSize := o.LR / bc1
		v := s.expAvgSq
		if o.AMSGrad {
			s.max.Copy_(s.max.Maximum(s.expAvgSq))
			v = s.max
		}
		denom := v.Sqrt().DivScalar(math.Sqrt(bc2)).AddScalar_(o.Eps)
		p.Addcdiv_(s.expAvg, denom, tensor.WithValue(-stepSize))
	}
}
