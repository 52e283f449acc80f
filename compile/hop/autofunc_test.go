package hop_test

import (
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// mylib::foo as in test_auto_functionalize.py: it writes x and y and
// returns nothing; foo2 also returns a tensor, and takes an optional
// written argument and a number with a default.
var (
	afFoo  = library.Define("mylib::foo(Tensor(a!) x, Tensor(b!) y) -> ()")
	afFoo2 = library.Define("mylib::foo2(Tensor(a!) x, Tensor y, Tensor(b!)? n=None, float alpha=2.) -> Tensor")
)

func init() {
	afFoo.Impl("CPU", func(a library.Args) any {
		x, y := a.Tensor("x"), a.Tensor("y")
		x.Sin_()
		y.Cos_()
		return nil
	})
	afFoo2.Impl("CPU", func(a library.Args) any {
		x, y := a.Tensor("x"), a.Tensor("y")
		x.Add_(y.MulScalar(a.Float("alpha")))
		if !a.IsNone("n") {
			a.Tensor("n").Mul_(y)
		}
		return x.Mul(y)
	})
	afFoo2.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
}

func afProgram(x, y *T) *T {
	afFoo.Call(x, y)
	return x.Add(y)
}

func afProgram2(x, y, n *T) *T {
	return afFoo2.Call(x, y, n).(*T).Add(n)
}

func clones(xs ...*T) []*T {
	out := make([]*T, len(xs))
	for i, x := range xs {
		out[i] = x.Clone()
	}
	return out
}

func TestAutoFunctionalizedGraph(t *testing.T) {
	x, y := tensor.Randn([]int{3}), tensor.Randn([]int{3})
	for _, mode := range modes {
		gm, err := compile.Trace(afProgram, clones(x, y), compile.TraceOptions{Mode: mode, Functionalize: true})
		if err != nil {
			t.Fatal(err)
		}
		expectCode(t, gm, "", `
def forward(self, arg0_1, arg1_1):
    auto_functionalized = torch.ops.higher_order.auto_functionalized(torch.ops.mylib.foo.default, x = arg0_1, y = arg1_1)
    getitem_1 = auto_functionalized[1]
    getitem_2 = auto_functionalized[2];  auto_functionalized = None
    add = torch.ops.aten.add.Tensor(getitem_1, getitem_2)
    copy_ = torch.ops.aten.copy_.default(arg0_1, getitem_1);  arg0_1 = getitem_1 = None
    copy__1 = torch.ops.aten.copy_.default(arg1_1, getitem_2);  arg1_1 = getitem_2 = None
    return add`)
	}
	for _, mode := range modes {
		gm, err := compile.Trace(afProgram2, clones(x, y, y), compile.TraceOptions{Mode: mode, Functionalize: true})
		if err != nil {
			t.Fatal(err)
		}
		expectCode(t, gm, "", `
def forward(self, arg0_1, arg1_1, arg2_1):
    auto_functionalized = torch.ops.higher_order.auto_functionalized(torch.ops.mylib.foo2.default, x = arg0_1, y = arg1_1, n = arg2_1, alpha = 2.0);  arg1_1 = None
    getitem = auto_functionalized[0]
    getitem_1 = auto_functionalized[1]
    getitem_2 = auto_functionalized[2];  auto_functionalized = None
    add = torch.ops.aten.add.Tensor(getitem, getitem_2);  getitem = None
    copy_ = torch.ops.aten.copy_.default(arg0_1, getitem_1);  arg0_1 = getitem_1 = None
    copy__1 = torch.ops.aten.copy_.default(arg2_1, getitem_2);  arg2_1 = getitem_2 = None
    return add`)
	}
}

// The traced graph, run by the Interpreter and compiled, gives eager's
// result and leaves the inputs as eager leaves them.
func TestAutoFunctionalizedMatchesEager(t *testing.T) {
	x, y := tensor.Randn([]int{2, 3}), tensor.Randn([]int{2, 3})
	cases := []struct {
		name string
		fn   func(in []*T) *T
		prog any
		in   []*T
	}{
		{"foo", func(in []*T) *T { return afProgram(in[0], in[1]) }, afProgram, []*T{x, y}},
		{"foo2", func(in []*T) *T { return afProgram2(in[0], in[1], in[2]) }, afProgram2, []*T{x, y, y.Neg()}},
	}
	for _, c := range cases {
		want := clones(c.in...)
		wantOut := c.fn(want)
		for _, mode := range modes {
			gm, err := compile.Trace(c.prog, clones(c.in...), compile.TraceOptions{Mode: mode, Functionalize: true})
			if err != nil {
				t.Fatal(err)
			}
			in := clones(c.in...)
			args := make([]any, len(in))
			for i, v := range in {
				args[i] = v
			}
			out, err := fx.NewInterpreter(gm).Run(args...)
			if err != nil {
				t.Fatalf("%s %v interpreter: %v", c.name, mode, err)
			}
			expectClose(t, c.name+" interpreter", append(results(out), in...), append([]*T{wantOut}, want...))
			run, err := compile.Eager(gm, nil)
			if err != nil {
				t.Fatal(err)
			}
			in = clones(c.in...)
			out, err = run(in)
			if err != nil {
				t.Fatalf("%s %v compiled: %v", c.name, mode, err)
			}
			expectClose(t, c.name+" compiled", append(results(out), in...), append([]*T{wantOut}, want...))
		}
	}
}

// Eagerly the op runs on clones: the arguments are left alone.
func TestAutoFunctionalizedEagerAndMeta(t *testing.T) {
	x, y := tensor.Randn([]int{3}), tensor.Randn([]int{3})
	x0, y0 := x.Clone(), y.Clone()
	res := hop.AutoFunctionalized(afFoo2.TensorOp(), x, y, y0.Neg())
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	wx, wy, wn := x0.Clone(), y0.Clone(), y0.Neg()
	wout := afFoo2.Call(wx, wy, wn).(*T)
	expectClose(t, "results", res, ts(wout, wx, wn))
	expectClose(t, "arguments", ts(x, y), ts(x0, y0))

	mx := tensor.NewMetaContiguous([]int{2, 5}, tensor.Float32, tensor.Meta)
	mres := hop.AutoFunctionalized(afFoo.TensorOp(), mx, mx)
	if len(mres) != 3 || mres[0] != nil || mres[1].Device() != tensor.Meta || tensor.ShapeString(mres[2].Sizes()) != "[2, 5]" {
		t.Errorf("meta results %v", mres)
	}
	expectPanic(t, "cannot be auto-functionalized", func() { hop.AutoFunctionalized(hop.PrintOp, "x") })
}
