package hop

import (
	"fmt"
	"slices"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// CondOp is torch.ops.higher_order.cond(pred, true_graph, false_graph,
// operands) (torch/_higher_order_ops/cond.py).
var CondOp = Define("cond", Rules{
	Dense:    condDense,
	Meta:     condMeta,
	Trace:    condTrace,
	Autograd: condAutograd,
	Mutates:  []string{"One of torch.cond branch might be modifying the input!"},
	Aliases:  []string{"One of torch.cond branch might be aliasing the input!"},
	FromNode: condFromNode,
})

// Tuple is a list of operands that graphs print as a Python tuple,
// "(x_1,)", where a []*tensor.Tensor prints as a list, "[x_1]": PyTorch
// records the container the caller gave.
type Tuple []*T

// Cond returns trueFn(operands...) if pred is true, else
// falseFn(operands...) (torch.cond). pred is a Go bool — the branch is just
// called, and a trace records its ops inline — a one-element tensor, whose
// value decides, or a SymBool, a comparison of a size with an int
// (Size(x, 0).Eq(4), PyTorch's x.shape[0] == 4), which a trace records as
// sym_size.int and comparison nodes so that a graph with dynamic dims
// decides at run time (S11).
//
// In a trace both branches are traced into sub-GraphModules ("true_graph_0",
// "false_graph_0") and the call becomes one cond node; they must take the
// same operands (tensors they close over are lifted to extra operands, as
// PyTorch's Dynamo lifts them) and return the same number of outputs with
// the same dtype, device and rank (else PyTorch's messages). Beyond
// PyTorch (#137520): branches whose outputs differ in size are accepted —
// eagerly the result is the branch taken; in a fake trace each dim whose
// size differs becomes an unbacked size (u0, u1, ...:
// compile.UnbackedName) of the node's output, and the graph computes the
// real size when it runs. A program that then uses such a size as an int
// is data-dependent: a fullgraph trace refuses it, and Compile without
// Fullgraph runs it in segments, reading pred and running the branch taken
// inline.
//
// When an operand requires grad the cond is differentiable: its backward is
// a second cond over the branches' joint (forward and backward) programs,
// taking the output gradients and the operands (PyTorch's CondAutogradOp).
func Cond[O ~[]*T](pred any, trueFn, falseFn Sub, operands O) []*T {
	ops := []*T(operands)
	var p *T
	var sym *SymBool
	switch x := pred.(type) {
	case bool:
		if x {
			return trueFn(ops...)
		}
		return falseFn(ops...)
	case SymBool:
		if compile.ActiveTracer() == nil {
			return Cond(x.Bool(), trueFn, falseFn, operands)
		}
		sym = &x
	case *T:
		if x == nil {
			panic(&tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: "Expected pred to be bool or tensor, but got None."})
		}
		if x.Numel() != 1 {
			panic(&tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
				"Expected pred to be bool or single-element tensor, but got %s.", valueRepr(x))})
		}
		p = x
	default:
		panic(&tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
			"Expected pred to be bool or tensor, but got %v.", pred)})
	}
	if trueFn == nil || falseFn == nil {
		panic(&tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: "Expect both branches to be callbale."})
	}
	_, tuple := any(operands).(Tuple)
	for _, o := range ops {
		if o == nil {
			panic(&tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
				"Expect operands to be a tuple of possibly nested dict/list/tuple that onlyconsists of tensor leaves, but got %s.",
				pyList(ops, tuple))})
		}
	}
	c := &Call{Subs: []Sub{trueFn, falseFn}, In: [][]*T{{p}, ops}, Tuple: tuple}
	if sym != nil {
		c.Args = []any{*sym}
	}
	return CondOp.Invoke(c)
}

// condPred is the call's predicate as Cond takes it: a SymBool, or the
// one-element tensor.
func condPred(c *Call) any {
	if len(c.Args) == 1 {
		if b, ok := c.Args[0].(SymBool); ok {
			return b
		}
	}
	return c.In[0][0]
}

func condDense(c *Call) []*T {
	var taken bool
	switch p := condPred(c).(type) {
	case SymBool:
		taken = p.Bool()
	case *T:
		taken = truth(p)
	}
	if taken {
		return c.Subs[0](c.In[1]...)
	}
	return c.Subs[1](c.In[1]...)
}

// condMeta runs both branches on meta tensors and returns the true
// branch's outputs once their metadata agree.
func condMeta(c *Call) []*T {
	t := c.Subs[0](c.In[1]...)
	f := c.Subs[1](c.In[1]...)
	if msg := condMismatch(t, f); msg != "" {
		panic(&tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: msg})
	}
	return t
}

