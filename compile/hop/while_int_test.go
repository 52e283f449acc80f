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

// countLoop counts iterations with an int carry: cond i < 3, body
// (i+1, x*2), from (0, x).
func countLoop(x *T) any {
	cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
	body := func(a ...any) []any { return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).Mul(num(2))} }
	return fx.Tuple(hop.WhileLoopCarries(cond, body, []any{0, x}, nil))
}

// The int carry is an unbacked symbol: the sub-graphs take it as a
// placeholder, record i < 3 and i + 1 as operator nodes, and the loop's
// int result is read by a getitem bound to a fresh symbol.
//
// The graph text is PyTorch's as its while_loop_tracing records it (no
// PyTorch 2 is at hand to print it): the carried inputs keep the constant
// 0, the sub-graphs are traced on a fresh unbacked u0 (print_readable
// annotates their arg0_1 "Sym(u0)"), and the fake result's int is a fresh
// u1 (while_loop_fake_tensor_mode). Where it may differ: make_fx binds a
// SymInt result to its proxy lazily, so PyTorch may create the int's
// getitem only when it is first used (after the tensors' getitems, and
// then named after them); goaten reads every result in order.
func TestWhileLoopIntCarryGraph(t *testing.T) {
	x := tensor.OnesOf([]int{3})
	// Eagerly: a Go loop.
	got := countLoop(x).(fx.Tuple)
	if n := got[0].(hop.Int); n.Traced() || n.Int() != 3 {
		t.Errorf("eager count %v", n)
	}
	expectClose(t, "eager", ts(got[1].(*T)), ts(tensor.FullOf(tensor.Float32, 8, 3)))

	// In Real mode the same graph (the loop computes its real values).
	rgm := trace(t, countLoop, ts(x), compile.Real, "x")
	gm := trace(t, countLoop, ts(x), compile.Fake, "x")
	for _, p := range []string{"", "while_loop_cond_graph_0", "while_loop_body_graph_0"} {
		if a, b := code(t, rgm, p), code(t, gm, p); a != b {
			t.Errorf("real mode %s:\n%s\nwant\n%s", p, a, b)
		}
	}
	expectCode(t, gm, "", `
def forward(self, x_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (0, x_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = x_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1];  while_loop = None
    return (getitem, getitem_1)`)
	expectCode(t, gm, "while_loop_cond_graph_0", `
def forward(self, arg0_1, arg1_1):
    lt = arg0_1 < 3;  arg0_1 = None
    return lt`)
	expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1, arg1_1):
    add = arg0_1 + 1;  arg0_1 = None
    mul = torch.ops.aten.mul.Tensor(arg1_1, 2);  arg1_1 = None
    return (add, mul)`)
	// The symbols: u0 for the carry in both sub-graphs, u0 + 1 for the
	// body's int, u1 for the loop's result.
	symOf := func(g *fx.GraphModule, name string) string {
		for _, n := range g.Graph.Nodes() {
			if n.Name == name {
				s, _ := n.Meta[compile.MetaSymExpr].(string)
				return s
			}
		}
		return "(no node " + name + ")"
	}
	sub := func(name string) *fx.GraphModule {
		v, _ := gm.Attr(name)
		return v.(*fx.GraphModule)
	}
	for _, c := range []struct{ g, node, want string }{
		{"while_loop_cond_graph_0", "arg0_1", "u0"},
		{"while_loop_body_graph_0", "arg0_1", "u0"},
		{"while_loop_body_graph_0", "add", "u0 + 1"},
		{"", "getitem", "u1"},
	} {
		g := gm
		if c.g != "" {
			g = sub(c.g)
		}
		if got := symOf(g, c.node); got != c.want {
			t.Errorf("%s %s: symbol %q, want %q", c.g, c.node, got, c.want)
		}
	}
	// Functionalized, the same graphs.
	fgm, err := compile.Trace(countLoop, ts(x), compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}, Functionalize: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "while_loop_cond_graph_0", "while_loop_body_graph_0"} {
		if a, b := code(t, fgm, p), code(t, gm, p); a != b {
			t.Errorf("functionalized %s:\n%s\nwant\n%s", p, a, b)
		}
	}
	// Interpreted and compiled: eager's values.
	for _, in := range []*T{x, tensor.FromSlice([]float32{1, -2})} {
		res, err := fx.NewInterpreter(gm).Run(in)
		if err != nil {
			t.Fatal(err)
		}
		r := list(res)
		if r[0] != 3 {
			t.Errorf("interpreted count %v", r[0])
		}
		expectClose(t, "interpreted", ts(r[1].(*T)), ts(in.MulScalar(8)))
	}
	c := compile.Compile(countLoop, compile.Options{Fullgraph: true})
	for range 2 {
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		r := list(res)
		if r[0] != 3 {
			t.Errorf("compiled count %v (%T)", r[0], r[0])
		}
		expectClose(t, "compiled", ts(r[1].(*T)), ts(tensor.FullOf(tensor.Float32, 8, 3)))
	}
}

// The loop's int result is an unbacked size after it: expand records the
// getitem node and its result has the size u1; a Go branch on it refuses
// as PyTorch refuses to guard on a data-dependent expression.
func TestWhileLoopIntResultAsSize(t *testing.T) {
	// Count the steps of halving while the sum exceeds 1, then stack that
	// many rows of x.
	steps := func(x *T) *T {
		cond := func(a ...any) any { return a[1].(*T).SumAll().GtScalar(1) }
		body := func(a ...any) []any { return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).MulScalar(0.5)} }
		r := hop.WhileLoopCarries(cond, body, []any{0, x}, nil)
		n := r[0].(hop.Int)
		return x.Unsqueeze(0).Expand([]int{n.AsSize(), x.Size(0)}).MulScalar(2)
	}
	x := tensor.FromSlice([]float32{3, 5})
	want := x.Unsqueeze(0).Expand([]int{3, 2}).MulScalar(2)
	expectClose(t, "eager", ts(steps(x)), ts(want))
	gm := trace(t, steps, ts(x), compile.Fake, "x")
	c := code(t, gm, "")
	if !strings.Contains(c, "expand = torch.ops.aten.expand.default(unsqueeze, [getitem, 2])") {
		t.Errorf("the expand does not take the loop's int:\n%s", c)
	}
	for _, n := range gm.Graph.Nodes() {
		if n.Name != "mul" {
			continue
		}
		v := n.Meta[fx.MetaVal].(*T)
		if name, ok := compile.UnbackedName(v.Size(0)); !ok || name != "u1" || v.Size(1) != 2 {
			t.Errorf("mul has sizes %v, want [u1, 2]", v.Sizes())
		}
	}
	for _, in := range []*T{x, tensor.FromSlice([]float32{0.5, 0.25}), tensor.FromSlice([]float32{40, 24})} {
		res, err := fx.NewInterpreter(gm).Run(in)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "interpreted", ts(res.(*T)), ts(steps(in)))
	}
	cf := compile.Compile(steps, compile.Options{Fullgraph: true})
	for _, in := range []*T{x, tensor.FromSlice([]float32{40, 24})} {
		res, err := cf.Call(in)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "compiled", results(res), ts(steps(in)))
	}

	// A Go if on the loop's int.
	branch := func(x *T) *T {
		cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
		body := func(a ...any) []any { return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).Sin()} }
		r := hop.WhileLoopCarries(cond, body, []any{0, x}, nil)
		if r[0].(hop.Int).Int() > 2 {
			return x.Cos()
		}
		return x
	}
	if _, err := compile.Trace(branch, ts(x), compile.TraceOptions{Mode: compile.Fake}); err == nil ||
		!strings.Contains(err.Error(), "Could not guard on data-dependent expression u1") {
		t.Errorf("a Go if on the loop's int: %v", err)
	}
	expectClose(t, "eager branch", ts(branch(x)), ts(x.Cos()))
	// The same through a comparison: the message names it.
	cmp := func(x *T) *T {
		cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
		body := func(a ...any) []any { return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).Sin()} }
		r := hop.WhileLoopCarries(cond, body, []any{0, x}, nil)
		if r[0].(hop.Int).Gt(hop.IntOf(2)).Bool() {
			return x.Cos()
		}
		return x
	}
	if _, err := compile.Trace(cmp, ts(x), compile.TraceOptions{Mode: compile.Fake}); err == nil ||
		!strings.Contains(err.Error(), "Could not guard on data-dependent expression u1 > 2") {
		t.Errorf("a Go if on a comparison of the loop's int: %v", err)
	}
	expectClose(t, "eager comparison", ts(cmp(x)), ts(x.Cos()))
	// A size of an expression of the symbol is refused.
	expr := func(x *T) *T {
		cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
		body := func(a ...any) []any { return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).Sin()} }
		r := hop.WhileLoopCarries(cond, body, []any{0, x}, nil)
		return x.Unsqueeze(0).Expand([]int{r[0].(hop.Int).Mul(hop.IntOf(2)).AsSize(), 2})
	}
	if _, err := compile.Trace(expr, ts(x), compile.TraceOptions{Mode: compile.Fake}); err == nil ||
		!strings.Contains(err.Error(), "2*u1 can be a size only as a symbol") {
		t.Errorf("a size of 2*u1: %v", err)
	}
}

// A loop of no step returns clones of the tensor carries and the ints;
// gradients flow through the tensor carries; additional inputs are read by
// every step.
func TestWhileLoopIntCarryValues(t *testing.T) {
	cond := func(a ...any) any { return a[0].(hop.Int).Lt(a[1].(hop.Int)) }
	body := func(a ...any) []any {
		return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1], a[2].(*T).Mul(a[3].(*T)).Sin()}
	}
	x := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	w := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	out := hop.WhileLoopCarries(cond, body, []any{5, hop.IntOf(2), x}, []*T{w})
	if out[0].(hop.Int).Int() != 5 || out[1].(hop.Int).Int() != 2 {
		t.Errorf("no step: ints %v %v", out[0], out[1])
	}
	if y := out[2].(*T); y == x || y.Raw() == x.Raw() {
		t.Error("a loop of no step returned its tensor, not a clone")
	}
	expectClose(t, "no step", ts(out[2].(*T)), ts(x))
	out = hop.WhileLoopCarries(cond, body, []any{0, 3, x}, []*T{w})
	if out[0].(hop.Int).Int() != 3 {
		t.Errorf("steps %v", out[0])
	}
	unrolled := x
	for range 3 {
		unrolled = unrolled.Mul(w).Sin()
	}
	expectClose(t, "3 steps", ts(out[2].(*T)), ts(unrolled))
	want := autograd.Grad(ts(unrolled.SumAll()), ts(x, w), nil)
	expectClose(t, "grad", autograd.Grad(ts(out[2].(*T).SumAll()), ts(x, w), nil), want)
	// Compiled: the forward graph runs under autograd.
	f := func(x, w *T) *T {
		return hop.WhileLoopCarries(cond, body, []any{0, 3, x}, []*T{w})[2].(*T)
	}
	c := compile.Compile(f, compile.Options{Fullgraph: true})
	for range 2 {
		res, err := c.Call(x, w)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "compiled grad", autograd.Grad(ts(results(res)[0].SumAll()), ts(x, w), nil), want)
	}
}

// Nested loops with int carries: the inner loop's carries are the outer
// body's placeholders.
func TestWhileLoopIntCarryNested(t *testing.T) {
	inner := func(a ...any) []any {
		cond := func(b ...any) any { return b[0].(hop.Int).Lt(hop.IntOf(2)) }
		body := func(b ...any) []any { return []any{b[0].(hop.Int).Add(hop.IntOf(1)), b[1].(*T).AddScalar(1)} }
		r := hop.WhileLoopCarries(cond, body, []any{0, a[1]}, nil)
		return []any{a[0].(hop.Int).Add(hop.IntOf(1)), r[1]}
	}
	outerCond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
	f := func(x *T) any { return fx.Tuple(hop.WhileLoopCarries(outerCond, inner, []any{0, x}, nil)) }
	x := tensor.ZerosOf([]int{2})
	eager := f(x).(fx.Tuple)
	if eager[0].(hop.Int).Int() != 3 {
		t.Errorf("eager steps %v", eager[0])
	}
	expectClose(t, "eager", ts(eager[1].(*T)), ts(tensor.FullOf(tensor.Float32, 6, 2)))
	gm := trace(t, f, ts(x), compile.Fake, "x")
	expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1, arg1_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (0, arg1_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = arg1_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1];  while_loop = None
    add = arg0_1 + 1;  arg0_1 = None
    return (add, getitem_1)`)
	res, err := fx.NewInterpreter(gm).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	r := list(res)
	if r[0] != 3 {
		t.Errorf("interpreted steps %v", r[0])
	}
	expectClose(t, "interpreted", ts(r[1].(*T)), ts(eager[1].(*T)))
}

