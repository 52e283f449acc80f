package hop

import (
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// WrapOp is torch.ops.higher_order.wrap(body, *args)
// (torch/_higher_order_ops/wrap.py): a region of a graph kept as one
// sub-GraphModule, "wrap_body_0".
var WrapOp = Define("wrap", Rules{
	Dense:    wrapDense,
	Trace:    func(c *Call, tr *compile.HOPTracer) []*T { return wrapTrace(c, tr, nil) },
	Autograd: func(c *Call) []*T { return applyRegion(c, false) },
	FromNode: func(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error) { return regionFromNode("wrap", args, g) },
})

// CheckpointOp is torch.ops.higher_order.tag_activation_checkpoint(body,
// *args, use_reentrant=...): a wrapped region whose activations are not kept
// for the backward but recomputed there.
var CheckpointOp = Define("tag_activation_checkpoint", Rules{
	Dense: wrapDense,
	Trace: func(c *Call, tr *compile.HOPTracer) []*T {
		return wrapTrace(c, tr, fx.Kwargs{{Name: "use_reentrant", Value: true}})
	},
	Autograd: func(c *Call) []*T { return applyRegion(c, true) },
	FromNode: func(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error) {
		return regionFromNode("tag_activation_checkpoint", args, g)
	},
})

// Wrap calls fn on args as one region: eagerly fn(args...); in a trace one
// wrap node over the sub-GraphModule "wrap_body_0":
//
//	wrap = torch.ops.higher_order.wrap(wrap_body_0, x, y)
func Wrap(fn Sub, args ...*T) []*T { return WrapOp.Invoke(&Call{Subs: []Sub{fn}, In: [][]*T{args}}) }

// Checkpoint calls fn on args without keeping its intermediate values for
// the backward (torch.utils.checkpoint.checkpoint): the backward calls fn
// again on the saved args and differentiates that call, so fn runs twice
// per forward and backward. In a trace it is one tag_activation_checkpoint
// node; under compile.Compile of a training function the partitioner
// recomputes the region in the backward graph instead of saving its
// activations.
func Checkpoint(fn Sub, args ...*T) []*T {
	return CheckpointOp.Invoke(&Call{Subs: []Sub{fn}, In: [][]*T{args}})
}

func wrapDense(c *Call) []*T { return c.Subs[0](c.In[0]...) }

func wrapTrace(c *Call, tr *compile.HOPTracer, kwargs fx.Kwargs) []*T {
	gms, outs, lifted, err := subgraphs(tr, c.Subs, []func([]*T) any{asTuple}, c.In[0])
	if err != nil {
		if tr.Segmented() && compile.IsDataDependent(err) {
			return wrapDense(c)
		}
		panic(asError(err))
	}
	args := append([]any{freshAttrs(tr, []string{"wrap_body_"}, gms)[0]}, nodes(tr, concat(c.In[0], lifted))...)
	res := outs[0]
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = wrapDense(c) })
	} else {
		res = make([]*T, len(outs[0]))
		for i, o := range outs[0] {
			if o != nil {
				res[i] = tensor.NewMetaContiguous(append([]int(nil), o.Sizes()...), o.DType(), o.Device())
			}
		}
	}
	return tr.RecordKwargs(c.Op, args, kwargs, res)
}

func regionFromNode(op string, args []any, g *Graphs) (*Call, error) {
	if len(args) < 1 {
		return nil, tensor.Errorf("%s: expected (body, *args)", op)
	}
	body, err := argGraph(op, "body", args[0])
	if err != nil {
		return nil, err
	}
	in, _, err := argTensors(op, "args", append([]any(nil), args[1:]...))
	if err != nil {
		return nil, err
	}
	return &Call{Subs: []Sub{g.Sub(body)}, In: [][]*T{in}}, nil
}

// regionFunction is wrap's and checkpoint's autograd.Function: the forward
// runs the region below autograd; the backward differentiates a new call of
// it (recorded as recomputation inside a trace, for a checkpoint).
type regionFunction struct {
	c          *Call
	checkpoint bool
	nOut       int
	tr         *compile.HOPTracer // the trace the forward was recorded into
}

func applyRegion(c *Call, checkpoint bool) []*T {
	in := make([]any, len(c.In[0]))
	for i, t := range c.In[0] {
		in[i] = t
	}
	return autograd.Apply(&regionFunction{c: c, checkpoint: checkpoint}, in...)
}

func (f *regionFunction) Forward(ctx *autograd.FunctionCtx, inputs ...any) []*T {
	in := tensorsOf(inputs)
	ctx.SaveForBackward(in...)
	f.tr = compile.ActiveTracer()
	out := f.c.With([][]*T{in}).Redispatch()
	f.nOut = len(out)
	return out
}

func (f *regionFunction) Backward(ctx *autograd.FunctionCtx, grads ...*T) []*T {
	in := ctx.SavedTensors()
	g := make([]*T, len(grads))
	copy(g, grads)
	var res []*T
	run := func() { res = joint(f.c.Subs[0], f.nOut)(concat(g, in)...) }
	if f.tr != nil && f.checkpoint {
		inner := run
		run = func() { f.tr.Recomputed(inner) }
	}
	if ctx.CreateGraph() {
		run()
	} else {
		autograd.NoGrad(run)
	}
	return res
}
