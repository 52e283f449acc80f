package library_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// Ops each wrong in one way OpCheck is meant to catch.
var (
	sneaky   = library.Define("libtest::sneaky(Tensor x) -> Tensor")             // writes x undeclared
	lazy     = library.Define("libtest::lazy_(Tensor(a!) x) -> ()")              // declares a write it does not do
	leak     = library.Define("libtest::leak(Tensor x) -> Tensor")               // returns its input
	notView  = library.Define("libtest::not_view(Tensor(a) x) -> Tensor(a)")     // declares a view, returns a copy
	twins    = library.Define("libtest::twins(Tensor x) -> (Tensor, Tensor)")    // two results sharing storage
	badShape = library.Define("libtest::bad_shape(Tensor x) -> Tensor")          // fake disagrees with the kernel
	badGrad  = library.Define("libtest::bad_grad(Tensor x) -> Tensor")           // wrong formula
	noAuto   = library.Define("libtest::no_autograd(Tensor x) -> Tensor")        // no formula
	noFakeOp = library.Define("libtest::no_fake(Tensor x) -> Tensor")            // no fake kernel
	goodView = library.Define("libtest::good_view(Tensor(a) x) -> Tensor(a)")    // a correct view op
	goodMut  = library.Define("libtest::good_mut_(Tensor(a!) x, float v) -> ()") // a correct mutating op
)

func init() {
	emptyLike := func(a library.Args) any { return a.Tensor("x").EmptyLike() }
	sneaky.Impl("CPU", func(a library.Args) any {
		x := a.Tensor("x")
		y := x.Clone()
		x.Add_(tensor.WrappedNumber(tensor.Int(1)))
		return y
	}).RegisterFake(emptyLike)
	lazy.Impl("CPU", func(a library.Args) any { return nil })
	leak.Impl("CPU", func(a library.Args) any { return a.Tensor("x") }).RegisterFake(emptyLike)
	notView.Impl("CPU", func(a library.Args) any { return a.Tensor("x").Clone() })
	twins.Impl("CPU", func(a library.Args) any {
		y := a.Tensor("x").Clone()
		return []*T{y, y.View([]int{-1})}
	})
	badShape.Impl("CPU", func(a library.Args) any { return a.Tensor("x").SumAll() }).RegisterFake(emptyLike)
	badGrad.Impl("CPU", func(a library.Args) any { return a.Tensor("x").Sin() }).RegisterFake(emptyLike).
		RegisterAutograd(func(ctx *library.Ctx, grads []*T) []any {
			return []any{grads[0].Mul(ctx.SavedTensors()[0].Sin())} // should be cos
		}, func(ctx *library.Ctx, in library.Args, _ any) { ctx.SaveForBackward(in.Tensor("x")) })
	noAuto.Impl("CPU", func(a library.Args) any { return a.Tensor("x").Sin() }).RegisterFake(emptyLike)
	noFakeOp.Impl("CPU", func(a library.Args) any { return a.Tensor("x").Sin() })
	goodView.Impl("CPU", func(a library.Args) any { return a.Tensor("x").View([]int{-1}) }).
		RegisterFake(func(a library.Args) any { return a.Tensor("x").View([]int{-1}) })
	goodMut.Impl("CPU", func(a library.Args) any {
		x := a.Tensor("x")
		x.Copy_(tensor.FullOf(x.DType(), a.Float("v"), x.Shape()...))
		return nil
	})
	gonumOps.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
}

