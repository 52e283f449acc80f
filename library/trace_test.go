package library_test

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// The custom op of ref_graphs_113.py (torch.library.Library("goatenref",
// "DEF") with CPU and Meta kernels), and one without a Meta kernel.
func init() {
	lib := library.New("goatenref")
	lib.Define("scale_add(Tensor x, Tensor y, float alpha) -> Tensor")
	lib.Impl("scale_add", "CPU", func(a library.Args) any {
		return a.Tensor("x").MulScalar(a.Float("alpha")).Add(a.Tensor("y"))
	})
	lib.Impl("scale_add", "Meta", func(a library.Args) any { return a.Tensor("x").EmptyLike() })
	lib.Define("no_meta(Tensor x) -> Tensor")
	lib.Impl("no_meta", "CPU", func(a library.Args) any { return a.Tensor("x").AddScalar(1) })
	// Mutates its input and returns nothing: its fake impl is trivial.
	lib.Define("inc_(Tensor(a!) x) -> ()")
	lib.Impl("inc_", "CPU", func(a library.Args) any {
		a.Tensor("x").Add_(tensor.WrappedNumber(tensor.Int(1)))
		return nil
	})
}

func useCustom(x, y *T) *T { return tensor.Call("goatenref::scale_add", x, y, 2.0).(*T).Relu() }

// refGraph is a section of compile/testdata/ref_graphs_113.out, PyTorch
// 1.13.1's make_fx output.
func refGraph(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile("../compile/testdata/ref_graphs_113.out")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "==== "+title+"\n")
	if !ok {
		t.Fatalf("no section %q", title)
	}
	body, _, _ := strings.Cut(rest, "\n\n")
	return body
}

