package autograd_test

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

func f64(v ...float64) *T { return tensor.FromSlice(v) }

func leaf(v ...float64) *T { return f64(v...).SetRequiresGrad(true) }

func wantVals(t *testing.T, what string, got *T, want ...float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no gradient, want %v", what, want)
	}
	if !near(got.Float64s(), want, 1e-12) {
		t.Fatalf("%s: got %v, want %v", what, got.Float64s(), want)
	}
}

// mustPanic runs f and checks that it fails with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	err := tensor.Try(f)
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func TestBackwardWithGradientAndAccumulation(t *testing.T) {
	x := leaf(1, 2, 3)
	y := x.MulScalar(3)
	y.BackwardWith(f64(1, 10, 100))
	wantVals(t, "first", x.Grad(), 3, 30, 300)
	x.Mul(x).SumAll().Backward()
	wantVals(t, "accumulated", x.Grad(), 5, 34, 306)
	autograd.SetGrad(x, nil)
	if x.Grad() != nil {
		t.Fatal("SetGrad(nil) kept the gradient")
	}
	if !x.IsLeaf() || y.IsLeaf() || !y.RequiresGrad() {
		t.Fatal("leaf flags")
	}
	if n := autograd.GradFn(y).Name(); n != "MulBackward0" {
		t.Fatalf("grad_fn %s", n)
	}
}

func TestBackwardErrors(t *testing.T) {
	x := leaf(1, 2)
	mustPanic(t, "grad can be implicitly created only for scalar outputs", func() { x.MulScalar(2).Backward() })
	mustPanic(t, "element 0 of tensors does not require grad", func() { f64(1).Backward() })
	mustPanic(t, "Mismatch in shape", func() { x.MulScalar(2).BackwardWith(f64(1, 2, 3)) })
	mustPanic(t, "only Tensors of floating point dtype can require gradients", func() {
		tensor.FromSlice([]int64{1}).SetRequiresGrad(true)
	})
	mustPanic(t, "does not require grad", func() {
		autograd.Grad([]*T{x.SumAll()}, []*T{f64(1)}, nil)
	})
}

func TestRetainGraph(t *testing.T) {
	x := leaf(1, 2)
	y := x.Exp().SumAll()
	autograd.Backward(y, nil, autograd.Options{RetainGraph: true})
	autograd.Backward(y, nil)
	wantVals(t, "twice", x.Grad(), 2*math.E, 2*math.Exp(2))
	mustPanic(t, "Trying to backward through the graph a second time", func() { y.Backward() })
	// A graph whose nodes saved nothing can run again (PyTorch too).
	z := x.AddScalar(1).SumAll()
	z.Backward()
	z.Backward()
}

func TestAllowUnused(t *testing.T) {
	x, u := leaf(1, 2), leaf(3)
	y := x.Mul(x).SumAll()
	mustPanic(t, "appears to not have been used in the graph", func() {
		autograd.Grad([]*T{y}, []*T{x, u}, nil, autograd.Options{RetainGraph: true})
	})
	g := autograd.Grad([]*T{y}, []*T{x, u}, nil, autograd.Options{AllowUnused: true})
	wantVals(t, "used", g[0], 2, 4)
	if g[1] != nil {
		t.Fatal("unused input got a gradient")
	}
	if x.Grad() != nil {
		t.Fatal("Grad touched .Grad")
	}
}

func TestDoubleBackward(t *testing.T) {
	x := leaf(1, 2, 3)
	y := x.PowScalar(3).SumAll()
	g := autograd.Grad([]*T{y}, []*T{x}, nil, autograd.Options{CreateGraph: true})
	wantVals(t, "first", g[0], 3, 12, 27)
	g2 := autograd.Grad([]*T{g[0].SumAll()}, []*T{x}, nil, autograd.Options{CreateGraph: true})
	wantVals(t, "second", g2[0], 6, 12, 18)
	g3 := autograd.Grad([]*T{g2[0].SumAll()}, []*T{x}, nil)
	wantVals(t, "third", g3[0], 6, 6, 6)
	// Backward with create_graph accumulates a differentiable .Grad.
	w := leaf(2)
	autograd.Backward(w.Mul(w).Mul(w), nil, autograd.Options{CreateGraph: true})
	gw := w.Grad()
	wantVals(t, "grad", gw, 12)
	hh := autograd.Grad([]*T{gw}, []*T{w}, nil)
	wantVals(t, "grad of grad", hh[0], 12)
}

