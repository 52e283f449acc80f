package fx

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// Graph is an ordered list of nodes: a function whose inputs are its
// placeholders and whose result is its output node's argument. New nodes go
// at the insertion point, the end of the graph unless InsertingBefore or
// InsertingAfter moved it.
type Graph struct {
	root   *Node // sentinel of the circular node list
	length int
	ns     *namespace
	insert func(*Node) // puts a new node at the insertion point
	owner  *GraphModule
}

// New returns an empty graph.
func New() *Graph {
	g := &Graph{ns: newNamespace()}
	g.root = &Node{graph: g, Name: "root"}
	g.root.prev, g.root.next = g.root, g.root
	g.insert = g.root.prepend
	return g
}

// Owner returns the GraphModule the graph belongs to, or nil.
func (g *Graph) Owner() *GraphModule { return g.owner }

// Len returns the number of nodes.
func (g *Graph) Len() int { return g.length }

// Nodes returns the nodes in order.
func (g *Graph) Nodes() []*Node {
	out := make([]*Node, 0, g.length)
	for n := g.root.next; n != g.root; n = n.next {
		out = append(out, n)
	}
	return out
}

// First returns the first node, or nil.
func (g *Graph) First() *Node { return g.root.Next() }

// Last returns the last node, or nil.
func (g *Graph) Last() *Node { return g.root.Prev() }

// Placeholders returns the placeholder nodes in order.
func (g *Graph) Placeholders() []*Node {
	var out []*Node
	for _, n := range g.Nodes() {
		if n.Op == OpPlaceholder {
			out = append(out, n)
		}
	}
	return out
}

// OutputNode returns the (last) output node, or nil.
func (g *Graph) OutputNode() *Node {
	for n := g.root.prev; n != g.root; n = n.prev {
		if n.Op == OpOutput {
			return n
		}
	}
	return nil
}

