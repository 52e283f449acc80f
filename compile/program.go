package compile

import (
	"fmt"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// program is a graph flattened for the Eager backend: the FX Interpreter's
// work done once, when the graph is compiled, instead of on every call.
// Each op's arguments are bound (defaults filled, numbers converted) once;
// a call copies the bound list, puts the values of the nodes it uses in
// their places and invokes the op through the dispatcher, exactly as the
// Interpreter would. Values live in numbered slots, cleared after their
// last use. A higher-order op's node calls the op's fx.Callable (prepared
// once per program: see Preparer); graphs the program does not handle
// (non-tensor values flowing between ops) run on the Interpreter.
type program struct {
	nslots int
	inputs []int // slot of each placeholder, in order
	consts []constSlot
	steps  []step
	out    any   // the output's shape: SlotRef, fx.Tuple or []any of them, or a constant
	flat   []int // the output's slots when it is a node or a flat Tuple or list of nodes, else nil
	nargs  int   // the steps' argument lists' total length: a run allocates them in one block
}

type constSlot struct {
	slot int
	val  any
}

// SlotRef marks where a node's value goes in an output shape (a backend's
// plan keeps node values in numbered slots, as the program does).
type SlotRef int

// step is one call_function node.
type step struct {
	node  *fx.Node
	op    *tensor.Op  // nil for getitem
	args  []any       // the bound argument list, node values left out
	holes []hole      // where node values go into args
	item  int         // getitem's index
	src   int         // getitem's source slot
	off   int         // where its argument list starts in the run's block
	call  fx.Callable // a higher-order op's (prepared) callable, called with tmpl filled
	tmpl  []any       // its arguments, with SlotRefs for node values
	kw    fx.Kwargs   // likewise
	uses  []int       // the slots tmpl and kw read
	out   int
	free  []int // slots whose last use this step is
}

// hole is one node value in an argument list: argument arg, element elem
// of a tensor list (-1 for a plain argument), from slot.
type hole struct{ arg, elem, slot int }

// compileProgram flattens gm; ok is false when some node needs the
// Interpreter.
func compileProgram(gm *fx.GraphModule) (p *program, ok bool) {
	p = &program{}
	slots := map[*fx.Node]int{}
	var nodes []*fx.Node // by slot
	newSlot := func(n *fx.Node) int {
		slots[n] = p.nslots
		nodes = append(nodes, n)
		p.nslots++
		return slots[n]
	}
	last := map[*fx.Node]int{} // node -> index of the step that uses it last
	var outNode *fx.Node
	for n := gm.Graph.First(); n != nil; n = n.Next() {
		switch n.Op {
		case fx.OpPlaceholder:
			if len(n.Args()) > 0 {
				return nil, false // a default value: the Interpreter's business
			}
			p.inputs = append(p.inputs, newSlot(n))
		case fx.OpGetAttr:
			v, found := gm.Attr(n.Target.(string))
			if !found {
				return nil, false
			}
			p.consts = append(p.consts, constSlot{newSlot(n), v}) // a tensor, a sub-GraphModule
		case fx.OpCallFunction:
			s, good := p.step(n, slots)
			if !good {
				return nil, false
			}
			for _, h := range s.holes {
				last[nodes[h.slot]] = len(p.steps)
			}
			for _, u := range s.uses {
				last[nodes[u]] = len(p.steps)
			}
			if s.op == nil && s.call == nil {
				last[nodes[s.src]] = len(p.steps)
			}
			s.out = newSlot(n)
			s.off = p.nargs
			p.nargs += len(s.args)
			p.steps = append(p.steps, s)
		case fx.OpOutput:
			outNode = n
		default:
			return nil, false
		}
	}
	if outNode == nil || len(outNode.Args()) != 1 {
		return nil, false
	}
	out, good := OutputShape(outNode.Args()[0], slots)
	if !good {
		return nil, false
	}
	p.out = out
	p.flat = flatSlots(out)
	used := map[*fx.Node]bool{}
	fx.ForEachNode(outNode.Args()[0], func(n *fx.Node) { used[n] = true })
	for n, i := range last {
		if !used[n] {
			p.steps[i].free = append(p.steps[i].free, slots[n])
		}
	}
	return p, true
}

// marker is a tensor that stands for a node's value while an argument list
// is bound; each is its own object, so the bound list shows where it went.
func marker() *tensor.Tensor { return tensor.NewMetaContiguous(nil, tensor.Float32, tensor.Meta) }

func (p *program) step(n *fx.Node, slots map[*fx.Node]int) (step, bool) {
	s := step{node: n}
	if n.Target == fx.GetItem {
		args := n.Args()
		src, ok1 := args[0].(*fx.Node)
		idx, ok2 := args[1].(int)
		if !ok1 || !ok2 || len(n.Kwargs()) > 0 {
			return s, false
		}
		s.src, s.item = slots[src], idx
		return s, true
	}
	if c, ok := n.Target.(fx.Callable); ok {
		return p.callStep(s, c, slots)
	}
	op, ok := n.Target.(*tensor.Op)
	if !ok || op == nil || op.Schema == nil {
		return s, false
	}
	// Bind with a marker tensor in each node's place, then find the markers.
	markers := map[*tensor.Tensor]int{}
	conv := func(a any) (any, bool) {
		switch v := a.(type) {
		case *fx.Node:
			sl, ok := slots[v]
			if !ok {
				return nil, false
			}
			m := marker()
			markers[m] = sl
			return m, true
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				y, ok := convElem(x, slots, markers)
				if !ok {
					return nil, false
				}
				out[i] = y
			}
			return out, true
		case fx.Tuple:
			return nil, false
		}
		return a, true
	}
	pos := make([]any, len(n.Args()))
	for i, a := range n.Args() {
		v, ok := conv(a)
		if !ok {
			return s, false
		}
		pos[i] = v
	}
	var kw map[string]any
	for _, k := range n.Kwargs() {
		v, ok := conv(k.Value)
		if !ok {
			return s, false
		}
		if kw == nil {
			kw = map[string]any{}
		}
		kw[k.Name] = v
	}
	var bound []any
	if err := tensor.Try(func() { bound = op.Bind(pos, kw) }); err != nil {
		return s, false // the Interpreter reports it, naming the node
	}
	for i, a := range bound {
		switch v := a.(type) {
		case *tensor.Tensor:
			if sl, ok := markers[v]; ok {
				s.holes = append(s.holes, hole{i, -1, sl})
				bound[i] = nil
			}
		case []*tensor.Tensor:
			for j, t := range v {
				if sl, ok := markers[t]; ok {
					s.holes = append(s.holes, hole{i, j, sl})
				}
			}
		}
	}
	if len(s.holes) < len(markers) {
		return s, false // a node value went where no tensor goes
	}
	s.op, s.args = op, bound
	return s, true
}

