package autograd

import (
	"reflect"

	"github.com/goaten/goaten/tensor"
)

// Function is a differentiable function with a hand-written backward: the
// counterpart of torch.autograd.Function. Forward runs without recording
// (its tensor inputs arrive detached) and returns the outputs; Backward
// gets one gradient per output and returns one per input (nil for inputs
// that are not tensors or need no gradient).
type Function interface {
	Forward(ctx *FunctionCtx, inputs ...any) []*T
	Backward(ctx *FunctionCtx, grads ...*T) []*T
}

// FunctionCtx carries what Forward leaves for Backward.
type FunctionCtx struct {
	// Data is free for the function's own use (PyTorch's ctx attributes).
	Data any

	needs       []bool
	saved       []*T
	savedVer    []uint64
	nonDiff     map[*T]bool
	dirty       map[*T]bool
	materialize bool
	create      bool
	released    bool
	alias       map[*T]*T   // detached input given to Forward -> the caller's tensor
	unshared    map[*T]bool // MarkUnshared, by the running Backward
}

// SaveForBackward keeps tensors (inputs or outputs) for Backward; reading
// them back checks that they were not modified in place meanwhile.
func (c *FunctionCtx) SaveForBackward(ts ...*T) { c.saved = append(c.saved, ts...) }

// SavedTensors returns what SaveForBackward kept.
func (c *FunctionCtx) SavedTensors() []*T {
	if c.released {
		tensor.Panicf("Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Specify retain_graph=True if you need to backward through the graph a second time.")
	}
	out := make([]*T, len(c.saved))
	for i, t := range c.saved {
		if t == nil {
			continue
		}
		if i < len(c.savedVer) && t.Version() != c.savedVer[i] {
			tensor.Panicf("one of the variables needed for gradient computation has been modified by an inplace operation: [%s %s], is at version %d; expected version %d instead.",
				typeName(t), tensor.ShapeString(t.Sizes()), t.Version(), c.savedVer[i])
		}
		if c.create {
			out[i] = t
		} else {
			out[i] = readOnly(t)
		}
	}
	return out
}

// CreateGraph reports whether the running Backward is recorded for a
// higher-order gradient (Backward or Grad with CreateGraph).
func (c *FunctionCtx) CreateGraph() bool { return c.create }

// NeedsInputGrad reports whether input i needs a gradient.
func (c *FunctionCtx) NeedsInputGrad(i int) bool { return i < len(c.needs) && c.needs[i] }

// MarkNonDifferentiable declares outputs that have no gradient (indices,
// masks): they do not require grad and Backward gets zeros for them.
func (c *FunctionCtx) MarkNonDifferentiable(ts ...*T) {
	for _, t := range ts {
		c.nonDiff[t] = true
	}
}

// MarkDirty declares inputs that Forward modified in place; they must be
// returned as outputs, and take the function's history.
func (c *FunctionCtx) MarkDirty(ts ...*T) {
	for _, t := range ts {
		c.dirty[t] = true
	}
}

// MarkUnshared declares gradients the running Backward returns that are
// new memory nothing else holds — not the function, not an input, not
// another returned gradient, not a constant. A leaf's first gradient so
// marked becomes its .grad as it is, without a copy, when its layout is
// the one .grad must have: PyTorch's AccumulateGrad steals a gradient that
// nothing else references, and Go, with no reference counts, needs the
// function to say so. Compile's AOT autograd functions mark the gradients
// their compiled backward made.
func (c *FunctionCtx) MarkUnshared(ts ...*T) {
	if c.unshared == nil {
		c.unshared = map[*T]bool{}
	}
	for _, t := range ts {
		if t != nil {
			c.unshared[t] = true
		}
	}
}

// SetMaterializeGrads chooses whether missing output gradients reach
// Backward as zeros (the default) or as nil.
func (c *FunctionCtx) SetMaterializeGrads(v bool) { c.materialize = v }

