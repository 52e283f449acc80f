// Package hop holds goaten's higher-order operators (PyTorch's
// torch/_higher_order_ops): ops whose arguments include sub-programs.
// Eagerly a sub-program is a Go function; in a graph it is a sub-GraphModule
// the op's node reads through get_attr ("true_graph_0"), printed as PyTorch
// prints it:
//
//	cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [a_1, b_1])
//	getitem = cond[0];  cond = None
//
// A higher-order op is an *Op: a name and one rule per layer, which a call
// meets in PyTorch's dispatch order:
//
//   - Autograd (when grad mode is on and an input requires grad): an
//     autograd.Function whose Forward runs the layers below and whose
//     Backward is, where PyTorch's is, the same op over joint sub-programs
//     (a cond's backward is a second cond);
//   - Functionalize (inside a functionalizing trace): the sub-programs run
//     functionalized, and one that writes into or returns its inputs is
//     refused in PyTorch's words;
//   - Trace (inside compile.Trace or a compiled function): each sub-program
//     is traced into a sub-GraphModule registered on the graph being
//     recorded, and the call becomes one node;
//   - Meta (on meta tensors, no data): output metadata only;
//   - Dense: the sub-programs are called on real tensors, on any device.
//
// An *Op is also an fx.Target and an fx.Callable, so graphs holding its
// nodes run on fx.Interpreter and in compile.Compile's Eager backend: the
// node's sub-GraphModules become sub-programs again and the call goes
// through the same layers (a graph run under a trace records the op anew).
package hop