func TestOpCheckPasses(t *testing.T) {
	x := func() *T { return tensor.Randn([]int{2, 3}, tensor.WithDtype(tensor.Float64)) }
	for _, c := range []struct {
		name    string
		samples []library.Sample
	}{
		{"libtest::cube", []library.Sample{{Args: []any{autograd.RequiresGrad(x()), 2.0}}, {Args: []any{x(), -1.0}}}},
		{"libtest::wsum", []library.Sample{{Args: []any{[]*T{x(), x()}, autograd.RequiresGrad(x())}}}},
		{"libtest::good_view", []library.Sample{{Args: []any{x()}}}},
		{"libtest::good_mut_", []library.Sample{{Args: []any{x(), 3.0}}}},
		{"libtest::softsign", []library.Sample{{Args: []any{autograd.RequiresGrad(x())}}}},
		{"goatenref::scale_add", []library.Sample{{Args: []any{x(), x(), 0.5}}}},
		{"libtest::gonum_axpy", []library.Sample{{Args: []any{x().ToDevice(newdevice.Device), x().ToDevice(newdevice.Device), 2.0}}}},
	} {
		if err := library.OpCheck(c.name, c.samples); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// The samples are left alone.
	y := x()
	before := y.Float64s()
	if err := library.OpCheck("libtest::good_mut_", []library.Sample{{Args: []any{y, 3.0}}}); err != nil || !close(y.Float64s(), before) {
		t.Errorf("good_mut_ changed its sample: %v", err)
	}
}

func TestOpCheckFailures(t *testing.T) {
	x := func() *T { return tensor.Randn([]int{2, 3}, tensor.WithDtype(tensor.Float64)) }
	one := []library.Sample{{Args: []any{x()}}}
	for _, c := range []struct {
		name    string
		samples []library.Sample
		want    string
	}{
		{"libtest::sneaky", one, "opcheck(libtest::sneaky, ...): test_schema failed with Argument x is not defined as mutable but was mutated (sample 0)"},
		{"libtest::lazy_", one, "opcheck(libtest::lazy_, ...): test_schema failed with libtest::lazy_: for argument 'x': the operator's schema libtest::lazy_(Tensor(a!) x) -> () specified that the operator mutates the argument, but this seems to be empirically wrong. Please make the schema and operator behavior consistent. You can specify that an operator mutates a Tensor by e.g. changing its schema type from 'Tensor name' to 'Tensor(a!) name'(use different identifiers (a, b, c, ...) for different Tensors) (sample 0)"},
		{"libtest::leak", one, "opcheck(libtest::leak, ...): test_schema failed with Argument x is not defined to alias output but was aliasing (sample 0)"},
		{"libtest::not_view", one, "opcheck(libtest::not_view, ...): test_schema failed with Argument x is defined to alias output 0 (Tensor(a)) but was not aliasing: return the argument or a view of it (sample 0)"},
		{"libtest::twins", one, "opcheck(libtest::twins, ...): test_schema failed with Outputs 0 and 1 alias unexpectedly (sample 0)"},
		{"libtest::bad_shape", one, "opcheck(libtest::bad_shape, ...): test_faketensor failed with When comparing the output of libtest::bad_shape on FakeTensor and concrete Tensors, found mismatched tensor metadata: output 0: Shapes [] (real) and [2, 3] (fake) are not equal! (sample 0)"},
		{"libtest::no_autograd", []library.Sample{{Args: []any{autograd.RequiresGrad(x())}}}, "opcheck(libtest::no_autograd, ...): test_autograd_registration failed with libtest::no_autograd: at least one input requires grad but the operator does not have an autograd kernel defined at an autograd key (register one with library.RegisterAutograd): its outputs' backward fails. If your operator consists of regular goaten operations, consider not using an operator at all or registering your operator as CompositeImplicitAutograd (sample 0)"},
		{"libtest::no_fake", one, "opcheck(libtest::no_fake, ...): test_faketensor failed with libtest::no_fake: There was no fake impl registered for libtest::no_fake.\nThis is necessary for compile.Compile/compile.Trace (fake mode) to work.\nPlease use `library.RegisterFake(\"libtest::no_fake\", ...)` to add an fake impl. (sample 0)"},
	} {
		err := library.OpCheck(c.name, c.samples)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
	err := library.OpCheck("libtest::bad_grad", []library.Sample{{Args: []any{x()}}, {Args: []any{x()}}})
	if err == nil || !strings.HasPrefix(err.Error(), "opcheck(libtest::bad_grad, ...): test_gradcheck failed with ") ||
		!strings.Contains(err.Error(), "(sample 1)") {
		t.Errorf("bad_grad: %v", err)
	}
}
