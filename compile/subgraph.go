package compile

import (
	"fmt"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// HOPTracer is the calling goroutine's running trace as a higher-order op
// (package compile/hop) sees it: the op traces its sub-programs into
// sub-GraphModules with Subgraph (PyTorch's reenter_make_fx), registers them
// on Module, and records its own call with Record.
type HOPTracer struct{ tr *tracer }

// ActiveTracer returns the calling goroutine's running trace, or nil when
// none is running or the trace is computing a call (the Trace key is
// excluded then, as PyTorch switches its proxy mode off while a call runs).
func ActiveTracer() *HOPTracer {
	if tensor.KeyExcluded(tensor.KeyTrace) {
		return nil
	}
	tr, _ := tensor.ModeValue(tracerKey).(*tracer)
	if tr == nil {
		return nil
	}
	if tr.seg != nil {
		if tr.seg.passthrough {
			return nil // the rest of the call runs eagerly
		}
		// A higher-order op or a script object's method records its own
		// nodes: a segment replaying its tape leaves it first.
		tr.seg.leaveReplay(tr)
	}
	return &HOPTracer{tr}
}

// Mode is the trace's mode: in Real mode the op computes its result on the
// real values (with Compute), in Fake mode from its sub-traces' metadata.
func (h *HOPTracer) Mode() Mode { return h.tr.mode }

// Module is the GraphModule being recorded: sub-GraphModules become its
// attributes ("true_graph_0"), read by get_attr nodes.
func (h *HOPTracer) Module() *fx.GraphModule { return h.tr.gm }

// AutoFunctionalizedV2 reports whether calls of mutable custom ops are
// recorded as auto_functionalized_v2 (TraceOptions.AutoFunctionalizedV2).
func (h *HOPTracer) AutoFunctionalizedV2() bool { return h.tr.afV2 }

// Segmented reports whether the trace runs in segments (Compile of a
// function that reads tensor data): a data-dependent read there ends the
// segment and returns the real value, so an op that cannot be one node may
// run inline, reading what it needs.
func (h *HOPTracer) Segmented() bool { return h.tr.seg != nil }

// Arg returns the node standing for t as an argument of a recorded call:
// the node that made a traced tensor, or for a tensor the function closed
// over a "_tensor_constantN" get_attr (in a sub-trace: a placeholder lifted
// from the enclosing trace).
func (h *HOPTracer) Arg(t *tensor.Tensor) *fx.Node { return h.tr.argNode(t) }

func (tr *tracer) argNode(t *tensor.Tensor) *fx.Node {
	if n, ok := tr.nodeOfWrapped(t); ok {
		return n
	}
	if n, ok := tr.seg.input(tr, t); ok {
		return n
	}
	return tr.constant(t)
}

// Compute runs f with the trace switched off: the real computation of a
// call in Real mode (traced tensors compute as plain ones).
func (h *HOPTracer) Compute(f func()) {
	defer tensor.ExcludeKey(tensor.KeyTrace)()
	f()
}

// Subgraph traces fn into a new GraphModule with the trace's mode and
// decompositions. Its placeholders arg0_1, arg1_1, ... stand for inputs
// (traced stand-ins with their metadata, on which fn runs) and then for
// lifted: tensors of the enclosing trace (traced there, or closed over) that
// an earlier sub-trace met. A further such tensor fn uses becomes one more
// placeholder; newLifted lists those in order, for the caller to pass as
// extra operands (and to trace the other sub-programs again with them, so
// that all take the same inputs). fn's result is returned by the graph's
// output node as it is shaped (a tensor, a Tuple or a list of tensors), and
// res is that result: the traced outputs, fake or real as the mode is.
func (h *HOPTracer) Subgraph(fn func(args ...*tensor.Tensor) any, inputs, lifted []*tensor.Tensor) (gm *fx.GraphModule, res any, newLifted []*tensor.Tensor, err error) {
	in := make([]any, len(inputs))
	for i, x := range inputs {
		in[i] = x
	}
	return h.SubgraphInts(func(args []any) any {
		ts := make([]*tensor.Tensor, len(args))
		for i, a := range args {
			ts[i] = a.(*tensor.Tensor)
		}
		return fn(ts...)
	}, in, lifted)
}

// SubgraphInts is Subgraph of a sub-program some of whose inputs are ints
// (while_loop's int carries): an input that is an int is the hint of an
// unbacked symbol (NewUnbacked), and becomes a placeholder standing for it
// (BindUnbacked: PyTorch's placeholder of type Sym(u0)); fn receives that
// placeholder node where it receives the input, and may return int nodes
// and ints among its tensors.
func (h *HOPTracer) SubgraphInts(fn func(args []any) any, inputs []any, lifted []*tensor.Tensor) (gm *fx.GraphModule, res any, newLifted []*tensor.Tensor, err error) {
	parent := h.tr
	sub := &tracer{
		gm:      fx.NewGraphModule(fx.New()),
		mode:    parent.mode,
		decomps: parent.decomps,
		proxies: map[*tensor.Tensor]*fx.Node{},
		aliases: map[aliasKey]*fx.Node{},
		consts:  map[*tensor.Tensor]*fx.Node{},
		outer:   parent,
		afV2:    parent.afV2,
	}
	in := make([]any, len(inputs))
	for i, v := range inputs {
		n := sub.gm.Graph.Placeholder(fmt.Sprintf("arg%d_1", i))
		switch x := v.(type) {
		case *tensor.Tensor:
			p := sub.proxyInput(x)
			n.Meta[fx.MetaVal] = sub.exampleValue(p)
			sub.setNode(p, n)
			in[i] = p
		case int:
			(&HOPTracer{sub}).BindUnbacked(x, n)
			in[i] = n
		default:
			return nil, nil, nil, fmt.Errorf("compile: input %d of a sub-program is a %T, not a tensor or an int", i, v)
		}
	}
	for _, t := range lifted {
		sub.liftOuter(t)
	}
	err = tensor.Try(func() {
		defer tensor.SetModeValue(tracerKey, sub)()
		res = fn(in)
		out, err := sub.outputValue(res)
		if err != nil {
			panic(asTensorError(err))
		}
		sub.gm.Graph.Output(out)
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := sub.gm.Lint(); err != nil {
		return nil, nil, nil, fmt.Errorf("compile: the traced subgraph is malformed: %w", err)
	}
	return sub.gm, res, sub.lifted[len(lifted):], nil
}

// liftOuter makes t, a tensor of the enclosing trace, the next placeholder
// of a sub-trace (PyTorch's Dynamo lifts a branch's free tensors to
// operands the same way).
func (tr *tracer) liftOuter(t *tensor.Tensor) *fx.Node {
	g := tr.gm.Graph
	ph := g.Placeholders()
	if len(ph) > 0 {
		defer g.InsertingAfter(ph[len(ph)-1])()
	} else {
		defer g.InsertingBefore(g.First())()
	}
	n := g.Placeholder(fmt.Sprintf("arg%d_1", len(ph)))
	if tr.mode == Fake {
		n.Meta[fx.MetaVal] = fakeOf(t, t.Device())
	} else {
		n.Meta[fx.MetaVal] = t
	}
	tr.consts[t] = n
	tr.lifted = append(tr.lifted, t)
	return n
}

// Record adds a call of target with args (nodes from Arg, get_attr nodes of
// sub-GraphModules, lists and Tuples of them) to the graph, and makes each
// of results — the call's values: real tensors in Real mode, anything with
// the right metadata in Fake mode — a traced tensor read from the call by a
// getitem node, as make_fx tracks a tuple result. It returns those traced
// tensors (nil stays nil).
func (h *HOPTracer) Record(target fx.Target, args []any, results []*tensor.Tensor) []*tensor.Tensor {
	return h.RecordKwargs(target, args, nil, results)
}

// RecordKwargs is Record of a call with keyword arguments
// (tag_activation_checkpoint's use_reentrant = True).
func (h *HOPTracer) RecordKwargs(target fx.Target, args []any, kwargs fx.Kwargs, results []*tensor.Tensor) []*tensor.Tensor {
	tr := h.tr
	n := tr.gm.Graph.CallFunction(target, args, kwargs)
	n.Meta[fx.MetaStackTrace] = fx.StackTrace(1)
	res := make([]*tensor.Tensor, len(results))
	for i, r := range results {
		switch {
		case r == nil:
		case tr.mode == Fake:
			r = fakeOf(r, r.Device())
		default:
			if _, traced := tr.nodeOf(r); traced {
				// A result that is one of the inputs (a branch returning its
				// operand): a new tensor object over the same data.
				a := tensor.NewMeta(r.Sizes(), r.Strides(), r.StorageOffset(), r.DType(), r.Device()).WithRaw(r.Raw()).ShareVersion(r)
				a.Keys = r.Keys
				r = a
			}
		}
		res[i] = r
	}
	return tr.track(n, res, nil).([]*tensor.Tensor)
}

// MetaRecompute is the Meta key of a node a checkpointed region recorded
// for its backward (PyTorch's node.meta["recompute"]): the AOT partitioner
// recomputes such nodes in the backward graph instead of saving their values.
const MetaRecompute = "recompute"

// Recomputed runs f and tags every node it records with MetaRecompute.
func (h *HOPTracer) Recomputed(f func()) {
	g := h.tr.gm.Graph
	before := map[*fx.Node]bool{}
	for _, n := range g.Nodes() {
		before[n] = true
	}
	f()
	for _, n := range g.Nodes() {
		if !before[n] && n.Op == fx.OpCallFunction {
			n.Meta[MetaRecompute] = true
		}
	}
}

// GetAttr adds a get_attr node reading the module attribute name, after
// setting it to v (a sub-GraphModule).
func (h *HOPTracer) GetAttr(name string, v any) *fx.Node {
	h.tr.gm.SetAttr(name, v)
	return h.tr.gm.Graph.GetAttr(name)
}

// EagerTensors is the Eager backend for a higher-order op's sub-graph,
// whose output is tensors: the function it returns runs the graph and gives
// the output tensors as a slice (one for a tensor output; None is nil). A
// graph the Eager backend flattens into a program runs without an
// intermediate tuple; others run on fx.Interpreter.
func EagerTensors(gm *fx.GraphModule) func(inputs []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if p, ok := compileProgram(gm); ok && p.flat != nil {
		return p.runTensors
	}
	run, _ := Eager(gm, nil)
	return func(inputs []*tensor.Tensor) ([]*tensor.Tensor, error) {
		res, err := run(inputs)
		if err != nil {
			return nil, err
		}
		return flatTensors(res)
	}
}

// flatTensors lists the tensors of a graph's result: a tensor, or a Tuple
// or list of tensors (None is nil).
func flatTensors(v any) ([]*tensor.Tensor, error) {
	var l []any
	switch x := v.(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{x}, nil
	case []*tensor.Tensor:
		return x, nil
	case fx.Tuple:
		l = x
	case []any:
		l = x
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("compile: a sub-graph returned %T, not tensors", v)
	}
	out := make([]*tensor.Tensor, len(l))
	for i, e := range l {
		t, ok := e.(*tensor.Tensor)
		if !ok && e != nil {
			return nil, fmt.Errorf("compile: a sub-graph returned a %T among its outputs, not a tensor", e)
		}
		out[i] = t
	}
	return out, nil
}

// Token returns the effect token the next effectful call of a
// functionalized trace takes (PyTorch's functional tensor mode tokens):
// the first call makes the token input, a placeholder before the others,
// and the graph returns the last token first among its outputs. ok is
// false in a trace that is not functionalized or in a sub-trace, where
// effectful ops are recorded as plain calls.
func (h *HOPTracer) Token() (tok *tensor.Tensor, ok bool) {
	tr := h.tr
	if !tr.functional || tr.outer != nil {
		return nil, false
	}
	if tr.tokenIn == nil {
		g := tr.gm.Graph
		if ph := g.Placeholders(); len(ph) > 0 {
			defer g.InsertingBefore(ph[0])()
		} else {
			defer g.InsertingBefore(g.First())()
		}
		n := g.Placeholder("token")
		p := tr.proxyInput(tensor.Empty(tensor.Float32, 0))
		n.Meta[fx.MetaVal] = tr.exampleValue(p)
		tr.setNode(p, n)
		tr.tokenIn, tr.token = n, p
	}
	return tr.token, true
}

// SetToken makes t, the token an effectful call returned, the one the next
// call takes.
func (h *HOPTracer) SetToken(t *tensor.Tensor) { h.tr.token = t }

// TokenInput is the token placeholder of a functionalized trace, or nil
// when no effectful op ran.
func TokenInput(gm *fx.GraphModule) *fx.Node {
	for _, n := range gm.Graph.Placeholders() {
		if b, _ := n.Meta[MetaToken].(bool); b {
			return n
		}
	}
	return nil
}

// MetaToken marks the token placeholder of a functionalized trace.
const MetaToken = "effect_token"

// nameToken names the token input: with make_fx's positional names
// (byPosition) the token is arg0_1 and the inputs move up by one, as
// aot_export prints them; otherwise it is "token", as export prints it.
func (tr *tracer) nameToken(byPosition bool) error {
	if tr.tokenIn == nil {
		return nil
	}
	tr.tokenIn.Meta[MetaToken] = true
	if !byPosition {
		return nil
	}
	g := tr.gm.Graph
	ph := g.Placeholders()
	for i := len(ph) - 1; i >= 1; i-- {
		if err := g.Rename(ph[i], fmt.Sprintf("arg%d_1", i)); err != nil {
			return err
		}
	}
	return g.Rename(ph[0], "arg0_1")
}
