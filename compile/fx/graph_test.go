package fx_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

func names(ns []*fx.Node) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = n.Name
	}
	return strings.Join(s, " ")
}

func TestNaming(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	add := op("aten::add.Tensor")
	sum := op("aten::sum")
	addI := op("aten::add_.Tensor")
	got := []*fx.Node{
		b.call(add, x, 1),        // add
		b.call(add, x, 1),        // add_1
		b.call(sum, x),           // sum is a builtin: sum_1
		b.call(sum, x),           // sum_2
		b.call(addI, x, 1),       // add_
		b.call(addI, x, 1),       // add__1
		b.call(fx.GetItem, x, 0), // getitem
		b.call(fx.GetItem, x, 1), // getitem_1
		b.call(op("aten::_softmax"), x, -1, false),
		b.call(op("aten::slice.Tensor"), x), // slice is a builtin
		b.call(op("aten::max"), x),          // so is max
		b.call(schemaOp("__and__.Tensor(Tensor self, Tensor other) -> Tensor"), x, x), // dunder stripped: and, a keyword
		b.g.Placeholder("x"),    // free, though x_1 exists
		b.g.Placeholder("x"),    // x, x_1 taken: x_2
		b.g.Placeholder("L_x_"), // snake case
		b.g.GetAttr("sub.weight"),
		b.g.GetAttr("_tensor_constant0"),
		b.g.GetAttr("true_graph_0"),
		b.named("torch", add, x, 1), // FX's generated code imports torch
		b.named("x_01", add, x, 1),  // the number is normalized: x_1 is taken
		b.named("foo.bar-baz", add, x, 1),
		b.named("3d", add, x, 1),
		b.named("", &fx.Function{Name: "MyHop", Qualified: "my.hop"}, x),
	}
	want := "add add_1 sum_1 sum_2 add_ add__1 getitem getitem_1 _softmax slice_1 max_1 and_1 " +
		"x x_2 l_x_ sub_weight _tensor_constant0 true_graph_0 torch_1 x_3 foo_bar_baz _3d my_hop"
	if g := names(got); g != want {
		t.Errorf("names:\n got %s\nwant %s", g, want)
	}
}

// TestErasedNamesStay: FX never gives an erased node's name back, so the
// next node with the same base takes a new number.
func TestErasedNamesStay(t *testing.T) {
	b, ph := newBuilder("x_1")
	add := op("aten::add.Tensor")
	a := b.call(add, ph[0], 1)
	a1 := b.call(add, a, 1)
	if err := b.g.EraseNode(a1); err != nil {
		t.Fatal(err)
	}
	a2 := b.call(add, a, 1)
	if a2.Name != "add_2" {
		t.Errorf("after erasing add_1 the next add is %s, want add_2", a2.Name)
	}
	if !a1.Erased() {
		t.Error("add_1 not erased")
	}
	if got := names(a.Users()); got != "add_2" {
		t.Errorf("users of add after erasing add_1: %q", got)
	}
	if names(b.g.Nodes()) != "x_1 add add_2" || b.g.Len() != 3 {
		t.Errorf("nodes %q len %d", names(b.g.Nodes()), b.g.Len())
	}
}

func TestEraseNodeRefused(t *testing.T) {
	b, ph := newBuilder("x_1")
	add := b.call(op("aten::add.Tensor"), ph[0], 1)
	b.call(op("aten::mul.Tensor"), add, 2)
	err := b.g.EraseNode(add)
	want := "Tried to erase Node add but it still had 1 users in the graph: {mul: None}!"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	var fe *fx.Error
	if !errors.As(err, &fe) || fe.Node != add || fe.Kind != tensor.RuntimeError {
		t.Errorf("error %#v does not name the node", err)
	}
	b.call(op("aten::sub.Tensor"), add, ph[0])
	err = b.g.EraseNode(ph[0])
	want = "Tried to erase Node x_1 but it still had 2 users in the graph: {add: None, sub: None}!"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if b.g.Len() != 4 || add.Erased() {
		t.Error("a refused erase changed the graph")
	}
}

