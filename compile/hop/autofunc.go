package hop

import (
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// AutoFunctionalizedOp is torch.ops.higher_order.auto_functionalized(op,
// **kwargs) (torch/_higher_order_ops/auto_functionalize.py, v1): a call of
// a mutable custom op, functional. It clones the arguments the op writes
// into, runs the op on the clones and returns the op's results followed by
// the clones' new values. A functionalized trace (compile.Trace with
// Functionalize) records every call of an op library.CanAutoFunctionalize
// accepts as one such node, all the op's arguments as keywords, and copies
// the new values back into the graph inputs the op wrote:
//
//	auto_functionalized = torch.ops.higher_order.auto_functionalized(torch.ops.mylib.foo.default, x = arg0_1, y = arg1_1)
//	getitem_1 = auto_functionalized[1]
//	copy_ = torch.ops.aten.copy_.default(arg0_1, getitem_1)
//
// An op writing into a list of tensors keeps the clone-run-commit rule.
var AutoFunctionalizedOp = Define("auto_functionalized", Rules{
	Dense:    autoFuncDense,
	Meta:     autoFuncMeta,
	Trace:    autoFuncTrace,
	FromNode: autoFuncFromNode,
})

func init() { functional.SetAutoFunctionalize(autoFunctionalize) }

// AutoFunctionalized calls op functionally on args (its arguments in
// schema order; trailing defaults may be left off): it returns op's tensor
// results (one nil for an op returning nothing) and then the new values of
// the arguments op writes into, in schema order (nil for an absent
// optional). The arguments themselves are left as they were. op must be one
// library.CanAutoFunctionalize accepts and write no tensor list.
func AutoFunctionalized(op *tensor.Op, args ...any) []*T {
	if !autoFunctionalizable(op) {
		tensor.Panicf("auto_functionalized: %s cannot be auto-functionalized", op.Name)
	}
	full := fullArgs(op, args)
	in := make([]*T, len(full))
	rest := make([]any, len(full))
	for i, v := range full {
		if t, ok := v.(*T); ok {
			in[i] = t
		} else {
			rest[i] = v
		}
	}
	return AutoFunctionalizedOp.Invoke(&Call{In: [][]*T{in}, Args: append([]any{op}, rest...)})
}

// autoFunctionalizable: library.CanAutoFunctionalize, writing no list.
func autoFunctionalizable(op *tensor.Op) bool {
	if !library.CanAutoFunctionalize(op) {
		return false
	}
	for _, i := range op.Schema.Mutates() {
		if isList(op.Schema.Args[i].Type) {
			return false
		}
	}
	return true
}

func isList(t *tensor.Type) bool {
	if t.Kind == tensor.TOptional {
		t = t.Elem
	}
	return t.Kind == tensor.TList
}

// autoFunctionalize is the functional layer's hook: inside a trace, a call
// of an auto-functionalizable op becomes auto_functionalized.
func autoFunctionalize(op *tensor.Op, inner []any) (any, []*T, bool) {
	tr := compile.ActiveTracer()
	if tr == nil || !autoFunctionalizable(op) {
		return nil, nil, false
	}
	if tr.AutoFunctionalizedV2() {
		c, base := afV2Prepare(op, fullArgs(op, inner))
		nb := len(c.In[0])
		res := AutoFunctionalizedV2Op.Invoke(c)
		n := len(res) - nb
		written := make([]*T, len(base))
		for k, b := range base {
			if b >= 0 {
				written[k] = res[n+b]
			}
		}
		return wrapResults(op, res[:n], false), written, true
	}
	res := AutoFunctionalized(op, inner...)
	n := len(res) - len(op.Schema.Mutates())
	return wrapResults(op, res[:n], false), res[n:], true
}

// values are the call's op and its arguments, in schema order.
func (c *Call) autoFuncValues() (*tensor.Op, []any) {
	op := c.Args[0].(*tensor.Op)
	vals := append([]any(nil), c.Args[1:]...)
	for i, t := range c.In[0] {
		if t != nil {
			vals[i] = t
		}
	}
	return op, vals
}

// autoFuncRun clones the written arguments with clone, runs the op with
// run and returns its results and the clones.
func autoFuncRun(c *Call, clone func(*T) *T, run func(op *tensor.Op, vals []any) []*T) []*T {
	op, vals := c.autoFuncValues()
	muts := op.Schema.Mutates()
	written := make([]*T, len(muts))
	for k, i := range muts {
		if t, ok := vals[i].(*T); ok && t != nil {
			written[k] = clone(t)
			vals[i] = written[k]
		}
	}
	return append(run(op, vals), written...)
}

// clonePreserveStrides is PyTorch's clone_preserve_strides.
func clonePreserveStrides(t *T) *T { return t.Clone() }

func autoFuncDense(c *Call) []*T {
	return autoFuncRun(c, clonePreserveStrides, func(op *tensor.Op, vals []any) []*T {
		return opResults(op, op.Invoke(vals))
	})
}

// metaClone is a clone's metadata: a fresh tensor with t's sizes and
// strides.
func metaClone(t *T) *T {
	return tensor.NewMeta(t.Sizes(), t.Strides(), 0, t.DType(), t.Device())
}

// autoFuncMeta runs the op's fake impl on meta tensors; an op returning
// nothing needs none (PyTorch generates its trivial fake impl).
func autoFuncMeta(c *Call) []*T {
	return autoFuncRun(c, metaClone, func(op *tensor.Op, vals []any) []*T {
		if len(op.Schema.Returns) == 0 {
			return []*T{nil}
		}
		return opResults(op, op.Invoke(vals))
	})
}

// autoFuncFake is the Meta rule on meta stand-ins of a fake-mode trace's
// tensors, its results on their device again.
func autoFuncFake(c *Call, tr *compile.HOPTracer) []*T {
	d := *c
	dev := tensor.CPU
	in := make([]*T, len(c.In[0]))
	for i, t := range c.In[0] {
		if t != nil {
			dev = t.Device()
			in[i] = tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
		}
	}
	d.In = [][]*T{in}
	var res []*T
	tr.Compute(func() { res = autoFuncMeta(&d) })
	for i, r := range res {
		if r != nil {
			res[i] = tensor.NewMeta(r.Sizes(), r.Strides(), r.StorageOffset(), r.DType(), dev)
		}
	}
	return res
}

func autoFuncTrace(c *Call, tr *compile.HOPTracer) []*T {
	op, vals := c.autoFuncValues()
	kw := make(fx.Kwargs, len(vals))
	for i, a := range op.Schema.Args {
		v := vals[i]
		switch x := v.(type) {
		case *T:
			if x != nil {
				v = tr.Arg(x)
			} else {
				v = nil
			}
		case []*T:
			v = nodes(tr, x)
		}
		kw[i] = fx.Kwarg{Name: a.Name, Value: v}
	}
	var res []*T
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = autoFuncDense(c) })
	} else {
		res = autoFuncFake(c, tr)
	}
	return recordFunctionalized(tr, c.Op, op, kw, res)
}

