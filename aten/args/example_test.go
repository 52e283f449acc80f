package args_test

import (
	"fmt"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

func Example() {
	op := tensor.MustOp("aten::native_dropout")
	x := tensor.NewMetaContiguous([]int{2, 3}, tensor.Float32, tensor.Meta)
	a := op.Bind([]any{x, 0.25}, nil) // train is left to its default, None

	v := args.NativeDropoutOf(a)
	fmt.Println(v.Input.Sizes(), v.P, v.Train.Ok, v.Train.Or(true))
	// Output: [2 3] 0.25 false true
}

// A position function names the index of each tensor argument, for code
// that works with indices (autograd's formulas set the gradient of the
// argument at an index).
func ExampleConvolutionAt() {
	at := args.ConvolutionAt()
	fmt.Println(at.Input, at.Weight, at.Bias)
	fmt.Printf("%+v\n", args.IndexPutAt())
	// Output:
	// 0 1 2
	// {Self:0 Indices:1 Values:2}
}
