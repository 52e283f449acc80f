package passes

import (
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// mayWrite reports whether n may write memory: a call of an op whose schema
// writes an argument, or of an impure Target, whose effects are unknown.
// Random ops change only the generator's state and write no tensor.
func mayWrite(n *fx.Node) bool {
	if n.Op != fx.OpCallFunction {
		return false
	}
	if op, ok := n.Target.(*tensor.Op); ok {
		return op.Schema == nil || len(op.Schema.Mutates()) > 0
	}
	return n.IsImpure()
}

// Written returns the nodes whose value some node of g may write: the
// arguments an op's schema marks Tensor(a!) and every node argument of an
// impure Target, and, from each, the values it aliases (see Aliases). A
// node not in the set holds the same value from its definition to its last
// use.
func Written(g *fx.Graph) map[*fx.Node]bool {
	out := map[*fx.Node]bool{}
	for _, n := range g.Nodes() {
		if !mayWrite(n) {
			continue
		}
		op, ok := n.Target.(*tensor.Op)
		if !ok || op.Schema == nil {
			for _, in := range n.InputNodes() {
				aliases(in, out)
			}
			continue
		}
		for _, i := range op.Schema.Mutates() {
			fx.ForEachNode(argAt(n, op.Schema, i), func(x *fx.Node) { aliases(x, out) })
		}
	}
	return out
}

// Aliases adds to set x and the values x may alias: back through the inputs
// of view ops (schema returns with an alias annotation: view, expand, t,
// slice, split, contiguous, ...) and of getitem.
func Aliases(x *fx.Node, set map[*fx.Node]bool) { aliases(x, set) }

func aliases(x *fx.Node, set map[*fx.Node]bool) {
	if set[x] {
		return
	}
	set[x] = true
	if x.Op != fx.OpCallFunction {
		return
	}
	switch t := x.Target.(type) {
	case *tensor.Op:
		if t.Schema == nil || !t.Schema.IsView() {
			return
		}
	default:
		if t != fx.GetItem {
			return
		}
	}
	for _, in := range x.InputNodes() {
		aliases(in, set)
	}
}

// argAt returns the value n passes for the schema's argument i, positional
// or keyword, or nil.
func argAt(n *fx.Node, s *tensor.Schema, i int) any {
	if i < len(n.Args()) {
		return n.Args()[i]
	}
	v, _ := n.Kwargs().Get(s.Args[i].Name)
	return v
}