func TestTraceCustomOp(t *testing.T) {
	want := refGraph(t, "make_fx custom op (fake mode)")
	x, y := tensor.Randn([]int{3}), tensor.Randn([]int{3})
	for _, mode := range []compile.Mode{compile.Fake, compile.Real} {
		gm, err := compile.Trace(useCustom, []*T{x, y}, compile.TraceOptions{Mode: mode, ArgNames: []string{"x", "y"}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if got := strings.TrimSpace(gm.Code()); got != want {
			t.Errorf("%s mode: got\n%s\nwant\n%s", mode, got, want)
		}
	}
	// Compiled, the graph runs the CPU kernel.
	f := compile.Compile(useCustom, compile.Options{Fullgraph: true})
	got, err := f.Call(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if w := useCustom(x, y); !close(got.(*T).Float64s(), w.Float64s()) {
		t.Errorf("compiled %v, eager %v", got.(*T).Float64s(), w.Float64s())
	}
}

const noFake = "There was no fake impl registered for goatenref::no_meta.\n" +
	"This is necessary for compile.Compile/compile.Trace (fake mode) to work.\n" +
	"Please use `library.RegisterFake(\"goatenref::no_meta\", ...)` to add an fake impl."

func TestNoFakeKernel(t *testing.T) {
	noMeta := func(x *T) *T { return tensor.Call("goatenref::no_meta", x).(*T) }
	x := tensor.Randn([]int{3})
	_, err := compile.Trace(noMeta, []*T{x}, compile.TraceOptions{Mode: compile.Fake})
	var te *tensor.Error
	if !errors.As(err, &te) || te.Msg != noFake || te.Kind != tensor.RuntimeError {
		t.Errorf("fake trace: %v", err)
	}
	// A real trace needs no fake kernel (make_fx's real mode).
	if _, err := compile.Trace(noMeta, []*T{x}, compile.TraceOptions{Mode: compile.Real}); err != nil {
		t.Errorf("real trace: %v", err)
	}
	// compile.Compile traces in fake mode: with Fullgraph the error is
	// the caller's, as torch.compile raises "no fake impl".
	if _, err := compile.Compile(noMeta, compile.Options{Fullgraph: true}).Call(x); !errors.As(err, &te) || te.Msg != noFake {
		t.Errorf("Compile(Fullgraph): %v", err)
	}
	// Without Fullgraph the function runs eagerly, and says why.
	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, format) }
	got, err := compile.Compile(noMeta, compile.Options{Logf: logf}).Call(x)
	if err != nil || !close(got.(*T).Float64s(), x.AddScalar(1).Float64s()) || len(logged) == 0 {
		t.Errorf("Compile: %v %v, log %v", got, err, logged)
	}
	// On meta tensors, the same error.
	if msg := errMsg(t, func() { tensor.Call("goatenref::no_meta", x.ToDevice(tensor.Meta)) }); msg != noFake {
		t.Errorf("meta tensors: %q", msg)
	}
}

// An op that mutates its inputs and returns nothing traces without a fake
// kernel (PyTorch 2's trivial fake impl).
func TestTrivialFake(t *testing.T) {
	fn := func(x *T) *T {
		y := x.Clone()
		tensor.Call("goatenref::inc_", y)
		return y.MulScalar(2)
	}
	x := tensor.FromSlice([]float32{1, 2})
	gm, err := compile.Trace(fn, []*T{x}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if code := gm.Code(); !strings.Contains(code, "torch.ops.goatenref.inc_.default(clone)") {
		t.Errorf("graph:\n%s", code)
	}
	got, err := compile.Compile(fn, compile.Options{Fullgraph: true}).Call(x)
	if err != nil || !close(got.(*T).Float64s(), []float64{4, 6}) {
		t.Errorf("compiled: %v %v", got, err)
	}
	if !close(x.Float64s(), []float64{1, 2}) {
		t.Errorf("input changed: %v", x.Float64s())
	}
}

// Fake kernels whose results contradict the schema fail when they run.
var (
	fakeTuple = library.Define("libtest::fake_tuple(Tensor x) -> Tensor")
	fakeAlias = library.Define("libtest::fake_alias(Tensor x) -> Tensor")
	fakeCPU   = library.Define("libtest::fake_cpu(Tensor x) -> Tensor")
	fakeView  = library.Define("libtest::fake_view(Tensor(a) x) -> Tensor(a)")
	fakeGood  = library.Define("libtest::fake_good(Tensor x, Tensor(a) y) -> (Tensor, Tensor(a))")
	fakeNew   = library.Define("libtest::fake_new(Tensor x) -> Tensor")
)

func init() {
	fakeTuple.RegisterFake(func(a library.Args) any { return []*T{a.Tensor("x").EmptyLike()} })
	fakeAlias.RegisterFake(func(a library.Args) any { return a.Tensor("x") })
	fakeCPU.RegisterFake(func(a library.Args) any { return tensor.Empty(tensor.Float32, 2) })
	fakeView.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
	fakeGood.RegisterFake(func(a library.Args) any {
		y := a.Tensor("y")
		return []*T{a.Tensor("x").EmptyLike(), y.View([]int{-1})}
	})
	fakeNew.RegisterFake(func(a library.Args) any {
		x := a.Tensor("x")
		return tensor.NewMetaContiguous([]int{x.Size(0), 2}, x.DType(), tensor.Meta)
	})
}

var traceFileLine = regexp.MustCompile(`/\S*trace_test\.go:\d+`)

func TestFakeChecks(t *testing.T) {
	m := func() *T { return tensor.Empty(tensor.Float32, 2, 3).ToDevice(tensor.Meta) }
	cases := []struct {
		op   *library.Op
		want string
	}{
		{fakeTuple, "libtest::fake_tuple: the fake impl (registered at trace_test.go:N) returned a []*tensor.Tensor of length 1, but the schema libtest::fake_tuple(Tensor x) -> Tensor returns Tensor: return a *tensor.Tensor"},
		{fakeAlias, "libtest::fake_alias (with implementation in trace_test.go:N): The output of this custom operator (1) must not also be an input to this custom operator and (2) may not alias any inputs to this custom operator or other returns. The most common way to trigger this error is if we have y = custom_op(x) and y and x are the same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. return x.clone()) or refactor the custom operator to not return y."},
		{fakeCPU, "libtest::fake_cpu: the fake impl (registered at trace_test.go:N) returned a tensor on device cpu: a fake impl gets meta tensors and returns meta tensors (make them with ops on its inputs, e.g. x.EmptyLike(), or with tensor.NewMeta)"},
		{fakeView, "libtest::fake_view: the fake impl (registered at trace_test.go:N) returned result 0, annotated Tensor(a), which does not alias argument 'x' as the schema libtest::fake_view(Tensor(a) x) -> Tensor(a) says: return that argument or a view of it"},
	}
	for _, c := range cases {
		got := traceFileLine.ReplaceAllString(errMsg(t, func() { c.op.Call(m()) }), "trace_test.go:N")
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.op.Name(), got, c.want)
		}
	}
	r := fakeGood.Call(m(), m()).([]*T)
	if r[0].Device() != tensor.Meta || !slices.Equal(r[1].Sizes(), []int{6}) {
		t.Errorf("fake_good: %v %v", r[0], r[1].Sizes())
	}
	// A result made with tensor.NewMeta gets a meta storage.
	n := fakeNew.Call(m()).(*T)
	if n.Raw() == nil || !slices.Equal(n.Sizes(), []int{2, 2}) {
		t.Errorf("fake_new: raw %v sizes %v", n.Raw(), n.Sizes())
	}
	// While tracing, a view's fake may return a stand-in's view: its
	// aliasing cannot be told and is not refused.
	gm, err := compile.Trace(func(x, y *T) any { return fakeGood.Call(x, y) },
		[]*T{tensor.Randn([]int{2, 3}), tensor.Randn([]int{2, 3})}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil || !strings.Contains(gm.Code(), "torch.ops.libtest.fake_good.default(arg0_1, arg1_1)") {
		t.Errorf("trace fake_good: %v\n%v", err, gm)
	}
}
