package hop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

func add(x ...*T) []*T { return ts(x[0].Add(x[1])) }
func mul(x ...*T) []*T { return ts(x[0].Mul(x[1])) }
func sin(x ...*T) []*T { return ts(x[0].Sin()) }
func cos(x ...*T) []*T { return ts(x[0].Cos()) }

// S10: test_cond_accepts_torch_function_as_inputs (make_fx), PyTorch's
// test/functorch/test_control_flow.py.
func condS10(a, b *T) *T {
	return hop.Cond(a.SumAll().GtScalar(0), add, mul, []*T{a, b})[0]
}

func TestCondGraphS10(t *testing.T) {
	a, b := tensor.Randn([]int{4}), tensor.Randn([]int{4})
	for _, mode := range modes {
		gm := trace(t, condS10, ts(a, b), mode, "a", "b")
		expectCode(t, gm, "", `
def forward(self, a_1, b_1):
    sum_1 = torch.ops.aten.sum.default(a_1)
    gt = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
    true_graph_0 = self.true_graph_0
    false_graph_0 = self.false_graph_0
    cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [a_1, b_1]);  gt = true_graph_0 = false_graph_0 = a_1 = b_1 = None
    getitem = cond[0];  cond = None
    return getitem`)
		expectCode(t, gm, "true_graph_0", `
def forward(self, arg0_1, arg1_1):
    add = torch.ops.aten.add.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
    return (add,)`)
		expectCode(t, gm, "false_graph_0", `
def forward(self, arg0_1, arg1_1):
    mul = torch.ops.aten.mul.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
    return (mul,)`)
		if err := gm.Lint(); err != nil {
			t.Error(err)
		}
		// The graph runs both ways on fx.Interpreter.
		for _, s := range []float64{1, -1} {
			x := a.Abs().MulScalar(s)
			got, err := fx.NewInterpreter(gm).Run(x, b)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, "interpreted", ts(got.(*T)), ts(condS10(x, b)))
		}
	}
}

// S12: test_cond_autograd_simple. The backward is a second cond over the
// joint graphs, taking the output gradient and the operand.
//
// One line differs from PyTorch's text: goaten's ones_like is a composite
// op that traces as full_like(x, 1) (PyTorch records ones_like itself, with
// the pin_memory=False its Python binding passes). The test checks
// PyTorch's text with that substitution.
func TestCondAutogradGraphS12(t *testing.T) {
	f := func(pred, x *T) any {
		r := hop.Cond(pred, sin, cos, hop.Tuple{x})[0]
		g := autograd.Grad(ts(r), ts(x), ts(r.OnesLike()))
		return fx.Tuple{g[0]}
	}
	pytorch := `
def forward(self, pred_1, x_1):
    true_graph_0 = self.true_graph_0
    false_graph_0 = self.false_graph_0
    cond = torch.ops.higher_order.cond(pred_1, true_graph_0, false_graph_0, (x_1,));  true_graph_0 = false_graph_0 = None
    getitem = cond[0];  cond = None
    ones_like = torch.ops.aten.ones_like.default(getitem, pin_memory = False);  getitem = None
    true_graph_1 = self.true_graph_1
    false_graph_1 = self.false_graph_1
    cond_1 = torch.ops.higher_order.cond(pred_1, true_graph_1, false_graph_1, (ones_like, x_1));  pred_1 = true_graph_1 = false_graph_1 = ones_like = x_1 = None
    getitem_1 = cond_1[0];  cond_1 = None
    return (getitem_1,)`
	want := strings.NewReplacer(
		"ones_like = torch.ops.aten.ones_like.default(getitem, pin_memory = False)", "full_like = torch.ops.aten.full_like.default(getitem, 1)",
		"ones_like", "full_like").Replace(pytorch)
	x := tensor.Randn([]int{4}).SetRequiresGrad(true)
	for _, mode := range modes {
		for _, p := range []bool{true, false} {
			pred := boolT(p)
			gm := trace(t, f, ts(pred, x), mode, "pred", "x")
			expectCode(t, gm, "", want)
			// The joint graphs: gradient first, then the operand.
			expectCode(t, gm, "true_graph_1", `
def forward(self, arg0_1, arg1_1):
    sin = torch.ops.aten.sin.default(arg1_1)
    cos = torch.ops.aten.cos.default(arg1_1);  arg1_1 = None
    mul = torch.ops.aten.mul.Tensor(arg0_1, cos);  arg0_1 = cos = None
    return (mul,)`)
			// The traced graph computes the gradient of the branch taken.
			got, err := fx.NewInterpreter(gm).Run(pred, x)
			if err != nil {
				t.Fatal(err)
			}
			want := x.Cos()
			if !p {
				want = x.Sin().Neg()
			}
			expectClose(t, "grad", results(got), ts(autograd.Detach(want)))
		}
	}
}

