package compile

import (
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Unbacked ints. A while_loop's int carries are unbacked symbols in its
// sub-graphs and its int results unbacked symbols after it (PyTorch's
// NOTE [unspecialize int carry with unbacked symints]). Such an int is a
// node of the graph (a placeholder of type Sym(u0), or a getitem of the
// loop) whose value while tracing is the hint of its symbol
// (unbacked.go). BindUnbacked ties the hint to the node: an op traced
// afterwards whose int argument (or element of an int list argument) is
// the hint takes the node instead, so that x.Expand([]int{n, 3}) records
// expand(x, [getitem, 3]) and its result has the size u1.

// BindUnbacked makes node n, of the graph being traced, stand for the
// unbacked symbol whose fake size is hint: its value (fx.MetaVal) is the
// hint and its expression (MetaSymExpr) the symbol, "u0".
func (h *HOPTracer) BindUnbacked(hint int, n *fx.Node) {
	name, ok := UnbackedName(hint)
	if !ok {
		tensor.Panicf("compile: BindUnbacked: %d is not the size of an unbacked symbol", hint)
	}
	n.Meta[fx.MetaVal] = hint
	n.Meta[MetaSymExpr] = name
	if h.tr.symNodes == nil {
		h.tr.symNodes = map[int]*fx.Node{}
	}
	h.tr.symNodes[hint] = n
}

// Graph is the graph being traced.
func (h *HOPTracer) Graph() *fx.Graph { return h.tr.gm.Graph }

// symArg is an op argument with the hints bound to nodes replaced by them.
func (tr *tracer) symArg(a any) any {
	if len(tr.symNodes) == 0 {
		return a
	}
	switch x := a.(type) {
	case int:
		if n, ok := tr.symNodes[x]; ok {
			return n
		}
	case []int:
		var out []any
		for i, v := range x {
			n, ok := tr.symNodes[v]
			if !ok {
				continue
			}
			if out == nil {
				out = make([]any, len(x))
				for j, w := range x {
					out[j] = w
				}
			}
			out[i] = n
		}
		if out != nil {
			return out
		}
	}
	return a
}

// SymValue is a result of a traced function that stands for an int node
// or a constant (hop.Int): the graph's output holds TraceValue.
type SymValue interface {
	TraceValue() any
}

// RecordInts is Record of a call whose results are tensors and ints (a
// while_loop with int carries): each result is read by a getitem node, in
// order. An int result that is the hint of an unbacked symbol (Fake mode)
// is bound to its getitem node (BindUnbacked); another int (Real mode) is
// the node's value. It returns the traced tensors and, for the ints, their
// getitem nodes.
func (h *HOPTracer) RecordInts(target fx.Target, args []any, results []any) []any {
	tr := h.tr
	n := tr.gm.Graph.CallFunction(target, args, nil)
	n.Meta[fx.MetaStackTrace] = fx.StackTrace(1)
	vals := make([]any, len(results))
	out := make([]any, len(results))
	for i, r := range results {
		g := tr.gm.Graph.CallFunction(fx.GetItem, []any{n, i}, nil)
		switch x := r.(type) {
		case *tensor.Tensor:
			if tr.mode == Fake {
				x = fakeOf(x, x.Device())
			} else if _, traced := tr.nodeOf(x); traced {
				a := tensor.NewMeta(x.Sizes(), x.Strides(), x.StorageOffset(), x.DType(), x.Device()).WithRaw(x.Raw()).ShareVersion(x)
				a.Keys = x.Keys
				x = a
			}
			o := tr.mark(x, nil)
			tr.setNode(o, g)
			g.Meta[fx.MetaVal] = tr.exampleValue(o)
			out[i], vals[i] = o, g.Meta[fx.MetaVal]
		case int:
			if _, ok := UnbackedName(x); ok && tr.mode == Fake {
				h.BindUnbacked(x, g)
			} else {
				g.Meta[fx.MetaVal] = x
			}
			out[i], vals[i] = g, x
		default:
			tensor.Panicf("compile: RecordInts: result %d is a %T, not a tensor or an int", i, r)
		}
	}
	n.Meta[fx.MetaVal] = vals
	return out
}
