package fx_test

import (
	"os"
	"strings"
	"testing"

	_ "github.com/goaten/goaten/aten/core" // registers the core ops
	"github.com/goaten/goaten/compile/fx"
	_ "github.com/goaten/goaten/decomp" // registers sum.default, ones_like, ...
	"github.com/goaten/goaten/tensor"
)

// The goldens are PyTorch's own gm.code texts, stripped, as recorded by
// testdata/ref_graphs_113.out (PyTorch 1.13.1, make_fx) and quoted from
// PyTorch 2.x's tests in testdata/pt2_graphs.txt. They are references, not
// expect files: there is no -update flag. Each test builds by hand the graph
// the tracer will build (same nodes, names and constants) and compares Code()
// byte for byte.

// sections reads a file of "==== title" headers each followed by a graph
// text ending at a blank line.
func sections(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		title, ok := strings.CutPrefix(lines[i], "==== ")
		if !ok {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != "" {
			j++
		}
		out[strings.TrimSpace(title)] = strings.Join(lines[i+1:j], "\n")
		i = j
	}
	return out
}

func op(name string) *tensor.Op { return tensor.MustOp(name) }

// schemaOp makes an op that goaten does not register (yet), from its schema,
// only to be printed.
func schemaOp(schema string) *tensor.Op {
	s := tensor.MustParseSchema(schema)
	return &tensor.Op{Name: s.QualifiedName(), Schema: s}
}

// hop is a higher-order op as PyTorch 2.x prints it.
func hop(name string) *fx.Function {
	return &fx.Function{Name: name, Qualified: "torch.ops.higher_order." + name}
}

var (
	withEffectsOld = &fx.Function{Name: "with_effects", Qualified: "torch._higher_order_ops.effects.with_effects", SideEffects: true}
	withEffects    = &fx.Function{Name: "with_effects", Qualified: "torch.ops.higher_order.with_effects", SideEffects: true}
	callTorchbind  = &fx.Function{Name: "call_torchbind", Qualified: "torch.ops.higher_order.call_torchbind", SideEffects: true}
)

// builder shortens hand-built graphs.
type builder struct{ g *fx.Graph }

func newBuilder(placeholders ...string) (builder, []*fx.Node) {
	b := builder{fx.New()}
	var ph []*fx.Node
	for _, p := range placeholders {
		ph = append(ph, b.g.Placeholder(p))
	}
	return b, ph
}

func (b builder) call(target any, args ...any) *fx.Node {
	return b.g.CallFunction(target, args, nil)
}

func (b builder) named(name string, target any, args ...any) *fx.Node {
	return b.g.CreateNode(fx.OpCallFunction, target, args, nil, name)
}

func (b builder) item(n *fx.Node, i int) *fx.Node { return b.call(fx.GetItem, n, i) }

// module wraps the graph with its attributes; each attribute that is a
// *fx.GraphModule is a subgraph.
func (b builder) module(t *testing.T, result any, attrs ...any) *fx.GraphModule {
	t.Helper()
	b.g.Output(result)
	gm := fx.NewGraphModule(b.g)
	for i := 0; i < len(attrs); i += 2 {
		gm.SetAttr(attrs[i].(string), attrs[i+1])
	}
	if err := gm.Lint(); err != nil {
		t.Fatalf("lint: %v\n%s", err, b.g)
	}
	return gm
}

func checkCode(t *testing.T, want map[string]string, title, got string) {
	t.Helper()
	w, ok := want[title]
	if !ok {
		t.Fatalf("no golden %q", title)
	}
	if g := strings.TrimSpace(got); g != w {
		t.Errorf("%s: got\n%s\nwant\n%s", title, g, w)
	}
}

// emptySub is a stand-in subgraph for attributes whose code a test does not
// compare.
func emptySub(t *testing.T, n int) *fx.GraphModule {
	b, ph := newBuilder()
	for i := 0; i < n; i++ {
		ph = append(ph, b.g.Placeholder("arg"+string(rune('0'+i))+"_1"))
	}
	return b.module(t, fx.Tuple{ph[0]})
}

