package fx

import (
	"reflect"

	"github.com/goaten/goaten/tensor"
)

// Opcode is what a node does.
type Opcode uint8

// The opcodes of a goaten graph: torch.fx's, less call_method and
// call_module (goaten's graphs call functions, never Python methods or
// modules).
const (
	OpPlaceholder  Opcode = iota // a function input; Target is its name
	OpGetAttr                    // an attribute of the GraphModule; Target is its qualified name
	OpCallFunction               // a call; Target is a *tensor.Op or a Target
	OpOutput                     // the return value, Args()[0]; Target is "output"
)

var opcodeNames = [...]string{"placeholder", "get_attr", "call_function", "output"}

// String returns FX's name of the opcode, e.g. "call_function".
func (o Opcode) String() string {
	if int(o) < len(opcodeNames) {
		return opcodeNames[o]
	}
	return "unknown"
}

// Target is a call_function target other than an ATen op: getitem, a Python
// operator, a higher-order op, a TorchBind method call. Higher packages
// implement it for their own callables.
type Target interface {
	// TargetName is the callable's __name__, the base of the names of the
	// nodes calling it: "getitem", "cond", "with_effects".
	TargetName() string
	// QualifiedName is how generated code refers to the callable:
	// "torch.ops.higher_order.cond".
	QualifiedName() string
}

// CallFormatter is implemented by targets that generated code writes as an
// expression rather than a call, as FX prints Python's operators:
// getitem as "x[0]", eq as "a == b". FormatCall receives the arguments
// already printed; ok false falls back to a call.
type CallFormatter interface {
	FormatCall(args []string) (expr string, ok bool)
}

// Impure is implemented by targets that must survive dead-code elimination
// although no node uses their result (effectful calls).
type Impure interface {
	Impure() bool
}

// Function is a Target known only by its names: a higher-order op until the
// package defining it exists, or any other callable to be printed.
type Function struct {
	Name      string // __name__, e.g. "cond"
	Qualified string // e.g. "torch.ops.higher_order.cond"
	// SideEffects keeps calls whose result is unused out of dead-code
	// elimination.
	SideEffects bool
}

// TargetName implements Target.
func (f *Function) TargetName() string { return f.Name }

// QualifiedName implements Target.
func (f *Function) QualifiedName() string { return f.Qualified }

// Impure implements Impure.
func (f *Function) Impure() bool { return f.SideEffects }

// Operator is one of Python's operator-module functions, which FX writes as
// expressions ("x[0]", "a == b").
type Operator struct {
	name   string
	format string // with one %s per operand
	arity  int
}

// The operator-module functions FX pretty-prints (torch/fx/graph.py
// magic_methods).
var (
	GetItem  = &Operator{"getitem", "%s[%s]", 2}
	Add      = &Operator{"add", "%s + %s", 2}
	Sub      = &Operator{"sub", "%s - %s", 2}
	Mul      = &Operator{"mul", "%s * %s", 2}
	FloorDiv = &Operator{"floordiv", "%s // %s", 2}
	TrueDiv  = &Operator{"truediv", "%s / %s", 2}
	Mod      = &Operator{"mod", "%s %% %s", 2}
	Pow      = &Operator{"pow", "%s ** %s", 2}
	MatMul   = &Operator{"matmul", "%s @ %s", 2}
	Eq       = &Operator{"eq", "%s == %s", 2}
	Ne       = &Operator{"ne", "%s != %s", 2}
	Lt       = &Operator{"lt", "%s < %s", 2}
	Gt       = &Operator{"gt", "%s > %s", 2}
	Le       = &Operator{"le", "%s <= %s", 2}
	Ge       = &Operator{"ge", "%s >= %s", 2}
	Neg      = &Operator{"neg", "-%s", 1}
	Pos      = &Operator{"pos", "+%s", 1}
	Invert   = &Operator{"invert", "~%s", 1}
	And      = &Operator{"and_", "%s & %s", 2}
	Or       = &Operator{"or_", "%s | %s", 2}
	Xor      = &Operator{"xor", "%s ^ %s", 2}
	LShift   = &Operator{"lshift", "%s << %s", 2}
	RShift   = &Operator{"rshift", "%s >> %s", 2}
)

// TargetName implements Target.
func (o *Operator) TargetName() string { return o.name }

// QualifiedName implements Target: operator functions are Python builtins'
// neighbours, "operator.getitem".
func (o *Operator) QualifiedName() string { return "operator." + o.name }