func TestDetachAndModes(t *testing.T) {
	x := leaf(1, 2)
	d := x.Detach()
	if d.RequiresGrad() || !d.IsLeaf() {
		t.Fatal("detach kept history")
	}
	d.MulScalar_(2) // shares data and version counter
	wantVals(t, "shared data", x.Detach(), 2, 4)
	if x.Version() != d.Version() || x.Version() == 0 {
		t.Fatalf("versions %d %d", x.Version(), d.Version())
	}
	var y *T
	autograd.NoGrad(func() {
		if autograd.IsGradEnabled() {
			t.Fatal("grad enabled inside NoGrad")
		}
		y = x.MulScalar(2)
		x.AddScalar_(1) // in-place on a leaf is allowed without grad
	})
	if y.RequiresGrad() || !autograd.IsGradEnabled() {
		t.Fatal("NoGrad recorded or did not restore")
	}
	autograd.InferenceMode(func() { y = x.Exp() })
	if y.RequiresGrad() {
		t.Fatal("InferenceMode recorded")
	}
	restore := autograd.SetGradEnabled(false)
	y = x.Exp()
	var z *T
	autograd.EnableGrad(func() { z = x.Exp() })
	restore()
	if y.RequiresGrad() || !z.RequiresGrad() {
		t.Fatal("SetGradEnabled(false) recorded, or EnableGrad did not")
	}
}

func TestHooks(t *testing.T) {
	x := leaf(1, 2)
	var seen *T
	h := autograd.RegisterHook(x, func(g *T) *T { seen = g; return g.MulScalar(10) })
	y := x.MulScalar(3)
	autograd.RegisterHook(y, func(g *T) *T { return g.AddScalar(1) })
	autograd.RetainGrad(y)
	y.SumAll().Backward()
	wantVals(t, "hooked leaf", x.Grad(), 60, 60)
	wantVals(t, "seen", seen, 6, 6)
	wantVals(t, "retained", y.Grad(), 2, 2)
	h.Remove()
	autograd.SetGrad(x, nil)
	x.MulScalar(3).SumAll().Backward()
	wantVals(t, "removed hook", x.Grad(), 3, 3)
	mustPanic(t, "cannot register a hook on a tensor that doesn't require gradient", func() {
		autograd.RegisterHook(f64(1), func(g *T) *T { return g })
	})
}

// ---- in-place ops and views ----

func TestSavedTensorModifiedInPlace(t *testing.T) {
	x := leaf(1, 2)
	y := x.MulScalar(2)
	z := y.Exp() // exp saves its result
	z.AddScalar_(1)
	mustPanic(t, "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.DoubleTensor [2]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead", func() {
		z.SumAll().Backward()
	})
	// sin saves its input: modifying y breaks it.
	w := y.Sin()
	y.MulScalar_(3)
	mustPanic(t, "modified by an inplace operation", func() { w.SumAll().Backward() })
	// add saves nothing it reads: modifying its input is fine.
	a := x.MulScalar(1)
	b := a.AddScalar(1)
	a.MulScalar_(5)
	b.SumAll().Backward()
	wantVals(t, "add", x.Grad(), 1, 1)
}

func TestInPlaceOnLeafRefused(t *testing.T) {
	x := leaf(1, 2)
	mustPanic(t, "a leaf Variable that requires grad is being used in an in-place operation.", func() { x.AddScalar_(1) })
	mustPanic(t, "a view of a leaf Variable that requires grad is being used in an in-place operation.", func() {
		x.Select(0, 0).MulScalar_(2)
	})
	parts := x.MulScalar(1).SplitWithSizes([]int{1, 1})
	mustPanic(t, "is a view and is being modified inplace. This view is the output of a function that returns multiple views.", func() {
		parts[0].MulScalar_(2)
	})
}

func TestInPlaceRebasesHistory(t *testing.T) {
	x := leaf(1, 2, 3)
	y := x.MulScalar(2)
	y.Mul_(x) // y = 2x * x
	y.SumAll().Backward()
	wantVals(t, "mul_", x.Grad(), 4, 8, 12)
	if n := autograd.GradFn(y).Name(); n != "MulBackward0" {
		t.Fatalf("grad_fn %s", n)
	}
}

// CopySlices: writing into a view of a tensor changes the base's history.
func TestInPlaceOnView(t *testing.T) {
	x := leaf(1, 2, 3)
	base := x.MulScalar(1)
	base.Slice(tensor.WithStart(1), tensor.WithEnd(3)).MulScalar_(10)
	base.Mul(base).SumAll().Backward()
	// base = [x0, 10 x1, 10 x2]; d sum(base^2) = [2 x0, 200 x1, 200 x2]
	wantVals(t, "through view", x.Grad(), 2, 400, 600)
	if n := autograd.GradFn(base).Name(); n != "CopySlices" {
		t.Fatalf("base grad_fn %s", n)
	}

	// Writing a value that requires grad into a view of a plain tensor
	// makes the base require grad.
	v := leaf(5, 6)
	out := tensor.FullOf(tensor.Float64, 0, 2, 3)
	out.Select(1, 1).Copy_(v)
	if !out.RequiresGrad() {
		t.Fatal("base does not require grad after copy_ into its view")
	}
	out.Mul(tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)).SumAll().Backward()
	wantVals(t, "copy into view", v.Grad(), 2, 5)

	// A view made before an in-place change of its base sees the new history.
	a := leaf(1, 2, 3)
	b := a.MulScalar(1)
	view := b.Slice(tensor.WithStart(0), tensor.WithEnd(2))
	b.MulScalar_(3)
	view.SumAll().Backward()
	wantVals(t, "stale view", a.Grad(), 3, 3, 0)

	// Views of views, written twice.
	p := leaf(1, 2, 3, 4)
	q := p.MulScalar(1).View([]int{2, 2})
	row := q.Select(0, 1)
	row.Select(0, 0).MulScalar_(5)
	row.AddScalar_(1)
	q.SumAll().Backward()
	wantVals(t, "nested views", p.Grad(), 1, 1, 5, 1)
}

