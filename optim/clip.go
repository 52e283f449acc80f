package optim

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/tensor"
)

// ClipGradNorm_ is torch.nn.utils.clip_grad_norm_: it scales the
// gradients of params (those that have one) in place so that their total
// norm — the norm of the vector of every gradient's norm — is at most
// maxNorm, and returns the total norm before clipping, a 0-d tensor of the
// gradients' dtype (0-d float32 zero when no parameter has a gradient).
// Options: WithNormType (2; math.Inf(1) for the largest absolute value),
// WithErrorIfNonfinite (false).
//
// As in PyTorch the scale is min(maxNorm/(total+1e-6), 1), computed in the
// gradients' dtype, so gradients already within the bound are multiplied
// by exactly 1. With WithErrorIfNonfinite(true) a NaN or infinite total
// norm is an error and no gradient changes; without it they are scaled by
// the non-finite coefficient, as PyTorch does.
func ClipGradNorm_(params []*tensor.Tensor, maxNorm float64, opts ...Option) (*tensor.Tensor, error) {
	kw, err := parseOptions("clip_grad_norm_", opts, "norm_type", "error_if_nonfinite")
	if err != nil {
		return nil, err
	}
	normType := kw.float("norm_type", 2)
	var grads []*tensor.Tensor
	for _, p := range params {
		if p != nil && p.Grad() != nil {
			grads = append(grads, p.Grad())
		}
	}
	if len(grads) == 0 {
		return tensor.FullOf(tensor.Float32, 0), nil
	}
	var total *tensor.Tensor
	err = tensor.Try(func() {
		noGrad(func() {
			norms := make([]*tensor.Tensor, len(grads))
			if math.IsInf(normType, 1) {
				for i, g := range grads {
					norms[i] = g.Detach().Abs().Max()
				}
				if len(norms) == 1 {
					total = norms[0]
				} else {
					total = tensor.Stack(norms).Max()
				}
			} else {
				for i, g := range grads {
					norms[i] = g.Detach().Norm(normType, allDims(g))
				}
				total = tensor.Stack(norms).Norm(normType, []int{0})
			}
		})
	})
	if err != nil {
		return nil, err
	}
	if kw.bool("error_if_nonfinite", false) {
		if v := total.Item().Float64(); math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("The total norm of order %s for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`", pyFloat(normType))
		}
	}
	noGrad(func() {
		// max_norm / (total_norm + 1e-6) is Tensor.__rdiv__: reciprocal, then times max_norm.
		coef := total.AddScalar(1e-6).Reciprocal().MulScalar(maxNorm).ClampMax(1.0)
		for _, g := range grads {
			g.Detach().Mul_(coef)
		}
	})
	return total, nil
}

// allDims is [0, ..., rank-1], the dims torch.norm(g, p) reduces.
func allDims(t *tensor.Tensor) []int {
	d := make([]int, t.Dim())
	for i := range d {
		d[i] = i
	}
	return d
}

// ClipGradValue_ is torch.nn.utils.clip_grad_value_: it clamps every
// gradient of params in place to [-clipValue, clipValue].
func ClipGradValue_(params []*tensor.Tensor, clipValue float64) {
	noGrad(func() {
		for _, p := range params {
			if p != nil && p.Grad() != nil {
				p.Grad().Detach().Clamp_(tensor.WithMin(-clipValue), tensor.WithMax(clipValue))
			}
		}
	})
}