// FormatCall implements CallFormatter.
func (o *Operator) FormatCall(args []string) (string, bool) {
	if len(args) != o.arity {
		return "", false
	}
	s := o.format
	out := make([]byte, 0, len(s)+16)
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+1 < len(s) {
			i++
			if s[i] == 's' {
				out = append(out, args[k]...)
				k++
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out), true
}

// Tuple is a Python tuple argument: "(a, b)", "(a,)", "()". A Go slice of
// any other type is a Python list.
type Tuple []any

// Kwarg is one keyword argument.
type Kwarg struct {
	Name  string
	Value any
}

// Kwargs are a call's keyword arguments, in the order they print.
type Kwargs []Kwarg

// Get returns the value of the keyword argument name.
func (k Kwargs) Get(name string) (any, bool) {
	for _, kw := range k {
		if kw.Name == name {
			return kw.Value, true
		}
	}
	return nil, false
}

// Node is one operation of a Graph. Arguments may hold other nodes of the
// same graph anywhere inside lists and tuples; the graph keeps every node's
// users in step with the arguments that refer to it, so arguments change
// only through SetArgs, SetKwargs, ReplaceInputWith and ReplaceAllUsesWith.
//
// An argument is a *Node, nil (None), a bool, an integer, a float, a
// tensor.Scalar, a string, a tensor.DType, tensor.Device,
// tensor.MemoryFormat or tensor.Layout, a *tensor.Op or Target (printed by
// qualified name), a Tuple, or a slice of arguments (a list).
type Node struct {
	Op   Opcode
	Name string // unique in the graph; chosen by the graph's namespace
	// Target is the placeholder's parameter name, the get_attr's qualified
	// attribute name, "output", or what a call_function calls: a *tensor.Op
	// or a Target.
	Target any
	// Meta holds facts about the node's value: "val" (its example value, a
	// meta tensor), "stack_trace" (the Go call site that made it), ...
	Meta map[string]any

	graph      *Graph
	args       []any
	kwargs     Kwargs
	inputs     []*Node // distinct nodes in args then kwargs, in first-use order
	users      []*Node // ordered set, in the order the uses were made
	prev, next *Node
	erased     bool
}

// Meta keys PyTorch uses.
const (
	MetaVal        = "val"
	MetaStackTrace = "stack_trace"
)

// Graph returns the graph the node belongs to.
func (n *Node) Graph() *Graph { return n.graph }

// Args returns the positional arguments. The slice is the node's own: do not
// modify it; use SetArgs.
func (n *Node) Args() []any { return n.args }

// Kwargs returns the keyword arguments. Do not modify them; use SetKwargs.
func (n *Node) Kwargs() Kwargs { return n.kwargs }

// Users returns the nodes that use n's value, in the order they started to.
func (n *Node) Users() []*Node { return append([]*Node(nil), n.users...) }

// NumUsers is len(n.Users()).
func (n *Node) NumUsers() int { return len(n.users) }

// InputNodes returns the distinct nodes n's arguments refer to, in order.
func (n *Node) InputNodes() []*Node { return append([]*Node(nil), n.inputs...) }

// Next returns the following node, nil after the last.
func (n *Node) Next() *Node {
	if n.next == nil || n.next == n.graph.root {
		return nil
	}
	return n.next
}

// Prev returns the preceding node, nil before the first.
func (n *Node) Prev() *Node {
	if n.prev == nil || n.prev == n.graph.root {
		return nil
	}
	return n.prev
}

// Erased reports whether the node was erased from its graph.
func (n *Node) Erased() bool { return n.erased }

// OpTarget returns the ATen op a call_function node calls, or nil.
func (n *Node) OpTarget() *tensor.Op {
	op, _ := n.Target.(*tensor.Op)
	return op
}

// String returns the node's name, as FX's repr of a Node.
func (n *Node) String() string { return n.Name }

// SetArgs replaces the positional arguments, updating users.
func (n *Node) SetArgs(args ...any) { n.update(args, n.kwargs) }

// SetKwargs replaces the keyword arguments, updating users.
func (n *Node) SetKwargs(kwargs Kwargs) { n.update(n.args, kwargs) }

// ReplaceInputWith makes every use of old in n's arguments a use of new.
func (n *Node) ReplaceInputWith(old, new *Node) {
	n.graph.checkOwn(new, "ReplaceInputWith")
	sub := func(x *Node) any {
		if x == old {
			return new
		}
		return x
	}
	n.update(MapArg(n.args, sub).([]any), MapArg(n.kwargs, sub).(Kwargs))
}

// ReplaceAllUsesWith makes every user of n use replacement instead and
// returns those users, as FX's Node.replace_all_uses_with.
func (n *Node) ReplaceAllUsesWith(replacement *Node) []*Node {
	return n.ReplaceUsesWithFunc(replacement, nil)
}

// ReplaceUsesWithFunc is ReplaceAllUsesWith for the users for which keep
// returns true (all of them when keep is nil); it returns the users changed.
func (n *Node) ReplaceUsesWithFunc(replacement *Node, keep func(user *Node) bool) []*Node {
	n.graph.checkOwn(replacement, "ReplaceAllUsesWith")
	var done []*Node
	for _, u := range n.Users() {
		if keep != nil && !keep(u) {
			continue
		}
		u.ReplaceInputWith(n, replacement)
		done = append(done, u)
	}
	return done
}

// update sets the arguments and moves n from the users of its old inputs to
// those of its new ones, as FX's Node.__update_args_kwargs.
func (n *Node) update(args []any, kwargs Kwargs) {
	args = normalizeArgs(args)
	kwargs = append(Kwargs(nil), kwargs...)
	for i := range kwargs {
		kwargs[i].Value = normalizeArg(kwargs[i].Value)
	}
	var inputs []*Node
	seen := map[*Node]bool{}
	visit := func(x *Node) {
		if !seen[x] {
			seen[x] = true
			inputs = append(inputs, x)
		}
	}
	ForEachNode(args, visit)
	ForEachNode(kwargs, visit)
	for _, x := range inputs {
		if x.graph != n.graph {
			tensor.Panicf("fx: argument %s of node %s belongs to another graph", x.Name, n.Name)
		}
	}
	for _, old := range n.inputs {
		old.removeUser(n)
	}
	n.args, n.kwargs, n.inputs = args, kwargs, inputs
	for _, x := range inputs {
		x.users = append(x.users, n)
	}
}

func (n *Node) removeUser(u *Node) {
	for i, x := range n.users {
		if x == u {
			n.users = append(n.users[:i], n.users[i+1:]...)
			return
		}
	}
}

// ForEachNode calls f on each *Node inside a, depth first, in order (FX's
// map_arg order).
func ForEachNode(a any, f func(*Node)) {
	switch v := a.(type) {
	case *Node:
		if v != nil {
			f(v)
		}
	case []any:
		for _, x := range v {
			ForEachNode(x, f)
		}
	case Tuple:
		for _, x := range v {
			ForEachNode(x, f)
		}
	case []*Node:
		for _, x := range v {
			ForEachNode(x, f)
		}
	case Kwargs:
		for _, kw := range v {
			ForEachNode(kw.Value, f)
		}
	}
}

// MapArg returns a with each *Node replaced by f's result, rebuilding the
// containers.
func MapArg(a any, f func(*Node) any) any {
	switch v := a.(type) {
	case *Node:
		if v == nil {
			return v
		}
		return f(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = MapArg(x, f)
		}
		return out
	case Tuple:
		out := make(Tuple, len(v))
		for i, x := range v {
			out[i] = MapArg(x, f)
		}
		return out
	case Kwargs:
		out := make(Kwargs, len(v))
		for i, kw := range v {
			out[i] = Kwarg{kw.Name, MapArg(kw.Value, f)}
		}
		return out
	}
	return a
}

// normalizeArgs copies args, normalizing each argument.
func normalizeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = normalizeArg(a)
	}
	return out
}

// normalizeArg turns typed Go slices of arguments ([]*Node, []int64, ...)
// into []any lists, copies lists and tuples, and checks that every leaf is
// something a graph can hold (see Node). A nil *Node becomes None.
func normalizeArg(a any) any {
	switch v := a.(type) {
	case nil, bool, string, int, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
		float32, float64, tensor.Scalar, tensor.DType, tensor.Device, tensor.MemoryFormat, tensor.Layout:
		return v
	case *Node:
		if v == nil {
			return nil
		}
		return v
	case *tensor.Op:
		if v == nil {
			return nil
		}
		return v
	case Target:
		return v
	case Tuple:
		out := make(Tuple, len(v))
		for i, x := range v {
			out[i] = normalizeArg(x)
		}
		return out
	case []any:
		return normalizeArgs(v)
	case *tensor.Tensor:
		tensor.TypePanicf("fx: a tensor cannot be a node argument; register it as an attribute and use a get_attr node")
	}
	rv := reflect.ValueOf(a)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalizeArg(rv.Index(i).Interface())
		}
		return out
	}
	tensor.TypePanicf("fx: unsupported node argument of type %T", a)
	return nil
}
