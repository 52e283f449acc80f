package fx

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// Callable is implemented by call_function targets the Interpreter can run
// besides ATen ops: getitem, and higher-order ops, which run their subgraphs
// with an Interpreter of their own. args and kwargs hold values (tensors,
// numbers, lists of them, sub-GraphModules), never nodes; a Tuple argument
// arrives as a Tuple. Call may also panic with a *tensor.Error.
type Callable interface {
	Call(args []any, kwargs Kwargs) (any, error)
}

// Runner is what Run runs: an Interpreter, or a type embedding one
// (*Interpreter or Interpreter) that overrides some of its methods, as a
// subclass of torch.fx.Interpreter overrides run_node, placeholder,
// get_attr, call_function or output. Run calls the runner's RunNode for each
// node; Interpreter.RunNode calls the runner's method for the node's opcode,
// so an override of any of them is seen. An override calls the embedded
// Interpreter's method for the default behaviour.
type Runner interface {
	// RunNode computes the value of n; Interpreter.RunNode fetches its
	// arguments from the environment and calls the method of its opcode.
	RunNode(n *Node) (any, error)
	// Placeholder returns the next input; args holds the placeholder's
	// default value, if it has one.
	Placeholder(n *Node, target string, args []any) (any, error)
	// GetAttr returns the module attribute target.
	GetAttr(n *Node, target string) (any, error)
	// CallFunction calls target (n.Target unless an override swaps it).
	CallFunction(n *Node, target any, args []any, kwargs Kwargs) (any, error)
	// Output returns the graph's result, args[0].
	Output(n *Node, args []any) (any, error)

	interpreter() *Interpreter
}

// Interpreter runs a GraphModule node by node through the dispatcher, on the
// device of its inputs, as torch.fx.Interpreter. Each value is freed from
// the environment after the last node that uses it has run, so a run keeps
// alive only what later nodes still need.
//
// To change what some nodes do, embed *Interpreter in a type, override the
// methods of Runner that matter, and run it with Run(m, inputs...):
//
//	type swap struct{ *fx.Interpreter }
//
//	func (s swap) CallFunction(n *fx.Node, target any, args []any, kw fx.Kwargs) (any, error) {
//		if target == sigmoid {
//			target = neg
//		}
//		return s.Interpreter.CallFunction(n, target, args, kw)
//	}
//
//	out, err := fx.Run(swap{fx.NewInterpreter(gm)}, x)
//
// (The method m.Run promoted from Interpreter would run the Interpreter's
// own methods only: Go has no virtual methods, so call Run(m, ...).)
//
// An Interpreter reads the graph's liveness when it is made: make a new one
// after editing the graph. It runs one graph at a time; it is not safe for
// concurrent use, but it stays usable after a run fails.
type Interpreter struct {
	Module *GraphModule
	// Env maps each node that has run to its value, while it is still
	// needed. After a successful run of a graph that lints it holds the
	// output node only; after a failed run it is empty.
	Env map[*Node]any

	lastUses map[*Node][]*Node // values freed once the key node has run
	inputs   []any
	next     int    // the next input a placeholder takes
	self     Runner // the runner of the current Run
}

// NewInterpreter returns an interpreter of gm.
func NewInterpreter(gm *GraphModule) *Interpreter {
	if gm == nil || gm.Graph == nil {
		tensor.Panicf("fx: NewInterpreter of a nil GraphModule")
	}
	i := &Interpreter{Module: gm, Env: map[*Node]any{}}
	i.lastUses = lastUses(gm.Graph)
	return i
}

// lastUses maps each node to the values that can be freed once it has run:
// the arguments it is the last user of, as FX's Interpreter computes them
// walking the graph backwards, and the node itself when nothing uses it (its
// value is dropped at once; the output's stays).
func lastUses(g *Graph) map[*Node][]*Node {
	out := map[*Node][]*Node{}
	registered := map[*Node]bool{}
	for n := g.Last(); n != nil; n = n.Prev() {
		reg := func(x *Node) {
			if !registered[x] {
				registered[x] = true
				out[n] = append(out[n], x)
			}
		}
		ForEachNode(n.args, reg)
		ForEachNode(n.kwargs, reg)
	}
	for n := g.First(); n != nil; n = n.Next() {
		if !registered[n] && n.Op != OpOutput {
			out[n] = append(out[n], n)
		}
	}
	return out
}

func (i *Interpreter) interpreter() *Interpreter { return i }

// runner is the Runner whose methods RunNode calls: the one given to Run,
// or i itself outside a run.
func (i *Interpreter) runner() Runner {
	if i.self != nil {
		return i.self
	}
	return i
}

