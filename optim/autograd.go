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

// zeroGrad resets the parameters' gradients as PyTorch's
// optimizer.zero_grad(set_to_none): with toNone it drops them (the next
// backward pass starts from nothing); without, each gradient keeps its
// tensor, detached from any graph a create_graph backward built (a detached
// tensor sharing its data, where PyTorch's detach_ keeps the object), and is
// filled with zeros.
func zeroGrad(params []*tensor.Tensor, toNone bool) {
	for _, p := range params {
		if toNone {
			autograd.SetGrad(p, nil)
			continue
		}
		g := p.Grad()
		if g == nil {
			continue
		}
		if autograd.GradFn(g) != nil {
			g = g.Detach()
			autograd.SetGrad(p, g)
		} else if g.RequiresGrad() {
			autograd.SetRequiresGrad(g, false)
		}
		noGrad(func() { g.Zero_() })
	}
}

// noGrad runs an update with gradient recording off, so that in-place
// writes to parameters that require grad are allowed and not recorded.
func noGrad(f func()) { autograd.NoGrad(f) }
