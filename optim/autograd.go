package optim

import (
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// Grads returns each parameter's accumulated gradient (p.Grad(), nil where
// there is none): what Step passes to StepWith.
func Grads(params []*tensor.Tensor) []*tensor.Tensor {
	gs := make([]*tensor.Tensor, len(params))
	for i, p := range params {
		gs[i] = p.Grad()
	}
	return gs
}

// noGrad runs an update with gradient recording off, so that in-place
// writes to parameters that require grad are allowed and not recorded.
func noGrad(f func()) { autograd.NoGrad(f) }
