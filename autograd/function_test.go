package autograd_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// myExp saves its output for backward, the classic example.
type myExp struct{}

func (myExp) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	y := in[0].(*T).Exp()
	ctx.SaveForBackward(y)
	return []*T{y}
}

func (myExp) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T {
	y := ctx.SavedTensors()[0]
	return []*T{g[0].Mul(y)}
}

// scaledMul is a*b*k with a non-tensor argument and needs_input_grad.
type scaledMul struct{ calls []bool }

func (f *scaledMul) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	a, b, k := in[0].(*T), in[1].(*T), in[2].(float64)
	ctx.SaveForBackward(a, b)
	ctx.Data = k
	return []*T{a.Mul(b).MulScalar(k)}
}

func (f *scaledMul) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T {
	s := ctx.SavedTensors()
	k := ctx.Data.(float64)
	f.calls = []bool{ctx.NeedsInputGrad(0), ctx.NeedsInputGrad(1), ctx.NeedsInputGrad(2)}
	var ga, gb *T
	if ctx.NeedsInputGrad(0) {
		ga = g[0].Mul(s[1]).MulScalar(k)
	}
	if ctx.NeedsInputGrad(1) {
		gb = g[0].Mul(s[0]).MulScalar(k)
	}
	return []*T{ga, gb, nil}
}

// sortWithIndices returns sorted values and their (non-differentiable) indices.
type sortWithIndices struct{ gotGrads []*T }

func (f *sortWithIndices) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	v, i := in[0].(*T).Sort(tensor.WithDim(0))
	ctx.MarkNonDifferentiable(i)
	ctx.SaveForBackward(i)
	return []*T{v, i}
}

func (f *sortWithIndices) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T {
	f.gotGrads = g
	i := ctx.SavedTensors()[0]
	return []*T{g[0].NewZeros(g[0].Shape()).Scatter(0, i, g[0])}
}

// double_ multiplies its input by 2 in place (mark_dirty).
type double_ struct{}

func (double_) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	x := in[0].(*T)
	x.MulScalar_(2)
	ctx.MarkDirty(x)
	return []*T{x}
}

func (double_) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T { return []*T{g[0].MulScalar(2)} }

// wrongGrad has a backward that is off by a factor, for gradcheck to catch.
type wrongGrad struct{}

func (wrongGrad) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	return []*T{in[0].(*T).Mul(in[0].(*T))}
}

func (wrongGrad) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T { return []*T{g[0].MulScalar(3)} }

func TestCustomFunction(t *testing.T) {
	x := tensor.FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
	y := autograd.Apply(myExp{}, x)[0]
	if n := autograd.GradFn(y).Name(); n != "myExpBackward" {
		t.Fatalf("grad_fn %s", n)
	}
	if err := autograd.Gradcheck(func(in []*T) []*T { return autograd.Apply(myExp{}, in[0]) }, []*T{x}); err != nil {
		t.Fatal(err)
	}
	// Double backward through a custom function whose backward uses ops.
	if err := autograd.Gradgradcheck(func(in []*T) []*T { return autograd.Apply(myExp{}, in[0]) }, []*T{x},
		[]*T{tensor.FromSlice([]float64{1, 2, 3})}); err != nil {
		t.Fatal(err)
	}
	// Modifying the saved output in place is caught.
	z := autograd.Apply(myExp{}, x)[0]
	z.AddScalar_(1)
	mustPanic(t, "modified by an inplace operation", func() { z.SumAll().Backward() })
}

func TestCustomFunctionNeedsInputGrad(t *testing.T) {
	a := leaf(1, 2)
	b := f64(3, 4)
	f := &scaledMul{}
	autograd.Apply(f, a, b, 0.5)[0].SumAll().Backward()
	wantVals(t, "a", a.Grad(), 1.5, 2)
	if !f.calls[0] || f.calls[1] || f.calls[2] {
		t.Fatalf("needs_input_grad %v", f.calls)
	}
	if err := autograd.Gradcheck(func(in []*T) []*T { return autograd.Apply(&scaledMul{}, in[0], in[1], 1.5) },
		[]*T{leaf(1, -2), leaf(0.5, 3)}); err != nil {
		t.Fatal(err)
	}
}

func TestCustomFunctionNonDifferentiable(t *testing.T) {
	x := leaf(3, 1, 2)
	f := &sortWithIndices{}
	out := autograd.Apply(f, x)
	if out[1].RequiresGrad() {
		t.Fatal("indices require grad")
	}
	out[0].Mul(f64(1, 2, 3)).SumAll().Backward()
	wantVals(t, "sorted", x.Grad(), 3, 1, 2)
	if f.gotGrads[1] != nil {
		t.Fatal("an integer output got a materialized gradient")
	}
}

func TestCustomFunctionMarkDirty(t *testing.T) {
	x := leaf(1, 2)
	y := x.MulScalar(1)
	out := autograd.Apply(double_{}, y)[0]
	if out != y {
		t.Fatal("a dirty input is not returned as itself")
	}
	wantVals(t, "values", y.Detach(), 2, 4)
	y.SumAll().Backward()
	wantVals(t, "grad", x.Grad(), 2, 2)
	mustPanic(t, "a leaf Variable that requires grad is being used in an in-place operation", func() {
		autograd.Apply(double_{}, leaf(1))
	})
	// A dirty view rebases its base.
	p := leaf(1, 2, 3)
	q := p.MulScalar(1)
	autograd.Apply(double_{}, q.Slice(tensor.WithStart(1), tensor.WithEnd(3)))
	q.SumAll().Backward()
	wantVals(t, "dirty view", p.Grad(), 1, 2, 2)
}

func TestGradcheckCatchesWrongBackward(t *testing.T) {
	err := autograd.Gradcheck(func(in []*T) []*T { return autograd.Apply(wrongGrad{}, in[0]) }, []*T{leaf(1, 2)})
	if err == nil || !strings.Contains(err.Error(), "Jacobian mismatch") {
		t.Fatalf("gradcheck missed a wrong backward: %v", err)
	}
}

func TestCustomFunctionWrongGradCount(t *testing.T) {
	x := leaf(1)
	y := autograd.Apply(badCount{}, x)[0]
	mustPanic(t, "returned an incorrect number of gradients (expected 1, got 2)", func() { y.SumAll().Backward() })
}

type badCount struct{}

func (badCount) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	return []*T{in[0].(*T).MulScalar(2)}
}
func (badCount) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T { return []*T{g[0], g[0]} }
