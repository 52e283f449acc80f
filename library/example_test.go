package library_test

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// Define a custom op with a CPU kernel, a fake kernel and a derivative,
// call it in a compiled function, and take the gradient through it.
func Example() {
	// TORCH_LIBRARY(example, m) { m.def("softplus2(...)"); ... }: in a
	// program, this is init code.
	lib := library.New("example")
	softplus2 := lib.Define("softplus2(Tensor x, *, float beta=1.) -> Tensor")

	// softplus2(x) = log(1 + exp(beta x)) / beta, written in ops.
	softplus2.Impl("CPU", func(a library.Args) any {
		x, beta := a.Tensor("x"), a.Float("beta")
		return x.MulScalar(beta).Exp().AddScalar(1).Log().MulScalar(1 / beta)
	})
	// Tracing runs the fake kernel on meta tensors: same shape and dtype.
	softplus2.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
	// d/dx = sigmoid(beta x).
	softplus2.RegisterAutograd(
		func(ctx *library.Ctx, grads []*tensor.Tensor) []any {
			x, beta := ctx.SavedTensors()[0], ctx.Data.(float64)
			return []any{grads[0].Mul(x.MulScalar(beta).Sigmoid()), nil}
		},
		func(ctx *library.Ctx, inputs library.Args, output any) {
			ctx.SaveForBackward(inputs.Tensor("x"))
			ctx.Data = inputs.Float("beta")
		})

	loss := func(x *tensor.Tensor) *tensor.Tensor {
		y := library.CallAs[*tensor.Tensor](softplus2, x, library.Kw{"beta": 2.0})
		return y.SumAll()
	}
	f := compile.Compile(loss, compile.Options{Fullgraph: true})
	x := autograd.RequiresGrad(tensor.FromSlice([]float64{-1, 0, 1}))
	y, err := f.Call(x)
	if err != nil {
		panic(err)
	}
	y.(*tensor.Tensor).Backward()

	// x requires grad: the graph is the joint forward and backward (AOT
	// autograd), the derivative registered above inlined.
	fmt.Println(strings.TrimSpace(f.Graphs()[0].Code()))
	fmt.Printf("loss %.4f\n", y.(*tensor.Tensor).Item().Float64())
	fmt.Printf("grad %.4f\n", x.Grad().Float64s())
	fmt.Println(library.OpCheck("example::softplus2", []library.Sample{{Args: []any{x}, Kwargs: map[string]any{"beta": 0.5}}}))
	// Output:
	// def forward(self, primals_1, tangents_1):
	//     softplus2 = torch.ops.example.softplus2.default(primals_1, beta = 2.0)
	//     sum_1 = torch.ops.aten.sum.dim_IntList(softplus2, None);  softplus2 = None
	//     unsqueeze = torch.ops.aten.unsqueeze.default(tangents_1, 0);  tangents_1 = None
	//     expand = torch.ops.aten.expand.default(unsqueeze, [3]);  unsqueeze = None
	//     mul = torch.ops.aten.mul.Scalar(primals_1, 2.0);  primals_1 = None
	//     sigmoid = torch.ops.aten.sigmoid.default(mul);  mul = None
	//     mul_1 = torch.ops.aten.mul.Tensor(expand, sigmoid);  expand = sigmoid = None
	//     return (sum_1, mul_1)
	// loss 1.4735
	// grad [0.1192 0.5000 0.8808]
	// <nil>
}
