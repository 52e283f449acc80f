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
	r := goaten.Randn([]int{3}, goaten.WithDtype(goaten.Float64))
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
	fmt.Println(goaten.Randn([]int{3}))
	goaten.ManualSeed(0)
	fmt.Println(goaten.RandintLow(0, 10, []int{3}))
	// Output:
	// tensor([ 1.5410, -0.2934, -2.1788])
	// tensor([4, 9, 3])
}
