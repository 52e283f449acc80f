package core

import "github.com/goaten/goaten/tensor"

// checkAlpha applies PyTorch's alpha_check.
func checkAlpha(dt tensor.DType, alpha tensor.Scalar) {
	tensor.Check(!alpha.IsBool() || dt == tensor.Bool, "Boolean alpha only supported for Boolean results.")
	tensor.Check(dt.IsFloat() || !alpha.IsFloat(), "For integral input tensors, argument alpha must not be a floating point number.")
}

func addSubMeta(op *tensor.Op, args []any) any {
	a := T(args, 0)
	var dt tensor.DType
	var other *tensor.Tensor
	switch b := args[1].(type) {
	case *tensor.Tensor:
		dt, other = tensor.ResultType(a, b), b
	case tensor.Scalar:
		dt = tensor.ResultType(a, b)
	}
	alpha := args[2].(tensor.Scalar)
	checkAlpha(dt, alpha)
	return Elementwise(op, args, dt, a, other)
}

func init() {
	defs(addSubMeta, "aten::add.Tensor", "aten::add.Scalar")
}
