package hop_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// S19: test_map_unfunc_boolean_tensor_for_nested_map_cond of PyTorch's
// test_control_flow.py: a cond inside the mapped function.
func mapCond(pred, x *T) *T {
	fn := func(a ...*T) []*T {
		return hop.Cond(a[1], func(b ...*T) []*T { return ts(b[0].Mul(num(2))) },
			func(b ...*T) []*T { return ts(b[0].Div(num(2))) }, []*T{a[0]})
	}
	return hop.Map(fn, []*T{x}, []*T{pred})[0]
}

func TestMapGraphS19(t *testing.T) {
	x := tensor.OnesOf([]int{2, 3})
	for _, mode := range modes {
		gm := trace(t, mapCond, ts(boolT(true), x), mode, "pred", "x")
		expectCode(t, gm, "", `
def forward(self, pred_1, x_1):
    body_graph_0 = self.body_graph_0
    map_impl = torch.ops.higher_order.map_impl(body_graph_0, [x_1], [pred_1]);  body_graph_0 = x_1 = pred_1 = None
    getitem = map_impl[0];  map_impl = None
    return getitem`)
		expectCode(t, gm, "body_graph_0", `
def forward(self, arg0_1, arg1_1):
    true_graph_0 = self.true_graph_0
    false_graph_0 = self.false_graph_0
    cond = torch.ops.higher_order.cond(arg1_1, true_graph_0, false_graph_0, [arg0_1]);  arg1_1 = true_graph_0 = false_graph_0 = arg0_1 = None
    getitem = cond[0];  cond = None
    return [getitem]`)
		for _, p := range []bool{true, false} {
			y := tensor.Randn([]int{4, 3})
			got, err := fx.NewInterpreter(gm).Run(boolT(p), y)
			if err != nil {
				t.Fatal(err)
			}
			want := y.Div(num(2))
			if p {
				want = y.Mul(num(2))
			}
			expectClose(t, "S19", ts(got.(*T)), ts(want))
		}
	}
}

// Eager, compiled and gonum results agree with a loop over the slices; a
// None output stays None.
func TestMapValues(t *testing.T) {
	f := func(a ...*T) []*T { return ts(a[0].Mul(a[1]).Add(a[2]), nil, a[0].SumAll()) }
	fn := func(x, y, z *T) []*T { return hop.Map(f, []*T{x, y}, []*T{z}) }
	for _, dev := range devices {
		in := on(dev, tensor.Randn([]int{3, 2, 4}), tensor.Randn([]int{3, 2, 4}), tensor.Randn([]int{4}))
		var rows, sums []*T
		for i := range 3 {
			o := f(in[0].Select(0, i), in[1].Select(0, i), in[2])
			rows, sums = append(rows, o[0]), append(sums, o[2])
		}
		want := ts(tensor.Stack(rows), nil, tensor.Stack(sums))
		expectClose(t, dev.String()+" eager", fn(in[0], in[1], in[2]), want)
		c := compile.Compile(fn, compile.Options{Fullgraph: true})
		got, err := c.Call(in[0], in[1], in[2])
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := got.([]any); !ok || len(l) != 3 || l[1] != nil {
			t.Errorf("compiled results %v", got)
		} else {
			expectClose(t, dev.String()+" compiled", ts(l[0].(*T), l[2].(*T)), ts(want[0], want[2]))
		}
	}
}

func TestMapErrors(t *testing.T) {
	f := func(a ...*T) []*T { return ts(a[0].Add(a[1])) }
	expectPanic(t, "Mapped xs can only consist of tensors. Got xs [None, tensor([1., 1.])].", func() {
		hop.Map(f, []*T{nil, tensor.OnesOf([]int{2})}, []*T{tensor.OnesOf([]int{2})})
	})
	expectPanic(t, "Leading dimensions of mapped xs cannot be 0.", func() {
		hop.Map(f, []*T{tensor.OnesOf([]int{0, 1, 2}), tensor.OnesOf([]int{0, 1, 2})}, []*T{tensor.OnesOf([]int{2})})
	})
	expectPanic(t, "Leading dimensions of mapped xs must be consistent. Got shapes [torch.Size([3, 4, 5]), torch.Size([4, 4, 5])].", func() {
		hop.Map(f, []*T{tensor.OnesOf([]int{3, 4, 5}), tensor.OnesOf([]int{4, 4, 5})}, []*T{tensor.OnesOf([]int{5})})
	})
	x := tensor.OnesOf([]int{3, 2})
	for _, c := range []struct {
		f    hop.Sub
		want string
	}{
		{func(a ...*T) []*T { a[0].Add_(num(1)); return ts(a[0].Sin()) }, "torch.map is mutating the input!"},
		{func(a ...*T) []*T { return ts(a[0].View([]int{-1})) }, "torch.map is aliasing the input!"},
	} {
		fn := func(x *T) *T { return hop.Map(c.f, []*T{x}, nil)[0] }
		if _, err := compile.Trace(fn, ts(x), compile.TraceOptions{Mode: compile.Fake, Functionalize: true}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("functionalized: %v, want %q", err, c.want)
		}
	}
}

// map is differentiable in xs and args; its backward is a second map
// (check_map_count(gm, 2) in PyTorch's tests).
func TestMapAutograd(t *testing.T) {
	f := func(a ...*T) []*T { return ts(a[0].Mul(a[1]).Sin().Add(a[2].Square())) }
	x := tensor.Randn([]int{3, 4}).To(tensor.Float64).SetRequiresGrad(true)
	y := tensor.Randn([]int{3, 4}).To(tensor.Float64).SetRequiresGrad(true)
	z := tensor.Randn([]int{4}).To(tensor.Float64).SetRequiresGrad(true)
	if err := autograd.Gradcheck(func(in []*T) []*T { return hop.Map(f, in[:2], in[2:]) }, ts(x, y, z)); err != nil {
		t.Error(err)
	}
	want := autograd.Grad(ts(x.Mul(y).Sin().Add(z.Square()).SumAll()), ts(x, y, z), nil)
	got := autograd.Grad(ts(hop.Map(f, []*T{x, y}, []*T{z})[0].SumAll()), ts(x, y, z), nil)
	expectClose(t, "eager", got, want)
	g := func(x, y, z *T) any {
		out := hop.Map(f, []*T{x, y}, []*T{z})[0]
		gs := autograd.Grad(ts(out), ts(x, y, z), ts(out.OnesLike()))
		return fx.Tuple{gs[0], gs[1], gs[2]}
	}
	for _, mode := range modes {
		gm := trace(t, g, ts(x, y, z), mode, "x", "y", "z")
		if n := strings.Count(code(t, gm, ""), "torch.ops.higher_order.map_impl("); n != 2 {
			t.Errorf("%d map_impl nodes, want 2:\n%s", n, code(t, gm, ""))
		}
		res, err := fx.NewInterpreter(gm).Run(x, y, z)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "traced grads", results(res), want)
	}
	fn := func(x, y, z *T) *T { return hop.Map(f, []*T{x, y}, []*T{z})[0].SumAll() }
	c := compile.Compile(fn, compile.Options{Fullgraph: true})
	res, err := c.Call(x, y, z)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "compiled grads", autograd.Grad(results(res), ts(x, y, z), nil), want)
}
