package library

import (
	"strconv"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// Backward computes the gradients of an op's arguments from those of its
// results (one per result; a Tensor[] result's grads are flattened in
// order). It returns one entry per argument of the schema (or per
// positional argument): a *tensor.Tensor for a Tensor argument, a
// []*tensor.Tensor for a Tensor[] argument, nil where there is none or
// the argument is not a tensor.
type Backward func(ctx *Ctx, grads []*tensor.Tensor) []any

// SetupContext runs after the forward: it saves what Backward needs from
// the inputs (the call's arguments) and the output (the op's result).
type SetupContext func(ctx *Ctx, inputs Args, output any)

// Ctx carries what SetupContext leaves for Backward (PyTorch's ctx).
type Ctx struct {
	// Data is free for the formula's own use.
	Data any

	fc    *autograd.FunctionCtx
	slots []slot
}

// SaveForBackward keeps tensors (inputs or outputs) for Backward; reading
// them back checks that they were not modified in place meanwhile.
func (c *Ctx) SaveForBackward(ts ...*tensor.Tensor) { c.fc.SaveForBackward(ts...) }

// SavedTensors returns what SaveForBackward kept.
func (c *Ctx) SavedTensors() []*tensor.Tensor { return c.fc.SavedTensors() }

// NeedsInputGrad reports whether argument i of the schema (any element of
// a Tensor[]) needs a gradient.
func (c *Ctx) NeedsInputGrad(i int) bool {
	for k, s := range c.slots {
		if s.arg == i && c.fc.NeedsInputGrad(k) {
			return true
		}
	}
	return false
}

// slot is one tensor of the call: argument arg, element elem of a Tensor[]
// argument (-1 for a Tensor).
type slot struct{ arg, elem int }

type autogradInfo struct {
	backward Backward
	setup    SetupContext
}

// isFunctionalSchema is PyTorch's is_functional_schema: no mutation, no
// result aliasing an input, at least one result.
func isFunctionalSchema(s *tensor.Schema) bool {
	return len(s.Mutates()) == 0 && !s.IsView() && len(s.Returns) > 0
}

func registerAutograd(qname string, backward Backward, setup SetupContext, where string) {
	if backward == nil {
		fail(tensor.TypeError, "Input function is required to be a callable but found type <nil>")
	}
	d := lookupDef(qname)
	s := d.op.Schema
	if !isFunctionalSchema(s) {
		fail(tensor.RuntimeError, "Cannot register autograd formula for non-functional operator %s with schema %s. Please create a functional operator and register an autograd formula for that.", d.op.Name, s)
	}
	for _, a := range s.Args {
		if a.KwargOnly && a.Type.IsTensorLike() {
			fail(tensor.NotImplementedError, "register_autograd with kwarg-only Tensor args. In the original definition of the op, please make your tensors not kwarg-only. Got: %s", s)
		}
	}
	claim(d, "Autograd", where)
	d.autograd = &autogradInfo{backward: backward, setup: setup}
	d.op.Impl(tensor.KeyAutograd, d.autogradKernel)
}

// autogradKernel runs the op below autograd and, when an input records
// gradients, records the registered formula as the results' history (an
// autograd.Function over the call's tensors, Tensor[] elements included).
func (d *opDef) autogradKernel(op *tensor.Op, ds tensor.Dispatch, args []any) any {
	if !autograd.IsGradEnabled() || !op.AnyRequiresGrad(args) {
		return op.Redispatch(ds, tensor.KeyAutograd, args)
	}
	var slots []slot
	var flat []any
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil {
				slots = append(slots, slot{i, -1})
				flat = append(flat, x)
			}
		case []*tensor.Tensor:
			for j, t := range x {
				if t != nil {
					slots = append(slots, slot{i, j})
					flat = append(flat, t)
				}
			}
		}
	}
	f := &customOp{def: d, ds: ds, args: args, slots: slots}
	res := autograd.Apply(f, flat...)
	k := 0
	return rebuild(f.out, res, &k)
}

