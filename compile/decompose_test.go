package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// TestEvalSym: every expression symExpr prints evaluates back to k·Π+c.
func TestEvalSym(t *testing.T) {
	dims := []symDim{{sym: 0}, {sym: 1}}
	vals := map[int]int{0: 1009, 1: 1013}
	for _, e := range []symExpr{
		{[]int{0}, 1, 0}, {[]int{0}, 16, 0}, {[]int{1, 0}, 1, 0}, {[]int{0, 1}, 4, 0},
		{[]int{1, 1}, 1, 0}, {[]int{1}, 1, 1}, {[]int{0}, 3, -1}, {[]int{0}, -1, 0},
		{[]int{0}, -2, 5}, {[]int{1}, -1, -3},
	} {
		want := e.c + e.k*func() int {
			p := 1
			for _, d := range e.dims {
				p *= vals[dims[d].sym]
			}
			return p
		}()
		s := e.String(dims)
		if got, ok := evalSym(s, vals); !ok || got != want {
			t.Errorf("%q: got %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, bad := range []string{"", "s", "x0", "s0 +", "s0 * s1", "s2"} {
		if _, ok := evalSym(bad, vals); ok {
			t.Errorf("%q evaluated", bad)
		}
	}
}

// A decomposition that computes with a dynamic size: the graph reads the
// size with sym_size.int and runs at other sizes; one that branches on it
// is refused.
func TestRunDecompositionsSymbolic(t *testing.T) {
	gelu := tensor.MustOp("aten::gelu")
	fn := func(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(2).Gelu() }
	x := tensor.Randn([]int{4, 3})
	gm, err := Symbolize(fn, []*tensor.Tensor{x}, map[int]map[int]int{0: {0: 0}}, TraceOptions{ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	flat := Decompositions{gelu: func(op *tensor.Op, a []any) any {
		v := a[0].(*tensor.Tensor)
		n := v.Size(0) * v.Size(1)
		return v.Reshape([]int{n}).Erf().Reshape(v.Sizes())
	}}
	out, err := RunDecompositions(gm, flat)
	if err != nil {
		t.Fatal(err)
	}
	code := out.Code()
	for _, want := range []string{
		"sym_size_int = torch.ops.aten.sym_size.int(x_1, 0)",
		"mul_1 = sym_size_int * 3",
		"view = torch.ops.aten.view.default(mul, [mul_1])",
		"view_1 = torch.ops.aten.view.default(erf, [sym_size_int, 3])",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("no %q in\n%s", want, code)
		}
	}
	for _, n := range out.Graph.Nodes() {
		if n.Name == "erf" {
			if s, _ := n.Meta[MetaSymShape].([]string); len(s) != 1 || s[0] != "3*s0" {
				t.Errorf("erf's symbolic shape %v, want [3*s0]", s)
			}
		}
	}
	for _, rows := range []int{4, 7} {
		in := tensor.Randn([]int{rows, 3})
		res, err := fx.NewInterpreter(out).Run(in)
		if err != nil {
			t.Fatal(err)
		}
		got, want := res.(*tensor.Tensor).Float64s(), in.MulScalar(2).Erf().Float64s()
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-6 {
				t.Fatalf("%d rows: element %d is %v, want %v", rows, i, got[i], want[i])
			}
		}
	}
	branchy := Decompositions{gelu: func(op *tensor.Op, a []any) any {
		v := a[0].(*tensor.Tensor)
		if v.Size(0) > 100 {
			return v.Erf()
		}
		return v.Tanh()
	}}
	if _, err := RunDecompositions(gm, branchy); err == nil || !strings.Contains(err.Error(), "the decomposition of aten::gelu depends on the dynamic sizes") {
		t.Errorf("a decomposition branching on a dynamic size: %v", err)
	}
}

// A decomposed op with several results: the getitems that read them read
// the decomposition's values.
func TestRunDecompositionsTuple(t *testing.T) {
	fn := func(x *tensor.Tensor) *tensor.Tensor {
		v, i := x.MaxDim(1)
		return v.Add(i.To(tensor.Float32))
	}
	x := tensor.Randn([]int{3, 5})
	gm, err := Trace(fn, []*tensor.Tensor{x}, TraceOptions{Mode: Fake, ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	table := Decompositions{tensor.MustOp("aten::max.dim"): func(op *tensor.Op, a []any) any {
		v, dim := a[0].(*tensor.Tensor), a[1].(int)
		return []*tensor.Tensor{v.Amax(tensor.WithDim([]int{dim})), v.Argmax(tensor.WithDim(dim))}
	}}
	out, err := RunDecompositions(gm, table)
	if err != nil {
		t.Fatal(err)
	}
	code := out.Code()
	if !strings.Contains(gm.Code(), "torch.ops.aten.max.dim(x_1, 1)") || strings.Contains(code, "max.dim") || strings.Contains(code, "getitem") ||
		!strings.Contains(code, "amax = torch.ops.aten.amax.default(x_1, [1])") || !strings.Contains(code, "argmax = torch.ops.aten.argmax.default(x_1, 1)") {
		t.Errorf("before:\n%s\nafter:\n%s", gm.Code(), code)
	}
	res, err := fx.NewInterpreter(out).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	got, want := res.(*tensor.Tensor).Float64s(), fn(x).Float64s()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d is %v, want %v", i, got[i], want[i])
		}
	}
}