// Preparer is implemented by call_function targets (higher-order ops) that
// prepare once per compiled graph: the program calls Prepare when it is
// built and runs the node with the callable it returns, which may keep
// state between runs (its sub-graphs compiled). The callable must be safe
// for concurrent use.
type Preparer interface {
	Prepare() fx.Callable
}

// callStep is a step calling c, an fx.Callable, with the node's arguments.
func (p *program) callStep(s step, c fx.Callable, slots map[*fx.Node]int) (step, bool) {
	var uses []int
	ok := true
	var conv func(a any) any
	conv = func(a any) any {
		switch v := a.(type) {
		case *fx.Node:
			sl, found := slots[v]
			if !found {
				ok = false
			}
			uses = append(uses, sl)
			return SlotRef(sl)
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = conv(x)
			}
			return out
		case fx.Tuple:
			out := make(fx.Tuple, len(v))
			for i, x := range v {
				out[i] = conv(x)
			}
			return out
		}
		return a
	}
	s.tmpl = conv(s.node.Args()).([]any)
	for _, k := range s.node.Kwargs() {
		s.kw = append(s.kw, fx.Kwarg{Name: k.Name, Value: conv(k.Value)})
	}
	if !ok {
		return s, false
	}
	if pr, isP := c.(Preparer); isP {
		c = pr.Prepare()
	}
	s.call, s.uses = c, uses
	return s, true
}

// fill is a call step's argument with the values of the run in place of
// SlotRefs.
func fill(a any, vals []any) any {
	switch v := a.(type) {
	case SlotRef:
		return vals[v]
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fill(x, vals)
		}
		return out
	case fx.Tuple:
		out := make(fx.Tuple, len(v))
		for i, x := range v {
			out[i] = fill(x, vals)
		}
		return out
	}
	return a
}

func convElem(x any, slots map[*fx.Node]int, markers map[*tensor.Tensor]int) (any, bool) {
	if n, ok := x.(*fx.Node); ok {
		sl, ok := slots[n]
		if !ok {
			return nil, false
		}
		m := marker()
		markers[m] = sl
		return m, true
	}
	if _, ok := x.([]any); ok {
		return nil, false
	}
	return x, true
}

// run runs the program on inputs. A failure is an error naming the node,
// as the Interpreter's.
func (p *program) run(inputs []*tensor.Tensor) (any, error) {
	var buf [smallProgram]any
	vals := p.slots(buf[:])
	if err := p.exec(inputs, vals); err != nil {
		return nil, err
	}
	return Output(p.out, vals), nil
}

