package hop_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// S14: WHILE_LOOP_TESTS["simple_with_mutation"] of PyTorch's
// test_control_flow.py: mutation of a clone inside cond_fn and body_fn.
func simpleWithMutation(x *T) any {
	cond := func(a ...*T) *T { return a[0].Clone().Add_(num(1)).Add_(num(-1)).SumAll().LtScalar(10) }
	body := func(a ...*T) []*T { return ts(a[0].Clone().Add_(num(1)).Add_(num(-1)).Add(num(1))) }
	return fx.Tuple(anys(hop.WhileLoop(cond, body, []*T{x}, nil)))
}

func anys(xs []*T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

const s14Top = `
def forward(self, x_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (x_1,), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = x_1 = None
    getitem = while_loop[0];  while_loop = None
    return (getitem,)`

// test_while_loop_simple_functionalize_check_graph, func_type "no".
func TestWhileLoopGraphS14(t *testing.T) {
	x := tensor.ZerosOf([]int{1})
	for _, mode := range modes {
		gm := trace(t, simpleWithMutation, ts(x), mode, "x")
		expectCode(t, gm, "", s14Top)
		expectCode(t, gm, "while_loop_cond_graph_0", `
def forward(self, arg0_1):
    clone = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
    add_ = torch.ops.aten.add_.Tensor(clone, 1);  clone = None
    add__1 = torch.ops.aten.add_.Tensor(add_, -1);  add_ = None
    sum_1 = torch.ops.aten.sum.default(add__1);  add__1 = None
    lt = torch.ops.aten.lt.Scalar(sum_1, 10);  sum_1 = None
    return lt`)
		expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1):
    clone = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
    add_ = torch.ops.aten.add_.Tensor(clone, 1);  clone = None
    add__1 = torch.ops.aten.add_.Tensor(add_, -1);  add_ = None
    add = torch.ops.aten.add.Tensor(add__1, 1);  add__1 = None
    return (add,)`)
		got, err := fx.NewInterpreter(gm).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "S14", results(got), ts(tensor.FromSlice([]float32{10})))
	}
	// Functionalized (func_type "cpp"/"functorch"): the in-place ops become
	// functional ones.
	gm, err := compile.Trace(simpleWithMutation, ts(x), compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}, Functionalize: true})
	if err != nil {
		t.Fatal(err)
	}
	expectCode(t, gm, "", s14Top)
	expectCode(t, gm, "while_loop_cond_graph_0", `
def forward(self, arg0_1):
    clone = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
    add = torch.ops.aten.add.Tensor(clone, 1);  clone = None
    add_1 = torch.ops.aten.add.Tensor(add, -1);  add = None
    sum_1 = torch.ops.aten.sum.default(add_1);  add_1 = None
    lt = torch.ops.aten.lt.Scalar(sum_1, 10);  sum_1 = None
    return lt`)
	expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1):
    clone = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
    add = torch.ops.aten.add.Tensor(clone, 1);  clone = None
    add_1 = torch.ops.aten.add.Tensor(add, -1);  add = None
    add_2 = torch.ops.aten.add.Tensor(add_1, 1);  add_1 = None
    return (add_2,)`)
}

// WHILE_LOOP_TESTS["nested"] (test_while_loop_nested_traced): a loop inside
// the body of a loop; the inner loop's graphs belong to the outer body.
func nested(outIter, it, y *T) any {
	cond := func(a ...*T) *T { return a[1].SumAll().LtScalar(10) }
	body := func(a ...*T) []*T { return ts(a[0].Clone(), a[1].Add(a[2]), a[2].Add(num(1))) }
	outerCond := func(a ...*T) *T { return a[0].SumAll().LtScalar(2) }
	outerBody := func(a ...*T) []*T {
		r := hop.WhileLoop(cond, body, a, nil)
		return ts(r[0].Add(num(1)), r[1], r[2])
	}
	return fx.Tuple(anys(hop.WhileLoop(outerCond, outerBody, []*T{outIter, it, y}, nil)))
}