func TestReplaceAllUsesWith(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	a := b.call(op("aten::relu"), x)
	m := b.call(op("aten::mul.Tensor"), a, a)
	s := b.g.CallFunction(op("aten::sub.Tensor"), []any{x, a}, fx.Kwargs{{Name: "alpha", Value: a}})
	restore := b.g.InsertingBefore(a)
	n := b.call(op("aten::neg"), x)
	restore()
	changed := a.ReplaceAllUsesWith(n)
	if names(changed) != "mul sub" {
		t.Errorf("changed %q", names(changed))
	}
	if a.NumUsers() != 0 || names(n.Users()) != "mul sub" {
		t.Errorf("users: a %q, neg %q", names(a.Users()), names(n.Users()))
	}
	if m.Args()[0] != n || m.Args()[1] != n || s.Args()[1] != n {
		t.Error("arguments not replaced")
	}
	if v, _ := s.Kwargs().Get("alpha"); v != n {
		t.Error("keyword argument not replaced")
	}
	// x's users: relu first, then sub moved to the end when its arguments
	// were rewritten, as FX's ordered users dict does.
	if got := names(x.Users()); got != "relu neg sub" {
		t.Errorf("x users %q", got)
	}
	if err := b.g.EraseNode(a); err != nil {
		t.Fatal(err)
	}
	b.g.Output(fx.Tuple{m, s})
	if err := b.g.Lint(); err != nil {
		t.Fatal(err)
	}
	want := `def forward(self, x_1):
    neg = torch.ops.aten.neg.default(x_1)
    mul = torch.ops.aten.mul.Tensor(neg, neg)
    sub = torch.ops.aten.sub.Tensor(x_1, neg, alpha = neg);  x_1 = neg = None
    return (mul, sub)`
	if got := strings.TrimSpace(fx.NewGraphModule(b.g).Code()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// Only some users.
	y := b.g.Placeholder("y")
	got := n.ReplaceUsesWithFunc(y, func(u *fx.Node) bool { return u == s })
	if names(got) != "sub" || names(n.Users()) != "mul" {
		t.Errorf("ReplaceUsesWithFunc: %q, left %q", names(got), names(n.Users()))
	}
}

func TestInsertionPoints(t *testing.T) {
	b, ph := newBuilder("x")
	x := ph[0]
	relu := b.call(op("aten::relu"), x)
	restore := b.g.InsertingAfter(x)
	b.call(op("aten::neg"), x)
	b.call(op("aten::sin"), x) // also right after x: before neg, as in FX
	restore()
	restore = b.g.InsertingBefore(relu)
	b.call(op("aten::cos"), x)
	restore()
	restore = b.g.InsertingBefore(nil)
	p := b.g.Placeholder("first")
	restore()
	b.call(op("aten::exp"), x) // the end again
	if got := names(b.g.Nodes()); got != "first x sin neg cos relu exp" {
		t.Errorf("order %q", got)
	}
	relu.MoveBefore(p)
	p.MoveAfter(b.g.Last())
	if got := names(b.g.Nodes()); got != "relu x sin neg cos exp first" {
		t.Errorf("after moves %q", got)
	}
	if b.g.First() != relu || b.g.Last() != p || relu.Prev() != nil || p.Next() != nil || relu.Next() != x {
		t.Error("First/Last/Prev/Next")
	}
}

func lintErr(t *testing.T, g *fx.Graph, want string, node *fx.Node) {
	t.Helper()
	err := g.Lint()
	if err == nil {
		t.Fatalf("Lint passed, want %q", want)
	}
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Lint: %q\nwant prefix %q", err, want)
	}
	var fe *fx.Error
	if node != nil && (!errors.As(err, &fe) || fe.Node != node) {
		t.Errorf("Lint error does not name node %s: %#v", node.Name, err)
	}
}