func TestGoldens113(t *testing.T) {
	want := sections(t, "testdata/ref_graphs_113.out")

	chain := func() *fx.GraphModule {
		b, ph := newBuilder("x_1")
		x := ph[0]
		mul := b.call(op("aten::mul.Tensor"), x, 2)
		add := b.call(op("aten::add.Tensor"), mul, 1)
		sig := b.call(op("aten::sigmoid"), add)
		return b.module(t, b.call(op("aten::mul.Tensor"), sig, x))
	}
	checkCode(t, want, "make_fx chain", chain().Code())
	checkCode(t, want, "make_fx chain symbolic", chain().Code())

	{
		b, ph := newBuilder("x_1", "w_1", "b_1")
		mm := b.call(op("aten::mm"), ph[0], ph[1])
		add := b.call(op("aten::add.Tensor"), mm, ph[2])
		gelu := b.call(op("aten::gelu"), add)
		sm := b.call(op("aten::_softmax"), gelu, -1, false)
		checkCode(t, want, "make_fx mlp (no decomp)", b.module(t, sm).Code())
	}
	{
		b, ph := newBuilder("x_1", "w_1", "b_1")
		mul := op("aten::mul.Tensor")
		addT := op("aten::add.Tensor")
		mm := b.call(op("aten::mm"), ph[0], ph[1])
		add := b.call(addT, mm, ph[2])
		m0 := b.call(mul, add, 0.5)
		m1 := b.call(mul, add, 0.7071067811865476)
		erf := b.call(op("aten::erf"), m1)
		a1 := b.call(addT, erf, 1)
		m2 := b.call(mul, m0, a1)
		amax := b.call(op("aten::amax"), m2, []int64{-1}, true)
		sub := b.call(op("aten::sub.Tensor"), m2, amax)
		exp := b.call(op("aten::exp"), sub)
		sum := b.call(op("aten::sum.dim_IntList"), exp, []int{-1}, true)
		div := b.call(op("aten::div.Tensor"), exp, sum)
		checkCode(t, want, "make_fx mlp (gelu/_softmax/addmm decomposed)", b.module(t, div).Code())
	}
	{
		b, ph := newBuilder("a_1")
		a := ph[0]
		view := b.call(op("aten::view"), a, []int{-1})
		b.call(op("aten::add_.Tensor"), view, 1)
		sel := b.call(op("aten::select.int"), a, 0, 0)
		b.call(op("aten::mul_.Tensor"), sel, 2)
		sum := b.call(op("aten::sum"), a)
		checkCode(t, want, "make_fx mutate (no functionalize)", b.module(t, sum).Code())
	}
	functionalized := func(view, sel *tensor.Op) *fx.GraphModule {
		b, ph := newBuilder("a_1")
		a := ph[0]
		v := b.call(view, a, []int{-1})
		add := b.call(op("aten::add.Tensor"), v, 1)
		b.call(sel, a, 0, 0)
		v1 := b.call(view, add, []int{2, 3})
		s1 := b.call(sel, v1, 0, 0)
		mul := b.call(op("aten::mul.Tensor"), s1, 2)
		scat := b.call(op("aten::select_scatter"), v1, mul, 0, 0)
		sum := b.call(op("aten::sum"), scat)
		b.call(op("aten::copy_"), a, scat)
		return b.module(t, sum)
	}
	checkCode(t, want, "make_fx functionalize(mutate)",
		functionalized(op("aten::view"), op("aten::select.int")).Code())
	checkCode(t, want, "make_fx functionalize(mutate, remove='mutations_and_views')",
		functionalized(schemaOp("view_copy(Tensor self, SymInt[] size) -> Tensor"),
			schemaOp("select_copy.int(Tensor self, int dim, SymInt index) -> Tensor")).Code())
	{
		// The 1.13 prototype cond is a PyOperator printed torch.ops.cond,
		// whose node make_fx names "conditional".
		b, ph := newBuilder("x_1", "p_1")
		tg := b.g.GetAttr("true_graph_0")
		fg := b.g.GetAttr("false_graph_0")
		cond := &fx.Function{Name: "cond", Qualified: "torch.ops.cond"}
		c := b.named("conditional", cond, ph[1], tg, fg, []any{[]any{ph[0]}})
		gm := b.module(t, c, "true_graph_0", emptySub(t, 1), "false_graph_0", emptySub(t, 1))
		checkCode(t, want, "make_fx cond (1.13 prototype)", gm.Code())
	}
	{
		b, ph := newBuilder("x_1", "y_1")
		sa := b.call(schemaOp("goatenref::scale_add(Tensor x, Tensor y, float alpha) -> Tensor"), ph[0], ph[1], 2.0)
		relu := b.call(op("aten::relu"), sa)
		checkCode(t, want, "make_fx custom op (fake mode)", b.module(t, relu).Code())
	}
}

