package fx_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	_ "github.com/goaten/goaten" // the CPU and meta devices
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/tensor"
)

// sameValue reports how got differs from want: tensors must have the same
// device, dtype, sizes and strides and, off the meta device, the same bits
// in every element; lists and Tuples must match element by element.
func sameValue(got, want any) error {
	switch w := want.(type) {
	case *tensor.Tensor:
		g, ok := got.(*tensor.Tensor)
		if !ok || g == nil || w == nil {
			if ok && g == w {
				return nil
			}
			return fmt.Errorf("got %T %v, want a tensor", got, got)
		}
		if g.Device() != w.Device() || g.DType() != w.DType() ||
			!reflect.DeepEqual(g.Sizes(), w.Sizes()) || !reflect.DeepEqual(g.Strides(), w.Strides()) {
			return fmt.Errorf("got %s %s %v strides %v, want %s %s %v strides %v",
				g.Device(), g.DType(), g.Sizes(), g.Strides(), w.Device(), w.DType(), w.Sizes(), w.Strides())
		}
		if w.Device() == tensor.Meta {
			return nil
		}
		if w.DType().IsFloat() || w.DType() == tensor.Bool {
			gv, wv := g.Float64s(), w.Float64s()
			for k := range wv {
				if math.Float64bits(gv[k]) != math.Float64bits(wv[k]) {
					return fmt.Errorf("element %d: got %v, want %v", k, gv[k], wv[k])
				}
			}
			return nil
		}
		if gv, wv := g.Int64s(), w.Int64s(); !reflect.DeepEqual(gv, wv) {
			return fmt.Errorf("got %v, want %v", gv, wv)
		}
		return nil
	case []*tensor.Tensor:
		g, ok := got.([]*tensor.Tensor)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("got %T of %d, want []*Tensor of %d", got, reflect.ValueOf(got).Len(), len(w))
		}
		for k := range w {
			if err := sameValue(g[k], w[k]); err != nil {
				return fmt.Errorf("[%d]: %v", k, err)
			}
		}
		return nil
	case fx.Tuple:
		g, ok := got.(fx.Tuple)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("got %T %v, want a Tuple of %d", got, got, len(w))
		}
		return sameList(g, w)
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("got %T %v, want a list of %d", got, got, len(w))
		}
		return sameList(g, w)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

func sameList(g, w []any) error {
	for k := range w {
		if err := sameValue(g[k], w[k]); err != nil {
			return fmt.Errorf("[%d]: %v", k, err)
		}
	}
	return nil
}

// seq makes a float32 tensor of the given shape holding 0.25*(k-7) for its
// k-th element, a mix of signs, zeros and fractions.
func seq(shape ...int) *tensor.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float32, n)
	for k := range v {
		v[k] = 0.25 * float32(k-7)
	}
	return tensor.FromSlice(v, shape...)
}

// smallModule is mm + add + relu, native_layer_norm and max.dim with their
// getitems, and a sum, on x [4, 3] and y [5] with a constant weight [3, 5]:
//
//	mm = mm(x, w); add = add(mm, y); relu = relu(add)
//	ln = native_layer_norm(relu, [5], None, None, 1e-05); ln0, ln2 = ln[0], ln[2]
//	mx = max.dim(x, 1); values, indices = mx[0], mx[1]
//	return (ln0, ln2, values, indices, sum(relu, [0]), [add])
func smallModule(w *tensor.Tensor) *fx.GraphModule {
	g := fx.New()
	gm := fx.NewGraphModule(g)
	x, y := g.Placeholder("x"), g.Placeholder("y")
	wn := gm.AddConstant(w)
	mm := g.CallFunction(op("aten::mm"), []any{x, wn}, nil)
	add := g.CallFunction(op("aten::add.Tensor"), []any{mm, y}, nil)
	relu := g.CallFunction(op("aten::relu"), []any{add}, nil)
	ln := g.CallFunction(op("aten::native_layer_norm"), []any{relu, []int{5}, nil, nil, 1e-05}, nil)
	ln0 := g.CallFunction(fx.GetItem, []any{ln, 0}, nil)
	ln2 := g.CallFunction(fx.GetItem, []any{ln, 2}, nil)
	mx := g.CallFunction(op("aten::max.dim"), []any{x, 1}, nil)
	v := g.CallFunction(fx.GetItem, []any{mx, 0}, nil)
	ix := g.CallFunction(fx.GetItem, []any{mx, 1}, nil)
	sum := g.CallFunction(op("aten::sum.dim_IntList"), []any{relu, []int{0}}, nil)
	g.Output(fx.Tuple{ln0, ln2, v, ix, sum, []*fx.Node{add}})
	if err := gm.Lint(); err != nil {
		panic(err)
	}
	return gm
}