func TestLintFailures(t *testing.T) {
	t.Run("use before def", func(t *testing.T) {
		b, ph := newBuilder("x")
		relu := b.call(op("aten::relu"), ph[0])
		restore := b.g.InsertingBefore(relu)
		neg := b.call(op("aten::neg"), relu)
		restore()
		b.g.Output(neg)
		lintErr(t, b.g, "Argument 'relu' of Node 'neg' was used before it has been defined! "+
			"Please check that Nodes in the graph are topologically ordered", neg)
	})
	t.Run("erased argument", func(t *testing.T) {
		b, ph := newBuilder("x")
		relu := b.call(op("aten::relu"), ph[0])
		if err := b.g.EraseNode(relu); err != nil {
			t.Fatal(err)
		}
		out := b.g.Output(relu) // FX does not refuse this; Lint does
		lintErr(t, b.g, "Argument 'relu' of Node 'output' was used before it has been defined!", out)
	})
	t.Run("two outputs", func(t *testing.T) {
		b, ph := newBuilder("x")
		b.g.Output(ph[0])
		o2 := b.g.Output(ph[0])
		lintErr(t, b.g, "Graph has 2 output nodes (output, output_1)!", o2)
	})
	t.Run("no output", func(t *testing.T) {
		b, ph := newBuilder("x")
		b.call(op("aten::relu"), ph[0])
		lintErr(t, b.g, "Graph has no output node!", nil)
	})
	t.Run("node after output", func(t *testing.T) {
		b, ph := newBuilder("x")
		b.g.Output(ph[0])
		r := b.call(op("aten::relu"), ph[0])
		lintErr(t, b.g, "Node 'relu' comes after the output node 'output'!", r)
	})
	t.Run("names", func(t *testing.T) {
		b, ph := newBuilder("x")
		r := b.call(op("aten::relu"), ph[0])
		b.g.Output(r)
		r.Name = "x"
		lintErr(t, b.g, "Node redefined name x!", r)
	})
	t.Run("missing attribute", func(t *testing.T) {
		b, _ := newBuilder()
		c := b.g.GetAttr("_tensor_constant0")
		s := b.g.GetAttr("sub.weight")
		b.g.Output(fx.Tuple{c, s})
		gm := fx.NewGraphModule(b.g)
		lintErr(t, b.g, "Node _tensor_constant0 target _tensor_constant0 references nonexistent attribute _tensor_constant0 of ", c)
		gm.SetAttr("_tensor_constant0", tensor.FromSlice([]float32{1}))
		lintErr(t, b.g, "Node sub_weight target sub.weight references nonexistent attribute sub of ", s)
		gm.SetAttr("sub", fx.NewGraphModule(fx.New()))
		lintErr(t, b.g, "Node sub_weight target sub.weight references nonexistent attribute weight of sub", s)
		gm.SetAttr("sub.weight", tensor.FromSlice([]float32{2}))
		if err := b.g.Lint(); err != nil {
			t.Error(err)
		}
		// The sub-module's graph has no output: the module's Lint says so.
		if err := gm.Lint(); err == nil || err.Error() != "Graph has no output node!" {
			t.Errorf("GraphModule.Lint: %v", err)
		}
	})
}

func TestMisusePanics(t *testing.T) {
	other := fx.New()
	y := other.Placeholder("y")
	g := fx.New()
	for name, f := range map[string]func(){
		"foreign argument": func() { g.CallFunction(op("aten::relu"), []any{y}, nil) },
		"bad target":       func() { g.CallFunction("relu", nil, nil) },
		"tensor argument":  func() { g.CallFunction(op("aten::relu"), []any{tensor.FromSlice([]float32{1})}, nil) },
		"foreign insert":   func() { g.InsertingBefore(y) },
		"map argument":     func() { g.CallFunction(op("aten::relu"), []any{map[string]int{}}, nil) },
	} {
		err := tensor.Try(f)
		if err == nil {
			t.Errorf("%s: no panic", name)
		}
	}
}