// condMismatch is PyTorch's trace_cond check of the branches' outputs:
// "" when they agree, else its message.
func condMismatch(t, f []*T) string {
	if len(t) != len(f) {
		return fmt.Sprintf("Expected to return same number of outputs but got:\n  true branch returns %d item(s)\n  false branch returns %d item(s)",
			len(t), len(f))
	}
	for i := range t {
		if !sameMeta(t[i], f[i]) {
			tm, fm := "None", "None"
			if t[i] != nil {
				tm = tensorMetadata(t[i])
			}
			if f[i] != nil {
				fm = tensorMetadata(f[i])
			}
			return fmt.Sprintf("Expected each tensor to have same metadata but got:\n  true branch returns %s\n  false branch returns %s", tm, fm)
		}
	}
	return ""
}

// noNode is appended to a refusal that a compiled function can avoid by
// running in segments: IsDataDependent recognizes it, so Compile without
// Fullgraph retries the function in segments, where the op runs inline.
const noNode = "\n(goaten: the op's outputs would depend on data, so it " + tensor.DataDependentMsg +
	"; compiled without Fullgraph, the function runs in segments and the op runs inline, reading the data)"

func condTrace(c *Call, tr *compile.HOPTracer) []*T {
	pred, ops := c.In[0][0], c.In[1]
	gms, outs, lifted, err := subgraphs(tr, c.Subs, []func([]*T) any{asTuple, asTuple}, ops)
	var unbacked [][]bool // per output, the dims where the branches' sizes differ
	if err == nil {
		if msg := condMismatch(outs[0], outs[1]); msg != "" {
			if unbacked = sizesOnly(outs[0], outs[1]); unbacked == nil || tr.Segmented() {
				err = &tensor.Error{Op: "cond", Kind: tensor.RuntimeError, Msg: msg + noNode}
			}
		}
	}
	if err != nil {
		if tr.Segmented() && compile.IsDataDependent(err) {
			return condDense(c) // pred's read ends the segment; the branch is recorded inline
		}
		panic(asError(err))
	}
	all := concat(ops, lifted)
	opArgs := nodes(tr, all)
	var operands any = opArgs
	if c.Tuple {
		operands = fx.Tuple(opArgs)
	}
	var predArg *fx.Node
	if b, ok := condPred(c).(SymBool); ok {
		predArg = b.record(tr)
	} else {
		predArg = tr.Arg(pred)
	}
	graphs := freshAttrs(tr, []string{"true_graph_", "false_graph_"}, gms)
	var res []*T
	switch {
	case tr.Mode() == compile.Real:
		tr.Compute(func() { res = condDense(c) })
	case unbacked != nil:
		res = make([]*T, len(unbacked))
		for i, u := range unbacked {
			o := outs[0][i]
			if u == nil {
				res[i] = o
				continue
			}
			sizes := append([]int(nil), o.Sizes()...)
			for d, differs := range u {
				if differs {
					sizes[d] = tr.NewUnbacked()
				}
			}
			if o.IsContiguous() {
				res[i] = tensor.NewMetaContiguous(sizes, o.DType(), o.Device())
			} else { // the branches' outputs have the same strides
				res[i] = tensor.NewMeta(sizes, append([]int(nil), o.Strides()...), 0, o.DType(), o.Device())
			}
		}
	default:
		res = outs[0]
	}
	return tr.Record(c.Op, []any{predArg, graphs[0], graphs[1], operands}, res)
}

// sizesOnly compares branches' outputs that condMismatch refused: when
// they differ only in sizes — the same count, and each pair the same dtype,
// device and rank, both contiguous or with the same strides — it returns, per output, nil where the
// pair agrees and else which dims' sizes differ (beyond PyTorch, #137520:
// such a dim becomes an unbacked size). Otherwise nil: the refusal stands.
func sizesOnly(t, f []*T) [][]bool {
	if len(t) != len(f) {
		return nil
	}
	out := make([][]bool, len(t))
	for i := range t {
		a, b := t[i], f[i]
		if sameMeta(a, b) {
			continue
		}
		if a == nil || b == nil || a.DType() != b.DType() || a.Device() != b.Device() || a.Dim() != b.Dim() ||
			!(a.IsContiguous() && b.IsContiguous() || slices.Equal(a.Strides(), b.Strides())) {
			return nil
		}
		out[i] = make([]bool, a.Dim())
		for d := range out[i] {
			out[i][d] = a.Size(d) != b.Size(d)
		}
	}
	return out
}