// smallEager computes smallModule's result with the typed API.
func smallEager(x, y, w *tensor.Tensor) fx.Tuple {
	add := x.Mm(w).Add(y)
	relu := add.Relu()
	ln0, _, ln2 := tensor.NativeLayerNorm(relu, []int{5}, nil, nil, 1e-05)
	v, ix := x.MaxDim(1)
	return fx.Tuple{ln0, ln2, v, ix, relu.Sum([]int{0}), []any{add}}
}

// TestInterpreterMatchesEager runs one graph on the CPU, on the meta device
// and on the example gonum device, and compares with eager calls of the
// typed API on the same device, bit for bit.
func TestInterpreterMatchesEager(t *testing.T) {
	for _, dev := range []tensor.Device{tensor.CPU, tensor.Meta, newdevice.Device} {
		t.Run(dev.String(), func(t *testing.T) {
			x, y, w := seq(4, 3).ToDevice(dev), seq(5).ToDevice(dev), seq(3, 5).MulScalar(0.5).ToDevice(dev)
			gm := smallModule(w)
			want := smallEager(x, y, w)
			got, err := fx.NewInterpreter(gm).Run(x, y)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameValue(got, want); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestInterpreterNonContiguous: inputs keep their strides; an op's result
// has the strides eager gives it.
func TestInterpreterNonContiguous(t *testing.T) {
	g := fx.New()
	x := g.Placeholder("x")
	e := g.CallFunction(op("aten::exp"), []any{x}, nil)
	g.Output(g.CallFunction(op("aten::mul.Tensor"), []any{e, 2}, nil))
	xt := seq(3, 4).T()
	got, err := fx.NewInterpreter(fx.NewGraphModule(g)).Run(xt)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, xt.Exp().Mul(tensor.WrappedNumber(tensor.Int(2)))); err != nil {
		t.Fatal(err)
	}
}

// S24 test_interpreter_not_enough_args.
func TestInterpreterNotEnoughArgs(t *testing.T) {
	g := fx.New()
	x, y := g.Placeholder("x"), g.Placeholder("y")
	g.Output(g.CallFunction(op("aten::add.Tensor"), []any{x, y}, nil))
	in := fx.NewInterpreter(fx.NewGraphModule(g))
	_, err := in.Run(seq(5, 3))
	want := "Expected positional argument for parameter y, but one was not passed in!\n\n" +
		"While executing %y : [#users=1] = placeholder[target=y]"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	var re *fx.RunError
	if !errors.As(err, &re) || re.Node != y {
		t.Errorf("error does not name y: %#v", err)
	}
	if te, ok := tensor.AsError(err); !ok || te.Kind != tensor.RuntimeError {
		t.Errorf("cause is not a RuntimeError: %#v", err)
	}
	if len(in.Env) != 0 {
		t.Errorf("env kept %d values after a failed run", len(in.Env))
	}
	// Still usable.
	got, err := in.Run(seq(5, 3), seq(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, seq(5, 3).Add(seq(3))); err != nil {
		t.Error(err)
	}
}

// Too many inputs is Python's TypeError for forward().
func TestInterpreterTooManyArgs(t *testing.T) {
	g := fx.New()
	x, y := g.Placeholder("x"), g.PlaceholderDefault("y", 2)
	g.Output(g.CallFunction(op("aten::add.Tensor"), []any{x, y}, nil))
	in := fx.NewInterpreter(fx.NewGraphModule(g))
	a := seq(2)
	_, err := in.Run(a, a, a)
	if err == nil || err.Error() != "forward() takes from 2 to 3 positional arguments but 4 were given" {
		t.Errorf("got %v", err)
	}
	if te, ok := tensor.AsError(err); !ok || te.Kind != tensor.TypeError {
		t.Errorf("not a TypeError: %#v", err)
	}
	g2 := fx.New()
	g2.Output(g2.Placeholder("x"))
	_, err = fx.NewInterpreter(fx.NewGraphModule(g2)).Run(a, a)
	if err == nil || err.Error() != "forward() takes 2 positional arguments but 3 were given" {
		t.Errorf("got %v", err)
	}
	g3 := fx.New()
	g3.Output(nil)
	_, err = fx.NewInterpreter(fx.NewGraphModule(g3)).Run(a)
	if err == nil || err.Error() != "forward() takes 1 positional argument but 2 were given" {
		t.Errorf("got %v", err)
	}
}

// S24 test_interpreter_default_args: forward(x, y=3.14159) is x + 3.14159.
func TestInterpreterDefaultArgs(t *testing.T) {
	g := fx.New()
	x, y := g.Placeholder("x"), g.PlaceholderDefault("y", 3.14159)
	g.Output(g.CallFunction(op("aten::add.Tensor"), []any{x, y}, nil))
	gm := fx.NewGraphModule(g)
	if !strings.Contains(gm.Code(), "def forward(self, x, y = 3.14159):") {
		t.Fatalf("code:\n%s", gm.Code())
	}
	in := fx.NewInterpreter(gm)
	xt := seq(5, 3)
	got, err := in.Run(xt)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, xt.Add(tensor.WrappedNumber(tensor.Float(3.14159)))); err != nil {
		t.Error(err)
	}
	// A given input wins over the default.
	got, err = in.Run(xt, seq(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, xt.Add(seq(3))); err != nil {
		t.Error(err)
	}
}

// A "*args" placeholder takes the remaining inputs as a list.
func TestInterpreterStarArgs(t *testing.T) {
	g := fx.New()
	x, rest := g.Placeholder("x"), g.Placeholder("*args")
	r0 := g.CallFunction(fx.GetItem, []any{rest, -1}, nil)
	g.Output(g.CallFunction(op("aten::sub.Tensor"), []any{x, r0}, nil))
	a, b, c := seq(3), seq(3).Neg(), seq(3).Exp()
	got, err := fx.NewInterpreter(fx.NewGraphModule(g)).Run(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, a.Sub(c)); err != nil {
		t.Error(err)
	}
}

// envRecorder notes which values the environment holds before each node
// runs.
type envRecorder struct {
	*fx.Interpreter
	trace []string
}

func (r *envRecorder) RunNode(n *fx.Node) (any, error) {
	r.trace = append(r.trace, n.Name+":"+envNames(r.Env))
	return r.Interpreter.RunNode(n)
}

func envNames(env map[*fx.Node]any) string {
	var s []string
	for n := range env {
		s = append(s, n.Name)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

// S24 test_interpreter_gc_values: each value is freed after its last use, a
// value nobody uses at once, and only the output's stays.
func TestInterpreterGCValues(t *testing.T) {
	g := fx.New()
	x, y := g.Placeholder("x"), g.Placeholder("y")
	add := g.CallFunction(op("aten::add.Tensor"), []any{x, y}, nil)
	g.CallFunction(op("aten::exp"), []any{x}, nil) // unused
	relu := g.CallFunction(op("aten::relu"), []any{add}, nil)
	mul := g.CallFunction(op("aten::mul.Tensor"), []any{relu, add}, nil)
	g.Output(mul)
	rec := &envRecorder{Interpreter: fx.NewInterpreter(fx.NewGraphModule(g))}
	if _, err := fx.Run(rec, seq(3), seq(3)); err != nil {
		t.Fatal(err)
	}
	if got := envNames(rec.Env); got != "output" {
		t.Errorf("env after the run: {%s}, want {output}", got)
	}
	want := "x: y:x add:x,y exp:add,x relu:add mul:add,relu output:mul"
	if got := strings.Join(rec.trace, " "); got != want {
		t.Errorf("env before each node:\n got %s\nwant %s", got, want)
	}
}

var (
	sigmoidOp = tensor.MustOp("aten::sigmoid")
	negOp     = tensor.MustOp("aten::neg")
)

// swapper runs aten::neg where the graph calls aten::sigmoid.
type swapper struct{ *fx.Interpreter }

func (s swapper) CallFunction(n *fx.Node, target any, args []any, kwargs fx.Kwargs) (any, error) {
	if target == sigmoidOp {
		target = negOp
	}
	return s.Interpreter.CallFunction(n, target, args, kwargs)
}

// S24 test_interpreter_onthefly_swap, with ATen ops: an interpreter
// overriding CallFunction turns sigmoid into neg.
func TestInterpreterOnTheFlySwap(t *testing.T) {
	g := fx.New()
	x := g.Placeholder("x")
	s := g.CallFunction(sigmoidOp, []any{x}, nil)
	g.Output(g.CallFunction(op("aten::mul.Tensor"), []any{s, 2}, nil))
	gm := fx.NewGraphModule(g)
	in := seq(3, 4)
	two := tensor.WrappedNumber(tensor.Int(2))
	got, err := fx.Run(swapper{fx.NewInterpreter(gm)}, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, in.Neg().Mul(two)); err != nil {
		t.Errorf("swapped: %v", err)
	}
	got, err = fx.NewInterpreter(gm).Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, in.Sigmoid().Mul(two)); err != nil {
		t.Errorf("plain: %v", err)
	}
}

// cacher keeps every node's value, as S24's run_node override sets
// n.cached_value.
type cacher struct {
	*fx.Interpreter
	cached map[*fx.Node]any
}

func (c *cacher) RunNode(n *fx.Node) (any, error) {
	v, err := c.Interpreter.RunNode(n)
	if err == nil {
		c.cached[n] = v
	}
	return v, err
}

// S24 test_interpreter_run_node_override: every node's value is seen.
func TestInterpreterRunNodeOverride(t *testing.T) {
	x, y, w := seq(4, 3), seq(5), seq(3, 5)
	gm := smallModule(w)
	c := &cacher{fx.NewInterpreter(gm), map[*fx.Node]any{}}
	got, err := fx.Run(c, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, smallEager(x, y, w)); err != nil {
		t.Fatal(err)
	}
	for _, n := range gm.Graph.Nodes() {
		if _, ok := c.cached[n]; !ok {
			t.Errorf("no cached value for %s", n.Name)
		}
	}
	if err := sameValue(c.cached[gm.Graph.FindNode("relu")], x.Mm(w).Add(y).Relu()); err != nil {
		t.Errorf("relu: %v", err)
	}
}

// pair is a Callable returning a Tuple (a higher-order op's shape of
// result): (a + b, a * b).
type pair struct{}

func (pair) TargetName() string    { return "pair" }
func (pair) QualifiedName() string { return "test.pair" }
func (pair) Call(args []any, kwargs fx.Kwargs) (any, error) {
	a, b := args[0].(*tensor.Tensor), args[1].(*tensor.Tensor)
	if s, ok := kwargs.Get("scale"); ok {
		b = b.MulScalar(s)
	}
	return fx.Tuple{a.Add(b), a.Mul(b)}, nil
}

// callSub runs its first argument, a sub-GraphModule read by get_attr, on
// the others, as a higher-order op runs its subgraphs.
type callSub struct{}

func (callSub) TargetName() string    { return "call_sub" }
func (callSub) QualifiedName() string { return "test.call_sub" }
func (callSub) Call(args []any, kwargs fx.Kwargs) (any, error) {
	sub, ok := args[0].(*fx.GraphModule)
	if !ok {
		return nil, fmt.Errorf("call_sub: %T is not a GraphModule", args[0])
	}
	return fx.NewInterpreter(sub).Run(args[1:]...)
}

// Callable targets, getitem of their Tuples, sub-GraphModules, and an
// output written as a Tuple holding a list.
func TestInterpreterCallables(t *testing.T) {
	sg := fx.New()
	sx := sg.Placeholder("x_1")
	sg.Output(fx.Tuple{sg.CallFunction(op("aten::tanh"), []any{sx}, nil)})
	sub := fx.NewGraphModule(sg)

	g := fx.New()
	gm := fx.NewGraphModule(g)
	gm.SetAttr("body_graph_0", sub)
	a, b := g.Placeholder("a"), g.Placeholder("b")
	p := g.CallFunction(pair{}, []any{a, b}, fx.Kwargs{{Name: "scale", Value: 3}})
	p0 := g.CallFunction(fx.GetItem, []any{p, 0}, nil)
	p1 := g.CallFunction(fx.GetItem, []any{p, -1}, nil)
	body := g.GetAttr("body_graph_0")
	c := g.CallFunction(callSub{}, []any{body, p1}, nil)
	c0 := g.CallFunction(fx.GetItem, []any{c, 0}, nil)
	g.Output(fx.Tuple{p0, []any{c0, 2}, nil})
	if err := gm.Lint(); err != nil {
		t.Fatal(err)
	}
	at, bt := seq(2, 3), seq(3)
	got, err := fx.NewInterpreter(gm).Run(at, bt)
	if err != nil {
		t.Fatal(err)
	}
	b3 := bt.MulScalar(3)
	want := fx.Tuple{at.Add(b3), []any{at.Mul(b3).Tanh(), 2}, nil}
	if err := sameValue(got, want); err != nil {
		t.Fatal(err)
	}
}

// Every failure is an error naming the node, with the *tensor.Error
// reachable, and the interpreter runs again afterwards.
func TestInterpreterErrors(t *testing.T) {
	type tc struct {
		name  string
		build func(g *fx.Graph, gm *fx.GraphModule, x *fx.Node) *fx.Node // returns the node at fault
		kind  tensor.ErrorKind
		msg   string
	}
	cases := []tc{
		{"kernel", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(op("aten::mm"), []any{x, x}, nil)
		}, tensor.RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"},
		{"bind", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(op("aten::sum.dim_IntList"), []any{x, "one"}, nil)
		}, tensor.TypeError, "aten::sum.dim_IntList() Expected a value of type"},
		{"kwarg", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(op("aten::add.Tensor"), []any{x, x}, fx.Kwargs{{Name: "beta", Value: 2}})
		}, tensor.TypeError, "Unknown keyword argument 'beta' for operator 'aten::add.Tensor'"},
		{"unknown target", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(&fx.Function{Name: "cond", Qualified: "torch.ops.higher_order.cond"}, []any{x}, nil)
		}, tensor.NotImplementedError, "fx: node cond calls torch.ops.higher_order.cond (*fx.Function), which the interpreter cannot run"},
		{"operator", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(fx.Add, []any{x, x}, nil)
		}, tensor.NotImplementedError, "fx: the interpreter runs operator.add on ints only"},
		{"getitem range", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			m := g.CallFunction(op("aten::max.dim"), []any{x, 0}, nil)
			return g.CallFunction(fx.GetItem, []any{m, 2}, nil)
		}, tensor.IndexError, "tuple index out of range"},
		{"getitem tensor", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(fx.GetItem, []any{x, 0}, nil)
		}, tensor.TypeError, "getitem: 'Tensor' object is not subscriptable"},
		{"schema-less op", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			n := g.CallFunction(op("aten::neg"), []any{x}, nil)
			n.Target = &tensor.Op{Name: "mylib::foo"}
			return n
		}, tensor.RuntimeError, "fx: node neg calls an op without a schema"},
		{"nil op", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			n := g.CallFunction(op("aten::neg"), []any{x}, nil)
			n.Target = (*tensor.Op)(nil)
			return n
		}, tensor.RuntimeError, "fx: node neg calls an op without a schema"},
		{"unregistered op", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(schemaOp("mylib::foo(Tensor x) -> Tensor"), []any{x}, nil)
		}, tensor.NotImplementedError, "mylib::foo has no lowering"},
		{"callable error", func(g *fx.Graph, gm *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(callSub{}, []any{x}, nil)
		}, 255, "call_sub: *tensor.Tensor is not a GraphModule"},
		{"callable panic", func(g *fx.Graph, gm *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.CallFunction(pair{}, []any{x, x}, fx.Kwargs{{Name: "scale", Value: "s"}})
		}, tensor.TypeError, "Expected a value of type"},
		{"missing attr", func(g *fx.Graph, gm *fx.GraphModule, x *fx.Node) *fx.Node {
			return g.GetAttr("weight")
		}, tensor.RuntimeError, "Node weight target weight references nonexistent attribute weight of "},
		{"erased arg", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			e := g.CallFunction(op("aten::exp"), []any{x}, nil)
			if err := g.EraseNode(e); err != nil {
				panic(err)
			}
			return g.CallFunction(op("aten::neg"), []any{e}, nil)
		}, tensor.RuntimeError, "fx: argument exp of node neg has no value: it was erased"},
		{"later arg", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			a := g.CallFunction(op("aten::exp"), []any{x}, nil)
			b := g.CallFunction(op("aten::neg"), []any{x}, nil)
			a.SetArgs(b)
			return a
		}, tensor.RuntimeError, "fx: argument neg of node exp has no value: it has not run yet"},
		{"opcode", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			n := g.CallFunction(op("aten::exp"), []any{x}, nil)
			n.Op = 42
			return n
		}, tensor.RuntimeError, "fx: node exp has unknown opcode 42"},
		{"placeholder target", func(g *fx.Graph, _ *fx.GraphModule, x *fx.Node) *fx.Node {
			n := g.CallFunction(op("aten::exp"), []any{x}, nil)
			n.Op = fx.OpPlaceholder
			return n
		}, tensor.RuntimeError, "fx: the target of placeholder node exp is a *tensor.Op, not a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := fx.New()
			gm := fx.NewGraphModule(g)
			x := g.Placeholder("x")
			bad := c.build(g, gm, x)
			g.Output(fx.Tuple{x, bad})
			in := fx.NewInterpreter(gm)
			xt := seq(2, 3)
			_, err := in.Run(xt)
			if err == nil {
				t.Fatal("no error")
			}
			var re *fx.RunError
			if !errors.As(err, &re) || re.Node != bad {
				t.Fatalf("error does not name %s: %v", bad.Name, err)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "While executing %"+bad.Name+" ") {
				t.Errorf("message:\n%s\nwant it to contain %q and the node", err, c.msg)
			}
			if c.kind != 255 {
				te, ok := tensor.AsError(err)
				if !ok || te.Kind != c.kind {
					t.Errorf("cause %#v, want a %s", errors.Unwrap(err), c.kind)
				}
			}
			// Usable afterwards: the same interpreter fails the same way.
			_, err2 := in.Run(xt)
			if err2 == nil || err2.Error() != err.Error() {
				t.Errorf("second run: %v", err2)
			}
		})
	}
}