// Gradients through cond equal those of the branch taken, pass gradcheck in
// float64, and a compiled training step (AOT autograd: the backward cond in
// the backward graph) gives the same.
func TestCondAutograd(t *testing.T) {
	br := func(x ...*T) []*T { return ts(x[0].Mul(x[1]).Sin(), x[0].Exp()) }
	other := func(x ...*T) []*T { return ts(x[0].Add(x[1]).Cos().MulScalar(3), x[1].Square()) }
	fn := func(pred, x, y *T) *T {
		o := hop.Cond(pred, br, other, []*T{x, y})
		return o[0].Add(o[1].MulScalar(2)).SumAll()
	}
	for _, p := range []bool{true, false} {
		pred := boolT(p)
		x := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
		y := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
		if err := autograd.Gradcheck(func(in []*T) []*T {
			return hop.Cond(pred, br, other, []*T{in[0], in[1]})
		}, ts(x, y)); err != nil {
			t.Errorf("pred %v: %v", p, err)
		}
		got := autograd.Grad(ts(fn(pred, x, y)), ts(x, y), nil)
		b := other
		if p {
			b = br
		}
		o := b(x, y)
		want := autograd.Grad(ts(o[0].Add(o[1].MulScalar(2)).SumAll()), ts(x, y), nil)
		expectClose(t, "eager grads", got, want)
		c := compile.Compile(fn, compile.Options{Fullgraph: true})
		for range 2 {
			res, err := c.Call(pred, x, y)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, "compiled grads", autograd.Grad(results(res), ts(x, y), nil), want)
		}
		if j := c.Joints()[0]; j == nil || !strings.Contains(j.Backward.Code(), "torch.ops.higher_order.cond") {
			t.Errorf("the compiled backward has no cond")
		}
	}
	// Only one operand requires grad; the other gets no gradient.
	x := tensor.Randn([]int{3}).SetRequiresGrad(true)
	y := tensor.Randn([]int{3})
	pred := boolT(true)
	o := hop.Cond(pred, br, other, []*T{x, y})
	g := autograd.Grad(ts(o[0].SumAll()), ts(x), nil)
	expectClose(t, "one operand", g, ts(y.Mul(x.Mul(y).Cos())))
}

// Eager, traced (run on the Interpreter with other inputs than the trace's)
// and compiled results agree on the CPU and the gonum device; a Go bool
// pred calls the branch. (A real-mode trace on the gonum device, a
// functionalized one, records its inputs as constants, with or without a
// cond: compile.Trace's real mode does not see through the functional
// wrappers. Compile traces in fake mode.)
func TestCondEagerTracedCompiled(t *testing.T) {
	for _, dev := range devices {
		a, b := on(dev, tensor.Randn([]int{2, 3}), tensor.Randn([]int{2, 3}))[0], on(dev, tensor.Randn([]int{2, 3}))[0]
		tmodes := modes
		if dev != tensor.CPU {
			tmodes = []compile.Mode{compile.Fake}
		}
		var gms []*fx.GraphModule
		for _, mode := range tmodes {
			gms = append(gms, trace(t, condS10, ts(a.Abs().AddScalar(1), on(dev, tensor.Randn([]int{2, 3}))[0]), mode, "a", "b"))
		}
		for _, s := range []float64{1, -1} {
			x := a.Abs().MulScalar(s)
			want := x.Mul(b)
			if s > 0 {
				want = x.Add(b)
			}
			expectClose(t, dev.String()+" eager", ts(condS10(x, b)), ts(want))
			for _, gm := range gms {
				got, err := fx.NewInterpreter(gm).Run(x, b)
				if err != nil {
					t.Fatal(err)
				}
				expectClose(t, dev.String()+" interpreted", ts(got.(*T)), ts(want))
			}
			c := compile.Compile(condS10, compile.Options{Fullgraph: true})
			got, err := c.Call(x, b)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, dev.String()+" compiled", results(got), ts(want))
		}
		x := on(dev, tensor.Randn([]int{4}))[0]
		expectClose(t, "bool pred", hop.Cond(false, sin, cos, []*T{x}), ts(x.Cos()))
	}
	// A Go bool pred inlines the branch in a trace (test_cond_no_trace).
	gm := trace(t, func(x *T) *T { return hop.Cond(true, sin, cos, []*T{x})[0] }, ts(tensor.Randn([]int{4})), compile.Fake, "x")
	expectCode(t, gm, "", `
def forward(self, x_1):
    sin = torch.ops.aten.sin.default(x_1);  x_1 = None
    return sin`)
}

