package optim

import (
	"fmt"

	"github.com/goaten/goaten/tensor"
)

// SGDConfig holds torch.optim.SGD's hyper-parameters. The zero value is
// plain SGD with learning rate 0; set LR.
type SGDConfig struct {
	LR          float64
	Momentum    float64
	Dampening   float64
	WeightDecay float64
	Nesterov    bool
	Maximize    bool
}

// SGD is stochastic gradient descent, optionally with momentum:
//
//	g = ±grad + weight_decay·p
//	buf = g (first step), else momentum·buf + (1-dampening)·g
//	g = g + momentum·buf (Nesterov), else buf
//	p = p - lr·g
type SGD struct {
	SGDConfig
	params []*tensor.Tensor
	bufs   []*tensor.Tensor // momentum buffers, nil until a parameter's first step
}

// NewSGD makes an SGD optimizer over params, checking the configuration as
// torch.optim.SGD does.
func NewSGD(params []*tensor.Tensor, c SGDConfig) (*SGD, error) {
	switch {
	case c.LR < 0:
		return nil, fmt.Errorf("Invalid learning rate: %v", c.LR)
	case c.Momentum < 0:
		return nil, fmt.Errorf("Invalid momentum value: %v", c.Momentum)
	case c.WeightDecay < 0:
		return nil, fmt.Errorf("Invalid weight_decay value: %v", c.WeightDecay)
	case c.Nesterov && (c.Momentum <= 0 || c.Dampening != 0):
		return nil, fmt.Errorf("Nesterov momentum requires a momentum and zero dampening")
	}
	if err := checkParams(params); err != nil {
		return nil, err
	}
	return &SGD{SGDConfig: c, params: params, bufs: make([]*tensor.Tensor, len(params))}, nil
}

// Params returns the parameters.
func (o *SGD) Params() []*tensor.Tensor { return o.params }

// MomentumBuffer is parameter i's momentum buffer (nil before its first
// step or without momentum).
func (o *SGD) MomentumBuffer(i int) *tensor.Tensor { return o.bufs[i] }

// StepWith updates every parameter that has a gradient in grads.
func (o *SGD) StepWith(grads []*tensor.Tensor) {
	checkGrads(o.params, grads)
	noGrad(func() { o.step(grads) })
}

func (o *SGD) step(grads []*tensor.Tensor) {
	for i, p := range o.params {
		g := grads[i]
		if g == nil {
			continue
		}
		if o.Maximize {
			g = g.Neg()
		}
		if o.WeightDecay != 0 {
			g = addAlpha(g, p, o.WeightDecay)
		}
		if o.Momentum != 0 {
			buf := o.bufs[i]
			if buf == nil {
				buf = g.Clone()
				o.bufs[i] = buf
			} else {
				addAlpha_(buf.MulScalar_(o.Momentum), g, 1-o.Dampening)
			}
			if o.Nesterov {
				g = addAlpha(g, buf, o.Momentum)
			} else {
				g = buf
			}
		}
		addAlpha_(p, g, -o.LR)
	}
}
