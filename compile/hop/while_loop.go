package hop

import (
	"fmt"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// WhileLoopOp is torch.ops.higher_order.while_loop(cond_fn, body_fn,
// carried_inputs, additional_inputs) (torch/_higher_order_ops/while_loop.py).
var WhileLoopOp = Define("while_loop", Rules{
	Dense:    whileDense,
	Meta:     whileMeta,
	Trace:    whileTrace,
	Autograd: whileAutograd,
	Mutates: []string{"torch.while_loop's cond_fn might be modifying the input!",
		"torch.while_loop's body_fn might be modifying the input!"},
	Aliases: []string{"torch.while_loop's cond_fn might be aliasing the input!",
		"torch.while_loop's body_fn might be aliasing the input!"},
	FromNode: whileFromNode,
})

// WhileLoop runs body while cond is true and returns the last carries
// (torch._higher_order_ops.while_loop):
//
//	vals := carried
//	for cond(vals..., additional...) { vals = body(vals..., additional...) }
//	return vals
//
// cond returns a boolean 0-d tensor; body returns one tensor per carry, with
// the carry's metadata (shape, dtype, strides, device). additional are
// inputs every step reads but does not carry (PyTorch lifts a module's
// parameters there; tensors cond and body close over are lifted there in a
// trace). When the loop runs no step the result is clones of the carries,
// so it never aliases its inputs.
//
// In a trace, cond and body become the sub-GraphModules
// "while_loop_cond_graph_0" and "while_loop_body_graph_0" of one while_loop
// node. When a carry or an additional input requires grad the loop is
// differentiable: the forward keeps each step's carries and the backward
// runs the steps back, recomputing each body on its carries and
// differentiating it (PyTorch's WhileLoopAutogradOp stacks the carries for
// the same purpose). A traced loop's backward cannot be traced (the number of
// steps is data): Compile then runs the forward graph under autograd
// instead of a traced backward. A double backward through the loop is
// refused.
func WhileLoop(cond func(args ...*T) *T, body Sub, carried, additional []*T) []*T {
	if cond == nil || body == nil {
		panic(&tensor.Error{Op: "while_loop", Msg: "Expect cond_fn and body_fn to be callable."})
	}
	for _, t := range concat(carried, additional) {
		if t == nil {
			panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
				"Expect carried_inputs to be a tuple of possibly nested dict/list/tuple that onlyconsists of tensor or int leaves, but got %s.",
				pyList(carried, true))})
		}
	}
	condSub := func(args ...*T) []*T { return []*T{cond(args...)} }
	return WhileLoopOp.Invoke(&Call{Subs: []Sub{condSub, body}, In: [][]*T{carried, additional}, pred: cond})
}

// checkPred refuses a cond_fn result that is not a boolean 0-d tensor.
func checkPred(out []*T) *T {
	if len(out) != 1 || out[0] == nil || out[0].Dim() != 0 || out[0].DType() != tensor.Bool {
		got := "None"
		switch {
		case len(out) == 1 && out[0] != nil:
			got = valueRepr(out[0])
		case len(out) > 1:
			got = pyList(out, true)
		}
		panic(&tensor.Error{Op: "while_loop", Msg: "cond_fn must return a boolean scalar tensor or a boolean but got " + got})
	}
	return out[0]
}

// checkBody refuses a body_fn result that does not match the carries.
func checkBody(carried, out []*T) {
	if len(out) != len(carried) {
		panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
			"body_fn should return the same number of elements as carried_inputs, got %d vs %d", len(out), len(carried))})
	}
	for i, o := range out {
		if !sameMeta(carried[i], o) {
			panic(&tensor.Error{Op: "while_loop", Msg: checkMetaConsistency(carried, out, "carried_inputs", "body_output")})
		}
	}
}

// whileDense runs the loop. c.step, when set, sees the carries each body
// call starts from (the autograd rule keeps them).
func whileDense(c *Call) []*T {
	return whileLoop(c, nil)
}

func whileLoop(c *Call, step func(vals []*T)) []*T {
	cond, body := c.Subs[0], c.Subs[1]
	carried, add := c.In[0], c.In[1]
	n := len(carried)
	args := make([]*T, n+len(add))
	copy(args[n:], add)
	vals := carried
	var one [1]*T
	test := func() bool {
		copy(args, vals)
		if c.pred != nil {
			one[0] = c.pred(args...)
			return truth(checkPred(one[:]))
		}
		return truth(checkPred(cond(args...)))
	}
	if !test() {
		out := make([]*T, n)
		for i, v := range carried {
			out[i] = v.Clone()
		}
		return out
	}
	for {
		if step != nil {
			step(vals)
		}
		copy(args, vals)
		out := body(args...)
		checkBody(carried, out)
		vals = out
		if !test() {
			break
		}
	}
	return append([]*T(nil), vals...)
}

// whileMeta checks one step on meta tensors and returns its outputs.
func whileMeta(c *Call) []*T {
	in := concat(c.In[0], c.In[1])
	checkPred(c.Subs[0](in...))
	out := c.Subs[1](in...)
	checkBody(c.In[0], out)
	return out
}