import (
	"fmt"
	"sort"
	"sync"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// T is a tensor.
type T = tensor.Tensor

// Sub is a sub-program of a higher-order op: a Go function taking and
// returning tensors. A nil result element is PyTorch's None.
type Sub func(args ...*T) []*T

// Call is one call of a higher-order op: its sub-programs and its tensor
// arguments in groups (cond: {pred}, operands; while_loop: carried,
// additional; map_impl: xs, args).
type Call struct {
	Op   *Op
	Subs []Sub
	In   [][]*T
	// Tuple makes the last group print as a Python tuple rather than a
	// list (PyTorch prints the container the caller gave).
	Tuple bool
	// Args are the call's other arguments, for ops that take more than
	// sub-programs and tensors (with_effects: the effectful op and its
	// arguments; invoke_subgraph: the identifier).
	Args []any

	// pred, when set, is Subs[0] returning its single tensor directly
	// (while_loop's cond_fn, called every step, without a slice to
	// allocate); only Dense uses it.
	pred func(args ...*T) *T

	// direct, when set, runs the call of a graph node instead of the
	// layers (while_loop with int carries: see WhileLoopCarries).
	direct func() any

	level layer // the layer running the call
}

// layer is a dispatch layer of a higher-order op, top first.
type layer uint8

const (
	layerAutograd layer = iota
	layerFunctionalize
	layerTrace
	layerBackend // Meta or Dense
)

// Rules are an op's implementation per layer (PyTorch's py_impl per
// dispatch key). Dense and Trace are required.
type Rules struct {
	// Dense runs the op on real tensors.
	Dense func(c *Call) []*T
	// Meta runs it on meta tensors (no data): it returns outputs with the
	// right metadata. Nil: Dense runs on them.
	Meta func(c *Call) []*T
	// Trace records the call into the running trace.
	Trace func(c *Call, tr *compile.HOPTracer) []*T
	// Autograd runs the call when it must be differentiated; it reaches the
	// layers below with c.Redispatch. Nil: the op has no derivative and
	// its outputs do not require grad.
	Autograd func(c *Call) []*T
	// Mutates and Aliases are the Functionalize layer's refusals of a
	// sub-program that writes into an input or returns one (PyTorch's
	// UnsupportedAliasMutationException messages), per sub-program (the
	// last one serves the rest).
	Mutates, Aliases []string
	// FromNode makes a Call of a graph node's argument values, for the
	// Interpreter and compiled graphs: sub-GraphModules become Subs
	// through g.
	FromNode func(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error)
	// Impure keeps the op's nodes through dead-code elimination although
	// nobody uses their results (with_effects).
	Impure bool
}

// Op is a higher-order operator. It prints in graphs as
// torch.ops.higher_order.<name> and names its nodes after name.
type Op struct {
	name  string
	rules Rules
	// qualname, when set, is how the op prints instead of
	// torch.ops.higher_order.<name> (WithEffectsSeedOp's older spelling).
	qualname string
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Op{}
)

// Define registers a higher-order op. Defining a name twice panics.
func Define(name string, r Rules) *Op {
	if r.Dense == nil || r.Trace == nil {
		tensor.Panicf("hop.Define(%q): Dense and Trace rules are required", name)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		tensor.Panicf("hop.Define: higher-order op %q is already defined", name)
	}
	op := &Op{name: name, rules: r}
	registry[name] = op
	return op
}

// Lookup returns the higher-order op named name.
func Lookup(name string) (*Op, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	op, ok := registry[name]
	return op, ok
}

// Ops lists the defined higher-order ops by name.
func Ops() []*Op {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]*Op, 0, len(registry))
	for _, op := range registry {
		out = append(out, op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Name is the op's name, e.g. "cond".
func (o *Op) Name() string { return o.name }

// String returns the qualified name.
func (o *Op) String() string { return o.QualifiedName() }

// TargetName implements fx.Target.
func (o *Op) TargetName() string { return o.name }

// Impure implements fx.Impure.
func (o *Op) Impure() bool { return o.rules.Impure }

// QualifiedName implements fx.Target: "torch.ops.higher_order.cond".
func (o *Op) QualifiedName() string {
	if o.qualname != "" {
		return o.qualname
	}
	return "torch.ops.higher_order." + o.name
}

// Call implements fx.Callable: it runs a node of the op on its argument
// values. Sub-GraphModules become sub-programs running the Eager backend,
// compiled for this call.
func (o *Op) Call(args []any, kwargs fx.Kwargs) (any, error) { return o.call(args, kwargs, nil) }

// Prepare implements compile.Preparer: a compiled graph runs the op's node
// with a callable that keeps the node's sub-graphs compiled between runs.
func (o *Op) Prepare() fx.Callable { return &prepared{o, &Graphs{}} }

type prepared struct {
	op *Op
	g  *Graphs
}

func (p *prepared) Call(args []any, kwargs fx.Kwargs) (any, error) {
	return p.op.call(args, kwargs, p.g)
}

func (o *Op) call(args []any, kwargs fx.Kwargs, g *Graphs) (any, error) {
	if o.rules.FromNode == nil {
		return nil, &tensor.Error{Kind: tensor.NotImplementedError, Op: o.name,
			Msg: fmt.Sprintf("%s cannot run from a graph node", o.QualifiedName())}
	}
	c, err := o.rules.FromNode(args, kwargs, g)
	if err != nil {
		return nil, err
	}
	if c.direct != nil {
		var res any
		if err := tensor.Try(func() { res = c.direct() }); err != nil {
			return nil, err
		}
		return res, nil
	}
	var res []*T
	if err := tensor.Try(func() { res = o.Invoke(c) }); err != nil {
		return nil, err
	}
	return res, nil
}

// Graphs turns the sub-GraphModules of an op's node into sub-programs. The
// zero value keeps each graph compiled once it has run; a nil *Graphs
// compiles them anew for every call. It is safe for concurrent use.
type Graphs struct {
	mu sync.Mutex
	m  map[*fx.GraphModule]*compiledGraph
}

// compiledGraph is a sub-graph compiled by the Eager backend, two ways.
type compiledGraph struct {
	once, onceAny sync.Once
	tensors       func([]*T) ([]*T, error)
	any           compile.Runnable
	err           error
}

func (g *Graphs) get(gm *fx.GraphModule) *compiledGraph {
	if g == nil {
		return &compiledGraph{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[*fx.GraphModule]*compiledGraph{}
	}
	c := g.m[gm]
	if c == nil {
		c = &compiledGraph{}
		g.m[gm] = c
	}
	return c
}

// Sub is gm as a sub-program returning its output tensors.
func (g *Graphs) Sub(gm *fx.GraphModule) Sub {
	c := g.get(gm)
	return func(args ...*T) []*T {
		c.once.Do(func() { c.tensors = compile.EagerTensors(gm) })
		out, err := c.tensors(args)
		if err != nil {
			panic(asError(err))
		}
		return out
	}
}

// runner is gm as a function returning its result as the graph's output
// shapes it (a tensor output comes back with nothing allocated around it).
func (g *Graphs) runner(gm *fx.GraphModule) func(args []*T) any {
	c := g.get(gm)
	return func(args []*T) any {
		c.onceAny.Do(func() { c.any, c.err = compile.Eager(gm, nil) })
		if c.err != nil {
			panic(asError(c.err))
		}
		res, err := c.any(args)
		if err != nil {
			panic(asError(err))
		}
		return res
	}
}

// Invoke runs a call through the op's layers, from the top.
func (o *Op) Invoke(c *Call) []*T {
	c.Op, c.level = o, layerAutograd
	return c.dispatch()
}

// Redispatch runs the call on the layers below the one running it (an
// Autograd rule's Forward calls it with the inputs detached).
func (c *Call) Redispatch() []*T {
	c.level++
	return c.dispatch()
}

// With returns a copy of the call with other tensor arguments, at the same
// layer.
func (c *Call) With(in [][]*T) *Call {
	d := *c
	d.In = in
	return &d
}

func (c *Call) dispatch() []*T {
	r := &c.Op.rules
	for {
		switch c.level {
		case layerAutograd:
			if r.Autograd != nil && autograd.IsGradEnabled() && c.anyTensor(autograd.IsRequiringGrad) {
				return r.Autograd(c)
			}
		case layerFunctionalize:
			if c.anyTensor(functional.IsFunctional) && compile.ActiveTracer() != nil {
				return functionalizeRule(c)
			}
		case layerTrace:
			if tr := compile.ActiveTracer(); tr != nil {
				return r.Trace(c, tr)
			}
		default:
			if r.Meta != nil && c.anyTensor(func(t *T) bool { return t.Device() == tensor.Meta }) {
				return r.Meta(c)
			}
			return r.Dense(c)
		}
		c.level++
	}
}

func (c *Call) anyTensor(f func(*T) bool) bool {
	for _, g := range c.In {
		for _, t := range g {
			if t != nil && f(t) {
				return true
			}
		}
	}
	return false
}

// functionalizeRule runs a call on functional tensors inside a trace
// (PyTorch's py_functionalize_impl): the inputs are unwrapped, each
// sub-program runs on fresh functional wrappers of its inputs and hands back
// plain values (refusing to write into an input or return one), the layers
// below run on the plain values and the results are wrapped again.
func functionalizeRule(c *Call) []*T {
	d := *c
	d.In = make([][]*T, len(c.In))
	for i, g := range c.In {
		d.In[i] = make([]*T, len(g))
		for j, t := range g {
			d.In[i][j] = functional.Unwrap(t)
		}
	}
	if len(c.Args) > 0 {
		d.Args = make([]any, len(c.Args))
		for i, a := range c.Args {
			if b, ok := a.(SymBool); ok {
				a = b.unwrapped()
			}
			d.Args[i] = a
		}
	}
	d.pred = nil
	d.Subs = make([]Sub, len(c.Subs))
	for i, s := range c.Subs {
		d.Subs[i] = functionalized(c.Op, i, s)
	}
	res := d.Redispatch()
	out := make([]*T, len(res))
	for i, r := range res {
		if r != nil {
			out[i] = functional.WrapResult(r)
		}
	}
	return out
}

func functionalized(op *Op, k int, s Sub) Sub {
	msg := func(l []string) string {
		if len(l) == 0 {
			return op.name + ": a sub-program writes into or returns its input"
		}
		return l[min(k, len(l)-1)]
	}
	return func(args ...*T) []*T {
		w := make([]*T, len(args))
		for i, a := range args {
			if a != nil {
				w[i] = functional.Wrap(a)
			}
		}
		outs := s(w...)
		for _, x := range w {
			if x != nil && functional.Mutations(x) > 0 {
				panic(&tensor.Error{Op: op.name, Msg: msg(op.rules.Mutates)})
			}
		}
		res := make([]*T, len(outs))
		for i, o := range outs {
			if o == nil {
				continue
			}
			for _, x := range w {
				if x != nil && (o == x || functional.SameStorage(o, x)) {
					panic(&tensor.Error{Op: op.name, Msg: msg(op.rules.Aliases)})
				}
			}
			res[i] = functional.Unwrap(o)
		}
		return res
	}
}

// GraphSub makes a sub-GraphModule a sub-program: it runs the graph with
// compile.EagerTensors (compiled on first use).
func GraphSub(gm *fx.GraphModule) Sub { return (*Graphs)(nil).Sub(gm) }

// flatten lists the tensors of a graph's result: a tensor, or a Tuple or
// list of tensors (None is nil).
func flatten(v any) []*T {
	switch x := v.(type) {
	case *T:
		return []*T{x}
	case []*T:
		return x
	case fx.Tuple:
		return flatten([]any(x))
	case []any:
		out := make([]*T, 0, len(x))
		for _, e := range x {
			t, _ := e.(*T)
			out = append(out, t)
		}
		return out
	case nil:
		return nil
	}
	tensor.TypePanicf("hop: a sub-program returned %T, not tensors", v)
	return nil
}

// asError is err as a *tensor.Error to panic with, keeping the kind of a
// tensor error inside it and the whole message (with the node it names).
func asError(err error) *tensor.Error {
	if te, ok := tensor.AsError(err); ok {
		if te.Error() == err.Error() {
			return te
		}
		return &tensor.Error{Kind: te.Kind, Msg: err.Error()}
	}
	return &tensor.Error{Kind: tensor.RuntimeError, Msg: err.Error()}
}

// argTensors reads a node argument that is a list or Tuple of tensors.
func argTensors(op string, what string, v any) ([]*T, bool, error) {
	var l []any
	tuple := false
	switch x := v.(type) {
	case fx.Tuple:
		l, tuple = x, true
	case []any:
		l = x
	case []*T:
		return x, false, nil
	default:
		return nil, false, tensor.Errorf("%s: %s must be a list or tuple of tensors, got %T", op, what, v)
	}
	out := make([]*T, len(l))
	for i, e := range l {
		t, ok := e.(*T)
		if !ok {
			return nil, false, tensor.Errorf("%s: %s[%d] is a %T, not a tensor", op, what, i, e)
		}
		out[i] = t
	}
	return out, tuple, nil
}

// argGraph reads a node argument that is a sub-GraphModule.
func argGraph(op, what string, v any) (*fx.GraphModule, error) {
	gm, ok := v.(*fx.GraphModule)
	if !ok || gm == nil {
		return nil, tensor.Errorf("%s: %s must be a GraphModule, got %T", op, what, v)
	}
	return gm, nil
}

// subgraphs traces each sub-program with the same inputs (and the tensors
// any of them lifts from the enclosing trace, which all then take). shape
// gives each sub-program's result its printed container. It returns the
// graphs, each one's traced outputs and the lifted tensors.
func subgraphs(tr *compile.HOPTracer, subs []Sub, shapes []func([]*T) any, inputs []*T) ([]*fx.GraphModule, [][]*T, []*T, error) {
	gms := make([]*fx.GraphModule, len(subs))
	outs := make([][]*T, len(subs))
	var lifted []*T
	traced := make([]int, len(subs)) // how many lifted tensors sub i was traced with
	for pass := 0; pass < 2; pass++ {
		for i, s := range subs {
			if pass == 1 && traced[i] == len(lifted) {
				continue
			}
			shape := shapes[i]
			gm, res, more, err := tr.Subgraph(func(args ...*T) any { return shape(s(args...)) }, inputs, lifted)
			if err != nil {
				return nil, nil, nil, err
			}
			gms[i], outs[i] = gm, flatten(res)
			lifted = append(lifted, more...)
			traced[i] = len(lifted)
		}
	}
	return gms, outs, lifted, nil
}

// asTuple, asList and single shape a sub-program's outputs as its graph
// returns them.
func asTuple(ts []*T) any { return fx.Tuple(anys(ts)) }
func asList(ts []*T) any  { return anys(ts) }
func single(ts []*T) any {
	if len(ts) == 1 {
		return ts[0]
	}
	return fx.Tuple(anys(ts))
}

func anys(ts []*T) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		if t != nil {
			out[i] = t
		}
	}
	return out
}

// nodes turns tensors into the node arguments standing for them.
func nodes(tr *compile.HOPTracer, ts []*T) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = tr.Arg(t)
	}
	return out
}

