package library_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// cube(x, k) = k x³ with a hand-written derivative 3k x², its kernel
// reading raw values (so that gradients can only come from the formula).
var cube = library.Define("libtest::cube(Tensor x, float k) -> Tensor")

// wsum(xs, w) = Σ xs[i] * w: gradients for each element of a tensor list.
var wsum = library.Define("libtest::wsum(Tensor[] xs, Tensor w) -> Tensor")

// gradMode records what the kernels see of the grad mode.
var gradMode []bool

func init() {
	cube.Impl("CPU", func(a library.Args) any {
		gradMode = append(gradMode, autograd.IsGradEnabled())
		x := a.Tensor("x")
		v := x.Float64s()
		for i := range v {
			v[i] = a.Float("k") * v[i] * v[i] * v[i]
		}
		return tensor.FromSlice(v, x.Shape()...).To(x.DType())
	})
	cube.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
	cube.RegisterAutograd(func(ctx *library.Ctx, grads []*T) []any {
		x := ctx.SavedTensors()[0]
		k := ctx.Data.(float64)
		if !ctx.NeedsInputGrad(0) || ctx.NeedsInputGrad(1) {
			panic("NeedsInputGrad")
		}
		return []any{grads[0].Mul(x).Mul(x).MulScalar(3 * k), nil}
	}, func(ctx *library.Ctx, in library.Args, out any) {
		ctx.SaveForBackward(in.Tensor("x"))
		ctx.Data = in.Float("k")
	})

	wsum.Impl("CPU", func(a library.Args) any {
		w := a.Tensor("w")
		var acc *T
		for _, x := range a.Tensors("xs") {
			if acc == nil {
				acc = x.Mul(w)
			} else {
				acc = acc.Add(x.Mul(w))
			}
		}
		return acc
	})
	wsum.RegisterFake(func(a library.Args) any { return a.Tensor("w").EmptyLike() })
	wsum.RegisterAutograd(func(ctx *library.Ctx, grads []*T) []any {
		saved := ctx.SavedTensors()
		w, xs := saved[0], saved[1:]
		gx := make([]*T, len(xs))
		var gw *T
		for i, x := range xs {
			gx[i] = grads[0].Mul(w)
			if gw == nil {
				gw = grads[0].Mul(x)
			} else {
				gw = gw.Add(grads[0].Mul(x))
			}
		}
		return []any{gx, gw}
	}, func(ctx *library.Ctx, in library.Args, out any) {
		ctx.SaveForBackward(append([]*T{in.Tensor("w")}, in.Tensors("xs")...)...)
	})
}

func TestRegisterAutograd(t *testing.T) {
	x := autograd.RequiresGrad(vec(1, -2, 3))
	gradMode = nil
	y := cube.Call(x, 2).(*T)
	if !y.RequiresGrad() {
		t.Fatal("the result does not require grad")
	}
	y.SumAll().Backward()
	if !close(x.Grad().Float64s(), []float64{6, 24, 54}) {
		t.Errorf("grad %v", x.Grad().Float64s())
	}
	if len(gradMode) != 1 || gradMode[0] {
		t.Errorf("the kernel saw grad mode %v; it runs below autograd", gradMode)
	}
	// Gradcheck in float64, first and through the op twice.
	f := func(in []*T) []*T { return []*T{cube.Call(cube.Call(in[0], 0.5), 1.5).(*T)} }
	if err := autograd.Gradcheck(f, []*T{autograd.RequiresGrad(vec(0.3, -1.2, 0.7))}); err != nil {
		t.Error(err)
	}
	// A tensor list: each element gets its gradient.
	xs := []*T{autograd.RequiresGrad(vec(1, 2)), autograd.RequiresGrad(vec(3, 4))}
	w := autograd.RequiresGrad(vec(5, 6))
	wsum.Call(xs, w).(*T).SumAll().Backward()
	if !close(xs[0].Grad().Float64s(), []float64{5, 6}) || !close(xs[1].Grad().Float64s(), []float64{5, 6}) || !close(w.Grad().Float64s(), []float64{4, 6}) {
		t.Errorf("wsum grads %v %v %v", xs[0].Grad().Float64s(), xs[1].Grad().Float64s(), w.Grad().Float64s())
	}
	g := func(in []*T) []*T { return []*T{wsum.Call(in[:2], in[2]).(*T)} }
	if err := autograd.Gradcheck(g, []*T{autograd.RequiresGrad(vec(0.1, 0.2)), autograd.RequiresGrad(vec(-1, 2)), autograd.RequiresGrad(vec(3, -0.5))}); err != nil {
		t.Error(err)
	}
	// Without grad, no history.
	var z *T
	autograd.NoGrad(func() { z = cube.Call(x, 2).(*T) })
	if z.RequiresGrad() {
		t.Error("NoGrad result requires grad")
	}
}

var (
	badCount = library.Define("libtest::bad_count(Tensor x, float k) -> Tensor")
	badKind  = library.Define("libtest::bad_kind(Tensor[] xs) -> Tensor")
	noGrad   = library.Define("libtest::no_grad(Tensor x) -> Tensor")
)

func init() {
	for _, op := range []*library.Op{badCount, noGrad} {
		op.Impl("CPU", func(a library.Args) any { return a.Tensor("x").MulScalar(2) })
	}
	badCount.RegisterAutograd(func(ctx *library.Ctx, grads []*T) []any { return []any{grads[0]} },
		nil)
	badKind.Impl("CPU", func(a library.Args) any { return a.Tensors("xs")[0].Clone() })
	badKind.RegisterAutograd(func(ctx *library.Ctx, grads []*T) []any { return []any{grads[0]} }, nil)
}

func TestAutogradErrors(t *testing.T) {
	x := autograd.RequiresGrad(vec(1, 2))
	msg := errMsg(t, func() { badCount.Call(x, 1).(*T).SumAll().Backward() })
	if msg != "The backward formula for libtest::bad_count returned an incorrect number of gradients (expected 2, got 1). Expected one gradient for each forward input, or for each positional input to the operator. Use nil for inputs that do not require a gradient." {
		t.Errorf("count: %q", msg)
	}
	msg = errMsg(t, func() { badKind.Call([]*T{x}).(*T).SumAll().Backward() })
	if msg != "Expected the return from backward to be of the same structure as the inputs: the gradient of libtest::bad_kind's argument 'xs' (Tensor[]) must be a []*tensor.Tensor or nil" {
		t.Errorf("structure: %q", msg)
	}
	// No formula: the result's backward fails, as PyTorch's does.
	msg = errMsg(t, func() { noGrad.Call(x).(*T).SumAll().Backward() })
	if !strings.Contains(msg, "is not implemented") {
		t.Errorf("no formula: %q", msg)
	}
}