// customOp is the autograd.Function of one call.
type customOp struct {
	def   *opDef
	ds    tensor.Dispatch
	args  []any
	slots []slot
	ctx   *Ctx
	out   any // the forward's result
}

func (f *customOp) Forward(fc *autograd.FunctionCtx, inputs ...any) []*tensor.Tensor {
	args := append([]any(nil), f.args...)
	lists := map[int][]*tensor.Tensor{}
	for k, s := range f.slots {
		t := inputs[k].(*tensor.Tensor)
		if s.elem < 0 {
			args[s.arg] = t
			continue
		}
		l, ok := lists[s.arg]
		if !ok {
			l = append([]*tensor.Tensor(nil), f.args[s.arg].([]*tensor.Tensor)...)
			lists[s.arg] = l
			args[s.arg] = l
		}
		l[s.elem] = t
	}
	// Below autograd, as PyTorch's forward runs under
	// AutoDispatchBelowAutograd: nothing the kernel does is recorded.
	out := func() any {
		defer tensor.ExcludeKey(tensor.KeyAutograd)()
		return f.def.op.Redispatch(f.ds, tensor.KeyAutograd, args)
	}()
	f.ctx = &Ctx{fc: fc, slots: f.slots}
	if setup := f.def.autograd.setup; setup != nil {
		setup(f.ctx, Args{f.def, args}, out)
	}
	f.out = out
	return flatTensors(out)
}

func (f *customOp) Backward(fc *autograd.FunctionCtx, grads ...*tensor.Tensor) []*tensor.Tensor {
	s := f.def.op.Schema
	res := f.def.autograd.backward(f.ctx, grads)
	npos := 0
	for _, a := range s.Args {
		if !a.KwargOnly {
			npos++
		}
	}
	if len(res) != len(s.Args) && len(res) != npos {
		expected := strconv.Itoa(len(s.Args))
		if npos != len(s.Args) {
			expected += " or " + strconv.Itoa(npos)
		}
		fail(tensor.RuntimeError, "The backward formula for %s returned an incorrect number of gradients (expected %s, got %d). Expected one gradient for each forward input, or for each positional input to the operator. Use nil for inputs that do not require a gradient.",
			f.def.op.Name, expected, len(res))
	}
	out := make([]*tensor.Tensor, len(f.slots))
	for i, g := range res {
		if g == nil {
			continue
		}
		if !s.Args[i].Type.IsTensorLike() {
			fail(tensor.RuntimeError, "function %s's backward returned a gradient different than nil at position %d, but the corresponding forward input was not a Tensor", f.def.op.Name, i)
		}
	}
	for k, sl := range f.slots {
		if sl.arg >= len(res) || res[sl.arg] == nil {
			continue
		}
		switch g := res[sl.arg].(type) {
		case *tensor.Tensor:
			if sl.elem >= 0 {
				structureError(f.def.op.Name, s, sl.arg)
			}
			out[k] = g
		case []*tensor.Tensor:
			if sl.elem < 0 || len(g) != len(f.args[sl.arg].([]*tensor.Tensor)) {
				structureError(f.def.op.Name, s, sl.arg)
			}
			out[k] = g[sl.elem]
		default:
			structureError(f.def.op.Name, s, sl.arg)
		}
	}
	return out
}

func structureError(name string, s *tensor.Schema, i int) {
	fail(tensor.RuntimeError, "Expected the return from backward to be of the same structure as the inputs: the gradient of %s's argument '%s' (%s) must be a %s or nil",
		name, s.Args[i].Name, s.Args[i].Type, goType(s.Args[i].Type.Base()))
}

// rebuild is out with its tensors replaced, in order, by res.
func rebuild(out any, res []*tensor.Tensor, k *int) any {
	switch o := out.(type) {
	case *tensor.Tensor:
		r := res[*k]
		*k++
		return r
	case []*tensor.Tensor:
		l := make([]*tensor.Tensor, len(o))
		for i := range o {
			l[i] = res[*k]
			*k++
		}
		return l
	case []any:
		l := make([]any, len(o))
		for i, v := range o {
			l[i] = rebuild(v, res, k)
		}
		return l
	}
	return out
}