// Tensors a branch closes over become extra operands (get_attr constants in
// the graph); every branch takes them all (S11's closure test).
func TestCondClosureLifted(t *testing.T) {
	a := tensor.OnesOf([]int{1, 1})
	b := tensor.OnesOf([]int{1, 1}).AddScalar(1)
	f := func(x *T) *T {
		return hop.Cond(x.SumAll().GtScalar(0),
			func(y ...*T) []*T { return ts(y[0].Add(a)) },
			func(y ...*T) []*T { return ts(y[0].Add(b)) }, []*T{x})[0]
	}
	x := tensor.Randn([]int{2, 3})
	for _, mode := range modes {
		gm := trace(t, f, ts(x), mode, "x")
		c := code(t, gm, "")
		if !strings.Contains(c, "cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [x_1, _tensor_constant0, _tensor_constant1])") {
			t.Errorf("closures not lifted:\n%s", c)
		}
		for _, br := range []string{"true_graph_0", "false_graph_0"} {
			if !strings.Contains(code(t, gm, br), "def forward(self, arg0_1, arg1_1, arg2_1):") {
				t.Errorf("%s:\n%s", br, code(t, gm, br))
			}
		}
		expectCode(t, gm, "false_graph_0", `
def forward(self, arg0_1, arg1_1, arg2_1):
    add = torch.ops.aten.add.Tensor(arg0_1, arg2_1);  arg0_1 = arg2_1 = None
    return (add,)`)
		for _, s := range []float64{1, -1} {
			y := x.Abs().MulScalar(s)
			got, err := fx.NewInterpreter(gm).Run(y)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, "lifted", ts(got.(*T)), ts(f(y)))
		}
	}
}

// Nested conds: the inner one's graphs are attributes of the branch's
// graph, numbered there from 0.
func TestCondNested(t *testing.T) {
	f := func(x, p, p2 *T) *T {
		return hop.Cond(p, func(a ...*T) []*T {
			z := hop.Cond(a[1], func(y ...*T) []*T { return ts(y[0].Mul(y[0])) }, func(y ...*T) []*T { return ts(y[0].Add(y[0])) }, []*T{a[0]})[0]
			return ts(a[0].Add(z))
		}, func(a ...*T) []*T { return ts(a[0].Cos()) }, []*T{x, p2})[0]
	}
	x := tensor.Randn([]int{4})
	tt, ff := boolT(true), boolT(false)
	gm := trace(t, f, ts(x, ff, ff), compile.Fake, "x", "pred", "pred2")
	expectCode(t, gm, "true_graph_0", `
def forward(self, arg0_1, arg1_1):
    true_graph_0 = self.true_graph_0
    false_graph_0 = self.false_graph_0
    cond = torch.ops.higher_order.cond(arg1_1, true_graph_0, false_graph_0, [arg0_1]);  arg1_1 = true_graph_0 = false_graph_0 = None
    getitem = cond[0];  cond = None
    add = torch.ops.aten.add.Tensor(arg0_1, getitem);  arg0_1 = getitem = None
    return (add,)`)
	for _, p := range [][2]*T{{tt, tt}, {tt, ff}, {ff, tt}, {ff, ff}} {
		got, err := fx.NewInterpreter(gm).Run(x, p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "nested", ts(got.(*T)), ts(f(x, p[0], p[1])))
	}
}