func condFromNode(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error) {
	if len(args) != 4 || len(kwargs) != 0 {
		return nil, tensor.Errorf("cond: expected (pred, true_fn, false_fn, operands), got %d arguments", len(args)+len(kwargs))
	}
	t, err := argGraph("cond", "true_fn", args[1])
	if err != nil {
		return nil, err
	}
	f, err := argGraph("cond", "false_fn", args[2])
	if err != nil {
		return nil, err
	}
	ops, tuple, err := argTensors("cond", "operands", args[3])
	if err != nil {
		return nil, err
	}
	var p *T
	switch x := args[0].(type) {
	case *T:
		p = x
	case bool:
		s, _ := tensor.ToScalar(x)
		p = tensor.FromScalar(s, tensor.Bool)
	default:
		return nil, tensor.Errorf("cond: pred must be a bool or a tensor, got %T", args[0])
	}
	return &Call{Subs: []Sub{g.Sub(t), g.Sub(f)}, In: [][]*T{{p}, ops}, Tuple: tuple}, nil
}

// condFunction is cond's autograd.Function: Forward runs the layers below
// autograd; Backward is cond over the branches' joint programs.
type condFunction struct{ c *Call }

func condAutograd(c *Call) []*T {
	in := make([]any, len(c.In[1]))
	for i, o := range c.In[1] {
		in[i] = o
	}
	return autograd.Apply(&condFunction{c}, in...)
}

func (f *condFunction) Forward(ctx *autograd.FunctionCtx, inputs ...any) []*T {
	ops := tensorsOf(inputs)
	ctx.SaveForBackward(ops...)
	return f.c.With([][]*T{f.c.In[0], ops}).Redispatch()
}

func (f *condFunction) Backward(ctx *autograd.FunctionCtx, grads ...*T) []*T {
	ops := ctx.SavedTensors()
	jt, jf := joint(f.c.Subs[0], len(grads)), joint(f.c.Subs[1], len(grads))
	var res []*T
	run := func() { res = Cond(condPred(f.c), jt, jf, Tuple(concat(grads, ops))) }
	if ctx.CreateGraph() {
		run()
	} else {
		autograd.NoGrad(run)
	}
	return res
}

// joint is the backward program of fw: it takes one gradient per output of
// fw, then fw's inputs, and returns the gradient of each input (zeros for
// an input the outputs do not depend on, or that cannot have one), as
// PyTorch's create_bw_fn. A gradient that would alias an argument is
// cloned, so that the program's outputs never alias its inputs. Inputs
// that already require grad (a double backward differentiating this
// program) are used as they are and the gradients are recorded, so that
// they can be differentiated in turn.
func joint(fw Sub, nOut int) Sub {
	return func(args ...*T) []*T {
		grads, ops := args[:nOut], args[nOut:]
		res := make([]*T, len(ops))
		autograd.EnableGrad(func() {
			in := make([]*T, len(ops))
			var diff []*T
			var idx []int
			create := false
			for _, a := range args {
				create = create || a != nil && autograd.IsRequiringGrad(a)
			}
			for i, o := range ops {
				in[i] = o
				if !autograd.IsRequiringGrad(o) {
					in[i] = detach(o)
					if o.DType().IsFloat() {
						autograd.SetRequiresGrad(in[i], true)
					}
				}
				if o.DType().IsFloat() {
					diff, idx = append(diff, in[i]), append(idx, i)
				}
			}
			outs := fw(in...)
			var douts, dgrads []*T
			for i, o := range outs {
				if o != nil && i < len(grads) && grads[i] != nil && autograd.IsRequiringGrad(o) {
					douts, dgrads = append(douts, o), append(dgrads, grads[i])
				}
			}
			if len(douts) == 0 || len(diff) == 0 {
				return
			}
			gs := autograd.Grad(douts, diff, dgrads, autograd.Options{AllowUnused: true, CreateGraph: create})
			for k, i := range idx {
				res[i] = gs[k]
			}
		})
		for i, g := range res {
			switch {
			case g == nil:
				res[i] = ops[i].ZerosLike()
			case aliasesAny(g, args):
				res[i] = g.Clone()
			}
		}
		return res
	}
}

func aliasesAny(t *T, args []*T) bool {
	for _, a := range args {
		if a != nil && t.Raw() == a.Raw() {
			return true
		}
	}
	return false
}

func tensorsOf(in []any) []*T {
	out := make([]*T, len(in))
	for i, x := range in {
		out[i], _ = x.(*T)
	}
	return out
}
