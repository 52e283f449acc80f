package autograd_test

import (
	"fmt"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

func Example() {
	x := tensor.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	y := x.Mul(x).SumAll() // sum of squares
	y.Backward()
	fmt.Println(x.Grad().Float64s())
	// Output: [2 4 6]
}

func ExampleGrad() {
	x := tensor.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.PowScalar(3).SumAll()
	// First derivative with a graph of its own, then the second.
	g := autograd.Grad([]*tensor.Tensor{y}, []*tensor.Tensor{x}, nil, autograd.Options{CreateGraph: true})
	h := autograd.Grad([]*tensor.Tensor{g[0].SumAll()}, []*tensor.Tensor{x}, nil)
	fmt.Println(g[0].Float64s(), h[0].Float64s())
	// Output: [3 12] [6 12]
}

func ExampleNoGrad() {
	w := tensor.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	w.MulScalar(3).SumAll().Backward()
	// An optimizer step: update the leaf in place without recording.
	autograd.NoGrad(func() { w.Sub_(w.Grad().MulScalar(0.1)) })
	fmt.Println(w.Detach().Float64s(), w.RequiresGrad())
	// Output: [0.7 1.7] true
}

// square is a custom function: Forward saves its input, Backward uses it.
type square struct{}

func (square) Forward(ctx *autograd.FunctionCtx, in ...any) []*tensor.Tensor {
	x := in[0].(*tensor.Tensor)
	ctx.SaveForBackward(x)
	return []*tensor.Tensor{x.Mul(x)}
}

func (square) Backward(ctx *autograd.FunctionCtx, g ...*tensor.Tensor) []*tensor.Tensor {
	x := ctx.SavedTensors()[0]
	return []*tensor.Tensor{g[0].Mul(x).MulScalar(2)}
}

func ExampleApply() {
	x := tensor.FromSlice([]float64{3}).SetRequiresGrad(true)
	y := autograd.Apply(square{}, x)[0]
	y.SumAll().Backward()
	fmt.Println(y.Detach().Float64s(), x.Grad().Float64s(), autograd.GradFn(y).Name())
	// Output: [9] [6] squareBackward
}

func ExampleRegisterHook() {
	x := tensor.FromSlice([]float64{1, 1}).SetRequiresGrad(true)
	autograd.RegisterHook(x, func(g *tensor.Tensor) *tensor.Tensor { return g.MulScalar(10) })
	x.MulScalar(2).SumAll().Backward()
	fmt.Println(x.Grad().Float64s())
	// Output: [20 20]
}