// runTensors is run for a program whose output is flat (p.flat != nil): it
// returns the output tensors as a slice.
func (p *program) runTensors(inputs []*tensor.Tensor) ([]*tensor.Tensor, error) {
	var buf [smallProgram]any
	vals := p.slots(buf[:])
	if err := p.exec(inputs, vals); err != nil {
		return nil, err
	}
	out := make([]*tensor.Tensor, len(p.flat))
	for i, s := range p.flat {
		out[i], _ = vals[s].(*tensor.Tensor)
	}
	return out, nil
}

// smallProgram is the number of values a run keeps on the stack (writing
// them then needs no GC write barriers); larger programs allocate.
const smallProgram = 16

// slots returns the run's value slots: buf when it is large enough.
func (p *program) slots(buf []any) []any {
	if p.nslots <= len(buf) {
		return buf[:p.nslots]
	}
	return make([]any, p.nslots)
}

// exec runs the steps, leaving the values in vals.
func (p *program) exec(inputs []*tensor.Tensor, vals []any) (err error) {
	if len(inputs) != len(p.inputs) {
		return fmt.Errorf("compile: the graph takes %d inputs, %d given", len(p.inputs), len(inputs))
	}
	for i, s := range p.inputs {
		vals[s] = inputs[i]
	}
	return p.execSteps(vals)
}

// runArgs is run for inputs that may include script objects.
func (p *program) runArgs(inputs []any) (any, error) {
	if len(inputs) != len(p.inputs) {
		return nil, fmt.Errorf("compile: the graph takes %d inputs, %d given", len(p.inputs), len(inputs))
	}
	vals := make([]any, p.nslots)
	for i, s := range p.inputs {
		vals[s] = inputs[i]
	}
	if err := p.execSteps(vals); err != nil {
		return nil, err
	}
	return Output(p.out, vals), nil
}

// execSteps runs the steps on vals, which hold the inputs.
func (p *program) execSteps(vals []any) (err error) {
	for _, c := range p.consts {
		vals[c.slot] = c.val
	}
	cur := -1
	// A kernel's *tensor.Error panic is this run's error (as tensor.Try,
	// with nothing to allocate on every call).
	defer func() {
		if r := recover(); r != nil {
			te, ok := r.(*tensor.Error)
			if !ok {
				panic(r)
			}
			err = te
			if cur >= 0 {
				err = fmt.Errorf("%w\n\nWhile executing %s", te, p.steps[cur].node.Format())
			}
		}
	}()
	// One block holds every call's argument list (an op may keep its
	// list, as autograd does for a backward: each has its own part).
	block := make([]any, p.nargs)
	for i := range p.steps {
		cur = i
		s := &p.steps[i]
		switch {
		case s.call != nil:
			var kw fx.Kwargs
			for _, k := range s.kw {
				kw = append(kw, fx.Kwarg{Name: k.Name, Value: fill(k.Value, vals)})
			}
			v, cerr := s.call.Call(fill(s.tmpl, vals).([]any), kw)
			if cerr != nil {
				return fmt.Errorf("%w\n\nWhile executing %s", cerr, s.node.Format())
			}
			vals[s.out] = v
		case s.op == nil:
			vals[s.out] = getItem(vals[s.src], s.item)
		default:
			end := s.off + len(s.args)
			args := block[s.off:end:end]
			s.bind(args, vals)
			vals[s.out] = s.op.Invoke(args)
		}
		for _, f := range s.free {
			vals[f] = nil
		}
	}
	return nil
}

// flatSlots lists the slots of an output that is one node or a flat Tuple
// or list of nodes, else nil.
func flatSlots(out any) []int {
	var l []any
	switch v := out.(type) {
	case SlotRef:
		return []int{int(v)}
	case fx.Tuple:
		l = v
	case []any:
		l = v
	default:
		return nil
	}
	slots := make([]int, len(l))
	for i, x := range l {
		r, ok := x.(SlotRef)
		if !ok {
			return nil
		}
		slots[i] = int(r)
	}
	return slots
}

// invoke runs the step on the slot values vals and returns its value.
func (s *step) invoke(vals []any) any {
	if s.op == nil {
		return getItem(vals[s.src], s.item)
	}
	args := make([]any, len(s.args))
	s.bind(args, vals)
	return s.op.Invoke(args)
}

// bind fills args (as long as the bound list) with the bound list and the
// node values it takes from vals.
func (s *step) bind(args, vals []any) {
	copy(args, s.args)
	for _, h := range s.holes {
		v, ok := vals[h.slot].(*tensor.Tensor)
		if !ok && vals[h.slot] != nil {
			// A number where a tensor goes (an int a script object's
			// method returned): a wrapped number, as Bind makes it.
			v = wrapNumber(vals[h.slot])
		}
		if h.elem < 0 {
			args[h.arg] = v
			continue
		}
		l, _ := args[h.arg].([]*tensor.Tensor)
		if isTemplate(l, s.args[h.arg]) {
			l = append([]*tensor.Tensor(nil), l...)
			args[h.arg] = l
		}
		l[h.elem] = v
	}
}