func TestWhileLoopNestedS15(t *testing.T) {
	in := ts(tensor.ZerosOf([]int{1}), tensor.ZerosOf([]int{1}), tensor.ZerosOf([]int{1}))
	for _, mode := range modes {
		gm := trace(t, nested, in, mode, "out_iter", "it", "y")
		expectCode(t, gm, "", `
def forward(self, out_iter_1, it_1, y_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (out_iter_1, it_1, y_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = out_iter_1 = it_1 = y_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1]
    getitem_2 = while_loop[2];  while_loop = None
    return (getitem, getitem_1, getitem_2)`)
		expectCode(t, gm, "while_loop_cond_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1):
    sum_1 = torch.ops.aten.sum.default(arg0_1);  arg0_1 = None
    lt = torch.ops.aten.lt.Scalar(sum_1, 2);  sum_1 = None
    return lt`)
		expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (arg0_1, arg1_1, arg2_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = arg0_1 = arg1_1 = arg2_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1]
    getitem_2 = while_loop[2];  while_loop = None
    add = torch.ops.aten.add.Tensor(getitem, 1);  getitem = None
    return (add, getitem_1, getitem_2)`)
		got, err := fx.NewInterpreter(gm).Run(in[0], in[1], in[2])
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "nested", results(got), results(nested(in[0], in[1], in[2])))
	}
}

// WHILE_LOOP_TESTS["nested2"] (test_while_loop_nested2_traced), an
// nn.Module in PyTorch: its inputs are named arg0_1, ....
func nested2(ci, cj, a, b *T) any {
	cond := func(x ...*T) *T { return x[0].GtScalar(0) }
	body := func(x ...*T) []*T {
		condN := func(y ...*T) *T { return y[1].GtScalar(0) }
		bodyN := func(y ...*T) []*T {
			return ts(y[0].Clone(), y[1].Sub(num(1)), y[2].Add(num(3.14)), y[3].Sub(num(2.71)))
		}
		r := hop.WhileLoop(condN, bodyN, x, nil)
		return ts(r[0].Sub(num(1)), r[1].Clone(), r[2].Mul(num(2)), r[3].Div(num(2)))
	}
	return fx.Tuple(anys(hop.WhileLoop(cond, body, []*T{ci, cj, a, b}, nil)))
}