// S13: the branches' outputs must agree in a trace.
func TestCondErrors(t *testing.T) {
	x := tensor.Randn([]int{4})
	pred := x.SumAll().GtScalar(0)
	twice := func(a ...*T) []*T { return ts(a[0], a[0]) }
	f := func(x *T) []*T { return hop.Cond(x.SumAll().GtScalar(0), sin, twice, []*T{x}) }
	_, err := compile.Trace(f, ts(x), compile.TraceOptions{Mode: compile.Fake})
	if err == nil || !strings.Contains(err.Error(), "Expected to return same number of outputs but got:\n  true branch returns 1 item(s)\n  false branch returns 2 item(s)") {
		t.Errorf("number of outputs: %v", err)
	}
	big := func(a ...*T) []*T { return ts(tensor.ZerosOf([]int{10, 10})) }
	g := func(x *T) *T { return hop.Cond(x.SumAll().GtScalar(0), sin, big, []*T{x})[0] }
	_, err = compile.Trace(g, ts(x), compile.TraceOptions{Mode: compile.Fake})
	want := "Expected each tensor to have same metadata but got:\n" +
		"  true branch returns TensorMetadata(shape=torch.Size([4]), dtype=torch.float32, requires_grad=False, stride=(1,), memory_format=torch.contiguous_format, is_quantized=False, qparams={})\n" +
		"  false branch returns TensorMetadata(shape=torch.Size([10, 10]), dtype=torch.float32, requires_grad=False, stride=(10, 1), memory_format=torch.contiguous_format, is_quantized=False, qparams={})"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("metadata: %v", err)
	}
	expectPanic(t, "Expected pred to be bool or single-element tensor, but got tensor([", func() { hop.Cond(x, sin, cos, []*T{x}) })
	expectPanic(t, "Expected pred to be bool or tensor, but got 1.", func() { hop.Cond(1, sin, cos, []*T{x}) })
	expectPanic(t, "Expect operands to be a tuple of possibly nested dict/list/tuple that onlyconsists of tensor leaves, but got [", func() {
		hop.Cond(pred, sin, cos, []*T{x, nil})
	})
	// Under functionalization a branch may not write into its operand or
	// return it (in-place ops on intermediates are fine).
	inplace := func(a ...*T) []*T { a[0].Add_(num(1)); return ts(a[0].Sin()) }
	alias := func(a ...*T) []*T { return ts(a[0].View([]int{-1})) }
	ok := func(a ...*T) []*T { return ts(a[0].Clone().Add_(num(1)).Sin()) }
	for _, c := range []struct {
		br   hop.Sub
		want string
	}{{inplace, "One of torch.cond branch might be modifying the input!"}, {alias, "One of torch.cond branch might be aliasing the input!"}, {ok, ""}} {
		fn := func(x *T) *T { return hop.Cond(x.SumAll().GtScalar(0), c.br, cos, []*T{x})[0] }
		_, err := compile.Trace(fn, ts(x), compile.TraceOptions{Mode: compile.Fake, Functionalize: true})
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("functionalized: %v, want %q", err, c.want)
		}
	}
}