func TestEliminateDeadCode(t *testing.T) {
	b, ph := newBuilder("x")
	x := ph[0]
	r := b.call(op("aten::relu"), x)
	b.call(op("aten::neg"), r)            // dead, and makes relu dead
	b.call(op("aten::add_.Tensor"), x, 1) // mutates x: kept
	b.call(&fx.Function{Name: "effect", Qualified: "my.effect", SideEffects: true}, x)
	b.call(&fx.Function{Name: "pure", Qualified: "my.pure"}, x)
	b.call(op("aten::native_dropout"), x, 0.5, true)                                                               // draws random numbers: kept
	b.call(schemaOp("mylib::bump(Tensor(a!) x) -> ()"), x)                                                         // mutates, in another namespace: kept
	b.named("unknown", &tensor.Op{Name: "mylib::unknown"}, x)                                                      // no schema: kept
	b.call(schemaOp("native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor"), x, x, 2.0) // deterministic: erased
	b.g.Output(x)
	changed, err := b.g.EliminateDeadCode()
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	if got := names(b.g.Nodes()); got != "x add_ effect native_dropout bump unknown output" {
		t.Errorf("after DCE %q", got)
	}
	if changed, _ := b.g.EliminateDeadCode(); changed {
		t.Error("second DCE changed the graph")
	}
}