func autoFuncFromNode(args []any, kwargs fx.Kwargs, _ *Graphs) (*Call, error) {
	if len(args) != 1 {
		return nil, tensor.Errorf("auto_functionalized: expected (op, **kwargs), got %d positional arguments", len(args))
	}
	op, ok := args[0].(*tensor.Op)
	if !ok {
		return nil, tensor.Errorf("auto_functionalized: the op must be an operator, got %T", args[0])
	}
	if !autoFunctionalizable(op) {
		return nil, tensor.Errorf("auto_functionalized: %s cannot be auto-functionalized", op.Name)
	}
	sa := op.Schema.Args
	in := make([]*T, len(sa))
	rest := make([]any, len(sa))
	for i, a := range sa {
		v, ok := kwargs.Get(a.Name)
		if !ok {
			if !a.HasDefault {
				return nil, tensor.Errorf("auto_functionalized: %s: missing argument %q", op.Name, a.Name)
			}
			v = a.Default
		}
		if t, ok := v.(*T); ok {
			in[i] = t
		} else {
			if l, ok := v.([]any); ok && isList(a.Type) {
				ts := make([]*T, len(l))
				for j, e := range l {
					ts[j], _ = e.(*T)
				}
				v = ts
			}
			rest[i] = v
		}
	}
	if len(kwargs) > len(sa) {
		return nil, tensor.Errorf("auto_functionalized: %s: unexpected keyword arguments", op.Name)
	}
	return &Call{In: [][]*T{in}, Args: append([]any{op}, rest...)}, nil
}

// recordFunctionalized records an auto_functionalized call (v1 or v2) of
// op with results res. PyTorch reads every element of the result with a
// getitem and drops those of the Nones: an op returning nothing leaves
// getitem unused and its first written value is getitem_1.
func recordFunctionalized(tr *compile.HOPTracer, hop *Op, op any, kw fx.Kwargs, res []*T) []*T {
	g := tr.Module().Graph
	lead := 0
	for lead < len(res) && res[lead] == nil {
		lead++
	}
	for i := 0; i < lead; i++ {
		if err := g.EraseNode(g.CallFunction(fx.GetItem, []any{nil, i}, nil)); err != nil {
			panic(asError(err))
		}
	}
	return tr.RecordKwargs(hop, []any{op}, kw, res)
}
