package tensor

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

var testDev = RegisterDevice("testdev", DeviceHooks{})

var freshN atomic.Int64

// fresh registers a test op under a name made unique per call (name -> nameN),
// so the tests also run with -count > 1: registering a name twice panics.
func fresh(schema string) *Op {
	ns, rest, _ := strings.Cut(schema, "::")
	i := strings.IndexAny(rest, ".(")
	return RegisterOp(fmt.Sprintf("%s::%s%d%s", ns, rest[:i], freshN.Add(1), rest[i:]))
}

func TestDispatchOrderAndFallthrough(t *testing.T) {
	op := fresh("test::layers(Tensor self, int n=3, *, Scalar alpha=1) -> Tensor")
	var trail []string
	op.ImplBackend(CPU, func(op *Op, args []any) any { trail = append(trail, "cpu"); return args[0] })
	op.Impl(KeyAutograd, func(op *Op, d Dispatch, args []any) any {
		trail = append(trail, "autograd")
		return op.Redispatch(d, KeyAutograd, args)
	})
	op.ImplComposite(func(op *Op, args []any) any { trail = append(trail, "composite"); return args[0] })
	x := Empty(Float32, 2)
	Call(op.Name, x)
	x.Keys = x.Keys.With(KeyAutograd)
	Call(op.Name, x)
	y := NewMetaContiguous([]int{2}, Float32, testDev)
	Call(op.Name, y) // no kernel on testdev: the composite runs
	got := strings.Join(trail, ",")
	if got != "cpu,autograd,cpu,composite" {
		t.Fatalf("trail %s", got)
	}
}

func TestDispatchNoKernel(t *testing.T) {
	op := fresh("test::nokernel(Tensor self) -> Tensor")
	op.ImplBackend(CPU, func(op *Op, args []any) any { return args[0] })
	y := NewMetaContiguous([]int{2}, Float32, testDev)
	_, err := CallErr(op.Name, []any{y}, nil)
	if err == nil || !strings.Contains(err.Error(), op.Name+` has no lowering on device "testdev" and no decomposition`) {
		t.Fatalf("err = %v", err)
	}
}

func TestBindErrors(t *testing.T) {
	op := fresh("test::bind(Tensor self, int dim, int[2] size=1, *, bool flag=False, str? mode=None) -> Tensor")
	op.ImplBackend(CPU, func(op *Op, args []any) any { return args[0] })
	x := Empty(Float32, 2)
	cases := []struct {
		args []any
		kw   map[string]any
		want string
	}{
		{[]any{x}, nil, "missing value for argument 'dim'"},
		{[]any{x, 1, []int{1, 2}, 4}, nil, "expected at most 3 argument(s) but received 4"},
		{[]any{x, 1.5}, nil, "Expected a value of type 'int' for argument 'dim' but instead found type 'float'"},
		{[]any{x, 1}, map[string]any{"nope": 1}, "Unknown keyword argument 'nope'"},
		{[]any{x, 1}, map[string]any{"dim": 1}, "specified both as positional and keyword"},
		{[]any{x, 1}, map[string]any{"flag": "yes"}, "Expected a value of type 'bool' for argument 'flag'"},
		{[]any{"x", 1}, nil, "Expected a value of type 'Tensor' for argument 'self' but instead found type 'str'"},
	}
	for _, c := range cases {
		_, err := CallErr(op.Name, c.args, c.kw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("args %v kw %v: err %v, want %q", c.args, c.kw, err, c.want)
		}
		if e, ok := AsError(err); !ok || e.Kind != TypeError {
			t.Errorf("args %v: want a TypeError *Error, got %#v", c.args, err)
		}
	}
	args := op.Bind([]any{x, int64(1)}, map[string]any{"mode": "m"})
	if s := args[2].([]int); len(s) != 2 || s[0] != 1 || s[1] != 1 {
		t.Errorf("int[2] default 1 bound to %v", args[2])
	}
	if args[1] != 1 || args[3] != false || args[4] != "m" {
		t.Errorf("bound %v", args)
	}
}

// TestBindOneElementTensors: torch.ops (1.13) takes a one-element tensor
// for an int, float or bool argument and for an int list's element, as
// Python's int(t), float(t), bool(t); not in place of a whole list, and not
// when int(t) fails.
func TestBindOneElementTensors(t *testing.T) {
	op := fresh("test::bind1(Tensor self, int dim, int[2] size=1, float eps=0., bool flag=False) -> Tensor")
	op.ImplBackend(CPU, func(op *Op, args []any) any { return args[0] })
	x := Empty(Float32, 2)
	args := op.Bind([]any{x, FromScalar(Float(-1.7), Float32), []any{FromSlice([]int64{3}, 1, 1), 4},
		FromSlice([]float64{0.5}, 1), FromScalar(Int(2), Int64)}, nil)
	if args[1] != -1 {
		t.Errorf("dim bound to %v, want -1", args[1])
	}
	if s := args[2].([]int); s[0] != 3 || s[1] != 4 {
		t.Errorf("size bound to %v, want [3 4]", s)
	}
	if args[3] != 0.5 || args[4] != true {
		t.Errorf("eps, flag bound to %v, %v", args[3], args[4])
	}
	for _, bad := range [][]any{
		{x, FromScalar(Float(math.NaN()), Float32)},
		{x, FromScalar(Float(math.Inf(-1)), Float32)},
		{x, FromSlice([]int64{1, 1}, 2)},
		{x, Empty(Int64, 0)},
		{x, 0, FromScalar(Int(2), Int64)},
	} {
		if _, err := CallErr(op.Name, bad, nil); err == nil || !strings.Contains(err.Error(), "Expected a value of type") {
			t.Errorf("%v: err %v", bad[len(bad)-1], err)
		}
	}
}

