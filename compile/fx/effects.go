package fx

import (
	"fmt"
	"sync"

	"github.com/goaten/goaten/tensor"
)

// Rename gives n the name name, which must be a free identifier of the
// graph; n's old name becomes free. Passes that reorder inputs use it to
// keep make_fx's positional names (aot_export's token placeholder becomes
// arg0_1 and the inputs after it move up by one).
func (g *Graph) Rename(n *Node, name string) error {
	if n.graph != g {
		return &Error{Node: n, Msg: "fx: Rename: node " + n.Name + " belongs to another graph"}
	}
	if n.Name == name {
		return nil
	}
	if !g.ns.rename(n.Name, name) {
		return &Error{Node: n, Msg: fmt.Sprintf("fx: Rename: cannot rename %s to %q: the name is taken or not an identifier", n.Name, name)}
	}
	if old, ok := n.Target.(string); ok && n.Op == OpPlaceholder && old == n.Name {
		n.Target = name // a placeholder's target is its parameter name
	}
	n.Name = name
	return nil
}

var effectful sync.Map // *tensor.Op -> true

// MarkEffectful makes calls of op impure (see Node.IsImpure): an op with a
// side effect the graph cannot see, such as aten::_print, which dead-code
// elimination must keep although nobody uses its result (PyTorch's
// has_effects).
func MarkEffectful(op *tensor.Op) { effectful.Store(op, true) }

func isEffectful(op *tensor.Op) bool {
	_, ok := effectful.Load(op)
	return ok
}