// freshAttrs finds the smallest i for which every prefix+i is free on the
// traced module, and registers the graphs under those names, returning
// their get_attr nodes (PyTorch's unique_graph_id).
func freshAttrs(tr *compile.HOPTracer, prefixes []string, gms []*fx.GraphModule) []any {
	m := tr.Module()
	i := 0
	for ; ; i++ {
		free := true
		for _, p := range prefixes {
			if _, taken := m.Attr(fmt.Sprintf("%s%d", p, i)); taken {
				free = false
			}
		}
		if free {
			break
		}
	}
	out := make([]any, len(gms))
	for k, gm := range gms {
		out[k] = tr.GetAttr(fmt.Sprintf("%s%d", prefixes[k], i), gm)
	}
	return out
}

// detach is t without autograd history: a new tensor object over the same
// data (what autograd.Function hands its Forward).
func detach(t *T) *T {
	if t == nil {
		return nil
	}
	a := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw()).ShareVersion(t)
	a.SetWrappedNumber(t.IsWrappedNumber())
	a.Keys = t.Keys.Without(tensor.KeyAutograd)
	return a
}

// concat joins tensor lists into a new one.
func concat(ls ...[]*T) []*T {
	n := 0
	for _, l := range ls {
		n += len(l)
	}
	out := make([]*T, 0, n)
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}