// Beyond PyTorch (#137520): branches whose outputs differ in size. Eagerly
// the result is the branch taken; a trace gives the cond's output an
// unbacked size (u0) where the branches' sizes differ, so one graph serves
// both; the graph computes the real size when it runs. A program that
// reads the size as an int is data-dependent: a fullgraph trace refuses
// it, and Compile without Fullgraph runs it in segments.
func TestCondUnequalBranches(t *testing.T) {
	first := func(a ...*T) []*T { return ts(a[0].Narrow(0, 0, 2).MulScalar(10)) }
	whole := func(a ...*T) []*T { return ts(a[0].Sin()) }
	f := func(x *T) *T {
		y := hop.Cond(x.SumAll().GtScalar(0), first, whole, []*T{x})[0]
		return y.AddScalar(1)
	}
	pos, neg := tensor.FromSlice([]float32{1, 2, 3, 4}, 4), tensor.FromSlice([]float32{-1, -2, -3, -4}, 4)
	if got := f(pos); got.Size(0) != 2 || !close(got, pos.Narrow(0, 0, 2).MulScalar(10).AddScalar(1)) {
		t.Errorf("eager true: %v", got)
	}
	if got := f(neg); got.Size(0) != 4 || !close(got, neg.Sin().AddScalar(1)) {
		t.Errorf("eager false: %v", got)
	}
	gm, err := compile.Trace(f, ts(pos), compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	expectCode(t, gm, "", `
def forward(self, x_1):
    sum_1 = torch.ops.aten.sum.default(x_1)
    gt = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
    true_graph_0 = self.true_graph_0
    false_graph_0 = self.false_graph_0
    cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [x_1]);  gt = true_graph_0 = false_graph_0 = x_1 = None
    getitem = cond[0];  cond = None
    add = torch.ops.aten.add.Scalar(getitem, 1);  getitem = None
    return add`)
	// The fake values after the cond have the unbacked size u0.
	for _, n := range gm.Graph.Nodes() {
		if n.Name != "getitem" && n.Name != "add" {
			continue
		}
		v, _ := n.Meta[fx.MetaVal].(*T)
		if v == nil || v.Dim() != 1 {
			t.Fatalf("%s: meta val %v", n.Name, n.Meta[fx.MetaVal])
		}
		if name, ok := compile.UnbackedName(v.Size(0)); !ok || name != "u0" {
			t.Errorf("%s: size %d is not u0", n.Name, v.Size(0))
		}
	}
	for _, x := range []*T{pos, neg} {
		got, err := fx.NewInterpreter(gm).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "interpreted", ts(got.(*T)), ts(f(x)))
	}
	c := compile.Compile(f, compile.Options{Fullgraph: true})
	for range 2 {
		for _, x := range []*T{pos, neg} {
			got, err := c.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, "compiled", results(got), ts(f(x)))
		}
	}
	if s := c.Stats(); s.Frames != 1 || s.Segments != 0 {
		t.Errorf("stats %+v: want one graph", s)
	}

	// Two outputs, one of them agreeing, and a second unbacked symbol.
	g2 := func(x *T) []*T {
		a := hop.Cond(x.SumAll().GtScalar(0),
			func(a ...*T) []*T { return ts(a[0].Narrow(0, 0, 1), a[0].Cos(), a[0].Narrow(1, 0, 2)) },
			func(a ...*T) []*T { return ts(a[0], a[0].Sin(), a[0].Narrow(1, 1, 1)) }, []*T{x})
		return ts(a[0].MulScalar(2), a[1], a[2].Exp())
	}
	m := tensor.Randn([]int{3, 3}).Abs()
	gm2, err := compile.Trace(g2, ts(m), compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	var shapes []string
	for _, n := range gm2.Graph.Nodes() {
		if v, ok := n.Meta[fx.MetaVal].(*T); ok && n.Op == fx.OpCallFunction && n.Target == any(fx.GetItem) {
			var dims []string
			for _, d := range v.Sizes() {
				if name, ok := compile.UnbackedName(d); ok {
					dims = append(dims, name)
				} else {
					dims = append(dims, fmt.Sprint(d))
				}
			}
			shapes = append(shapes, "["+strings.Join(dims, ", ")+"]")
		}
	}
	if got := strings.Join(shapes, " "); got != "[u0, 3] [3, 3] [3, u1]" {
		t.Errorf("getitem shapes %s, want [u0, 3] [3, 3] [3, u1]", got)
	}
	for _, x := range []*T{m, m.Neg()} {
		got, err := fx.NewInterpreter(gm2).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "two unbacked", results(got), g2(x))
	}

	// Reading the size as an int bakes it in: refused as data-dependent,
	// and run in segments when compiled without Fullgraph.
	h := func(x *T) *T {
		y := hop.Cond(x.SumAll().GtScalar(0), first, whole, []*T{x})[0]
		return y.Reshape([]int{y.Size(0), 1})
	}
	_, err = compile.Trace(h, ts(pos), compile.TraceOptions{Mode: compile.Fake})
	if err == nil || !strings.Contains(err.Error(), "Could not guard on data-dependent expression u0") || !compile.IsDataDependent(err) {
		t.Errorf("size read as an int: %v", err)
	}
	if _, err := compile.Compile(h, compile.Options{Fullgraph: true}).Call(pos); err == nil {
		t.Error("fullgraph compile reading the size: no error")
	}
	ch := compile.Compile(h, compile.Options{Logf: func(string, ...any) {}})
	for range 2 {
		for _, x := range []*T{pos, neg} {
			got, err := ch.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			expectClose(t, "segments", results(got), ts(h(x)))
		}
	}
	if s := ch.Stats(); s.Segments == 0 || s.Eager != 0 {
		t.Errorf("stats %+v: want segments, no eager fallback", s)
	}

	// Differing dtype, rank or output count stay errors, with S13's words.
	for _, bad := range []struct {
		name   string
		tf, ff hop.Sub
		want   string
	}{
		{"dtype", func(a ...*T) []*T { return ts(a[0]) }, func(a ...*T) []*T { return ts(a[0].To(tensor.Float64)) },
			"Expected each tensor to have same metadata but got:"},
		{"rank", func(a ...*T) []*T { return ts(a[0]) }, func(a ...*T) []*T { return ts(a[0].Unsqueeze(0)) },
			"Expected each tensor to have same metadata but got:"},
		{"count", func(a ...*T) []*T { return ts(a[0]) }, func(a ...*T) []*T { return ts(a[0], a[0]) },
			"Expected to return same number of outputs but got:"},
	} {
		fn := func(x *T) []*T { return hop.Cond(x.SumAll().GtScalar(0), bad.tf, bad.ff, []*T{x}) }
		_, err := compile.Trace(fn, ts(pos), compile.TraceOptions{Mode: compile.Fake})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.name, err, bad.want)
		}
	}
}