// Carries other than tensors and ints are refused in PyTorch's words
// (validate_subgraph_args_types), and so is a body returning a tensor
// for an int carry (check_meta_consistency).
func TestWhileLoopIntCarryErrors(t *testing.T) {
	x := tensor.ZerosOf([]int{2})
	cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
	body := func(a ...any) []any { return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1]} }
	expectPanic(t, "(0.5, tensor([0., 0.])) can only be of (<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>) but got (<class 'float'>, <class 'torch.Tensor'>)", func() {
		hop.WhileLoopCarries(cond, body, []any{0.5, x}, nil)
	})
	expectPanic(t, "(0, \"a\") can only be of (<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>) but got (<class 'int'>, <class 'str'>)", func() {
		hop.WhileLoopCarries(cond, body, []any{0, "a"}, nil)
	})
	expectPanic(t, "Expected carried_inputs and body_output to have same metadata but found:\npair[0] differ in type: 0 vs tensor([0., 0.]), where lhs is 0 and rhs is tensor([0., 0.])", func() {
		hop.WhileLoopCarries(cond, func(a ...any) []any { return []any{a[1], a[1]} }, []any{0, x}, nil)
	})
	expectPanic(t, "body_fn should return the same number of elements as carried_inputs, got 1 vs 2", func() {
		hop.WhileLoopCarries(cond, func(a ...any) []any { return []any{a[0]} }, []any{0, x}, nil)
	})
	expectPanic(t, "cond_fn must return a boolean scalar tensor or a boolean but got 3", func() {
		hop.WhileLoopCarries(func(a ...any) any { return 3 }, body, []any{0, x}, nil)
	})
	// Traced, the type mismatch names the symbol.
	f := func(x *T) any {
		return fx.Tuple(hop.WhileLoopCarries(cond, func(a ...any) []any { return []any{a[1], a[1].(*T).Sin()} }, []any{0, x}, nil))
	}
	if _, err := compile.Trace(f, ts(x), compile.TraceOptions{Mode: compile.Fake}); err == nil ||
		!strings.Contains(err.Error(), "pair[0] differ in type: u0 vs FakeTensor(..., size=(2,))") {
		t.Errorf("traced type mismatch: %v", err)
	}
	// Under functionalization the body may not write into its carries.
	inplace := func(x *T) any {
		return fx.Tuple(hop.WhileLoopCarries(cond, func(a ...any) []any {
			return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).Add_(num(1))}
		}, []any{0, x}, nil))
	}
	if _, err := compile.Trace(inplace, ts(x), compile.TraceOptions{Mode: compile.Fake, Functionalize: true}); err == nil ||
		!strings.Contains(err.Error(), "torch.while_loop's body_fn might be modifying the input!") {
		t.Errorf("functionalized mutation: %v", err)
	}
}

