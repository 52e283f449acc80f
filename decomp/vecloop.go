package decomp

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// loopRules reproduces for the backward kernels of elu, hardtanh and
// hardswish that 1.13's vectorized and scalar loops treat special inputs
// differently (core.VecLoopElements says which loop computes an element).

// loopRules wraps the two rules of such a kernel (each run in opmath): the
// result is vec's where the vectorized loop computes the element and
// scalar's elsewhere. special(x) marks the inputs where the rules differ;
// without any, vec alone runs. The kernel's TensorIterator operands are the
// tensor arguments 0 (grad) and xArg (the input the rules test).
func loopRules(vec, scalar tensor.Kernel, xArg int, special func(x *T) *T) tensor.Kernel {
	vec, scalar = opmath(vec), opmath(scalar)
	return func(op *tensor.Op, a []any) any {
		r := vec(op, a).(*T)
		g, x := ten(a, 0), ten(a, xArg)
		if r.Numel() == 0 || x.Device() == tensor.Meta || !special(x).Any().Item().Bool() {
			return r
		}
		mask := tensor.FromSlice(core.VecLoopElements(r.DType().ItemSize(), g, x), r.Sizes()...).ToDevice(r.Device())
		return tensor.Where(mask, r, scalar(op, a).(*T))
	}
}

// anyNaN marks NaN inputs, where the elu and hardtanh rules differ.
func anyNaN(x *T) *T { return x.Isnan() }
