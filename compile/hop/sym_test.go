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

func twice(x ...*T) []*T  { return ts(x[0].Add(x[0])) }
func square(x ...*T) []*T { return ts(x[0].Mul(x[0])) }

// condS11 is test_cond_with_sym_pred's foo: cond(x.shape[0] == 4, ...).
func condS11(x *T) *T {
	return hop.Cond(hop.Size(x, 0).Eq(4), twice, square, []*T{x})[0]
}

// S11: a predicate on a symbolic size is recorded as sym_size.int and a
// comparison, so that the graph decides at run time: make_fx symbolic's
// graph byte for byte, no guard on the size, and one graph serving sizes on
// both sides of 4.
func TestCondSymPredS11(t *testing.T) {
	x := tensor.OnesOf([]int{3, 2, 1})
	gm, err := compile.Symbolize(condS11, ts(x), map[int]map[int]int{0: {0: 0, 1: 1, 2: 2}},
		compile.TraceOptions{ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	expectCode(t, gm, "", `
def forward(self, x_1):
    sym_size_int = torch.ops.aten.sym_size.int(x_1, 0)
    eq = sym_size_int == 4;  sym_size_int = None
    true_graph_0 = self.true_graph_0
    false_graph_0 = self.false_graph_0
    cond = torch.ops.higher_order.cond(eq, true_graph_0, false_graph_0, [x_1]);  eq = true_graph_0 = false_graph_0 = x_1 = None
    getitem = cond[0];  cond = None
    return getitem`)
	expectCode(t, gm, "true_graph_0", `
def forward(self, arg0_1):
    add = torch.ops.aten.add.Tensor(arg0_1, arg0_1);  arg0_1 = None
    return (add,)`)
	expectCode(t, gm, "false_graph_0", `
def forward(self, arg0_1):
    mul = torch.ops.aten.mul.Tensor(arg0_1, arg0_1);  arg0_1 = None
    return (mul,)`)
	// The graph still works when the size changes (4, 3, 2 → true branch).
	for _, sizes := range [][]int{{4, 3, 2}, {3, 2, 1}, {5, 2, 2}} {
		in := tensor.Randn(sizes)
		got, err := fx.NewInterpreter(gm).Run(in)
		if err != nil {
			t.Fatal(err)
		}
		want := in.Mul(in)
		if sizes[0] == 4 {
			want = in.Add(in)
		}
		expectClose(t, "interpreted", ts(got.(*T)), ts(want))
		expectClose(t, "eager", ts(condS11(in)), ts(want))
	}

	// Compiled with dynamic dims: one graph, no recompile, both branches.
	for _, pred := range []struct {
		name string
		f    func(*T) *T
		want func(*T) bool
	}{
		{"eq", condS11, func(x *T) bool { return x.Size(0) == 4 }},
		{"gt", func(x *T) *T { return hop.Cond(hop.Size(x, -1).Gt(4), twice, square, []*T{x})[0] },
			func(x *T) bool { return x.Size(1) > 4 }},
		{"le", func(x *T) *T { return hop.Cond(hop.Size(x, 0).Le(4), twice, square, []*T{x})[0] },
			func(x *T) bool { return x.Size(0) <= 4 }},
	} {
		c := compile.Compile(pred.f, compile.Options{Dynamic: map[int][]int{0: {0, 1}}, Fullgraph: true})
		for _, sizes := range [][]int{{3, 2}, {4, 3}, {5, 6}, {4, 5}, {2, 2}, {7, 4}} {
			in := tensor.Randn(sizes)
			got, err := c.Call(in)
			if err != nil {
				t.Fatal(err)
			}
			want := in.Mul(in)
			if pred.want(in) {
				want = in.Add(in)
			}
			expectClose(t, pred.name+" compiled", results(got), ts(want))
		}
		if s := c.Stats(); s.Frames != 1 || len(s.Recompiles) != 0 {
			t.Errorf("%s: stats %+v, want one graph and no recompile", pred.name, s)
		}
		gms := c.Graphs()
		if len(gms) != 1 || !strings.Contains(gms[0].Code(), "sym_size_int = torch.ops.aten.sym_size.int(arg0_1") {
			t.Fatalf("%s: %d graphs, not deciding on a sym_size", pred.name, len(gms))
		}
	}
}

// The SymBool predicate eagerly is a plain bool; under autograd the
// backward cond takes the same predicate.
func TestCondSymPredGrad(t *testing.T) {
	for _, n := range []int{3, 4} {
		x := tensor.Randn([]int{n, 2}).To(tensor.Float64)
		autograd.SetRequiresGrad(x, true)
		f := func(in []*T) []*T { return ts(condS11(in[0])) }
		if err := autograd.Gradcheck(f, ts(x)); err != nil {
			t.Errorf("size %d: %v", n, err)
		}
	}
	// Traced with a gradient, both conds record the comparison.
	x := tensor.Randn([]int{4, 2}).To(tensor.Float64)
	autograd.SetRequiresGrad(x, true)
	g := func(x *T) *T {
		r := condS11(x)
		return autograd.Grad(ts(r), ts(x), ts(r.OnesLike()))[0]
	}
	gm, err := compile.Symbolize(g, ts(x), map[int]map[int]int{0: {0: 0}}, compile.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 4, 6} {
		in := tensor.Randn([]int{n, 2}).To(tensor.Float64)
		autograd.SetRequiresGrad(in, true)
		got, err := fx.NewInterpreter(gm).Run(in)
		if err != nil {
			t.Fatal(err)
		}
		want := in.MulScalar(2)
		if n == 4 {
			want = in.FullLike(2)
		}
		expectClose(t, "grad", ts(got.(*T)), ts(want))
	}
}
