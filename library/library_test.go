package library_test

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

type T = tensor.Tensor

// fileLine matches the registration sites messages name.
var fileLine = regexp.MustCompile(`/\S*library_test\.go:\d+`)

func vec(v ...float64) *T { return tensor.FromSlice(v) }

func close(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6*(1+math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// One op with every kind of argument: tensors, a tensor list, an optional
// tensor, ints, floats, a string, keyword-only arguments with defaults.
var mix = library.Define("libtest::mix(Tensor x, Tensor[] ys, Tensor? bias=None, int n=2, *, float alpha=1., str mode=\"sum\") -> Tensor")

func init() {
	mix.Impl("CPU", func(a library.Args) any {
		acc := a.Tensor("x").MulScalar(a.Float("alpha"))
		for _, y := range a.Tensors("ys") {
			acc = acc.Add(y)
		}
		if b := a.Tensor("bias"); b != nil {
			acc = acc.Add(b)
		}
		acc = acc.MulScalar(a.Int("n"))
		if a.Str("mode") == "neg" {
			acc = acc.Neg()
		}
		return acc
	})
}

func TestCallForms(t *testing.T) {
	x, y1, y2, b := vec(1, 2), vec(10, 20), vec(100, 200), vec(1000, 2000)
	want := func(alpha, n float64, bias, neg bool) []float64 {
		out := make([]float64, 2)
		for i := range out {
			v := x.Float64s()[i]*alpha + y1.Float64s()[i] + y2.Float64s()[i]
			if bias {
				v += b.Float64s()[i]
			}
			v *= n
			if neg {
				v = -v
			}
			out[i] = v
		}
		return out
	}
	ys := []*T{y1, y2}
	cases := []struct {
		name string
		got  func() any
		want []float64
	}{
		{"tensor.Call", func() any { return tensor.Call("libtest::mix", x, ys) }, want(1, 2, false, false)},
		{"goaten.Call .default", func() any { return gt.Call("libtest::mix.default", x, ys, b, 3) }, want(1, 3, true, false)},
		{"tensor.CallKw", func() any {
			return tensor.CallKw("libtest::mix", []any{x, ys}, map[string]any{"alpha": 0.5, "mode": "neg"})
		}, want(0.5, 2, false, true)},
		{"Op.Call Kw", func() any { return mix.Call(x, ys, nil, 1, library.Kw{"alpha": 2.0}) }, want(2, 1, false, false)},
		{"CallAs", func() any { return library.CallAs[*T](mix, x, []any{y1, y2}, b) }, want(1, 2, true, false)},
	}
	for _, c := range cases {
		got := c.got().(*T)
		if !close(got.Float64s(), c.want) {
			t.Errorf("%s: %v, want %v", c.name, got.Float64s(), c.want)
		}
	}
	// Binding errors are PyTorch's TypeErrors.
	if msg := errMsg(t, func() { mix.Call(x, ys, library.Kw{"beta": 1.0}) }); msg != "Unknown keyword argument 'beta' for operator 'libtest::mix'" {
		t.Errorf("unknown keyword: %q", msg)
	}
	if msg := errMsg(t, func() { mix.Call(x) }); msg != "libtest::mix() is missing value for argument 'ys'" {
		t.Errorf("missing argument: %q", msg)
	}
	if msg := errMsg(t, func() { library.CallAs[[]*T](mix, x, ys) }); msg != "library: libtest::mix returned *tensor.Tensor, not []*tensor.Tensor" {
		t.Errorf("CallAs type: %q", msg)
	}
	if _, err := mix.CallErr(x, ys, library.Kw{"mode": 3}); err == nil {
		t.Errorf("CallErr: no error for a str given an int")
	}
	if op, ok := library.Lookup("libtest::mix"); !ok || op != mix || op.Name() != "libtest::mix" {
		t.Errorf("Lookup: %v %v", op, ok)
	}
	if _, ok := library.Lookup("aten::add.Tensor"); ok {
		t.Errorf("Lookup found an aten op")
	}
}

// Returns of several kinds: a tuple of tensors, a tensor list, numbers,
// nothing.
var (
	split2  = library.Define("libtest::split2(Tensor x) -> (Tensor, Tensor)")
	chunks  = library.Define("libtest::chunks(Tensor x, int n) -> Tensor[]")
	numbers = library.Define("libtest::numbers(Tensor x) -> (int, float, bool, str)")
	fill    = library.Define("libtest::fill_(Tensor(a!) x, float v) -> ()")
)

func init() {
	split2.Impl("CPU", func(a library.Args) any {
		x := a.Tensor("x")
		return []*T{x.MulScalar(2), x.Neg()}
	})
	chunks.Impl("CPU", func(a library.Args) any {
		x := a.Tensor("x")
		out := make([]*T, a.Int("n"))
		for i := range out {
			out[i] = x.AddScalar(i)
		}
		return out
	})
	numbers.Impl("CPU", func(a library.Args) any {
		return []any{a.Tensor("x").Numel(), 1.5, true, "ok"}
	})
	fill.Impl("CPU", func(a library.Args) any {
		x := a.Tensor("x")
		x.Copy_(tensor.FullOf(x.DType(), a.Float("v"), x.Shape()...))
		return nil
	})
}

func TestReturnKinds(t *testing.T) {
	x := vec(1, 2, 3)
	r := split2.Call(x).([]*T)
	if !close(r[0].Float64s(), []float64{2, 4, 6}) || !close(r[1].Float64s(), []float64{-1, -2, -3}) {
		t.Errorf("split2: %v %v", r[0].Float64s(), r[1].Float64s())
	}
	c := library.CallAs[[]*T](chunks, x, 3)
	if len(c) != 3 || !close(c[2].Float64s(), []float64{3, 4, 5}) {
		t.Errorf("chunks: %v", c)
	}
	n := numbers.Call(x).([]any)
	if n[0] != 3 || n[1] != 1.5 || n[2] != true || n[3] != "ok" {
		t.Errorf("numbers: %v", n)
	}
	y := vec(1, 2)
	if res := fill.Call(y, 7); res != nil {
		t.Errorf("fill_ returned %v", res)
	}
	if !close(y.Float64s(), []float64{7, 7}) {
		t.Errorf("fill_ wrote %v", y.Float64s())
	}
}

// A kernel's results are checked against the schema's returns.
var badKernel = library.Define("libtest::bad_kernel(Tensor x) -> (Tensor, Tensor)")

func init() {
	badKernel.Impl("CPU", func(a library.Args) any { return a.Tensor("x").Clone() })
}

func TestKernelReturnCheck(t *testing.T) {
	got := errMsg(t, func() { badKernel.Call(vec(1)) })
	want := "libtest::bad_kernel: the CPU kernel returned a *tensor.Tensor, but the schema libtest::bad_kernel(Tensor x) -> (Tensor, Tensor) returns 2 tensors: return a []*tensor.Tensor of length 2"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Misuse, in PyTorch's words.
func TestRegistrationErrors(t *testing.T) {
	lib := library.New("libtest_reg")
	lib.Define("foo(Tensor x) -> Tensor")
	here := func(msg string) string { return fileLine.ReplaceAllString(msg, "library_test.go:N") }
	cases := []struct {
		name string
		f    func()
		want string
	}{
		{"redefinition", func() { lib.Define("foo(Tensor x) -> Tensor") },
			"Tried to register an operator (libtest_reg::foo(Tensor x) -> Tensor) with the same name and overload name multiple times. Each overload's schema should only be registered with a single call to def(). Duplicate registration: registered at library_test.go:N. Original registration: registered at library_test.go:N"},
		{"redefinition of aten", func() { library.Define("aten::relu(Tensor self) -> Tensor") },
			"Tried to register an operator (aten::relu(Tensor self) -> Tensor) with the same name and overload name multiple times. Each overload's schema should only be registered with a single call to def(). Duplicate registration: registered at library_test.go:N. Original registration: registered at goaten's built-in op tables"},
		{"second TORCH_LIBRARY", func() { library.New("libtest_reg") },
			"Only a single TORCH_LIBRARY can be used to register the namespace libtest_reg; please put all of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to define operators for a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY was registered at library_test.go:N; latest registration was registered at library_test.go:N"},
		{"TORCH_LIBRARY aten", func() { library.New("aten") },
			"Only a single TORCH_LIBRARY can be used to register the namespace aten; please put all of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to define operators for a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY was registered at goaten's core op table (aten/core); latest registration was registered at library_test.go:N"},
		{"reserved namespace", func() { library.New("prim") },
			"prim is a reserved namespace. Please try creating a library with another name."},
		{"impl for an undefined op", func() { library.Impl("libtest_reg::nope", "CPU", func(library.Args) any { return nil }) },
			"operator libtest_reg::nope does not exist"},
		{"fake for an undefined op", func() { library.RegisterFake("libtest_reg::nope", func(library.Args) any { return nil }) },
			"operator libtest_reg::nope does not exist"},
		{"unqualified name", func() { library.Impl("foo", "CPU", func(library.Args) any { return nil }) },
			"Expected `qualname` to be of the form \"namespace::name\", but got foo. The qualname passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin"},
		{"double impl", func() {
			lib.Impl("foo", "CPU", func(a library.Args) any { return a.Tensor("x") })
			library.Impl("libtest_reg::foo", tensor.CPU, func(a library.Args) any { return a.Tensor("x") })
		}, "This is not allowed since there's already a kernel registered from python overriding foo's behavior for CPU dispatch key and libtest_reg namespace."},
		{"unknown key", func() { lib.Impl("foo", "XLA", func(library.Args) any { return nil }) },
			"could not parse dispatch key: XLA"},
		{"namespace mismatch in def", func() { lib.Define("other::bar(Tensor x) -> Tensor") },
			"Explicitly provided namespace (other) in schema string does not match namespace of enclosing TORCH_LIBRARY block (libtest_reg).  Move this definition to the (unique) TORCH_LIBRARY block corresponding to this namespace (and consider deleting the namespace from your schema string.)  (Error occurred while processing TORCH_LIBRARY block at library_test.go:N)"},
		{"namespace mismatch in impl", func() { lib.Impl("other::foo", "CPU", func(library.Args) any { return nil }) },
			"impl(\"other::foo\", ...): Explicitly provided namespace (other) in operator name does not match namespace of enclosing TORCH_LIBRARY block (libtest_reg).  Move this definition to the TORCH_LIBRARY block corresponding to this namespace (and consider deleting the namespace from your schema string.)  (Error occurred while processing TORCH_LIBRARY block at library_test.go:N)"},
		{"def in an IMPL block", func() { library.NewImpl("libtest_reg", "CPU").Define("baz(Tensor x) -> Tensor") },
			"def(\"libtest_reg::baz\"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.  (Error occurred while processing TORCH_LIBRARY_IMPL block at library_test.go:N)"},
		{"key of an IMPL block", func() {
			library.NewImpl("libtest_reg", "Meta").Impl("foo", "CPU", func(library.Args) any { return nil })
		}, "impl(\"foo\", ...): Explicitly provided dispatch key (CPU) is inconsistent with the dispatch key of the enclosing TORCH_LIBRARY_IMPL block (Meta).  Please declare a separate TORCH_LIBRARY_IMPL block for this dispatch key and move your impl() there.  (Error occurred while processing TORCH_LIBRARY_IMPL block at library_test.go:N)"},
		{"wildcard TORCH_LIBRARY", func() { library.New("_") },
			"TORCH_LIBRARY: cannot define TORCH_LIBRARY with the wildcard namespace _ (every TORCH_LIBRARY defines operators for a distinct namespace!) Did you mean to use TORCH_LIBRARY_IMPL instead?  (Error occurred while processing TORCH_LIBRARY block at library_test.go:N)"},
		{"fake after a Meta kernel", func() {
			lib.Impl("foo", "Meta", func(a library.Args) any { return a.Tensor("x").EmptyLike() })
			lib.RegisterFake("foo", func(a library.Args) any { return a.Tensor("x").EmptyLike() })
		}, "register_fake(...): the operator libtest_reg::foo already has a DispatchKey::Meta implementation via a pre-existing torch.library or TORCH_LIBRARY registration. Please either remove that registration or don't call register_fake."},
		{"Meta kernel after a Meta kernel", func() { lib.Impl("foo", tensor.Meta, func(a library.Args) any { return nil }) },
			"This is not allowed since there's already a kernel registered from python overriding foo's behavior for Meta dispatch key and libtest_reg namespace."},
		{"an aten op", func() { library.Impl("aten::relu", "gonum", func(library.Args) any { return nil }) },
			"library: aten::relu was not defined with package library; goaten's own ops get their kernels from their packages (a device's from device.Register)"},
		{"Autograd key", func() { lib.Impl("foo", "Autograd", func(library.Args) any { return nil }) },
			"library: libtest_reg::foo: register the autograd formula with RegisterAutograd (it runs the op below autograd and records your backward)"},
	}
	for _, c := range cases {
		if got := here(errMsg(t, c.f)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}

	f := library.NewFragment("libtest_reg")
	g := f.Define("twice(Tensor x) -> Tensor")
	g.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
	if got := here(errMsg(t, func() { g.RegisterFake(func(a library.Args) any { return nil }) })); got !=
		"register_fake(...): the operator libtest_reg::twice already has a fake impl registered at library_test.go:N." {
		t.Errorf("second fake: %q", got)
	}
	ci := f.Define("ci(Tensor x) -> Tensor")
	ci.Impl("CompositeImplicitAutograd", func(a library.Args) any { return a.Tensor("x").Neg() })
	if got := errMsg(t, func() { ci.RegisterFake(func(a library.Args) any { return nil }) }); got !=
		"register_fake(...): the operator libtest_reg::ci already has an implementation for this device type via a pre-existing registration to DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd operators do not need a fake impl; instead, the operator will decompose into its constituents and those can have fake impls defined on them." {
		t.Errorf("fake of a composite: %q", got)
	}
	mut := f.Define("mut_(Tensor(a!) x) -> Tensor(a!)")
	if got := errMsg(t, func() { mut.RegisterAutograd(func(*library.Ctx, []*T) []any { return nil }, nil) }); got !=
		"Cannot register autograd formula for non-functional operator libtest_reg::mut_ with schema libtest_reg::mut_(Tensor(a!) x) -> Tensor(a!). Please create a functional operator and register an autograd formula for that." {
		t.Errorf("autograd of a mutating op: %q", got)
	}
	kwt := f.Define("kwt(Tensor x, *, Tensor y) -> Tensor")
	if got := errMsg(t, func() { kwt.RegisterAutograd(func(*library.Ctx, []*T) []any { return nil }, nil) }); got !=
		"register_autograd with kwarg-only Tensor args. In the original definition of the op, please make your tensors not kwarg-only. Got: libtest_reg::kwt(Tensor x, *, Tensor y) -> Tensor" {
		t.Errorf("autograd with kwarg-only tensors: %q", got)
	}
	if got := errMsg(t, func() { g.Impl("CPU", nil) }); got != "Input function is required to be a callable but found type <nil>" {
		t.Errorf("nil kernel: %q", got)
	}
}

// A kernel for the gonum example device, registered by its name: one
// computes with ops on the device's tensors, one reads and writes the
// device's raw data; a mutating op runs functionalized there.
var (
	gonumOps  = library.Define("libtest::gonum_axpy(Tensor x, Tensor y, float alpha) -> Tensor")
	gonumRaw  = library.Define("libtest::gonum_square(Tensor x) -> Tensor")
	gonumMut  = library.Define("libtest::gonum_double_(Tensor(a!) x) -> ()")
	gonumView = library.Define("libtest::gonum_ident(Tensor x) -> Tensor")
)

func init() {
	gonumOps.Impl("gonum", func(a library.Args) any {
		return a.Tensor("x").MulScalar(a.Float("alpha")).Add(a.Tensor("y"))
	})
	gonumRaw.Impl(newdevice.Device, func(a library.Args) any {
		x := a.Tensor("x")
		in := x.Raw().(newdevice.Array).Data
		out := make([]float64, len(in))
		for i, v := range in {
			out[i] = v * v
		}
		return tensor.NewMetaContiguous(x.Sizes(), x.DType(), newdevice.Device).WithRaw(newdevice.Array{Data: out})
	})
	gonumMut.Impl("gonum", func(a library.Args) any {
		x := a.Tensor("x")
		d := x.Raw().(newdevice.Array).Data
		for i := range d {
			d[i] *= 2
		}
		return nil
	})
	gonumView.Impl("gonum", func(a library.Args) any { return a.Tensor("x").Clone() })
}

func TestGonumDevice(t *testing.T) {
	on := func(v ...float64) *T { return vec(v...).ToDevice(newdevice.Device) }
	r := gonumOps.Call(on(1, 2), on(10, 20), 3).(*T)
	if r.Device() != newdevice.Device || !close(r.ToDevice(tensor.CPU).Float64s(), []float64{13, 26}) {
		t.Errorf("gonum_axpy: %s %v", r.Device(), r.ToDevice(tensor.CPU).Float64s())
	}
	s := tensor.Call("libtest::gonum_square", on(3, 4)).(*T)
	if s.Device() != newdevice.Device || !close(s.ToDevice(tensor.CPU).Float64s(), []float64{9, 16}) {
		t.Errorf("gonum_square: %s %v", s.Device(), s.ToDevice(tensor.CPU).Float64s())
	}
	// A view of a gonum tensor, written by the mutating op: the write
	// reaches the base, as with real aliasing.
	base := on(1, 2, 3, 4).View([]int{2, 2})
	row := base.Select(0, 1)
	gonumMut.Call(row)
	if got := base.ToDevice(tensor.CPU).Float64s(); !close(got, []float64{1, 2, 6, 8}) {
		t.Errorf("gonum_double_ through a view: base %v", got)
	}
	if got := gonumView.Call(base).(*T).ToDevice(tensor.CPU).Float64s(); !close(got, []float64{1, 2, 6, 8}) {
		t.Errorf("gonum_ident: %v", got)
	}
	// A custom view cannot be functionalized, as in PyTorch.
	if msg := errMsg(t, func() { tensor.Call("libtest::good_view", base) }); !strings.HasPrefix(msg,
		"Found a custom (non-ATen) operator whose output has alias annotations: libtest::good_view(Tensor(a) x) -> Tensor(a). We only support functionalizing operators whose outputs do not have alias annotations") {
		t.Errorf("a custom view on gonum: %q", msg)
	}
	// No CPU kernel: the op has no lowering there.
	if msg := errMsg(t, func() { gonumRaw.Call(vec(1)) }); !strings.Contains(msg, `has no lowering on device "cpu"`) {
		t.Errorf("gonum_square on the CPU: %q", msg)
	}
}

// A composite op decomposes: its gradients flow through the ops it runs,
// it runs on any device, and it needs no fake kernel.
var softsign = library.Define("libtest::softsign(Tensor x) -> Tensor")

func init() {
	softsign.Impl("CompositeImplicitAutograd", func(a library.Args) any {
		x := a.Tensor("x")
		return x.Div(x.Abs().AddScalar(1))
	})
}

func TestComposite(t *testing.T) {
	x := autograd.RequiresGrad(vec(-2, 0.5, 3))
	y := softsign.Call(x).(*T)
	y.SumAll().Backward()
	var want []float64
	for _, v := range []float64{-2, 0.5, 3} {
		want = append(want, 1/((1+math.Abs(v))*(1+math.Abs(v))))
	}
	if !close(x.Grad().Float64s(), want) {
		t.Errorf("grad %v, want %v", x.Grad().Float64s(), want)
	}
	g := softsign.Call(vec(-2, 0.5, 3).ToDevice(newdevice.Device)).(*T).ToDevice(tensor.CPU)
	if !close(g.Float64s(), []float64{-2.0 / 3, 0.5 / 1.5, 0.75}) {
		t.Errorf("on gonum: %v", g.Float64s())
	}
	m := softsign.Call(tensor.Empty(tensor.Float32, 2, 5).ToDevice(tensor.Meta)).(*T)
	if m.Device() != tensor.Meta || !slices.Equal(m.Sizes(), []int{2, 5}) {
		t.Errorf("on meta: %s %v", m.Device(), m.Sizes())
	}
}