func TestWhileLoopNested2S15(t *testing.T) {
	two := tensor.FromSlice([]int64{2}).Reshape([]int{})
	in := ts(two, two, tensor.OnesOf([]int{2, 2}), tensor.OnesOf([]int{2, 2}))
	for _, mode := range modes {
		gm := trace(t, nested2, in, mode)
		expectCode(t, gm, "", `
def forward(self, arg0_1, arg1_1, arg2_1, arg3_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (arg0_1, arg1_1, arg2_1, arg3_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = arg0_1 = arg1_1 = arg2_1 = arg3_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1]
    getitem_2 = while_loop[2]
    getitem_3 = while_loop[3];  while_loop = None
    return (getitem, getitem_1, getitem_2, getitem_3)`)
		expectCode(t, gm, "while_loop_body_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1, arg3_1):
    while_loop_cond_graph_0 = self.while_loop_cond_graph_0
    while_loop_body_graph_0 = self.while_loop_body_graph_0
    while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (arg0_1, arg1_1, arg2_1, arg3_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = arg0_1 = arg1_1 = arg2_1 = arg3_1 = None
    getitem = while_loop[0]
    getitem_1 = while_loop[1]
    getitem_2 = while_loop[2]
    getitem_3 = while_loop[3];  while_loop = None
    sub = torch.ops.aten.sub.Tensor(getitem, 1);  getitem = None
    clone = torch.ops.aten.clone.default(getitem_1);  getitem_1 = None
    mul = torch.ops.aten.mul.Tensor(getitem_2, 2);  getitem_2 = None
    div = torch.ops.aten.div.Tensor(getitem_3, 2);  getitem_3 = None
    return (sub, clone, mul, div)`)
		expectCode(t, gm, "while_loop_body_graph_0.while_loop_body_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1, arg3_1):
    clone = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
    sub = torch.ops.aten.sub.Tensor(arg1_1, 1);  arg1_1 = None
    add = torch.ops.aten.add.Tensor(arg2_1, 3.14);  arg2_1 = None
    sub_1 = torch.ops.aten.sub.Tensor(arg3_1, 2.71);  arg3_1 = None
    return (clone, sub, add, sub_1)`)
		expectCode(t, gm, "while_loop_body_graph_0.while_loop_cond_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1, arg3_1):
    gt = torch.ops.aten.gt.Scalar(arg1_1, 0);  arg1_1 = None
    return gt`)
		got, err := fx.NewInterpreter(gm).Run(in[0], in[1], in[2], in[3])
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "nested2", results(got), results(nested2(in[0], in[1], in[2], in[3])))
	}
}

// The docs example (while_loop.md): cond iter.sum() > 0, body (iter-1,
// x*2), called with (tensor([3]), ones(3)) gives ones(3) * 2**3. Eager,
// compiled (Fullgraph) and on the gonum device agree. A loop that runs no
// step returns clones of its carries.
func TestWhileLoopValues(t *testing.T) {
	cond := func(a ...*T) *T { return a[0].SumAll().GtScalar(0) }
	body := func(a ...*T) []*T { return ts(a[0].Sub(num(1)), a[1].Mul(num(2))) }
	fn := func(it, x *T) []*T { return hop.WhileLoop(cond, body, []*T{it, x}, nil) }
	for _, dev := range devices {
		it, x := tensor.FromSlice([]int64{3}).ToDevice(dev), tensor.OnesOf([]int{3}).ToDevice(dev)
		want := ts(tensor.FromSlice([]int64{0}), tensor.FullOf(tensor.Float32, 8, 3))
		expectClose(t, dev.String()+" eager", fn(it, x), want)
		c := compile.Compile(fn, compile.Options{Fullgraph: true})
		for range 2 {
			got, err := c.Call(it, x)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, dev.String()+" compiled", results(got), want)
		}
		zero := tensor.FromSlice([]int64{0}).ToDevice(dev)
		out := fn(zero, x)
		if out[0] == zero || out[1] == x || out[1].Raw() == x.Raw() {
			t.Error("a loop of no step returned its inputs, not clones")
		}
		expectClose(t, "no step", out, ts(zero, x))
	}
}

// additional inputs are read by every step; tensors the loop closes over
// are lifted there in a trace.
func TestWhileLoopAdditional(t *testing.T) {
	w := tensor.FromSlice([]float32{0.5, 2})
	cond := func(a ...*T) *T { return a[0].LtScalar(4) }
	body := func(a ...*T) []*T { return ts(a[0].Add(num(1)), a[1].Mul(a[2]).Add(w)) }
	fn := func(i, x, s *T) []*T { return hop.WhileLoop(cond, body, []*T{i, x}, []*T{s}) }
	i, x, s := tensor.FromSlice([]int64{0}).Reshape([]int{}), tensor.FromSlice([]float32{1, 1}), tensor.FromSlice([]float32{3, 1})
	gm := trace(t, fn, ts(i, x, s), compile.Fake, "i", "x", "s")
	c := code(t, gm, "")
	if !strings.Contains(c, "while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (i_1, x_1), (s_1, _tensor_constant0))") {
		t.Errorf("additional inputs:\n%s", c)
	}
	expectCode(t, gm, "while_loop_cond_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1, arg3_1):
    lt = torch.ops.aten.lt.Scalar(arg0_1, 4);  arg0_1 = None
    return lt`)
	got, err := fx.NewInterpreter(gm).Run(i, x, s)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "additional", results(got), fn(i, x, s))
}

// S16 and the carry checks, in PyTorch's words.
func TestWhileLoopErrors(t *testing.T) {
	x := tensor.ZerosOf([]int{2})
	body := func(a ...*T) []*T { return ts(a[0].Add(num(1))) }
	expectPanic(t, "cond_fn must return a boolean scalar tensor or a boolean but got tensor([", func() {
		hop.WhileLoop(func(a ...*T) *T { return a[0].LtScalar(3) }, body, []*T{x}, nil)
	})
	lt := func(a ...*T) *T { return a[0].SumAll().LtScalar(3) }
	expectPanic(t, "body_fn should return the same number of elements as carried_inputs, got 2 vs 1", func() {
		hop.WhileLoop(lt, func(a ...*T) []*T { return ts(a[0].Add(num(1)), a[0]) }, []*T{x}, nil)
	})
	grow := func(a ...*T) []*T { return ts(tensor.Cat(ts(a[0], a[0].AddScalar(1)))) }
	want := "Expected carried_inputs and body_output to have same metadata but found:\n" +
		"pair[0] differ in 'shape: torch.Size([2]) vs torch.Size([4])', where lhs is FakeTensor(..., size=(2,)) and rhs is FakeTensor(..., size=(4,))"
	expectPanic(t, want, func() { hop.WhileLoop(lt, grow, []*T{x}, nil) })
	f := func(x *T) []*T { return hop.WhileLoop(lt, grow, []*T{x}, nil) }
	if _, err := compile.Trace(f, ts(x), compile.TraceOptions{Mode: compile.Fake}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("traced: %v", err)
	}
	toInt := func(a ...*T) []*T { return ts(a[0].To(tensor.Int64)) }
	expectPanic(t, "pair[0] differ in 'dtype: torch.float32 vs torch.int64'", func() { hop.WhileLoop(lt, toInt, []*T{x}, nil) })
	expectPanic(t, "Expect carried_inputs to be a tuple of possibly nested dict/list/tuple that onlyconsists of tensor or int leaves", func() {
		hop.WhileLoop(lt, body, []*T{nil}, nil)
	})
	// Under functionalization the body may not write into its carries.
	inplace := func(a ...*T) []*T { return ts(a[0].Add_(num(1))) }
	fi := func(x *T) []*T { return hop.WhileLoop(lt, inplace, []*T{x}, nil) }
	if _, err := compile.Trace(fi, ts(x), compile.TraceOptions{Mode: compile.Fake, Functionalize: true}); err == nil ||
		!strings.Contains(err.Error(), "torch.while_loop's body_fn might be modifying the input!") {
		t.Errorf("functionalized mutation: %v", err)
	}
}

// Gradients through the loop: each step's carries are kept and the steps
// are differentiated backwards. Checked against the unrolled loop and with
// gradcheck; a compiled function differentiates the forward graph.
func TestWhileLoopAutograd(t *testing.T) {
	cond := func(a ...*T) *T { return a[0].LtScalar(3) }
	body := func(a ...*T) []*T { return ts(a[0].Add(num(1)), a[1].Mul(a[2]).Sin().Add(a[1])) }
	fn := func(i, x, w *T) []*T { return hop.WhileLoop(cond, body, []*T{i, x}, []*T{w}) }
	i := tensor.FromSlice([]int64{0}).Reshape([]int{})
	x := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	w := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	if err := autograd.Gradcheck(func(in []*T) []*T { return fn(i, in[0], in[1])[1:] }, ts(x, w)); err != nil {
		t.Error(err)
	}
	unrolled := x
	for range 3 {
		unrolled = unrolled.Mul(w).Sin().Add(unrolled)
	}
	want := autograd.Grad(ts(unrolled.SumAll()), ts(x, w), nil)
	got := autograd.Grad(ts(fn(i, x, w)[1].SumAll()), ts(x, w), nil)
	expectClose(t, "eager", got, want)
	c := compile.Compile(fn, compile.Options{Fullgraph: true})
	for range 2 {
		res, err := c.Call(i, x, w)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "compiled", autograd.Grad(ts(results(res)[1].SumAll()), ts(x, w), nil), want)
	}
	// No step: the gradient of the clones.
	z := tensor.FromSlice([]int64{5}).Reshape([]int{})
	g := autograd.Grad(ts(fn(z, x, w)[1].MulScalar(2).SumAll()), ts(x), nil)
	expectClose(t, "no step", g, ts(tensor.FullOf(tensor.Float64, 2, 3)))
}

// A thousand steps eagerly and compiled give the same result.
func TestWhileLoopLong(t *testing.T) {
	cond := func(a ...*T) *T { return a[0].LtScalar(1000) }
	body := func(a ...*T) []*T { return ts(a[0].Add(num(1)), a[1].MulScalar(0.999).Add(a[2])) }
	fn := func(i, x, y *T) []*T { return hop.WhileLoop(cond, body, []*T{i, x}, []*T{y}) }
	i := tensor.FromSlice([]int64{0}).Reshape([]int{})
	x, y := tensor.OnesOf([]int{4}), tensor.FullOf(tensor.Float32, 0.001, 4)
	want := fn(i, x, y)
	got, err := compile.Compile(fn, compile.Options{Fullgraph: true}).Call(i, x, y)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "1000 steps", results(got), want)
	if v := want[1].Float64s()[0]; math.Abs(v-(math.Pow(0.999, 1000)+0.001*(1-math.Pow(0.999, 1000))/0.001)) > 1e-3 {
		t.Errorf("value %v", v)
	}
}