func TestCodeForms(t *testing.T) {
	b, ph := newBuilder("x_1", "L_y_")
	x := ph[0]
	gm := fx.NewGraphModule(b.g)
	c := gm.AddConstant(tensor.FromSlice([]float32{1, 2}))
	c1 := gm.AddConstant(tensor.FromSlice([]float32{3}))
	sub := fx.NewGraphModule(fx.New())
	gm.SetAttr("layers", sub)
	sub.SetAttr("0", tensor.FromSlice([]float32{4}))
	w := b.g.GetAttr("layers.0")
	e := b.g.CallFunction(op("aten::empty.memory_format"), []any{[]int{2, 3}},
		fx.Kwargs{{"dtype", tensor.Float32}, {"layout", tensor.Strided}, {"device", tensor.CPU},
			{"pin_memory", false}, {"memory_format", tensor.ContiguousFormat}})
	add := b.call(op("aten::add.Tensor"), c, c1)
	neg := b.call(fx.Neg, add)
	gm2 := b.call(fx.Gt, neg, math.Inf(-1))
	idx := b.call(fx.GetItem, x, fx.Tuple{0, nil, -1})
	b.g.Output([]any{e, gm2, w, idx, ph[1], nil, fx.Tuple{}})
	if err := b.g.Lint(); err != nil {
		t.Fatal(err)
	}
	want := `def forward(self, x_1, L_y_):
    l_y_ = L_y_
    _tensor_constant0 = self._tensor_constant0
    _tensor_constant1 = self._tensor_constant1
    layers_0 = getattr(self.layers, "0")
    empty = torch.ops.aten.empty.memory_format([2, 3], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.contiguous_format)
    add = torch.ops.aten.add.Tensor(_tensor_constant0, _tensor_constant1);  _tensor_constant0 = _tensor_constant1 = None
    neg = -add;  add = None
    gt = neg > -inf;  neg = None
    getitem = x_1[(0, None, -1)];  x_1 = None
    return [empty, gt, layers_0, getitem, l_y_, None, ()]`
	if got := strings.TrimSpace(gm.Code()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Every node is used: PyTorch 2.x's liveness prints the same.
	if gm.CodeWith(fx.CodeOptions{FreeUnused: true}) != gm.Code() {
		t.Error("FreeUnused changed a graph without unused nodes")
	}
	if got := names(b.g.Placeholders()); got != "x_1 l_y_" {
		t.Errorf("placeholders %q", got)
	}
	if gm.FreshAttrName("_tensor_constant") != "_tensor_constant2" || gm.FreshAttrName("true_graph_") != "true_graph_0" {
		t.Error("FreshAttrName")
	}
	if got := strings.Join(gm.AttrNames(), " "); got != "_tensor_constant0 _tensor_constant1 layers" {
		t.Errorf("AttrNames %q", got)
	}
	if !gm.DelAttr("_tensor_constant0") || gm.DelAttr("_tensor_constant0") || !gm.DelAttr("layers.0") || gm.DelAttr("nope.0") {
		t.Error("DelAttr")
	}
	if got := strings.Join(gm.AttrNames(), " "); got != "_tensor_constant1 layers" || len(sub.AttrNames()) != 0 {
		t.Errorf("AttrNames after DelAttr %q, sub %q", got, sub.AttrNames())
	}
	if gm.FreshAttrName("_tensor_constant") != "_tensor_constant0" {
		t.Error("FreshAttrName after DelAttr")
	}
}

func TestCodeEdgeCases(t *testing.T) {
	cases := []struct {
		build func(g *fx.Graph)
		want  string
	}{
		{func(g *fx.Graph) {}, "\n\n\ndef forward(self):\n    pass\n    "},
		{func(g *fx.Graph) { g.Output(nil) }, "\n\n\ndef forward(self):\n    return None\n    "},
		{func(g *fx.Graph) {
			x := g.Placeholder("x")
			y := g.PlaceholderDefault("y", 3.14159)
			g.Output(fx.Tuple{x, y})
		}, "\n\n\ndef forward(self, x, y = 3.14159):\n    return (x, y)\n    "},
		{func(g *fx.Graph) {
			// A node whose name Python could not take is renamed in the code.
			x := g.Placeholder("x")
			r := g.CallFunction(op("aten::relu"), []any{x}, nil)
			r.Name = "sum"
			g.Output(r)
		}, "\n\n\ndef forward(self, x):\n    sum_1 = torch.ops.aten.relu.default(x);  x = None\n    return sum_1\n    "},
	}
	for i, c := range cases {
		g := fx.New()
		c.build(g)
		if got := g.PythonCode(fx.CodeOptions{}); got != c.want {
			t.Errorf("case %d: got %q\nwant %q", i, got, c.want)
		}
	}
}

func TestRepr(t *testing.T) {
	g := fx.New()
	x := g.Placeholder("x_1")
	cases := []struct {
		v    any
		want string
	}{
		{nil, "None"}, {true, "True"}, {false, "False"},
		{2, "2"}, {int64(-7), "-7"}, {int32(3), "3"}, {uint8(255), "255"},
		{0.5, "0.5"}, {2.0, "2.0"}, {0.7071067811865476, "0.7071067811865476"}, {1e-05, "1e-05"},
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {123456789012345678.0, "1.2345678901234568e+17"},
		{0.0001, "0.0001"}, {0.00012345, "0.00012345"}, {math.Copysign(0, -1), "-0.0"}, {1.5e-7, "1.5e-07"},
		{1.0 / 3, "0.3333333333333333"}, {2.5e20, "2.5e+20"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{math.NaN(), "nan"}, {1e300, "1e+300"}, {5e-324, "5e-324"}, {float32(0.1), "0.10000000149011612"},
		{tensor.Float(1), "1.0"}, {tensor.Int(3), "3"}, {tensor.BoolScalar(true), "True"},
		{"moo", "'moo'"}, {"it's", `"it's"`}, {`a"b'c`, `'a"b\'c'`}, {"tab\there\n", `'tab\there\n'`},
		{"\x00\x7f\u00a0é\u2028", `'\x00\x7f\xa0é\u2028'`}, {`\`, `'\\'`},
		{tensor.Float32, "torch.float32"}, {tensor.Int64, "torch.int64"}, {tensor.Bool, "torch.bool"},
		{tensor.BFloat16, "torch.bfloat16"}, {tensor.CPU, "device(type='cpu')"}, {tensor.Meta, "device(type='meta')"},
		{tensor.ChannelsLast, "torch.channels_last"}, {tensor.PreserveFormat, "torch.preserve_format"},
		{tensor.Strided, "torch.strided"},
		{[]int{-1}, "[-1]"}, {[]int64{2, 3}, "[2, 3]"}, {[]any{}, "[]"}, {fx.Tuple{}, "()"},
		{fx.Tuple{x}, "(x_1,)"}, {fx.Tuple{x, []any{x, 1.5}}, "(x_1, [x_1, 1.5])"}, {[]*fx.Node{x}, "[x_1]"},
		{op("aten::add.Tensor"), "torch.ops.aten.add.Tensor"}, {op("aten::sigmoid"), "torch.ops.aten.sigmoid.default"},
		{fx.GetItem, "operator.getitem"}, {hop("cond"), "torch.ops.higher_order.cond"},
	}
	for _, c := range cases {
		if got := fx.Repr(c.v); got != c.want {
			t.Errorf("Repr(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestGraphString(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	mul := b.call(op("aten::mul.Tensor"), x, 2)
	ones := b.g.CallFunction(op("aten::ones_like"), []any{mul}, fx.Kwargs{{"pin_memory", false}, {"device", tensor.CPU}})
	it := b.call(fx.GetItem, fx.Tuple{ones}, 0)
	b.g.Output(fx.Tuple{it, x, "s"})
	want := `graph():
    %x_1 : [#users=2] = placeholder[target=x_1]
    %mul : [#users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x_1, 2), kwargs = {})
    %ones_like : [#users=1] = call_function[target=torch.ops.aten.ones_like.default](args = (%mul,), kwargs = {pin_memory: False, device: cpu})
    %getitem : [#users=1] = call_function[target=operator.getitem](args = ((%ones_like,), 0), kwargs = {})
    return (getitem, x_1, 's')`
	if got := b.g.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCopyNode(t *testing.T) {
	b, ph := newBuilder("x_1")
	r := b.call(op("aten::relu"), ph[0])
	r.Meta[fx.MetaStackTrace] = fx.StackTrace(0)
	s := b.call(op("aten::sum"), r)
	b.g.Output(s)

	g2 := fx.New()
	env := map[*fx.Node]*fx.Node{}
	for _, n := range b.g.Nodes() {
		env[n] = g2.CopyNode(n, func(x *fx.Node) *fx.Node { return env[x] })
	}
	if err := g2.Lint(); err != nil {
		t.Fatal(err)
	}
	if g2.PythonCode(fx.CodeOptions{}) != b.g.PythonCode(fx.CodeOptions{}) {
		t.Errorf("copy prints differently:\n%s", g2.PythonCode(fx.CodeOptions{}))
	}
	st, _ := env[r].Meta[fx.MetaStackTrace].(string)
	if !strings.Contains(st, "fx_test.TestCopyNode") || !strings.Contains(st, "graph_test.go") {
		t.Errorf("stack trace %q", st)
	}
	if env[s].Name != "sum_1" || g2.FindNode("relu") != env[r] || g2.OutputNode() != env[b.g.OutputNode()] {
		t.Error("copied names or lookups")
	}
}

// manyUsers is a graph with a node of n users and a node of n arguments.
func manyUsers(n int) *fx.Graph {
	g := fx.New()
	x := g.Placeholder("x")
	neg := op("aten::neg")
	users := make([]any, n)
	for i := range users {
		users[i] = g.CallFunction(neg, []any{x}, nil)
	}
	g.Output(g.CallFunction(op("aten::cat"), []any{users}, nil))
	return g
}

// Lint accepts a node of many users and one of many arguments (Load lints
// every graph it reads; BenchmarkLintManyUsers shows the time is linear:
// 300,000 of each took over 90 s when each use was searched for again).
func TestLintManyUsers(t *testing.T) {
	if err := manyUsers(20_000).Lint(); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkLintManyUsers(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		g := manyUsers(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if err := g.Lint(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