// Shape propagation on the meta device runs the cond's meta rule: both
// branches on meta tensors, the true branch's metadata.
func TestCondShapeProp(t *testing.T) {
	a, b := tensor.Randn([]int{2, 5}), tensor.Randn([]int{2, 5})
	gm := trace(t, condS10, ts(a, b), compile.Fake, "a", "b")
	out, err := fx.NewShapeProp(gm).Propagate(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if o := out.(*T); o.Device() != tensor.Meta || o.Size(1) != 5 {
		t.Errorf("shape prop: %v %v", o.Device(), o.Sizes())
	}
}

// Second derivatives through cond and map (the backward's own backward is a
// cond, a map, over the joint of the joint); a while_loop refuses.
func TestDoubleBackward(t *testing.T) {
	x := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	second := func(out *T) *T {
		g := autograd.Grad(ts(out.SumAll()), ts(x), nil, autograd.Options{CreateGraph: true})[0]
		return autograd.Grad(ts(g.SumAll()), ts(x), nil)[0]
	}
	cube := func(a ...*T) []*T { return ts(a[0].Mul(a[0]).Mul(a[0])) }
	for _, p := range []bool{true, false} {
		want := x.Cos().Neg()
		if p {
			want = x.Sin().Neg()
		}
		expectClose(t, "cond", ts(second(hop.Cond(boolT(p), sin, cos, []*T{x})[0])), ts(autograd.Detach(want)))
	}
	expectClose(t, "map", ts(second(hop.Map(cube, []*T{x.Reshape([]int{3, 1})}, nil)[0])), ts(autograd.Detach(x.MulScalar(6))))
	expectPanic(t, "double backward", func() {
		out := hop.WhileLoop(func(a ...*T) *T { return a[0].LtScalar(2) }, func(a ...*T) []*T { return ts(a[0].Add(num(1)), a[1].Sin()) },
			[]*T{tensor.FromSlice([]int64{0}).Reshape([]int{}), x}, nil)[1]
		autograd.Grad(ts(out.SumAll()), ts(x), nil, autograd.Options{CreateGraph: true})
	})
}