// FindNode returns the node named name, or nil.
func (g *Graph) FindNode(name string) *Node {
	for n := g.root.next; n != g.root; n = n.next {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// CreateNode adds a node at the insertion point, as FX's Graph.create_node.
// Its name is built from name, or when name is "" from the target: a
// placeholder's or get_attr's string, an op's base name ("add" for
// aten::add.Tensor, as make_fx names nodes), a Target's TargetName, each in
// snake case; the namespace then makes it a unique identifier ("sum" ->
// "sum_1", a second "add" -> "add_1").
func (g *Graph) CreateNode(op Opcode, target any, args []any, kwargs Kwargs, name string) *Node {
	switch op {
	case OpPlaceholder, OpGetAttr, OpOutput:
		if _, ok := target.(string); !ok {
			tensor.TypePanicf("fx: a %s node's target must be a string, got %T", op, target)
		}
	case OpCallFunction:
		if !isCallable(target) {
			tensor.TypePanicf("fx: a call_function node's target must be a *tensor.Op or an fx.Target, got %T", target)
		}
	default:
		tensor.Panicf("fx: unknown opcode %d", op)
	}
	candidate := name
	if candidate == "" {
		candidate = defaultName(op, target)
	}
	n := &Node{Op: op, Target: target, Meta: map[string]any{}, graph: g}
	n.Name = g.ns.create(candidate, nil)
	n.update(args, kwargs)
	n.prev, n.next = n, n
	g.insert(n)
	g.length++
	return n
}

func isCallable(t any) bool {
	switch v := t.(type) {
	case *tensor.Op:
		return v != nil
	case Target:
		return v != nil
	}
	return false
}

// defaultName is the name hint FX's tracers give a node with this target.
func defaultName(op Opcode, target any) string {
	switch t := target.(type) {
	case string:
		return targetToStr(t)
	case *tensor.Op:
		// make_fx: _target_to_str(func.overloadpacket.__name__)
		return targetToStr(t.Schema.Name)
	case Target:
		return snakeCase(t.TargetName())
	}
	return op.String()
}

// Placeholder adds an input named name (the parameter name in the generated
// forward; the node's name is the same unless the namespace must change it).
func (g *Graph) Placeholder(name string) *Node {
	return g.CreateNode(OpPlaceholder, name, nil, nil, "")
}

// PlaceholderDefault adds an input with a default value, printed
// "def forward(self, x, y = 3.14159)".
func (g *Graph) PlaceholderDefault(name string, def any) *Node {
	return g.CreateNode(OpPlaceholder, name, []any{def}, nil, "")
}

// GetAttr adds a read of the owning GraphModule's attribute qualname
// ("_tensor_constant0", "true_graph_0", "sub.weight").
func (g *Graph) GetAttr(qualname string) *Node {
	return g.CreateNode(OpGetAttr, qualname, nil, nil, "")
}

// CallFunction adds a call of target (a *tensor.Op or a Target). kwargs may
// be nil.
func (g *Graph) CallFunction(target any, args []any, kwargs Kwargs) *Node {
	return g.CreateNode(OpCallFunction, target, args, kwargs, "")
}

// Output adds the output node returning result: a node, a Tuple or list of
// nodes, or any other argument.
func (g *Graph) Output(result any) *Node {
	return g.CreateNode(OpOutput, "output", []any{result}, nil, "")
}

// InsertingBefore makes new nodes go just before n (at the start of the graph
// when n is nil) and returns a function restoring the previous insertion
// point, as FX's `with graph.inserting_before(n):`.
func (g *Graph) InsertingBefore(n *Node) (restore func()) {
	if n == nil {
		return g.InsertingAfter(g.root)
	}
	g.checkOwn(n, "InsertingBefore")
	return g.setInsert(n.prepend)
}

// InsertingAfter makes new nodes go just after n (at the end of the graph
// when n is nil) and returns a function restoring the previous insertion
// point. As in FX, each new node goes directly after n, so nodes created in
// a row end up in reverse order.
func (g *Graph) InsertingAfter(n *Node) (restore func()) {
	if n == nil {
		return g.InsertingBefore(g.root)
	}
	if n != g.root {
		g.checkOwn(n, "InsertingAfter")
	}
	return g.setInsert(n.appendNode)
}

func (g *Graph) setInsert(f func(*Node)) func() {
	old := g.insert
	g.insert = f
	return func() { g.insert = old }
}

func (g *Graph) checkOwn(n *Node, what string) {
	if n == nil || n.graph != g {
		tensor.Panicf("fx: %s: node is not in this graph", what)
	}
	if n.erased {
		tensor.Panicf("fx: %s: node %s was erased", what, n.Name)
	}
}

// prepend puts x just before n (moving it if it is already in the list).
func (n *Node) prepend(x *Node) {
	if n == x {
		return
	}
	x.unlink()
	p := n.prev
	p.next, x.prev = x, p
	x.next, n.prev = n, x
}

// appendNode puts x just after n.
func (n *Node) appendNode(x *Node) { n.next.prepend(x) }

func (n *Node) unlink() {
	if n.prev != nil && n.next != nil {
		p, nx := n.prev, n.next
		p.next, nx.prev = nx, p
	}
}

// MoveBefore moves n to just before other.
func (n *Node) MoveBefore(other *Node) {
	n.graph.checkOwn(other, "MoveBefore")
	other.prepend(n)
}

// MoveAfter moves n to just after other.
func (n *Node) MoveAfter(other *Node) {
	n.graph.checkOwn(other, "MoveAfter")
	other.appendNode(n)
}

// Error is a graph error naming the node at fault. Msg is PyTorch's message
// where FX has one.
type Error struct {
	Node *Node
	Kind tensor.ErrorKind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// EraseNode removes n from the graph. A node that still has users is
// refused, with FX's message. n's name stays reserved.
func (g *Graph) EraseNode(n *Node) error {
	g.checkOwn(n, "EraseNode")
	if len(n.users) > 0 {
		return &Error{Node: n, Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
			"Tried to erase Node %s but it still had %d users in the graph: %s!",
			n.Name, len(n.users), usersRepr(n.users))}
	}
	n.unlink()
	n.erased = true
	g.length--
	// Drop the erased node's uses, as FX maps its arguments to None.
	none := func(*Node) any { return nil }
	n.update(MapArg(n.args, none).([]any), MapArg(n.kwargs, none).(Kwargs))
	return nil
}

// usersRepr is Python's repr of FX's users dict: "{mul: None, sub: None}".
func usersRepr(users []*Node) string {
	parts := make([]string, len(users))
	for i, u := range users {
		parts[i] = u.Name + ": None"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// EliminateDeadCode erases, from the last node to the first, every node
// nobody uses that is not impure (see IsImpure: placeholders, outputs, ops
// that mutate an argument or draw random numbers, impure Targets stay). It
// lints the graph first and reports whether anything changed.
func (g *Graph) EliminateDeadCode() (bool, error) {
	if err := g.Lint(); err != nil {
		return false, err
	}
	changed := false
	for n := g.root.prev; n != g.root; {
		prev := n.prev
		if !n.IsImpure() && len(n.users) == 0 {
			if err := g.EraseNode(n); err != nil {
				return changed, err
			}
			changed = true
		}
		n = prev
	}
	return changed, nil
}

// IsImpure reports whether n does more than compute its value, so that
// passes must neither drop it when unused, merge it with an equal call nor
// evaluate it ahead of time. This is the one purity rule of goaten's graph
// passes, after FX's Node.is_impure:
//   - placeholders and outputs are impure;
//   - a call of an op is impure when its schema writes an argument (an alias
//     annotation Tensor(a!): add_, copy_, out= variants, mutable ops of any
//     namespace), draws random numbers (Schema.IsRandom: PyTorch's
//     nondeterministic_seeded), has a side effect (MarkEffectful: _print),
//     or is unknown (an op without a schema);
//   - a call of a Target is impure when the Target implements Impure and
//     says so (with_effects, call_torchbind);
//   - everything else (get_attr, getitem, Python operators) is pure.
func (n *Node) IsImpure() bool {
	switch n.Op {
	case OpPlaceholder, OpOutput:
		return true
	case OpCallFunction:
		switch t := n.Target.(type) {
		case *tensor.Op:
			s := t.Schema
			return s == nil || len(s.Mutates()) > 0 || s.IsRandom() || isEffectful(t)
		case Impure:
			return t.Impure()
		}
	}
	return false
}

// Lint checks that the graph is well formed, as FX's Graph.lint, and returns
// an *Error naming the first node at fault:
//   - every node belongs to this graph and has a known opcode;
//   - every argument is a node of this graph defined before its use
//     (topological order);
//   - users match uses both ways (no dangling users);
//   - names are unique;
//   - there is exactly one output node, and it is the last;
//   - call_function targets are ops or Targets; when the graph belongs to a
//     GraphModule, get_attr targets name its attributes.
func (g *Graph) Lint() error {
	seen := map[*Node]bool{}
	names := map[string]bool{}
	var outputs []*Node
	for n := g.root.next; n != g.root; n = n.next {
		if n.Op > OpOutput {
			return lintErr(n, "Node %s had unknown opcode %s!", n.Name, n.Op)
		}
		if n.graph != g || n.erased {
			return lintErr(n, "Node '%s' does not belong to this Graph!", n.Name)
		}
		var bad error
		ForEachNode(n.args, func(a *Node) { bad = firstErr(bad, g.checkArg(a, n, seen)) })
		ForEachNode(n.kwargs, func(a *Node) { bad = firstErr(bad, g.checkArg(a, n, seen)) })
		if bad != nil {
			return bad
		}
		seen[n] = true
		if names[n.Name] {
			return lintErr(n, "Node redefined name %s!", n.Name)
		}
		names[n.Name] = true
		if n.Op == OpOutput {
			outputs = append(outputs, n)
		}
	}
	// Users against uses, through sets of {used, user} edges: the time is
	// linear in the edges however many users or arguments one node has.
	type edge struct{ used, user *Node }
	used, isUser := map[edge]bool{}, map[edge]bool{}
	for n := g.root.next; n != g.root; n = n.next {
		ForEachNode(n.args, func(x *Node) { used[edge{x, n}] = true })
		ForEachNode(n.kwargs, func(x *Node) { used[edge{x, n}] = true })
		for _, u := range n.users {
			isUser[edge{n, u}] = true
		}
	}
	for n := g.root.next; n != g.root; n = n.next {
		for _, u := range n.users {
			if u.graph != g || u.erased || !seen[u] {
				return lintErr(n, "Node '%s' has user '%s', which is not in this Graph!", n.Name, u.Name)
			}
			if !used[edge{n, u}] {
				return lintErr(n, "Node '%s' has user '%s', which does not use it!", n.Name, u.Name)
			}
		}
		for _, in := range n.inputs {
			if !isUser[edge{in, n}] {
				return lintErr(n, "Node '%s' uses '%s' but is not among its users!", n.Name, in.Name)
			}
		}
		if !sameInputs(n) {
			return lintErr(n, "Node '%s' has input nodes that do not match its arguments!", n.Name)
		}
	}
	switch {
	case len(outputs) == 0:
		return &Error{Kind: tensor.RuntimeError, Msg: "Graph has no output node!"}
	case len(outputs) > 1:
		return lintErr(outputs[1], "Graph has %d output nodes (%s)! A graph returns once.",
			len(outputs), joinNames(outputs))
	case g.root.prev != outputs[0]:
		return lintErr(g.root.prev, "Node '%s' comes after the output node '%s'!", g.root.prev.Name, outputs[0].Name)
	}
	// Targets.
	for n := g.root.next; n != g.root; n = n.next {
		switch n.Op {
		case OpCallFunction:
			if !isCallable(n.Target) {
				return &Error{Node: n, Kind: tensor.ValueError, Msg: fmt.Sprintf(
					"Node %s target %v has type %T but a Callable is expected", n.Name, n.Target, n.Target)}
			}
		default:
			s, ok := n.Target.(string)
			if !ok {
				return &Error{Node: n, Kind: tensor.ValueError, Msg: fmt.Sprintf(
					"Node %s target %v has type %T but a str is expected", n.Name, n.Target, n.Target)}
			}
			if n.Op == OpGetAttr && g.owner != nil {
				if err := g.owner.checkAttrPath(n, s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (g *Graph) checkArg(a, n *Node, seen map[*Node]bool) error {
	if a.graph != g {
		return lintErr(n, "Argument '%s' of Node '%s' does not belong to this Graph, but was used as an argument! "+
			"If you are copying nodes from another graph, make sure to remap arguments to this graph's nodes",
			a.Name, n.Name)
	}
	if !seen[a] {
		return lintErr(n, "Argument '%s' of Node '%s' was used before it has been defined! "+
			"Please check that Nodes in the graph are topologically ordered", a.Name, n.Name)
	}
	return nil
}

func lintErr(n *Node, format string, args ...any) error {
	return &Error{Node: n, Kind: tensor.RuntimeError, Msg: fmt.Sprintf(format, args...)}
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func sameInputs(n *Node) bool {
	var got []*Node
	seen := map[*Node]bool{}
	add := func(x *Node) {
		if !seen[x] {
			seen[x] = true
			got = append(got, x)
		}
	}
	ForEachNode(n.args, add)
	ForEachNode(n.kwargs, add)
	if len(got) != len(n.inputs) {
		return false
	}
	for i := range got {
		if got[i] != n.inputs[i] {
			return false
		}
	}
	return true
}

func joinNames(ns []*Node) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = n.Name
	}
	return strings.Join(s, ", ")
}

// CopyNode adds a copy of n (from any graph) at the insertion point, with
// each node argument x replaced by remap(x), and a shallow copy of its Meta.
// The copy keeps n's name when it is free here, as FX's Graph.node_copy.
func (g *Graph) CopyNode(n *Node, remap func(*Node) *Node) *Node {
	f := func(x *Node) any { return remap(x) }
	args := MapArg(n.args, f).([]any)
	kwargs := MapArg(n.kwargs, f).(Kwargs)
	c := g.CreateNode(n.Op, n.Target, args, kwargs, n.Name)
	for k, v := range n.Meta {
		c.Meta[k] = v
	}
	return c
}

// StackTrace returns the Go call stack above the caller, skip frames up
// (0: the caller of StackTrace), innermost frame last, in the layout of
// Python's traceback so that FX-style tools can read the "stack_trace"
// meta: `  File "/path/x.go", line 12, in pkg.Func`.
func StackTrace(skip int) string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(skip+2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var lines []string
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "testing.") {
			lines = append(lines, fmt.Sprintf("  File \"%s\", line %d, in %s\n", f.File, f.Line, f.Function))
		}
		if !more {
			break
		}
	}
	var b strings.Builder
	for i := len(lines) - 1; i >= 0; i-- {
		b.WriteString(lines[i])
	}
	return b.String()
}

// String prints the graph as FX's str(graph) in PyTorch 1.13:
//
//	graph():
//	    %x_1 : [#users=2] = placeholder[target=x_1]
//	    %mul : [#users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x_1, 2), kwargs = {})
//	    return mul
func (g *Graph) String() string {
	var b strings.Builder
	b.WriteString("graph():")
	for _, n := range g.Nodes() {
		b.WriteString("\n    ")
		b.WriteString(n.Format())
	}
	return b.String()
}

// Format describes the node as FX's Node.format_node.
func (n *Node) Format() string {
	users := fmt.Sprintf("[#users=%d]", len(n.users))
	switch n.Op {
	case OpPlaceholder:
		s := fmt.Sprintf("%%%s : %s = placeholder[target=%v]", n.Name, users, n.Target)
		if len(n.args) > 0 {
			s += "(default=" + pyStrOf(n.args[0]) + ")"
		}
		return s
	case OpGetAttr:
		return fmt.Sprintf("%%%s : %s = get_attr[target=%v]", n.Name, users, n.Target)
	case OpOutput:
		if len(n.args) == 0 {
			return "return None"
		}
		return "return " + pyStrOf(n.args[0])
	}
	return fmt.Sprintf("%%%s : %s = %s[target=%s](args = %s, kwargs = %s)", n.Name, users, n.Op,
		qualifiedName(n.Target), formatArg(Tuple(n.args)), formatArg(n.kwargs))
}

// formatArg is FX's node._format_arg: nodes as %name, other leaves as str().
func formatArg(a any) string {
	switch v := a.(type) {
	case *Node:
		if v != nil {
			return "%" + v.Name
		}
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = formatArg(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Tuple:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = formatArg(x)
		}
		if len(v) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case Kwargs:
		parts := make([]string, len(v))
		for i, kw := range v {
			parts[i] = kw.Name + ": " + formatArg(kw.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return pyStrOf(a)
}

// pyStrOf is Python's str() of an argument: like repr, but a string or a
// device prints bare at the top level (containers repr their elements).
func pyStrOf(a any) string {
	switch v := a.(type) {
	case string:
		return v
	case tensor.Device:
		return v.String()
	}
	return Repr(a)
}