func TestGoldensPT2(t *testing.T) {
	want := sections(t, "testdata/pt2_graphs.txt")
	pt2 := fx.CodeOptions{FreeUnused: true}
	addT := op("aten::add.Tensor")

	{
		b, ph := newBuilder("token", "tq", "a")
		forEachAdd := schemaOp("MyCustomClass::for_each_add_(Tensor tq, Tensor a) -> ()")
		we := b.call(withEffectsOld, ph[0], forEachAdd, ph[1], ph[2])
		gm := b.module(t, fx.Tuple{b.item(we, 0), ph[1]})
		checkCode(t, want, "S1 with_effects for_each_add_ (seed 001)", gm.Code())
	}
	{
		b, ph := newBuilder("obj_attr", "x")
		ct := b.call(callTorchbind, ph[0], "add_tensor", ph[1])
		gm := b.module(t, fx.Tuple{b.call(addT, ph[1], ct)})
		checkCode(t, want, "S2 call_torchbind attribute", gm.Code())
	}
	{
		b, ph := newBuilder("token", "obj_attr", "x")
		we := b.call(withEffects, ph[0], callTorchbind, ph[1], "add_tensor", ph[2])
		g0, g1 := b.item(we, 0), b.item(we, 1)
		gm := b.module(t, fx.Tuple{g0, b.call(addT, ph[2], g1)})
		checkCode(t, want, "S2 call_torchbind attribute, with effects", gm.Code())
	}
	takesFoo := schemaOp("_TorchScriptTesting::takes_foo(Tensor foo, Tensor x) -> Tensor")
	{
		b, ph := newBuilder("token", "obj_attr", "x")
		we := b.call(withEffectsOld, ph[0], takesFoo, ph[1], ph[2])
		g0, g1 := b.item(we, 0), b.item(we, 1)
		gm := b.module(t, fx.Tuple{g0, b.call(addT, ph[2], g1)})
		checkCode(t, want, "S3 takes_foo custom op", gm.Code())
	}
	{
		b, ph := newBuilder("token", "obj_attr", "x")
		we := b.call(withEffectsOld, ph[0], takesFoo, ph[1], ph[2])
		g0, g1 := b.item(we, 0), b.item(we, 1)
		we1 := b.call(withEffectsOld, g0, takesFoo, ph[1], g1)
		g2, g3 := b.item(we1, 0), b.item(we1, 1)
		gm := b.module(t, fx.Tuple{g2, b.call(addT, ph[2], g3)})
		checkCode(t, want, "S4 token chain", gm.Code())
	}
	{
		// Unused call_torchbind results stay unfreed: this test's PyTorch
		// printed liveness as 1.13 does.
		b, ph := newBuilder("arg0_1", "arg1_1")
		q, x := ph[0], ph[1]
		cos := b.call(op("aten::cos"), x)
		b.call(callTorchbind, q, "push", cos)
		sin := b.call(op("aten::sin"), x)
		b.call(callTorchbind, q, "push", sin)
		pop := b.call(callTorchbind, q, "pop")
		b.call(callTorchbind, q, "size")
		add := b.call(addT, pop, 1)
		pop2 := b.call(callTorchbind, q, "pop")
		b.call(callTorchbind, q, "size")
		sub := b.call(op("aten::sub.Tensor"), pop2, 0)
		gm := b.module(t, fx.Tuple{sub, add, q})
		checkCode(t, want, "S5 make_fx tensor queue methods", gm.Code())
	}
	{
		// The missing getitem_1, _3, _7 were traced, then removed by
		// dead-code elimination: their numbers stay used.
		b, ph := newBuilder("arg0_1", "arg1_1", "arg2_1")
		q, x := ph[1], ph[2]
		push := schemaOp("_TorchScriptTesting::queue_push(Tensor foo, Tensor x) -> ()")
		pop := schemaOp("_TorchScriptTesting::queue_pop(Tensor foo) -> Tensor")
		size := schemaOp("_TorchScriptTesting::queue_size(Tensor foo) -> int")
		effect := func(tok *fx.Node, op *tensor.Op, args ...any) (*fx.Node, *fx.Node) {
			we := b.call(withEffectsOld, append([]any{tok, op}, args...)...)
			return b.item(we, 0), b.item(we, 1)
		}
		cos := b.call(op("aten::cos"), x)
		tok, _ := effect(ph[0], push, q, cos)
		sin := b.call(op("aten::sin"), x)
		tok, _ = effect(tok, push, q, sin)
		tok, v := effect(tok, pop, q)
		tok, _ = effect(tok, size, q)
		sub := b.call(op("aten::sub.Tensor"), v, 1)
		tok, v = effect(tok, pop, q)
		tok, _ = effect(tok, size, q)
		add := b.call(addT, v, 0)
		b.g.Output(fx.Tuple{tok, sub, add, q})
		changed, err := b.g.EliminateDeadCode()
		if err != nil || !changed {
			t.Fatalf("EliminateDeadCode: %v %v", changed, err)
		}
		gm := fx.NewGraphModule(b.g)
		checkCode(t, want, "S6 aot_export tensor queue with effect tokens", gm.Code())
	}
	printOp := schemaOp("_print(str s) -> ()")
	{
		b, ph := newBuilder("arg0_1", "arg1_1")
		we := b.call(withEffects, ph[0], printOp, "moo")
		tok := b.item(we, 0)
		b.item(we, 1)
		add := b.call(addT, ph[1], ph[1])
		we1 := b.call(withEffects, tok, printOp, "moo")
		tok = b.item(we1, 0)
		b.item(we1, 1)
		b.g.Output(fx.Tuple{tok, add})
		if _, err := b.g.EliminateDeadCode(); err != nil {
			t.Fatal(err)
		}
		checkCode(t, want, "S9 print aot_export", fx.NewGraphModule(b.g).Code())
	}
	{
		b, ph := newBuilder("arg1_1")
		mk := b.named("_make_token_default", schemaOp("prims::_make_token() -> Tensor"))
		we := b.call(withEffects, mk, printOp, "moo")
		tok := b.item(we, 0)
		b.item(we, 1)
		add := b.call(addT, ph[0], ph[0])
		we1 := b.call(withEffects, tok, printOp, "moo")
		tok = b.item(we1, 0)
		b.item(we1, 1)
		b.named("_sink_tokens_default", schemaOp("prims::_sink_tokens(Tensor[] tokens) -> ()"), []*fx.Node{tok})
		b.g.Output(fx.Tuple{add})
		for _, n := range b.g.Nodes() {
			if strings.HasPrefix(n.Name, "getitem") && n.NumUsers() == 0 {
				if err := b.g.EraseNode(n); err != nil {
					t.Fatal(err)
				}
			}
		}
		checkCode(t, want, "S9 print unlift_effect_tokens", fx.NewGraphModule(b.g).CodeWith(pt2))
	}
	cond := hop("cond")
	branch := func(target *tensor.Op) *fx.GraphModule {
		b, ph := newBuilder("arg0_1", "arg1_1")
		return b.module(t, fx.Tuple{b.call(target, ph[0], ph[1])})
	}
	{
		b, ph := newBuilder("a_1", "b_1")
		sum := b.call(op("aten::sum"), ph[0])
		gt := b.call(op("aten::gt.Scalar"), sum, 0)
		tg, fg := b.g.GetAttr("true_graph_0"), b.g.GetAttr("false_graph_0")
		c := b.call(cond, gt, tg, fg, []*fx.Node{ph[0], ph[1]})
		tgm := branch(addT)
		gm := b.module(t, b.item(c, 0), "true_graph_0", tgm, "false_graph_0", branch(op("aten::mul.Tensor")))
		checkCode(t, want, "S10 cond", gm.Code())
		checkCode(t, want, "S10 cond true_graph_0", tgm.Code())
		if sub, _ := gm.Attr("true_graph_0"); sub != tgm {
			t.Error("Attr(true_graph_0) is not the subgraph")
		}
	}
	{
		b, ph := newBuilder("x_1")
		sz := b.named("sym_size_int", op("aten::sym_size.int"), ph[0], 0)
		eq := b.call(fx.Eq, sz, 4)
		tg, fg := b.g.GetAttr("true_graph_0"), b.g.GetAttr("false_graph_0")
		c := b.call(cond, eq, tg, fg, []any{ph[0]})
		gm := b.module(t, b.item(c, 0), "true_graph_0", emptySub(t, 1), "false_graph_0", emptySub(t, 1))
		checkCode(t, want, "S11 cond sym pred", gm.Code())
	}
	{
		b, ph := newBuilder("pred_1", "x_1")
		pred, x := ph[0], ph[1]
		tg, fg := b.g.GetAttr("true_graph_0"), b.g.GetAttr("false_graph_0")
		c := b.call(cond, pred, tg, fg, fx.Tuple{x})
		g0 := b.item(c, 0)
		ones := b.g.CallFunction(op("aten::ones_like"), []any{g0}, fx.Kwargs{{Name: "pin_memory", Value: false}})
		tg1, fg1 := b.g.GetAttr("true_graph_1"), b.g.GetAttr("false_graph_1")
		c1 := b.call(cond, pred, tg1, fg1, fx.Tuple{ones, x})
		gm := b.module(t, fx.Tuple{b.item(c1, 0)},
			"true_graph_0", emptySub(t, 1), "false_graph_0", emptySub(t, 1),
			"true_graph_1", emptySub(t, 2), "false_graph_1", emptySub(t, 2))
		checkCode(t, want, "S12 cond autograd", gm.Code())
	}
	{
		b, ph := newBuilder("x_1")
		view := op("aten::view")
		v := b.call(view, ph[0], []int{4, 5})
		add := b.call(addT, v, 1)
		v1 := b.call(view, add, []int{4, 5})
		v2 := b.call(view, v1, []int{4, 5})
		sin := b.call(op("aten::sin"), v2)
		sum := b.call(op("aten::sum"), sin)
		b.call(op("aten::copy_"), ph[0], v1)
		gm := b.module(t, sum)
		checkCode(t, want, "S13 cond functionalized input mutation, constant pred", gm.CodeWith(pt2))
	}
	{
		b, ph := newBuilder("x_1")
		cg, bg := b.g.GetAttr("while_loop_cond_graph_0"), b.g.GetAttr("while_loop_body_graph_0")
		wl := b.call(hop("while_loop"), cg, bg, fx.Tuple{ph[0]}, fx.Tuple{})
		condGraph := func() *fx.GraphModule {
			b, ph := newBuilder("arg0_1")
			clone := b.call(op("aten::clone"), ph[0])
			a := b.call(op("aten::add_.Tensor"), clone, 1)
			a1 := b.call(op("aten::add_.Tensor"), a, -1)
			sum := b.call(op("aten::sum"), a1)
			return b.module(t, b.call(op("aten::lt.Scalar"), sum, 10))
		}()
		gm := b.module(t, fx.Tuple{b.item(wl, 0)},
			"while_loop_cond_graph_0", condGraph, "while_loop_body_graph_0", emptySub(t, 1))
		checkCode(t, want, "S14 while_loop", gm.Code())
		checkCode(t, want, "S14 while_loop cond graph", condGraph.Code())
	}
	{
		b, ph := newBuilder("arg0_1", "arg1_1", "arg2_1", "arg3_1")
		gm := b.module(t, b.call(op("aten::gt.Scalar"), ph[1], 0))
		checkCode(t, want, "S15 nested while_loop inner cond", gm.Code())
	}
	{
		body := func() *fx.GraphModule {
			b, ph := newBuilder("arg0_1", "arg1_1")
			tg, fg := b.g.GetAttr("true_graph_0"), b.g.GetAttr("false_graph_0")
			c := b.call(cond, ph[1], tg, fg, []any{ph[0]})
			return b.module(t, []any{b.item(c, 0)}, "true_graph_0", emptySub(t, 1), "false_graph_0", emptySub(t, 1))
		}()
		b, ph := newBuilder("pred_1", "x_1")
		bg := b.g.GetAttr("body_graph_0")
		m := b.call(hop("map_impl"), bg, []any{ph[1]}, []any{ph[0]})
		gm := b.module(t, b.item(m, 0), "body_graph_0", body)
		checkCode(t, want, "S19 map_impl", gm.Code())
		checkCode(t, want, "S19 map body", body.Code())
	}
}

// TestCodeLayout pins gm.code's exact whitespace, which the .out files strip.
func TestCodeLayout(t *testing.T) {
	b, ph := newBuilder("x_1")
	gm := b.module(t, b.call(op("aten::sigmoid"), ph[0]))
	want := "\n\n\ndef forward(self, x_1):\n    sigmoid = torch.ops.aten.sigmoid.default(x_1);  x_1 = None\n    return sigmoid\n    "
	if got := gm.Code(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
