package passes

import (
	"fmt"
	"reflect"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// FactoryFoldLimit is the most elements FoldConstants stores for a call with
// no tensor input (zeros, full, arange, scalar_tensor): a larger factory
// result stays a call in the graph, cheaper to recompute than to keep. Such
// calls are measured on the meta device first when they take a device
// argument, so a large one is never materialized.
const FactoryFoldLimit = 1 << 20

// FoldConstants evaluates, at pass time, every pure call_function node (see
// fx's Node.IsImpure) all of whose node inputs are constants: get_attr
// nodes reading a tensor attribute of gm, or nodes folded before. Ops run
// through the dispatcher (op.Invoke(op.Bind(args, kwargs))) on a goroutine
// of their own, so in the default modes whatever the caller's; getitem of a
// folded tuple is folded too. Each folded tensor used by a node that is not
// folded becomes an attribute named as Inductor's constant folding names
// them, "_frozen_param0", "_frozen_param1", ... (the smallest free number),
// read by a new get_attr node placed where the call was, with the call's
// Meta; the folded nodes and the get_attr nodes of tensor attributes left
// unused are then erased, and those attributes deleted.
//
// Not folded: impure calls (random ops, mutating ops, impure Targets),
// Targets other than getitem, calls whose value or constant input some node
// writes (a buffer updated in place is no constant), results on the meta
// device (no data), results that are not tensors (they stay as calls,
// though their folded users do not need them), and factory calls larger
// than FactoryFoldLimit. Evaluating an op that is not registered, or one
// that fails (say, shapes that do not broadcast), is an *Error naming the
// node; nothing is changed before every fold has been evaluated, so on an
// error the module is as it was.
func FoldConstants(gm *fx.GraphModule) error {
	const pass = "FoldConstants"
	if err := check(pass, gm); err != nil {
		return err
	}
	g := gm.Graph
	mutated := fx.Written(g)
	mutatedAttr := map[string]bool{}
	for n := range mutated {
		if n.Op == fx.OpGetAttr {
			mutatedAttr[n.Target.(string)] = true
		}
	}
	env := map[*fx.Node]any{}     // the constant value of each node known to have one
	folded := map[*fx.Node]bool{} // the call_function nodes evaluated
	for _, n := range g.Nodes() {
		switch n.Op {
		case fx.OpGetAttr:
			name := n.Target.(string)
			if t, ok := tensorAttr(gm, name); ok && !mutatedAttr[name] {
				env[n] = t
			}
		case fx.OpCallFunction:
			if n.IsImpure() || mutated[n] {
				continue
			}
			v, ok, err := evalNode(n, env)
			if err != nil {
				return wrap(pass, n, err)
			}
			if ok {
				env[n], folded[n] = v, true
			}
		}
	}

	// Replace each folded tensor that an unfolded node uses.
	for _, n := range g.Nodes() {
		t, isTensor := env[n].(*tensor.Tensor)
		if !folded[n] || !isTensor || !usedOutside(n, folded) {
			continue
		}
		name := gm.FreshAttrName("_frozen_param")
		gm.SetAttr(name, t)
		restore := g.InsertingBefore(n)
		c := g.GetAttr(name)
		restore()
		for k, v := range n.Meta {
			c.Meta[k] = v
		}
		n.ReplaceAllUsesWith(c)
	}

	// Erase what folding left unused, from the last node to the first.
	var dropped []string
	for n := g.Last(); n != nil; {
		prev := n.Prev()
		if n.NumUsers() == 0 && (folded[n] || isConstant(gm, n)) {
			if n.Op == fx.OpGetAttr {
				dropped = append(dropped, n.Target.(string))
			}
			if err := g.EraseNode(n); err != nil {
				return wrap(pass, n, err)
			}
		}
		n = prev
	}
	read := map[string]bool{}
	for _, n := range g.Nodes() {
		if n.Op == fx.OpGetAttr {
			read[n.Target.(string)] = true
		}
	}
	for _, name := range dropped {
		if !read[name] {
			gm.DelAttr(name)
		}
	}
	return nil
}

func tensorAttr(gm *fx.GraphModule, name string) (*tensor.Tensor, bool) {
	v, _ := gm.Attr(name)
	t, ok := v.(*tensor.Tensor)
	return t, ok && t != nil
}

// isConstant reports whether n reads a tensor attribute.
func isConstant(gm *fx.GraphModule, n *fx.Node) bool {
	if n.Op != fx.OpGetAttr {
		return false
	}
	_, ok := tensorAttr(gm, n.Target.(string))
	return ok
}

func usedOutside(n *fx.Node, folded map[*fx.Node]bool) bool {
	for _, u := range n.Users() {
		if !folded[u] {
			return true
		}
	}
	return false
}

// evalNode computes n's value when every node input has one in env. ok is
// false when n is not to be folded.
func evalNode(n *fx.Node, env map[*fx.Node]any) (v any, ok bool, err error) {
	for _, in := range n.InputNodes() {
		if _, known := env[in]; !known {
			return nil, false, nil
		}
	}
	subst := func(a any) any { return substitute(a, env) }
	switch t := n.Target.(type) {
	case *tensor.Op:
		if reg, found := tensor.LookupOp(t.Name); !found || reg != t {
			return nil, false, fmt.Errorf("op %s is not registered, so it cannot be evaluated", t.Name)
		}
		args := subst([]any(n.Args())).([]any)
		kwargs := map[string]any{}
		for _, kw := range n.Kwargs() {
			kwargs[kw.Name] = subst(kw.Value)
		}
		factory := !holdsTensor(args) && !holdsTensor(kwargs)
		skip := false
		err = Isolated(func() {
			bound := t.Bind(args, kwargs)
			if factory && metaNumel(t, bound) > FactoryFoldLimit {
				skip = true
				return
			}
			v = t.Invoke(bound)
		})
		switch {
		case err != nil:
			return nil, false, err
		case skip, factory && numel(v) > FactoryFoldLimit, onMeta(v):
			return nil, false, nil
		}
		return v, true, nil
	case *fx.Operator:
		if t != fx.GetItem || len(n.Args()) != 2 {
			return nil, false, nil
		}
		return getItem(subst(n.Args()[0]), n.Args()[1])
	}
	return nil, false, nil
}

// substitute replaces the nodes inside a by their values; tuples become
// lists, as the dispatcher takes them.
func substitute(a any, env map[*fx.Node]any) any {
	switch v := a.(type) {
	case *fx.Node:
		if v == nil {
			return nil
		}
		return env[v]
	case fx.Tuple:
		return substitute([]any(v), env)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = substitute(x, env)
		}
		return out
	}
	return a
}

