package hop

import (
	"fmt"
	"strings"
	"sync"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// InvokeSubgraphOp is torch.ops.higher_order.invoke_subgraph(subgraph,
// identifier, *operands) (torch/_higher_order_ops/invoke_subgraph.py): a
// region traced once and called wherever the same identifier is invoked
// again, so that a repeated block (a transformer layer) is one sub-graph.
var InvokeSubgraphOp = Define("invoke_subgraph", Rules{
	Dense:    wrapDense,
	Trace:    invokeSubgraphTrace,
	Autograd: func(c *Call) []*T { return applyRegion(c, false) },
	FromNode: invokeSubgraphFromNode,
})

// InvokeSubgraph calls fn on args as the region named identifier: eagerly
// fn(args...); in a trace the first call with an identifier traces fn into
// the sub-GraphModule of that name and every call, that one included, is
// an invoke_subgraph node reading it:
//
//	subgraph_0 = self.subgraph_0
//	invoke_subgraph = torch.ops.higher_order.invoke_subgraph(subgraph_0, 'subgraph_0', x_1)
//	...
//	subgraph_1 = self.subgraph_0
//	invoke_subgraph_1 = torch.ops.higher_order.invoke_subgraph(subgraph_1, 'subgraph_0', getitem)
//
// Calls with one identifier must run the same function on inputs of the
// same metadata (PyTorch's requirement too): later calls are not traced.
// Gradients flow through the region as through fn.
func InvokeSubgraph(fn Sub, identifier string, args ...*T) []*T {
	return InvokeSubgraphOp.Invoke(&Call{Subs: []Sub{fn}, In: [][]*T{args}, Args: []any{identifier}})
}

// traced is what the first trace of an identifier left for the calls after
// it: the result metadata (fake mode) and the tensors it lifted.
type traced struct {
	outs   []*T
	lifted []*T
}

var tracedSubgraphs sync.Map // *fx.GraphModule -> *traced

func invokeSubgraphTrace(c *Call, tr *compile.HOPTracer) []*T {
	id := c.Args[0].(string)
	m := tr.Module()
	var gm *fx.GraphModule
	var info *traced
	if v, ok := m.Attr(id); ok {
		g, isGM := v.(*fx.GraphModule)
		t, seen := tracedSubgraphs.Load(g)
		if !isGM || !seen {
			tensor.Panicf("invoke_subgraph: the traced module's attribute %q is not a sub-graph of this identifier", id)
		}
		gm, info = g, t.(*traced)
	} else {
		gms, outs, lifted, err := subgraphs(tr, c.Subs, []func([]*T) any{asTuple}, c.In[0])
		if err != nil {
			if tr.Segmented() && compile.IsDataDependent(err) {
				return wrapDense(c)
			}
			panic(asError(err))
		}
		gm, info = gms[0], &traced{outs: outs[0], lifted: lifted}
		tracedSubgraphs.Store(gm, info)
	}
	attr := tr.GetAttr(id, gm)
	args := append([]any{attr, id}, nodes(tr, concat(c.In[0], info.lifted))...)
	var res []*T
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = wrapDense(c) })
	} else {
		res = make([]*T, len(info.outs))
		for i, o := range info.outs {
			if o != nil {
				res[i] = tensor.NewMetaContiguous(append([]int(nil), o.Sizes()...), o.DType(), o.Device())
			}
		}
	}
	return tr.Record(c.Op, args, res)
}

func invokeSubgraphFromNode(args []any, _ fx.Kwargs, g *Graphs) (*Call, error) {
	if len(args) < 2 {
		return nil, tensor.Errorf("invoke_subgraph: expected (subgraph, identifier, *operands)")
	}
	body, err := argGraph("invoke_subgraph", "subgraph", args[0])
	if err != nil {
		return nil, err
	}
	id, ok := args[1].(string)
	if !ok {
		return nil, tensor.Errorf("invoke_subgraph: the identifier must be a str, got %T", args[1])
	}
	in, _, err := argTensors("invoke_subgraph", "operands", append([]any(nil), args[2:]...))
	if err != nil {
		return nil, err
	}
	return &Call{Subs: []Sub{g.Sub(body)}, In: [][]*T{in}, Args: []any{id}}, nil
}

// InvokeSubgraphSchema is the schema of an invoke_subgraph node (PyTorch's
// gen_schema): one Tensor per operand, a tuple of the sub-graph's outputs:
//
//	invoke_subgraph(Any subgraph, str identifier, Tensor arg0, Tensor arg1) -> (Tensor, Tensor, Tensor)
func InvokeSubgraphSchema(n *fx.Node) (string, error) {
	if n.Op != fx.OpCallFunction || n.Target != InvokeSubgraphOp {
		return "", &fx.Error{Node: n, Msg: fmt.Sprintf("hop.InvokeSubgraphSchema: %s is not an invoke_subgraph node", n.Name)}
	}
	args := []string{"Any subgraph", "str identifier"}
	for i := range n.Args()[2:] {
		args = append(args, fmt.Sprintf("Tensor arg%d", i))
	}
	nOut := 0
	if vals, ok := n.Meta[fx.MetaVal].([]*T); ok {
		nOut = len(vals)
	}
	outs := make([]string, nOut)
	for i := range outs {
		outs[i] = "Tensor"
	}
	return fmt.Sprintf("invoke_subgraph(%s) -> (%s)", strings.Join(args, ", "), strings.Join(outs, ", ")), nil
}
