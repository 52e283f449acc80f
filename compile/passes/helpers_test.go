package passes_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	_ "github.com/goaten/goaten" // the core ops, their decompositions and the CPU device
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/passes"
	"github.com/goaten/goaten/tensor"
)

func op(name string) *tensor.Op { return tensor.MustOp(name) }

// schemaOp makes an op that is not registered, from its schema.
func schemaOp(schema string) *tensor.Op {
	s := tensor.MustParseSchema(schema)
	return &tensor.Op{Name: s.QualifiedName(), Schema: s}
}

// builder shortens hand-built graphs.
type builder struct {
	g  *fx.Graph
	gm *fx.GraphModule
}

func newBuilder(placeholders ...string) (builder, []*fx.Node) {
	g := fx.New()
	b := builder{g, fx.NewGraphModule(g)}
	var ph []*fx.Node
	for _, p := range placeholders {
		ph = append(ph, g.Placeholder(p))
	}
	return b, ph
}

func (b builder) call(target any, args ...any) *fx.Node {
	return b.g.CallFunction(target, args, nil)
}

func (b builder) callKw(target any, args []any, kwargs fx.Kwargs) *fx.Node {
	return b.g.CallFunction(target, args, kwargs)
}

// constant stores t as a fresh "_tensor_constantN" attribute and reads it.
func (b builder) constant(t *tensor.Tensor) *fx.Node { return b.gm.AddConstant(t) }

// code is gm.Code() without the blank lines around it.
func code(gm *fx.GraphModule) string { return strings.TrimSpace(gm.Code()) }

// apply runs the pass, then checks that the module lints and prints want.
func apply(t *testing.T, pass passes.Pass, gm *fx.GraphModule, want string) {
	t.Helper()
	if err := pass(gm); err != nil {
		t.Fatalf("pass: %v", err)
	}
	if err := gm.Lint(); err != nil {
		t.Fatalf("lint after the pass: %v\n%s", err, gm.Code())
	}
	if got := code(gm); got != strings.TrimSpace(want) {
		t.Errorf("code after the pass:\n%s\nwant\n%s", got, strings.TrimSpace(want))
	}
}

// wantPassError checks that err is a *passes.Error of pass naming node and
// saying msg.
func wantPassError(t *testing.T, err error, pass, node, msg string) {
	t.Helper()
	var pe *passes.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want a *passes.Error", err, err)
	}
	name := ""
	if pe.Node != nil {
		name = pe.Node.Name
	}
	if pe.Pass != pass || name != node {
		t.Errorf("error of pass %q naming node %q, want %q and %q: %v", pe.Pass, name, pass, node, err)
	}
	if err.Error() != msg {
		t.Errorf("message\n%s\nwant\n%s", err.Error(), msg)
	}
}

// eval runs gm eagerly, one op call per node, and returns the output value.
func eval(t *testing.T, gm *fx.GraphModule, inputs ...*tensor.Tensor) any {
	t.Helper()
	env := map[*fx.Node]any{}
	var sub func(a any) any
	sub = func(a any) any {
		switch v := a.(type) {
		case *fx.Node:
			return env[v]
		case fx.Tuple:
			return sub([]any(v))
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = sub(x)
			}
			return out
		}
		return a
	}
	var result any
	err := tensor.Try(func() {
		in := 0
		for _, n := range gm.Graph.Nodes() {
			switch n.Op {
			case fx.OpPlaceholder:
				env[n] = inputs[in]
				in++
			case fx.OpGetAttr:
				env[n], _ = gm.Attr(n.Target.(string))
			case fx.OpCallFunction:
				args := sub(n.Args()).([]any)
				switch target := n.Target.(type) {
				case *tensor.Op:
					kw := map[string]any{}
					for _, k := range n.Kwargs() {
						kw[k.Name] = sub(k.Value)
					}
					env[n] = target.Invoke(target.Bind(args, kw))
				default:
					if target != fx.GetItem {
						t.Fatalf("eval: cannot run %s", n.Name)
					}
					env[n] = args[0].([]*tensor.Tensor)[args[1].(int)]
				}
			case fx.OpOutput:
				result = sub(n.Args()[0])
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return result
}

// sameBits reports whether two results hold tensors of the same sizes,
// dtypes and bits.
func sameBits(a, b any) bool {
	switch x := a.(type) {
	case *tensor.Tensor:
		y, ok := b.(*tensor.Tensor)
		if !ok || x.DType() != y.DType() || tensor.ShapeString(x.Sizes()) != tensor.ShapeString(y.Sizes()) {
			return false
		}
		xs, ys := x.Float64s(), y.Float64s()
		for i := range xs {
			if math.Float64bits(xs[i]) != math.Float64bits(ys[i]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameBits(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return false
}