// list is a graph's tuple result.
func list(v any) []any {
	switch x := v.(type) {
	case fx.Tuple:
		return x
	case []any:
		return x
	}
	return []any{v}
}

// In a functionalized trace (export's), the views of a higher-order op's
// results are recorded as view ops, as PyTorch records them, not replayed
// as gathers (index.Tensor with a constant index).
func TestHOPResultViewsFunctionalized(t *testing.T) {
	f := func(x *T) *T {
		y := hop.Cond(x.SumAll().GtScalar(0), func(a ...*T) []*T { return ts(a[0].Sin()) },
			func(a ...*T) []*T { return ts(a[0].Cos()) }, []*T{x})[0]
		return y.Unsqueeze(0).Expand([]int{3, 2}).MulScalar(2)
	}
	x := tensor.FromSlice([]float32{1, 2})
	gm, err := compile.Trace(f, ts(x), compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}, Functionalize: true})
	if err != nil {
		t.Fatal(err)
	}
	c := code(t, gm, "")
	if !strings.Contains(c, "unsqueeze = torch.ops.aten.unsqueeze.default(getitem, 0)") ||
		!strings.Contains(c, "expand = torch.ops.aten.expand.default(unsqueeze, [3, 2])") || strings.Contains(c, "index") {
		t.Errorf("views of the cond's result:\n%s", c)
	}
	res, err := fx.NewInterpreter(gm).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "views", results(res), ts(f(x)))
}