func whileTrace(c *Call, tr *compile.HOPTracer) []*T {
	carried, add := c.In[0], c.In[1]
	gms, outs, lifted, err := subgraphs(tr, c.Subs, []func([]*T) any{single, asTuple}, concat(carried, add))
	if err != nil {
		if tr.Segmented() && compile.IsDataDependent(err) {
			return whileDense(c) // each cond read ends a segment; the steps are recorded inline
		}
		panic(asError(err))
	}
	checkPred(outs[0])
	checkBody(carried, outs[1])
	ops := fx.Tuple(nodes(tr, carried))
	more := fx.Tuple(nodes(tr, concat(add, lifted)))
	graphs := freshAttrs(tr, []string{"while_loop_cond_graph_", "while_loop_body_graph_"}, gms)
	res := carried
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = whileDense(c) })
	}
	return tr.Record(c.Op, []any{graphs[0], graphs[1], ops, more}, res)
}

func whileFromNode(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error) {
	if len(args) != 4 || len(kwargs) != 0 {
		return nil, tensor.Errorf("while_loop: expected (cond_fn, body_fn, carried_inputs, additional_inputs), got %d arguments", len(args)+len(kwargs))
	}
	cond, err := argGraph("while_loop", "cond_fn", args[0])
	if err != nil {
		return nil, err
	}
	body, err := argGraph("while_loop", "body_fn", args[1])
	if err != nil {
		return nil, err
	}
	if c, ok, err := whileIntFromNode(args, g); ok || err != nil {
		return c, err
	}
	carried, _, err := argTensors("while_loop", "carried_inputs", args[2])
	if err != nil {
		return nil, err
	}
	add, _, err := argTensors("while_loop", "additional_inputs", args[3])
	if err != nil {
		return nil, err
	}
	run := g.runner(cond)
	pred := func(args ...*T) *T {
		r := run(args)
		if t, ok := r.(*T); ok {
			return t
		}
		if l := flatten(r); len(l) == 1 {
			return l[0]
		}
		return nil // checkPred refuses it
	}
	condSub := func(args ...*T) []*T { return flatten(run(args)) }
	return &Call{Subs: []Sub{condSub, g.Sub(body)}, In: [][]*T{carried, add}, pred: pred}, nil
}

// whileFunction is while_loop's autograd.Function.
type whileFunction struct {
	c      *Call
	steps  [][]*T // the carries each body call started from
	traced bool   // the forward was recorded into a trace (or ran on meta tensors): no steps
}

func whileAutograd(c *Call) []*T {
	in := make([]any, 0, len(c.In[0])+len(c.In[1]))
	for _, t := range concat(c.In[0], c.In[1]) {
		in = append(in, t)
	}
	return autograd.Apply(&whileFunction{c: c}, in...)
}

func (f *whileFunction) Forward(ctx *autograd.FunctionCtx, inputs ...any) []*T {
	in := tensorsOf(inputs)
	n := len(f.c.In[0])
	d := f.c.With([][]*T{in[:n], in[n:]})
	ctx.SaveForBackward(in[n:]...)
	if compile.ActiveTracer() != nil || d.anyTensor(func(t *T) bool { return t.Device() == tensor.Meta }) {
		f.traced = true
		return d.Redispatch()
	}
	// Dense, the layer below autograd outside a trace, keeping each step's
	// carries.
	return whileLoop(d, func(vals []*T) { f.steps = append(f.steps, vals) })
}

func (f *whileFunction) Backward(ctx *autograd.FunctionCtx, grads ...*T) []*T {
	if f.traced {
		panic(&tensor.Error{Op: "while_loop", Msg: "the backward of a traced while_loop needs the carries of every step, and the number of steps is data: it " +
			tensor.DataDependentMsg + "; run the forward graph under autograd (Compile does) or differentiate the loop eagerly"})
	}
	if ctx.CreateGraph() {
		panic(&tensor.Error{Op: "while_loop", Kind: tensor.NotImplementedError,
			Msg: "while_loop: a double backward (create_graph) through a while_loop is not supported"})
	}
	add := ctx.SavedTensors()
	n := len(grads)
	body := f.c.Subs[1]
	g := append([]*T(nil), grads...)
	gAdd := make([]*T, len(add))
	for k := len(f.steps) - 1; k >= 0; k-- {
		in := concat(f.steps[k], add)
		var gs []*T
		autograd.EnableGrad(func() {
			det := make([]*T, len(in))
			var diff []*T
			var idx []int
			for i, t := range in {
				det[i] = detach(t)
				if t.DType().IsFloat() {
					autograd.SetRequiresGrad(det[i], true)
					diff, idx = append(diff, det[i]), append(idx, i)
				}
			}
			out := body(det...)
			var douts, dgrads []*T
			for i, o := range out {
				if o != nil && g[i] != nil && autograd.IsRequiringGrad(o) {
					douts, dgrads = append(douts, o), append(dgrads, g[i])
				}
			}
			gs = make([]*T, len(in))
			if len(douts) == 0 || len(diff) == 0 {
				return
			}
			r := autograd.Grad(douts, diff, dgrads, autograd.Options{AllowUnused: true})
			for j, i := range idx {
				gs[i] = r[j]
			}
		})
		copy(g, gs[:n])
		for i, ga := range gs[n:] {
			switch {
			case ga == nil:
			case gAdd[i] == nil:
				gAdd[i] = ga
			default:
				gAdd[i] = gAdd[i].Add(ga)
			}
		}
	}
	return concat(g, gAdd)
}
