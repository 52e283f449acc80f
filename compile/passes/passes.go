package passes

import (
	"errors"
	"fmt"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Pass is a graph pass: it edits gm in place and returns an *Error naming
// the node at fault when it cannot.
type Pass func(gm *fx.GraphModule) error

// Run applies the passes in order, linting the module after each, and stops
// at the first error.
func Run(gm *fx.GraphModule, passes ...Pass) error {
	for i, p := range passes {
		if err := p(gm); err != nil {
			return err
		}
		if err := gm.Lint(); err != nil {
			return fmt.Errorf("passes: the graph is malformed after pass %d: %w", i, err)
		}
	}
	return nil
}

// Error is a pass's failure. Node is the node at fault, nil when the graph
// as a whole is (no output node). Err is the cause: an *fx.Error from Lint,
// a *tensor.Error from an op evaluated by FoldConstants, or the pass's own.
type Error struct {
	Pass string // "DeadCode", "CSE", "FoldConstants"
	Node *fx.Node
	Err  error
}

func (e *Error) Error() string {
	if e.Node == nil {
		return "passes." + e.Pass + ": " + e.Err.Error()
	}
	return "passes." + e.Pass + ": node " + e.Node.Name + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// wrap makes err an *Error of pass, taking the node from an *fx.Error.
func wrap(pass string, n *fx.Node, err error) error {
	if err == nil {
		return nil
	}
	var fe *fx.Error
	if n == nil && errors.As(err, &fe) {
		n = fe.Node
	}
	return &Error{Pass: pass, Node: n, Err: err}
}

func errorf(pass string, n *fx.Node, format string, args ...any) error {
	return &Error{Pass: pass, Node: n, Err: fmt.Errorf(format, args...)}
}

// check lints gm and refuses calls of ops without a schema, whose effects
// no pass can know.
func check(pass string, gm *fx.GraphModule) error {
	if gm == nil || gm.Graph == nil {
		return errorf(pass, nil, "no graph")
	}
	if err := gm.Lint(); err != nil {
		return wrap(pass, nil, err)
	}
	for _, n := range gm.Graph.Nodes() {
		if op, ok := n.Target.(*tensor.Op); ok && n.Op == fx.OpCallFunction && op.Schema == nil {
			return errorf(pass, n, "op %s has no schema, so its effects are unknown", op.Name)
		}
	}
	return nil
}
