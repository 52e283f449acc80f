package goaten_test

import (
	"fmt"

	"github.com/goaten/goaten"
)

// Arguments with a PyTorch default are trailing options named after the
// schema argument; required ones are parameters.
func Example_options() {
	x := goaten.FromFloat64s([]float64{-1, 0, 1, 2, 3, 4}, 2, 3)

	g := x.Gelu(goaten.WithApproximate("tanh")) // gelu(x, approximate="tanh")
	fmt.Printf("%.4f\n", g.Float64s())

	p := x.Softmax(1) // softmax(x, dim=1), dtype left at None
	fmt.Printf("%.4f\n", p.Float64s())

	s := x.Sum([]int{1}, goaten.WithKeepdim(true)) // sum(x, [1], keepdim=True)
	fmt.Println(s.Sizes(), s.Float64s())

	goaten.ManualSeed(0)
	r := goaten.Randn(3, goaten.WithDtype(goaten.Float64))
	fmt.Println(r.Sizes(), r.DType())

	err := goaten.Try(func() { x.Gelu(goaten.WithKeepdim(true)) })
	fmt.Println(err)
	// Output:
	// [-0.1588 0.0000 0.8412 1.9546 2.9964 3.9999]
	// [0.0900 0.2447 0.6652 0.0900 0.2447 0.6652]
	// [2 1] [0 9]
	// [3] float64
	// Unknown keyword argument 'keepdim' for operator 'aten::gelu'
}

// The random ops draw PyTorch's CPU streams: after the same seed they give
// the numbers torch.manual_seed(0); torch.randn(3) and torch.randint gives.
func ExampleManualSeed() {
	goaten.ManualSeed(0)
	fmt.Println(goaten.Randn(3))
	goaten.ManualSeed(0)
	fmt.Println(goaten.RandintLow(0, 10, []int{3}))
	// Output:
	// tensor([ 1.5410, -0.2934, -2.1788])
	// tensor([4, 9, 3])
}

// Constructors take their sizes as PyTorch's do, one int per dimension
// (torch.zeros(2, 3)) or one []int (torch.zeros(x.shape)); options follow.
func ExampleZeros() {
	fmt.Println(goaten.Zeros(2, 3))
	fmt.Println(goaten.Ones(2, goaten.WithDtype(goaten.Int64)))
	fmt.Println(goaten.Full(0.5, 3))
	x := goaten.Randn(4, 2)
	fmt.Println(goaten.Zeros(x.Sizes(), goaten.WithDtype(goaten.Float64)).Sizes())
	w := goaten.Empty(2, goaten.WithRequiresGrad(true))
	fmt.Println(w.RequiresGrad())
	fmt.Println(goaten.Try(func() { goaten.Zeros(2, 2.5) }))
	// Output:
	// tensor([[0., 0., 0.],
	//         [0., 0., 0.]])
	// tensor([1, 1])
	// tensor([0.5000, 0.5000, 0.5000])
	// [4 2]
	// true
	// zeros(): argument 'size' must be tuple of ints, but found element of type float at pos 2
}

// FromNested is torch.tensor: the shape follows the nesting of the slices,
// the dtype their element type.
func ExampleFromNested() {
	fmt.Println(goaten.FromNested([][]float32{{1, 2}, {3, 4}}))
	fmt.Println(goaten.FromNested([][]int{{1, 2, 3}}))
	fmt.Println(goaten.FromNested([]any{1, 2.5, true}))
	fmt.Println(goaten.FromNested(3.0, goaten.WithDtype(goaten.Float32)))
	fmt.Println(goaten.Try(func() { goaten.FromNested([][]float64{{1, 2}, {3}}) }))
	// Output:
	// tensor([[1., 2.],
	//         [3., 4.]])
	// tensor([[1, 2, 3]])
	// tensor([1.0000, 2.5000, 1.0000], dtype=torch.float64)
	// tensor(3.)
	// expected sequence of length 2 at dim 1 (got 1)
}

// A tensor that requires grad prints it, and the result of a recorded op
// names the node that made it, as PyTorch's repr does.
func ExampleTensor_String() {
	w := goaten.FromNested([]float32{1, 2}, goaten.WithRequiresGrad(true))
	y := w.Mul(w)
	fmt.Println(w)
	fmt.Println(y)
	fmt.Println(y.SumAll())
	fmt.Println(y.Detach())
	// Output:
	// tensor([1., 2.], requires_grad=True)
	// tensor([1., 4.], grad_fn=<MulBackward0>)
	// tensor(5., grad_fn=<SumBackward0>)
	// tensor([1., 4.])
}