// Run runs the graph on inputs with the interpreter's own methods; it is
// Run(i, inputs...).
func (i *Interpreter) Run(inputs ...any) (any, error) { return Run(i, inputs...) }

// RunError is a failure while running a node. Its message is the cause's
// followed by FX's "While executing %node : ..." line; errors.As reaches the
// cause (a *tensor.Error for kernel and argument errors).
type RunError struct {
	Node *Node // nil when no node is at fault (too many inputs)
	Err  error
	msg  string
}

func (e *RunError) Error() string { return e.msg }

// Unwrap returns the cause.
func (e *RunError) Unwrap() error { return e.Err }

func newRunError(n *Node, err error) *RunError {
	msg := err.Error()
	if n != nil {
		msg += "\n\nWhile executing " + safeFormat(n)
		if st, ok := n.Meta[MetaStackTrace].(string); ok && st != "" {
			msg += "\nOriginal traceback:\n" + st
		}
	}
	return &RunError{Node: n, Err: err, msg: msg}
}

// safeFormat is n.Format(), or a plainer line when the node is too broken
// to print (a nil or schema-less op target).
func safeFormat(n *Node) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%%%s : %s[target=<%T>]", n.Name, n.Op, n.Target)
		}
	}()
	if op, ok := n.Target.(*tensor.Op); ok && (op == nil || op.Schema == nil) {
		panic("unprintable")
	}
	return n.Format()
}

// Run runs r's graph on inputs, one per placeholder in order (a placeholder
// with a default may be left out; a "*args" placeholder takes the rest), and
// returns the output node's value: a tensor, or a Tuple or []any of values
// as the output's argument is written. Any failure, a kernel's *tensor.Error
// panic included, is returned as a *RunError naming the node.
func Run(r Runner, inputs ...any) (res any, err error) {
	i := r.interpreter()
	if i == nil || i.Module == nil {
		return nil, newRunError(nil, tensor.Errorf("fx: Run of an interpreter made without NewInterpreter"))
	}
	prev := i.self
	i.self = r
	defer func() { i.self = prev }()
	i.Env = map[*Node]any{}
	i.inputs, i.next = inputs, 0
	defer func() {
		i.inputs = nil
		if err != nil {
			clear(i.Env)
		}
	}()
	g := i.Module.Graph
	if err := checkInputCount(g, len(inputs)); err != nil {
		return nil, err
	}
	for n := g.First(); n != nil; n = n.Next() {
		v, err := runNode(r, n)
		if err != nil {
			var re *RunError
			if errors.As(err, &re) && re.Node == n {
				return nil, err
			}
			return nil, newRunError(n, err)
		}
		i.Env[n] = v
		for _, x := range i.lastUses[n] {
			delete(i.Env, x)
		}
		if n.Op == OpOutput {
			return v, nil
		}
	}
	return nil, newRunError(nil, tensor.Errorf("Graph has no output node!"))
}

// runNode calls r.RunNode, turning a *tensor.Error panic into an error.
func runNode(r Runner, n *Node) (v any, err error) {
	if perr := tensor.Try(func() { v, err = r.RunNode(n) }); perr != nil {
		return nil, perr
	}
	return v, err
}

// checkInputCount refuses more inputs than placeholders, with Python's
// message for a call of forward(self, ...).
func checkInputCount(g *Graph, given int) error {
	lo, hi := 0, 0
	for n := g.First(); n != nil; n = n.Next() {
		if n.Op != OpPlaceholder {
			continue
		}
		if s, ok := n.Target.(string); ok && strings.HasPrefix(s, "*") {
			return nil
		}
		hi++
		if len(n.args) == 0 {
			lo = hi
		}
	}
	if given <= hi {
		return nil
	}
	var msg string
	switch {
	case lo == hi && hi == 0:
		msg = fmt.Sprintf("forward() takes 1 positional argument but %d were given", given+1)
	case lo == hi:
		msg = fmt.Sprintf("forward() takes %d positional arguments but %d were given", hi+1, given+1)
	default:
		msg = fmt.Sprintf("forward() takes from %d to %d positional arguments but %d were given", lo+1, hi+1, given+1)
	}
	return newRunError(nil, &tensor.Error{Kind: tensor.TypeError, Msg: msg})
}

// RunNode computes n's value: it fetches n's arguments from the environment
// and calls the running Runner's method for n's opcode.
func (i *Interpreter) RunNode(n *Node) (any, error) {
	r := i.runner()
	args, kwargs, err := i.FetchArgs(n)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case OpPlaceholder, OpGetAttr:
		target, ok := n.Target.(string)
		if !ok {
			return nil, tensor.Errorf("fx: the target of %s node %s is a %T, not a string", n.Op, n.Name, n.Target)
		}
		if n.Op == OpGetAttr {
			return r.GetAttr(n, target)
		}
		return r.Placeholder(n, target, args)
	case OpCallFunction:
		return r.CallFunction(n, n.Target, args, kwargs)
	case OpOutput:
		return r.Output(n, args)
	}
	return nil, tensor.Errorf("fx: node %s has unknown opcode %d", n.Name, n.Op)
}