// Apply runs f on inputs and records it in the graph.
func Apply(f Function, inputs ...any) []*T {
	ctx := &FunctionCtx{needs: make([]bool, len(inputs)), nonDiff: map[*T]bool{}, dirty: map[*T]bool{},
		materialize: true, alias: map[*T]*T{}}
	recording := IsGradEnabled()
	args := make([]any, len(inputs))
	edges := make([]Edge, len(inputs))
	any := false
	for i, in := range inputs {
		t, ok := in.(*T)
		if !ok || t == nil {
			args[i] = in
			continue
		}
		if recording && requiresGrad(t) {
			ctx.needs[i] = true
			edges[i] = gradEdge(t)
			any = true
		}
		a := detached(t)
		ctx.alias[a] = t
		args[i] = a
	}
	outs := f.Forward(ctx, args...)
	orig := func(t *T) *T {
		if o, ok := ctx.alias[t]; ok {
			return o
		}
		return t
	}
	for d := range ctx.dirty {
		if o := orig(d); o != d {
			delete(ctx.dirty, d)
			ctx.dirty[o] = true
		}
	}
	for d := range ctx.nonDiff {
		if o := orig(d); o != d {
			delete(ctx.nonDiff, d)
			ctx.nonDiff[o] = true
		}
	}
	res := make([]*T, len(outs))
	for k, o := range outs {
		if o == nil {
			continue
		}
		if src, ok := ctx.alias[o]; ok {
			if ctx.dirty[src] {
				if recording {
					checkInplace(src)
				}
				res[k] = src
			} else {
				res[k] = shallow(src)
			}
			continue
		}
		res[k] = o
	}
	for i, t := range ctx.saved {
		ctx.saved[i] = orig(t)
	}
	ctx.savedVer = make([]uint64, len(ctx.saved))
	for i, t := range ctx.saved {
		if t != nil {
			ctx.savedVer[i] = t.Version()
		}
	}
	if !any {
		return res
	}
	om := make([]varMeta, len(res))
	for k, o := range res {
		if o != nil {
			om[k] = metaOf(o)
		}
	}
	name := reflect.TypeOf(f).String()
	if t := reflect.TypeOf(f); t.Kind() == reflect.Pointer {
		name = t.Elem().Name()
	} else {
		name = t.Name()
	}
	node := newNode(name+"Backward", &customFn{f: f, ctx: ctx, nIn: len(inputs)}, edges, om)
	for k, o := range res {
		if o == nil || !isDifferentiable(o.DType()) || ctx.nonDiff[o] {
			continue
		}
		if ctx.dirty[o] {
			rebase(o, node, k)
		} else {
			setHistory(o, node, k)
		}
	}
	return res
}

type customFn struct {
	f   Function
	ctx *FunctionCtx
	nIn int
}

func (cf *customFn) apply(n *Node, grads []*T, create bool) []*T {
	gs := append([]*T(nil), grads...)
	if cf.ctx.materialize {
		for k, g := range gs {
			if g == nil && n.outs[k].dtype.IsFloat() {
				gs[k] = tensor.ZerosOf(n.outs[k].sizes, tensor.WithDtype(n.outs[k].dtype), tensor.WithDevice(n.outs[k].device))
			}
		}
	}
	cf.ctx.create = create
	clear(cf.ctx.unshared)
	res := cf.f.Backward(cf.ctx, gs...)
	if len(res) != cf.nIn {
		tensor.Panicf("function %s returned an incorrect number of gradients (expected %d, got %d)", n.name, cf.nIn, len(res))
	}
	return res
}

func (cf *customFn) release() {
	cf.ctx.released = true
	if r, ok := cf.f.(Releaser); ok {
		r.Release(cf.ctx)
	}
}

// A Releaser is a Function told when its node is freed: after a backward
// through it without retain_graph, when what Forward left in the context
// (saved tensors, Data) is never read again. (PyTorch frees the saved
// tensors then; compile's AOT autograd functions hand their activations'
// storages back to the plan that made them.)
type Releaser interface {
	Release(ctx *FunctionCtx)
}