// After an error the interpreter runs other inputs normally.
func TestInterpreterUsableAfterKernelError(t *testing.T) {
	g := fx.New()
	x, y := g.Placeholder("x"), g.Placeholder("y")
	mm := g.CallFunction(op("aten::mm"), []any{x, y}, nil)
	g.Output(g.CallFunction(op("aten::relu"), []any{mm}, nil))
	in := fx.NewInterpreter(fx.NewGraphModule(g))
	if _, err := in.Run(seq(2, 3), seq(2, 3)); err == nil {
		t.Fatal("no error")
	}
	got, err := in.Run(seq(2, 3), seq(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameValue(got, seq(2, 3).Mm(seq(3, 4)).Relu()); err != nil {
		t.Error(err)
	}
	if envNames(in.Env) != "output" {
		t.Errorf("env {%s}", envNames(in.Env))
	}
}

// A Run of an Interpreter not made by NewInterpreter is an error.
func TestInterpreterZero(t *testing.T) {
	if _, err := fx.Run(swapper{}); err == nil {
		t.Error("nil interpreter ran")
	}
	if _, err := new(fx.Interpreter).Run(); err == nil {
		t.Error("zero interpreter ran")
	}
}

// ShapeProp records each node's meta value and summary.
func TestShapeProp(t *testing.T) {
	x, y, w := seq(3, 4).T(), seq(5), seq(3, 5)
	gm := smallModule(w)
	p := fx.NewShapeProp(gm)
	out, err := p.Propagate(x, y)
	if err != nil {
		t.Fatal(err)
	}
	// Each node's meta value has the metadata of the eager CPU value.
	c := &cacher{fx.NewInterpreter(gm), map[*fx.Node]any{}}
	if _, err := fx.Run(c, x, y); err != nil {
		t.Fatal(err)
	}
	for _, n := range gm.Graph.Nodes() {
		val, ok := n.Meta[fx.MetaVal]
		if !ok {
			t.Errorf("%s: no val", n.Name)
			continue
		}
		if err := sameValue(val, fx.ToMeta(c.cached[n])); err != nil {
			t.Errorf("%s: %v", n.Name, err)
		}
	}
	if err := sameValue(out, fx.ToMeta(smallEager(x, y, w))); err != nil {
		t.Errorf("result: %v", err)
	}
	g := gm.Graph
	tm, _ := g.FindNode("x").Meta[fx.MetaTensorMeta].(fx.TensorMeta)
	if !reflect.DeepEqual(tm, fx.TensorMeta{Sizes: []int{4, 3}, Strides: []int{1, 4}, DType: tensor.Float32}) {
		t.Errorf("x tensor_meta %+v", tm)
	}
	tm, _ = g.FindNode("relu").Meta[fx.MetaTensorMeta].(fx.TensorMeta)
	if !reflect.DeepEqual(tm, fx.TensorMeta{Sizes: []int{4, 5}, Strides: []int{5, 1}, DType: tensor.Float32, Contiguous: true}) {
		t.Errorf("relu tensor_meta %+v", tm)
	}
	ln, _ := g.FindNode("native_layer_norm").Meta[fx.MetaTensorMeta].([]any)
	if len(ln) != 3 || !reflect.DeepEqual(ln[2].(fx.TensorMeta).Sizes, []int{4, 1}) {
		t.Errorf("native_layer_norm tensor_meta %+v", ln)
	}
	ix, _ := g.FindNode("getitem_3").Meta[fx.MetaTensorMeta].(fx.TensorMeta)
	if ix.DType != tensor.Int64 || !reflect.DeepEqual(ix.Sizes, []int{4}) {
		t.Errorf("max.dim indices tensor_meta %+v", ix)
	}
	if v := g.FindNode("_tensor_constant0").Meta[fx.MetaVal].(*tensor.Tensor); v.Device() != tensor.Meta {
		t.Errorf("constant on %s", v.Device())
	}
	if w.Device() != tensor.CPU || x.Device() != tensor.CPU {
		t.Error("inputs moved")
	}
}

// ShapeProp of a failing graph stops at the node at fault.
func TestShapePropError(t *testing.T) {
	g := fx.New()
	x := g.Placeholder("x")
	mm := g.CallFunction(op("aten::mm"), []any{x, x}, nil)
	g.Output(mm)
	_, err := fx.NewShapeProp(fx.NewGraphModule(g)).Propagate(seq(2, 3))
	var re *fx.RunError
	if !errors.As(err, &re) || re.Node != mm {
		t.Fatalf("got %v", err)
	}
	if _, ok := x.Meta[fx.MetaVal]; !ok {
		t.Error("x has no val")
	}
	if _, ok := mm.Meta[fx.MetaVal]; ok {
		t.Error("mm has a val")
	}
}

// ToMeta keeps a view's storage offset.
func TestToMetaOffset(t *testing.T) {
	v := seq(4, 5).Select(0, 2).Transpose(0, 0)
	m := fx.ToMeta(v).(*tensor.Tensor)
	if m.Device() != tensor.Meta || m.StorageOffset() != v.StorageOffset() ||
		!reflect.DeepEqual(m.Sizes(), v.Sizes()) || !reflect.DeepEqual(m.Strides(), v.Strides()) {
		t.Errorf("ToMeta: %v %v %d", m.Sizes(), m.Strides(), m.StorageOffset())
	}
}

// Tuples given for list parameters reach the op as lists.
func TestInterpreterTupleArgs(t *testing.T) {
	g := fx.New()
	x, y := g.Placeholder("x"), g.Placeholder("y")
	c := g.CallFunction(op("aten::cat"), []any{fx.Tuple{x, y}}, fx.Kwargs{{Name: "dim", Value: 1}})
	s := g.CallFunction(op("aten::sum.dim_IntList"), []any{c, fx.Tuple{0}, true}, nil)
	g.Output([]any{s, fx.Tuple{c}})
	xt, yt := seq(2, 3), seq(2, 1)
	got, err := fx.NewInterpreter(fx.NewGraphModule(g)).Run(xt, yt)
	if err != nil {
		t.Fatal(err)
	}
	ct := tensor.Cat([]*tensor.Tensor{xt, yt}, tensor.WithDim(1))
	if err := sameValue(got, []any{ct.Sum([]int{0}, tensor.WithKeepdim(true)), fx.Tuple{ct}}); err != nil {
		t.Error(err)
	}
}

// An Interpreter made before the graph was edited frees values by the old
// liveness; a value needed later says so.
func TestInterpreterStaleLiveness(t *testing.T) {
	g := fx.New()
	x := g.Placeholder("x")
	e := g.CallFunction(op("aten::exp"), []any{x}, nil)
	out := g.Output(e)
	gm := fx.NewGraphModule(g)
	stale := fx.NewInterpreter(gm)
	restore := g.InsertingBefore(out)
	n := g.CallFunction(op("aten::neg"), []any{x}, nil)
	restore()
	out.SetArgs(fx.Tuple{e, n})
	_, err := stale.Run(seq(2))
	if err == nil || !strings.Contains(err.Error(), "fx: argument x of node neg has no value: it was freed") {
		t.Errorf("stale interpreter: %v", err)
	}
	if _, err := fx.NewInterpreter(gm).Run(seq(2)); err != nil {
		t.Errorf("fresh interpreter: %v", err)
	}
}