// A body that reads tensor data cannot be a sub-graph: compiled without
// Fullgraph the function runs in segments, the loop inline, with eager's
// values.
func TestWhileLoopIntCarrySegments(t *testing.T) {
	f := func(x *T) *T {
		cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
		body := func(a ...any) []any {
			v := a[1].(*T).SumAll().Item().Float64()
			return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*T).AddScalar(v)}
		}
		return hop.WhileLoopCarries(cond, body, []any{0, x}, nil)[1].(*T)
	}
	x := tensor.FromSlice([]float32{1, 2})
	want := ts(tensor.FromSlice([]float32{40, 41}))
	expectClose(t, "eager", ts(f(x)), want)
	c := compile.Compile(f, compile.Options{})
	for range 2 {
		got, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "segments", results(got), want)
	}
	if s := c.Stats(); s.Segments == 0 || s.Frames != 0 {
		t.Errorf("stats %+v: want segments", s)
	}
}

// A tensor's size (SymInt) may be a carry: eagerly its value; in a trace
// the sym_size.int node reading it is the loop's carried input, and the
// sub-graphs take a fresh unbacked symbol as for any int.
func TestWhileLoopSymIntCarry(t *testing.T) {
	f := func(x *T) any {
		cond := func(a ...any) any { return a[0].(hop.Int).Gt(hop.IntOf(0)) }
		body := func(a ...any) []any { return []any{a[0].(hop.Int).Sub(hop.IntOf(1)), a[1].(*T).AddScalar(1)} }
		return fx.Tuple(hop.WhileLoopCarries(cond, body, []any{hop.Size(x, 0), x}, nil))
	}
	x := tensor.ZerosOf([]int{3})
	r := f(x).(fx.Tuple)
	if r[0].(hop.Int).Int() != 0 {
		t.Errorf("eager %v", r[0])
	}
	expectClose(t, "eager", ts(r[1].(*T)), ts(tensor.FullOf(tensor.Float32, 3, 3)))
	gm := trace(t, f, ts(x), compile.Fake, "x")
	expectCode(t, gm, "", `
def forward(self, x_1):
    sym_size_int = torch.ops.aten.sym_size.int(x_1, 0)
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (sym_size_int, x_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = sym_size_int = x_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1];  while_loop = None
    return (getitem, getitem_1)`)
	expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1, arg1_1):
    sub = arg0_1 - 1;  arg0_1 = None
    add = torch.ops.aten.add.Scalar(arg1_1, 1);  arg1_1 = None
    return (sub, add)`)
	// A body returning a size for an int carry.
	g := func(x *T) any {
		cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(2)) }
		body := func(a ...any) []any {
			y := tensor.Cat(ts(a[1].(*T), a[1].(*T))).Narrow(0, 0, 2)
			return []any{hop.Size(tensor.Cat(ts(y, y)), 0), y}
		}
		return fx.Tuple(hop.WhileLoopCarries(cond, body, []any{0, tensor.OnesOf([]int{2})}, nil))
	}
	if r := g(x).(fx.Tuple); r[0].(hop.Int).Int() != 4 {
		t.Errorf("a size returned by the body: %v", r[0])
	}
	gm2 := trace(t, g, ts(x), compile.Fake, "x")
	if c := code(t, gm2, "while_loop_body_graph_0"); !strings.Contains(c, "sym_size_int = torch.ops.aten.sym_size.int(cat_1, 0)") ||
		!strings.Contains(c, "return (sym_size_int, slice_1)") {
		t.Errorf("body returning a size:\n%s", c)
	}
	for _, in := range []*T{x, tensor.ZerosOf([]int{5})} {
		res, err := fx.NewInterpreter(gm).Run(in)
		if err != nil {
			t.Fatal(err)
		}
		l := list(res)
		if l[0] != 0 {
			t.Errorf("interpreted %v", l[0])
		}
		expectClose(t, "interpreted", ts(l[1].(*T)), ts(tensor.FullOf(tensor.Float32, float64(in.Size(0)), in.Size(0))))
	}
}