// FetchArgs returns n's arguments with each node replaced by its value in
// the environment, lists and Tuples rebuilt, as FX's
// fetch_args_kwargs_from_env. A node without a value (erased, from another
// graph, later in the graph, or already freed) is an error.
func (i *Interpreter) FetchArgs(n *Node) ([]any, Kwargs, error) {
	var missing *Node
	look := func(x *Node) any {
		v, ok := i.Env[x]
		if !ok && missing == nil {
			missing = x
		}
		return v
	}
	var args []any
	if len(n.args) > 0 {
		args = MapArg(n.args, look).([]any)
	}
	var kwargs Kwargs
	if len(n.kwargs) > 0 {
		kwargs = MapArg(n.kwargs, look).(Kwargs)
	}
	if missing != nil {
		why := "it has not run yet"
		switch {
		case missing.erased:
			why = "it was erased"
		case missing.graph != n.graph:
			why = "it belongs to another graph"
		case comesBefore(missing, n):
			why = "it was freed after what was its last use when the Interpreter was made"
		}
		return nil, nil, tensor.Errorf("fx: argument %s of node %s has no value: %s", missing.Name, n.Name, why)
	}
	return args, kwargs, nil
}

// comesBefore reports whether a is before b in their graph.
func comesBefore(a, b *Node) bool {
	for x := a.Next(); x != nil; x = x.Next() {
		if x == b {
			return true
		}
	}
	return false
}

// Placeholder returns the next input, else the placeholder's default, else
// an error with FX's message.
func (i *Interpreter) Placeholder(n *Node, target string, args []any) (any, error) {
	if strings.HasPrefix(target, "*") {
		rest := append([]any(nil), i.inputs[i.next:]...)
		i.next = len(i.inputs)
		return rest, nil
	}
	if i.next < len(i.inputs) {
		v := i.inputs[i.next]
		i.next++
		return v, nil
	}
	if len(args) > 0 {
		return args[0], nil
	}
	return nil, tensor.Errorf("Expected positional argument for parameter %s, but one was not passed in!", target)
}

// GetAttr returns the module attribute target: a constant tensor, a
// sub-GraphModule, ...
func (i *Interpreter) GetAttr(n *Node, target string) (any, error) {
	if v, ok := i.Module.Attr(target); ok {
		return v, nil
	}
	if err := i.Module.checkAttrPath(n, target); err != nil {
		return nil, tensor.Errorf("%s", err.Error())
	}
	return nil, tensor.Errorf("Node %s target %s references a nonexistent attribute", n.Name, target)
}

// CallFunction calls target with the argument values: an ATen op through
// the dispatcher, as a boxed call (Bind fills the defaults a normalized node
// leaves out and wraps Python numbers given for tensors), or a Callable.
func (i *Interpreter) CallFunction(n *Node, target any, args []any, kwargs Kwargs) (res any, err error) {
	switch t := target.(type) {
	case *tensor.Op:
		if t == nil || t.Schema == nil {
			return nil, tensor.Errorf("fx: node %s calls an op without a schema", n.Name)
		}
		var kw map[string]any
		if len(kwargs) > 0 {
			kw = make(map[string]any, len(kwargs))
			for _, a := range kwargs {
				kw[a.Name], _ = opArg(a.Value)
			}
		}
		opArgs, copied := args, false
		for k, a := range args {
			if b, changed := opArg(a); changed {
				if !copied {
					opArgs, copied = append([]any(nil), args...), true
				}
				opArgs[k] = b
			}
		}
		if err := tensor.Try(func() { res = t.Invoke(t.Bind(opArgs, kw)) }); err != nil {
			return nil, err
		}
		return res, nil
	case Callable:
		if isNilPointer(t) {
			break
		}
		if perr := tensor.Try(func() { res, err = t.Call(args, kwargs) }); perr != nil {
			return nil, perr
		}
		return res, err
	}
	return nil, &tensor.Error{Kind: tensor.NotImplementedError, Msg: fmt.Sprintf(
		"fx: node %s calls %s (%T), which the interpreter cannot run: it is neither a *tensor.Op nor an fx.Callable",
		n.Name, targetLabel(target), target)}
}

func targetLabel(t any) string {
	if isNilPointer(t) {
		return "nil"
	}
	switch v := t.(type) {
	case *tensor.Op:
		return v.Name
	case Target:
		return v.QualifiedName()
	case string:
		return v
	}
	return fmt.Sprintf("<%T>", t)
}

