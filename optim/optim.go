// Package optim holds the optimizers a training loop needs: SGD (momentum,
// dampening, Nesterov, weight decay) and Adam/AdamW (AMSGrad optional). Each
// follows the update of PyTorch 1.13's torch.optim (the single-tensor
// path) op for op, so float32 parameters come out as PyTorch's do, and
// updates the parameters in place.
//
// An optimizer holds its parameters. Step reads the gradients that
// Backward accumulated into them (p.Grad()), and ZeroGrad clears them, as
// optimizer.step() and zero_grad() do; StepWith takes the gradients as
// explicit (parameter, gradient) pairs by position instead. A nil gradient
// leaves its parameter and its state untouched, as PyTorch skips a
// parameter whose .grad is None. Updates run under autograd.NoGrad, so
// parameters that require grad are written in place and nothing is
// recorded.
//
// Misuse in StepWith (a gradient whose shape or dtype does not match its
// parameter) panics with a *tensor.Error before any parameter changes, as
// tensor math does; invalid hyper-parameters are an error from the
// constructor, where PyTorch raises ValueError.
package optim

import (
	"fmt"
	"slices"

	"github.com/goaten/goaten/tensor"
)

// Optimizer updates parameters in place from their gradients.
type Optimizer interface {
	// Params returns the parameters, in the order StepWith's gradients follow.
	Params() []*tensor.Tensor
	// StepWith applies one update: grads[i] is the gradient of Params()[i], or
	// nil to leave that parameter alone this step.
	StepWith(grads []*tensor.Tensor)
	// Step is StepWith(Grads(Params())): it uses the gradients that
	// backward passes accumulated into the parameters.
	Step()
	// ZeroGrad clears the parameters' gradients.
	ZeroGrad()
}

// checkParams validates the parameter list given to a constructor.
func checkParams(params []*tensor.Tensor) error {
	if len(params) == 0 {
		return fmt.Errorf("optimizer got an empty parameter list")
	}
	seen := map[*tensor.Tensor]bool{}
	for i, p := range params {
		switch {
		case p == nil:
			return fmt.Errorf("parameter %d is nil", i)
		case !p.DType().IsFloat():
			return fmt.Errorf("parameter %d is %s; optimizers update floating-point tensors", i, p.DType())
		case seen[p]:
			return fmt.Errorf("some parameters appear more than once (parameter %d)", i)
		}
		seen[p] = true
	}
	return nil
}

// checkGrads panics unless grads pairs up with params: same count, and each
// non-nil gradient has its parameter's shape, dtype and device.
func checkGrads(params, grads []*tensor.Tensor) {
	tensor.Check(len(grads) == len(params), "optimizer step: got %d gradients for %d parameters", len(grads), len(params))
	for i, g := range grads {
		if g == nil {
			continue
		}
		p := params[i]
		tensor.Check(slices.Equal(g.Sizes(), p.Sizes()),
			"optimizer step: gradient %d has shape %s but its parameter has shape %s", i, tensor.ShapeString(g.Sizes()), tensor.ShapeString(p.Sizes()))
		tensor.Check(g.DType() == p.DType(),
			"optimizer step: gradient %d is %s but its parameter is %s", i, g.DType(), p.DType())
		tensor.Check(g.Device() == p.Device(),
			"optimizer step: gradient %d is on %s but its parameter is on %s", i, g.Device(), p.Device())
	}
}

// addAlpha_ is self.add_(other, alpha=alpha).
func addAlpha_(self, other *tensor.Tensor, alpha float64) {
	self.Add_(other, tensor.WithAlpha(alpha))
}

// addAlpha is self.add(other, alpha=alpha).
func addAlpha(self, other *tensor.Tensor, alpha float64) *tensor.Tensor {
	return self.Add(other, tensor.WithAlpha(alpha))
}
