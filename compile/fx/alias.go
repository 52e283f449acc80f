package fx

import "github.com/goaten/goaten/tensor"

// MayWrite reports whether n may write memory: a call of an op whose schema
// writes an argument, or of an impure Target, whose effects are unknown.
// Random ops change only the generator's state and write no tensor.
func MayWrite(n *Node) bool {
	if n.Op != OpCallFunction {
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
func Written(g *Graph) map[*Node]bool {
	out := map[*Node]bool{}
	for _, n := range g.Nodes() {
		if !MayWrite(n) {
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
			ForEachNode(argAt(n, op.Schema, i), func(x *Node) { aliases(x, out) })
		}
	}
	return out
}

// Aliases adds to set x and the values x may alias: back through the inputs
// of view ops (schema returns with an alias annotation: view, expand, t,
// slice, split, contiguous, ...) and of getitem.
func Aliases(x *Node, set map[*Node]bool) { aliases(x, set) }

func aliases(x *Node, set map[*Node]bool) {
	if set[x] {
		return
	}
	set[x] = true
	if x.Op != OpCallFunction {
		return
	}
	switch t := x.Target.(type) {
	case *tensor.Op:
		if t.Schema == nil || !t.Schema.IsView() {
			return
		}
	default:
		if t != GetItem {
			return
		}
	}
	for _, in := range x.InputNodes() {
		aliases(in, set)
	}
}

// argAt returns the value n passes for the schema's argument i, positional
// or keyword, or nil.
func argAt(n *Node, s *tensor.Schema, i int) any {
	if i < len(n.Args()) {
		return n.Args()[i]
	}
	v, _ := n.Kwargs().Get(s.Args[i].Name)
	return v
}