// Gradcheck of a function that writes into views of an intermediate.
func TestInPlaceViewGradcheck(t *testing.T) {
	f := func(in []*T) []*T {
		b := in[0].Clone()
		b.Select(0, 1).Mul_(in[1])
		b.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(2)).Sigmoid_()
		b.Diagonal().AddScalar_(1)
		return []*T{b.Exp()}
	}
	x := tensor.FromSlice([]float64{0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9}, 3, 3).SetRequiresGrad(true)
	w := tensor.FromSlice([]float64{1.5, -0.5, 2}).SetRequiresGrad(true)
	if err := autograd.Gradcheck(f, []*T{x, w}); err != nil {
		t.Fatal(err)
	}
	if err := autograd.Gradgradcheck(f, []*T{x, w}, []*T{tensor.FullOf(tensor.Float64, 1, 3, 3)}); err != nil {
		t.Fatal(err)
	}
}

func TestResizeAndOutRefused(t *testing.T) {
	x := leaf(1, 2)
	mustPanic(t, "cannot resize variables that require grad", func() { x.Resize_([]int{4}) })
	mustPanic(t, "out=... arguments don't support automatic differentiation", func() {
		tensor.CallKw("aten::atan2.out", []any{x, x}, map[string]any{"out": tensor.FullOf(tensor.Float64, 0, 2)})
	})
}

// More view shapes under in-place writes, checked with finite differences:
// a transposed view, an as_strided view (CopySlices with the base's
// geometry), a view of a view written twice, and a view whose base was
// itself written after the view was made.
func TestInPlaceViewsMixedGradcheck(t *testing.T) {
	f := func(in []*T) []*T {
		x, w := in[0], in[1]
		b := x.MulScalar(1) // 3x4
		tv := b.Permute([]int{1, 0})
		tv.Select(0, 2).Mul_(w)                                             // column 2 of b *= w
		b.AsStrided([]int{2}, []int{5}, tensor.WithStorageOffset(1)).Exp_() // b[0,1], b[1,2]
		r := b.Select(0, 2)
		r.Slice(tensor.WithStart(1), tensor.WithEnd(3)).Tanh_()
		r.Slice(tensor.WithStart(0), tensor.WithEnd(2)).Mul_(w.Slice(tensor.WithStart(0), tensor.WithEnd(2)))
		early := b.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(2))
		b.MulScalar_(0.5)
		return []*T{b.Sin(), early.Cos()}
	}
	x := tensor.FromSlice([]float64{0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 0.25, -0.35, 0.45}).Reshape([]int{3, 4}).SetRequiresGrad(true)
	w := tensor.FromSlice([]float64{1.5, -0.5, 2}).SetRequiresGrad(true)
	if err := autograd.Gradcheck(f, []*T{x, w}); err != nil {
		t.Fatal(err)
	}
}

var testOpN atomic.Int64

// An op outside the derivative table records a node that fails when a
// gradient reaches it, in place or not.
func TestOpWithoutDerivative(t *testing.T) {
	n := testOpN.Add(1) // a fresh name per run, so -count > 1 works
	op := tensor.RegisterOp(fmt.Sprintf("autogradtest::twice%d(Tensor self) -> Tensor", n))
	op.ImplBackend(tensor.CPU, func(op *tensor.Op, args []any) any { return args[0].(*T).MulScalar(2) })
	ip := tensor.RegisterOp(fmt.Sprintf("autogradtest::twice%d_(Tensor(a!) self) -> Tensor(a!)", n))
	ip.ImplBackend(tensor.CPU, func(op *tensor.Op, args []any) any { return args[0].(*T).MulScalar_(2) })
	x := leaf(1, 2)
	y := tensor.Call(op.Name, x).(*T)
	if !y.RequiresGrad() {
		t.Fatal("output of an op without derivative does not require grad")
	}
	mustPanic(t, fmt.Sprintf("the derivative for 'twice%d' is not implemented", n), func() { y.SumAll().Backward() })
	z := x.MulScalar(1)
	tensor.Call(ip.Name, z)
	mustPanic(t, fmt.Sprintf("the derivative for 'twice%d_' is not implemented", n), func() { z.SumAll().Backward() })
}