func isNilPointer(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// opArg turns Tuples into lists, which an op's Bind reads as Python reads a
// tuple given for a list parameter; changed is false when a has no Tuple.
func opArg(a any) (v any, changed bool) {
	var xs []any
	switch x := a.(type) {
	case Tuple:
		xs, changed = x, true
	case []any:
		xs = x
	default:
		return a, false
	}
	out := make([]any, len(xs))
	for k, x := range xs {
		var c bool
		out[k], c = opArg(x)
		changed = changed || c
	}
	if !changed {
		return a, false
	}
	return out, true
}

// Output returns the graph's result, args[0] (nil for "return None").
func (i *Interpreter) Output(n *Node, args []any) (any, error) {
	if len(args) == 0 {
		return nil, nil
	}
	return args[0], nil
}

// Call implements Callable for getitem, which indexes a list or tuple value
// (an op's Tensor[] or tuple result) with an int, negative from the end as
// in Python. The interpreter runs no other operator-module function.
func (o *Operator) Call(args []any, kwargs Kwargs) (any, error) {
	if o != GetItem {
		return o.callInt(args, kwargs)
	}
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, &tensor.Error{Kind: tensor.TypeError,
			Msg: fmt.Sprintf("getitem expected 2 arguments, got %d", len(args)+len(kwargs))}
	}
	idx, ok := intArg(args[1])
	if !ok {
		return nil, &tensor.Error{Kind: tensor.TypeError,
			Msg: fmt.Sprintf("getitem: indices must be integers, not %s", pyTypeName(args[1]))}
	}
	seq := reflect.ValueOf(args[0])
	if args[0] == nil || (seq.Kind() != reflect.Slice && seq.Kind() != reflect.Array) {
		return nil, &tensor.Error{Kind: tensor.TypeError,
			Msg: fmt.Sprintf("getitem: '%s' object is not subscriptable", pyTypeName(args[0]))}
	}
	k := idx
	if k < 0 {
		k += seq.Len()
	}
	if k < 0 || k >= seq.Len() {
		return nil, &tensor.Error{Kind: tensor.IndexError, Msg: "tuple index out of range"}
	}
	return seq.Index(k).Interface(), nil
}

// callInt runs an arithmetic or comparison operator on ints: the symbolic
// sizes of a graph with dynamic dims (sym_size_int * 2, s0 == 4).
func (o *Operator) callInt(args []any, kwargs Kwargs) (any, error) {
	ints := make([]int, len(args))
	for i, a := range args {
		v, ok := intArg(a)
		if !ok || len(kwargs) > 0 || len(args) != o.arity {
			return nil, &tensor.Error{Kind: tensor.NotImplementedError,
				Msg: fmt.Sprintf("fx: the interpreter runs operator.%s on ints only", o.name)}
		}
		ints[i] = v
	}
	if o.arity == 1 {
		switch o {
		case Neg:
			return -ints[0], nil
		case Pos:
			return ints[0], nil
		}
	} else {
		a, b := ints[0], ints[1]
		switch o {
		case Add:
			return a + b, nil
		case Sub:
			return a - b, nil
		case Mul:
			return a * b, nil
		case FloorDiv, Mod:
			if b == 0 {
				return nil, &tensor.Error{Kind: tensor.RuntimeError, Msg: "integer division or modulo by zero"}
			}
			q, r := a/b, a%b
			if r != 0 && (r < 0) != (b < 0) {
				q, r = q-1, r+b
			}
			if o == FloorDiv {
				return q, nil
			}
			return r, nil
		case Eq:
			return a == b, nil
		case Ne:
			return a != b, nil
		case Lt:
			return a < b, nil
		case Gt:
			return a > b, nil
		case Le:
			return a <= b, nil
		case Ge:
			return a >= b, nil
		}
	}
	return nil, &tensor.Error{Kind: tensor.NotImplementedError,
		Msg: fmt.Sprintf("fx: the interpreter cannot run operator.%s", o.name)}
}

func intArg(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case int32:
		return int(x), true
	case int16:
		return int(x), true
	case int8:
		return int(x), true
	case uint8:
		return int(x), true
	case uint16:
		return int(x), true
	case uint32:
		return int(x), true
	case tensor.Scalar:
		if x.IsInt() {
			return int(x.Int64()), true
		}
	}
	return 0, false
}

// pyTypeName is the Python type name of a value, for messages.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case *tensor.Tensor:
		return "Tensor"
	case bool:
		return "bool"
	case int, int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return "int"
	case float32, float64:
		return "float"
	case string:
		return "str"
	case Tuple:
		return "tuple"
	case *GraphModule:
		return "GraphModule"
	}
	return fmt.Sprintf("%T", v)
}