func TestUnknownOp(t *testing.T) {
	_, err := CallErr("aten::no_such_op", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown operator "aten::no_such_op"`) {
		t.Fatalf("err %v", err)
	}
}

func TestMixedDevices(t *testing.T) {
	op := fresh("test::mix(Tensor self, Tensor other) -> Tensor")
	op.ImplBackend(CPU, func(op *Op, args []any) any { return args[0] })
	op.ImplBackend(testDev, func(op *Op, args []any) any { return args[0] })
	a := Empty(Float32, 2)
	b := NewMetaContiguous([]int{2}, Float32, testDev)
	_, err := CallErr(op.Name, []any{a, b}, nil)
	if err == nil || !strings.Contains(err.Error(), "Expected all tensors to be on the same device, but found at least two devices, cpu and testdev!") {
		t.Fatalf("err %v", err)
	}
	// A 0-d CPU tensor acts as a scalar on any device.
	if _, err := CallErr(op.Name, []any{b, FromScalar(Float(1), Float32)}, nil); err != nil {
		t.Fatalf("0-d cpu with testdev: %v", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	op := fresh("test::twice(Tensor self) -> Tensor")
	RegisterOp(op.Schema.String())
}

// An op with no Autograd kernel of its own but with a decomposition runs the
// decomposition above Autograd when an argument requires grad, and its
// backend kernel otherwise (the layer is skipped).
func TestDispatchCompositeAboveAutograd(t *testing.T) {
	saved := autogradHooks
	defer func() { autogradHooks = saved }()
	type marker struct{}
	autogradHooks = &AutogradHooks{RequiresGrad: func(t *Tensor) bool { _, ok := t.AutogradMeta.(marker); return ok }}
	var trail []string
	op := fresh("test::composite_above(Tensor self) -> Tensor")
	op.ImplBackend(CPU, func(op *Op, args []any) any { trail = append(trail, "cpu"); return args[0] })
	op.ImplComposite(func(op *Op, args []any) any { trail = append(trail, "composite"); return args[0] })
	own := fresh("test::composite_own(Tensor self) -> Tensor")
	own.ImplBackend(CPU, func(op *Op, args []any) any { trail = append(trail, "cpu"); return args[0] })
	own.ImplComposite(func(op *Op, args []any) any { trail = append(trail, "composite"); return args[0] })
	own.Impl(KeyAutograd, func(op *Op, d Dispatch, args []any) any {
		trail = append(trail, "autograd")
		return op.Redispatch(d, KeyAutograd, args)
	})
	x := Empty(Float32, 2)
	Call(op.Name, x)
	Call(own.Name, x)
	x.Keys = x.Keys.With(KeyAutograd)
	Call(op.Name, x) // the key, but nothing requires grad: the layer is skipped
	x.AutogradMeta = marker{}
	Call(op.Name, x)
	Call(own.Name, x)
	undo := ExcludeKey(KeyAutograd)
	Call(op.Name, x)
	undo()
	got := strings.Join(trail, ",")
	if want := "cpu,cpu,cpu,composite,autograd,cpu,cpu"; got != want {
		t.Fatalf("trail %s, want %s", got, want)
	}
}

// ImplOut registers an out kernel per op and device, once, for functional
// ops whose results are tensors; OutKernelFor finds it, nil elsewhere.
func TestImplOut(t *testing.T) {
	op := fresh("test::outk(Tensor self) -> (Tensor, Tensor)")
	if op.OutKernelFor(CPU) != nil {
		t.Fatal("an out kernel before one was registered")
	}
	called := 0
	op.ImplOut(CPU, func(outs []*Tensor, _ *Op, _ []any) { called += len(outs) })
	k := op.OutKernelFor(CPU)
	if k == nil || op.OutKernelFor(testDev) != nil {
		t.Fatal("OutKernelFor: not found on the CPU, or found on another device")
	}
	k(make([]*Tensor, 2), op, nil)
	if called != 2 {
		t.Fatalf("the registered kernel was not the one found (%d)", called)
	}
	panics := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	noop := func([]*Tensor, *Op, []any) {}
	panics("a second registration", func() { op.ImplOut(CPU, noop) })
	panics("a view op", func() { fresh("test::outv(Tensor(a) self) -> Tensor(a)").ImplOut(CPU, noop) })
	panics("an in-place op", func() { fresh("test::outi_(Tensor(a!) self) -> Tensor(a!)").ImplOut(CPU, noop) })
	panics("a list result", func() { fresh("test::outl(Tensor self) -> Tensor[]").ImplOut(CPU, noop) })
}