// BoundCall is a call_function node (an op or getitem) whose arguments are
// bound once, as the Eager backend's program binds them: defaults filled,
// numbers converted, and the places of its node arguments noted. Backends
// that run some nodes through the dispatcher themselves (compile/cpu) use
// it to run those nodes exactly as Eager does.
type BoundCall struct{ s step }

// BindCall binds the call_function node n, whose node arguments will be
// read from the slots given by slots. ok is false when n needs the
// Interpreter (a higher-order op, a non-tensor value between nodes).
func BindCall(n *fx.Node, slots map[*fx.Node]int) (c *BoundCall, ok bool) {
	if n.Op != fx.OpCallFunction {
		return nil, false
	}
	var p program
	s, ok := p.step(n, slots)
	if !ok || s.call != nil {
		return nil, false
	}
	return &BoundCall{s}, true
}

// Op is the call's op; nil for getitem.
func (c *BoundCall) Op() *tensor.Op { return c.s.op }

// Args is the bound argument list with the node arguments left nil (for
// getitem, nil).
func (c *BoundCall) Args() []any { return c.s.args }

// ArgSlot says where node arguments go in Args: argument arg (element elem
// of a tensor list, -1 for a plain argument) reads slot.
type ArgSlot struct{ Arg, Elem, Slot int }

// ArgSlots lists the node arguments of an op call; for getitem, the one
// slot it reads (Arg and Elem -1).
func (c *BoundCall) ArgSlots() []ArgSlot {
	if c.s.op == nil {
		return []ArgSlot{{-1, -1, c.s.src}}
	}
	out := make([]ArgSlot, len(c.s.holes))
	for i, h := range c.s.holes {
		out[i] = ArgSlot{h.arg, h.elem, h.slot}
	}
	return out
}

// Item is getitem's index (0 for an op call).
func (c *BoundCall) Item() int { return c.s.item }

// Invoke runs the call with its node arguments read from vals (indexed by
// slot), through the dispatcher, and returns the op's result.
func (c *BoundCall) Invoke(vals []any) any { return c.s.invoke(vals) }

// NArgs is the length of the call's argument list (0 for getitem).
func (c *BoundCall) NArgs() int { return len(c.s.args) }

// InvokeWith is Invoke with the argument list built in args (NArgs long),
// which the op may keep: a caller running many calls can cut one block
// into their lists instead of allocating one per call.
func (c *BoundCall) InvokeWith(args, vals []any) any {
	if c.s.op == nil {
		return c.s.invoke(vals)
	}
	c.s.bind(args, vals)
	return c.s.op.Invoke(args)
}

// Bind builds the call's argument list in args (NArgs long) from vals,
// as InvokeWith does before it calls the dispatcher: for a caller that
// runs the op's kernel itself (an out kernel into memory it planned).
func (c *BoundCall) Bind(args, vals []any) []any {
	c.s.bind(args, vals)
	return args
}

// isTemplate reports whether l is still the bound template's list (not yet
// copied for this call).
func isTemplate(l []*tensor.Tensor, tmpl any) bool {
	t, _ := tmpl.([]*tensor.Tensor)
	return len(l) > 0 && len(t) > 0 && &l[0] == &t[0]
}

// wrapNumber is the wrapped-number tensor of a Go number.
func wrapNumber(v any) *tensor.Tensor {
	sc, ok := tensor.ToScalar(v)
	if !ok {
		tensor.TypePanicf("compile: a %T where a tensor goes", v)
	}
	return tensor.WrappedNumber(sc)
}

func getItem(v any, i int) any {
	switch l := v.(type) {
	case []*tensor.Tensor:
		if i < 0 {
			i += len(l)
		}
		return l[i]
	case []any:
		if i < 0 {
			i += len(l)
		}
		return l[i]
	}
	tensor.Panicf("getitem: '%T' object is not subscriptable", v)
	return nil
}

// Output builds a run's result from an output shape (OutputShape) and the
// slots' values.
func Output(shape any, vals []any) any {
	switch v := shape.(type) {
	case SlotRef:
		return vals[v]
	case fx.Tuple:
		out := make(fx.Tuple, len(v))
		for i, x := range v {
			out[i] = Output(x, vals)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = Output(x, vals)
		}
		return out
	}
	return shape
}

// OutputShape is the output's arguments with each node replaced by its
// slot (a SlotRef); ok is false when a node has no slot.
func OutputShape(a any, slots map[*fx.Node]int) (any, bool) {
	ok := true
	out := fx.MapArg(a, func(n *fx.Node) any {
		sl, found := slots[n]
		ok = ok && found
		return SlotRef(sl)
	})
	return out, ok
}