func holdsTensor(a any) bool {
	switch v := a.(type) {
	case *tensor.Tensor:
		return v != nil
	case []*tensor.Tensor:
		return len(v) > 0
	case []any:
		for _, x := range v {
			if holdsTensor(x) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if holdsTensor(x) {
				return true
			}
		}
	}
	return false
}

// metaNumel is the number of elements the factory call would make, computed
// on the meta device, or 0 when the op takes no device or has no meta
// function.
func metaNumel(op *tensor.Op, bound []any) int {
	for i, a := range op.Schema.Args {
		if a.Type.Base().Kind != tensor.TDevice {
			continue
		}
		meta := append([]any(nil), bound...)
		meta[i] = tensor.Meta
		var v any
		if tensor.Try(func() { v = op.Invoke(meta) }) != nil {
			return 0
		}
		return numel(v)
	}
	return 0
}

// numel counts the elements of the tensors in a result.
func numel(v any) int {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x != nil {
			return x.Numel()
		}
	case []*tensor.Tensor:
		n := 0
		for _, t := range x {
			n += numel(t)
		}
		return n
	case []any:
		n := 0
		for _, t := range x {
			n += numel(t)
		}
		return n
	}
	return 0
}

func onMeta(v any) bool {
	switch x := v.(type) {
	case *tensor.Tensor:
		return x != nil && x.Device() == tensor.Meta
	case []*tensor.Tensor:
		for _, t := range x {
			if onMeta(t) {
				return true
			}
		}
	case []any:
		for _, t := range x {
			if onMeta(t) {
				return true
			}
		}
	}
	return false
}

// getItem is Python's container[index] on a folded value.
func getItem(container, index any) (any, bool, error) {
	rv := reflect.ValueOf(index)
	var i int
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i = int(rv.Int())
	default:
		return nil, false, nil
	}
	var xs []any
	switch c := container.(type) {
	case []*tensor.Tensor:
		for _, t := range c {
			xs = append(xs, t)
		}
	case []any:
		xs = c
	default:
		return nil, false, nil
	}
	if i < 0 {
		i += len(xs)
	}
	if i < 0 || i >= len(xs) {
		return nil, false, fmt.Errorf("IndexError: tuple index out of range")
	}
	return xs[i], true, nil
}

// Isolated runs f on a goroutine of its own, in the default dispatcher modes
// (as PyTorch's constant folding runs under _disable_current_modes), and
// returns what it panicked with as an error.
func Isolated(f func()) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				if e := tensor.Caught(r); e != nil {
					done <- e
				} else if e, ok := r.(error); ok {
					done <- e
				} else {
					done <- fmt.Errorf("panic: %v", r)
				}
			}
		}()
		f()
		done <- nil
	}()
	return <-done
}
