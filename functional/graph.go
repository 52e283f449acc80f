package functional

import (
	"github.com/goaten/goaten/aten/args"
	"slices"

	// The reference metadata of a view without a meta function of its own
	// is computed on the meta device (referenceCall).
	_ "github.com/goaten/goaten/device/meta"
	"github.com/goaten/goaten/tensor"
)

// Mode says how the functional layer replays the views of a storage. It is
// chosen when a base is wrapped (WrapFor) and every tensor computed from it
// inherits it.
type Mode uint8

const (
	// Gathers is the mode of a device without views (Wrap, and the tensors
	// such a device makes): a view's value is computed lazily, on first
	// use, with functional core ops over constant index tensors
	// (index.Tensor, index_select), and a write through a view is
	// scattered back with index_put, slice_scatter or select_scatter.
	Gathers Mode = iota
	// ReapplyViews is the mode of graph capture (PyTorch's
	// functionalize(f), reapply_views=True): views are replayed with the
	// view ops themselves, writes are undone with PyTorch's view inverses
	// (FunctionalInverses: view back to the base's sizes, select_scatter,
	// slice_scatter, diagonal_scatter, as_strided_scatter, the inverse
	// permutation, ...), and the points where a value is computed are
	// PyTorch's, so that a trace records exactly the graph
	// make_fx(functionalize(f)) records.
	ReapplyViews
	// CopyViews is ReapplyViews with every view replayed as its copy
	// (view_copy, select_copy, ...): PyTorch's
	// functionalize(f, remove='mutations_and_views').
	CopyViews
)

func (m Mode) String() string {
	switch m {
	case Gathers:
		return "gathers"
	case ReapplyViews:
		return "reapply views"
	case CopyViews:
		return "copy views"
	}
	return "unknown"
}

// The graph-capture modes follow PyTorch 1.13's FunctionalTensorWrapper
// exactly:
//
//   - A view op runs at once on the current (possibly stale) value of the
//     viewed tensor, without syncing it; the new wrapper shares the
//     storage, appends its view record, and starts at generation 0, so it
//     is stale as soon as its storage has seen a write.
//   - Any other op first syncs each functional argument, in argument
//     order: a stale tensor (generation behind its storage's) applies the
//     storage's pending updates to the base and replays its view records
//     on the new base (graphSyncLocked).
//   - An in-place or out= op runs its functional op on the synced values,
//     and the result replaces the written tensor's value and is queued as
//     an update of the storage, bumping its generation; the writer is up
//     to date (1.13's commit_update marks it so).
//   - Applying an update (applyUpdate) replays the update's view records
//     but the last on the base, then walks back with the inverses.
//   - Factory results inside Enable become functional tensors; ops on
//     tensors that are not functional run as they are.
//
// Where goaten departs from it: Unwrap regenerates a stale tensor whose
// storage's updates another alias already applied (functorch returns the
// stale value, which is wrong when the tensor was written since), unless
// the stale value aliases a graph input; a write through an unfold view
// (PyTorch undoes it with unfold_backward) and resize_ to a new size
// (PyTorch's functional resize) are NotImplementedErrors.

// modeKey holds the graph-capture mode of a goroutine inside Enable.
var modeKey = new(byte)

// Enable makes every op the calling goroutine runs pass through the
// functional layer in mode m (a graph-capture mode), until restore is
// called, as functorch's functionalize does for the function it runs: a
// factory's results (tensor.Ones, arange) become functional tensors of
// mode m, so that views and writes of them are functionalized too, and an
// op with no functional argument otherwise runs as it is (PyTorch's
// functionalize fallback wraps outputs when an input was wrapped or there
// was no tensor input at all).
func Enable(m Mode) (restore func()) {
	if m == Gathers {
		tensor.Panicf("functional.Enable: mode %s is a device's, not graph capture's", m)
	}
	r1 := tensor.IncludeKey(tensor.KeyFunctionalize)
	r2 := tensor.SetModeValue(modeKey, m)
	return func() { r2(); r1() }
}

// skipFunctionalize keeps the calls the layer makes on inner values from
// coming back to it when the goroutine runs inside Enable (PyTorch's
// AutoDispatchSkipFunctionalize); it returns the function that undoes it.
func skipFunctionalize() (restore func()) {
	if tensor.KeyIncluded(tensor.KeyFunctionalize) && !tensor.KeyExcluded(tensor.KeyFunctionalize) {
		return tensor.ExcludeKey(tensor.KeyFunctionalize)
	}
	return func() {}
}

// plainKernel is a call with no functional argument, which reaches the
// layer through the calling goroutine's Enable: a factory's results become
// functional tensors of the goroutine's mode; any other op runs as it is.
func plainKernel(op *tensor.Op, d tensor.Dispatch, args []any) any {
	if m, ok := tensor.ModeValue(modeKey).(Mode); ok && !hasTensors(args) {
		return functionalKernel(op, d, args, m)
	}
	return op.Redispatch(d, tensor.KeyFunctionalize, args)
}

func hasTensors(args []any) bool {
	for _, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil {
				return true
			}
		case []*tensor.Tensor:
			for _, t := range x {
				if t != nil {
					return true
				}
			}
		}
	}
	return false
}

// graphSyncLocked is PyTorch's sync_(): a stale tensor applies its
// storage's updates and regenerates from the base.
func (w *wrapper) graphSyncLocked() {
	if w.gen == w.st.gen {
		return
	}
	w.st.graphApplyLocked()
	w.graphRegenerateLocked()
}

// graphApplyLocked is FunctionalStorageImpl::apply_updates: each queued
// update, in order, is written into the base. It reports whether there
// were any.
func (st *storage) graphApplyLocked() bool {
	if len(st.updates) == 0 {
		return false
	}
	for i, u := range st.updates {
		st.root = applyUpdate(st.root, u)
		st.updates[i] = update{}
	}
	st.updates = st.updates[:0]
	return true
}

// graphRegenerateLocked is regenerate_from_base: the tensor's view records
// are replayed on the base.
func (w *wrapper) graphRegenerateLocked() {
	st := w.st
	v := st.root
	for _, m := range w.metas {
		v = m.fwd(v)
	}
	w.value, w.gen = v, st.gen
	w.aliasesInput = st.input != nil && st.root == st.input && (len(w.metas) == 0 || st.mode == ReapplyViews)
}

// graphCommitLocked is replace_ + commit_update.
func (w *wrapper) graphCommitLocked(val *tensor.Tensor) {
	st := w.st
	st.updates = append(st.updates, update{val: val, metas: w.metas, owner: w})
	st.gen++
	st.mutations++
	w.value, w.gen, w.aliasesInput = val, st.gen, false
}

// graphResizeLocked gives t the layout nl before an out= op writes a value
// of that shape into it. As in PyTorch, only a tensor that is not a view
// may change its size.
func (w *wrapper) graphResizeLocked(t *tensor.Tensor, nl layout) {
	if len(w.metas) > 0 {
		tensor.Panicf("Attempted to resize a view tensor to a larger size. This is not allowed in the functionalization pass")
	}
	t.SetMeta(nl.sizes, nl.strides, nl.offset)
	w.st.layout = nl
}

// graphResizeKernel is resize_ on a tensor of a graph-capture mode: a
// resize to the tensor's own layout does nothing; any other would need
// PyTorch's resize_functional, which goaten does not have.
func graphResizeKernel(op *tensor.Op, _ tensor.Dispatch, a []any) any {
	self := args.Self(a)
	if !IsFunctional(self) {
		tensor.Panicf("functionalize: resize_ of a tensor that is not functional")
	}
	m := op.Meta(op, a).(*tensor.Tensor)
	if layoutOf(self).equal(layoutOf(m)) {
		return self
	}
	tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Op: op.Name,
		Msg: "functionalize: resize_ to a new size is not supported in graph capture"})
	return nil
}

// castFor converts v, a new value for the functional tensor t, to t's dtype
// (replace_'s conversion; in a graph-capture mode it is PyTorch's
// value_.to(dtype, layout), recorded as _to_copy with both).
func castFor(t, v *tensor.Tensor) *tensor.Tensor {
	d := t.DType()
	if v.DType() == d {
		return v
	}
	if modeOf(t) == Gathers {
		return castTo(v, d)
	}
	return below(opToCopy, v, d, tensor.Strided, nil, nil, false, nil)
}

// graphViewKernel is a view op on a tensor of a graph-capture mode
// (PyTorch's generated view kernels): the view (or its copy) runs at once
// on the viewed tensor's current value, unsynced, and each output becomes
// a wrapper sharing the storage, with the view's record appended to the
// viewed tensor's. The wrapper's metadata is the view's on the viewed
// tensor's metadata (PyTorch's reference meta call).
func graphViewKernel(op *tensor.Op, a []any, m Mode) any {
	self := args.Self(a)
	if !IsFunctional(self) {
		tensor.Panicf("functionalize: %s views a tensor that is not functional", op.Name)
	}
	var refs []*tensor.Tensor
	res := referenceCall(op, a)
	switch r := res.(type) {
	case *tensor.Tensor:
		refs = []*tensor.Tensor{r}
	case []*tensor.Tensor:
		refs = r
	default:
		tensor.Panicf("functionalize: unexpected result of %s's meta function", op.Name)
	}
	v := newGraphView(op, a, m)
	p := wrapperOf(self)
	st := p.st
	st.mu.Lock()
	defer st.mu.Unlock()
	vals := v.call(p.value)
	if len(vals) != len(refs) {
		tensor.Panicf("functionalize: %s gave %d views, its meta function %d", op.Name, len(vals), len(refs))
	}
	wrapped := make([]*tensor.Tensor, len(refs))
	for i, ref := range refs {
		if ref.DType() != self.DType() {
			tensor.Panicf("functionalize: %s changes the dtype of a view, which is not supported", op.Name)
		}
		metas := make([]*viewMeta, len(p.metas)+1)
		copy(metas, p.metas)
		metas[len(p.metas)] = v.record(i)
		val := vals[i]
		val.Keys = val.Keys.Without(tensor.KeyFunctionalize)
		l := layoutOf(ref)
		out := tensor.NewMeta(l.sizes, l.strides, l.offset, self.DType(), self.Device())
		out.WithRaw(&wrapper{st: st, value: val, metas: metas, injective: true,
			aliasesInput: p.aliasesInput && m == ReapplyViews})
		out.Keys = tensor.KeySet(0).With(tensor.KeyFunctionalize)
		out.ShareVersion(self)
		wrapped[i] = out
	}
	if _, ok := res.(*tensor.Tensor); ok {
		return wrapped[0]
	}
	return wrapped
}

// referenceCall is the call's result metadata: the op's meta function, or
// for an op without one (a view PyTorch gives a kernel, such as
// transpose) the op itself on meta stand-ins of the arguments, with every
// layer above the backend off (PyTorch's reference_tensor_output).
func referenceCall(op *tensor.Op, list []any) any {
	if op.Name == "aten::as_strided" {
		checkAsStridedBounds(args.Self(list), list)
	}
	if op.Meta != nil {
		return op.Meta(op, list)
	}
	margs := make([]any, len(list))
	for i, a := range list {
		switch x := a.(type) {
		case *tensor.Tensor:
			margs[i] = metaStandIn(x)
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				l[j] = metaStandIn(t)
			}
			margs[i] = l
		default:
			margs[i] = a
		}
	}
	for _, k := range []tensor.DispatchKey{tensor.KeyTrace, tensor.KeyFunctionalize, tensor.KeyAutograd} {
		defer tensor.ExcludeKey(k)()
	}
	return op.Invoke(margs)
}

func metaStandIn(t *tensor.Tensor) *tensor.Tensor {
	if t == nil {
		return nil
	}
	m := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
	m.SetWrappedNumber(t.IsWrappedNumber())
	return m
}

// graphView is one call of a view op in a graph-capture mode: what its
// records replay (the view, or its copy) and how they are undone.
type graphView struct {
	name string // the view op's name with its overload ("select.int")
	// fwd is the op replaying the view: the view op itself, or its copy.
	fwd  *tensor.Op
	args []any
	mode Mode
}

func newGraphView(op *tensor.Op, args []any, m Mode) *graphView {
	s := op.Schema
	name := s.Name
	if s.Overload != "" {
		name += "." + s.Overload
	}
	if _, ok := viewInverses[name]; !ok {
		tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Op: op.Name,
			Msg: "functionalize: the view op " + op.Name + " has no view inverse in graph capture"})
	}
	a := make([]any, len(args))
	for i, x := range args {
		switch v := x.(type) {
		case []int:
			a[i] = slices.Clone(v)
		default:
			a[i] = x
		}
	}
	fwd := op
	if m == CopyViews {
		fwd = copyOp(op)
	}
	return &graphView{name: name, fwd: fwd, args: a, mode: m}
}

// copyOp is a view op's copy ("aten::select.int" -> "aten::select_copy.int").
func copyOp(op *tensor.Op) *tensor.Op {
	s := op.Schema
	name := s.Namespace + "::" + s.Name + "_copy"
	if s.Overload != "" {
		name += "." + s.Overload
	}
	c, ok := tensor.LookupOp(name)
	if !ok {
		tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Op: op.Name,
			Msg: "functionalize: the view op " + op.Name + " has no copy (" + name + ")"})
	}
	return c
}

// call runs the view (or its copy) on base below the functional layer and
// returns its outputs.
func (v *graphView) call(base *tensor.Tensor) []*tensor.Tensor {
	a := slices.Clone(v.args)
	a[args.SelfAt] = base
	switch r := v.fwd.InvokeBelow(tensor.KeyFunctionalize, a).(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{r}
	case []*tensor.Tensor:
		return r
	}
	tensor.Panicf("functionalize: unexpected result of %s", v.fwd.Name)
	return nil
}

// record is the view record of output i: the whole op replayed (a
// split_with_sizes node for every output of a split), and the inverse.
func (v *graphView) record(i int) *viewMeta {
	inv := viewInverses[v.name]
	return &viewMeta{
		name: v.name,
		fwd: func(b *tensor.Tensor) *tensor.Tensor {
			r := v.call(b)[i]
			r.Keys = r.Keys.Without(tensor.KeyFunctionalize)
			return r
		},
		rev: func(b, mv *tensor.Tensor) *tensor.Tensor {
			r := inv(v, b, mv, i)
			r.Keys = r.Keys.Without(tensor.KeyFunctionalize)
			return r
		},
		injective: true,
	}
}

// viewOrCopy runs the view op name (its copy in CopyViews mode) below the
// functional layer.
func (v *graphView) viewOrCopy(name string, args ...any) *tensor.Tensor {
	op := tensor.MustOp(name)
	if v.mode == CopyViews {
		op = copyOp(op)
	}
	return op.InvokeBelow(tensor.KeyFunctionalize, op.Bind(args, nil)).(*tensor.Tensor)
}

// callBelow runs the op name on inner values below the functional layer.
func callBelow(name string, args ...any) *tensor.Tensor {
	op := tensor.MustOp(name)
	return op.InvokeBelow(tensor.KeyFunctionalize, op.Bind(args, nil)).(*tensor.Tensor)
}

// viewInverses are PyTorch 1.13's FunctionalInverses: each takes the view
// call, the base the view was taken of, the new value of output i of the
// view, and returns the new base. The base is needed by the scatters
// (select, slice, diagonal, as_strided, split) and for its sizes.
var viewInverses = map[string]func(v *graphView, base, mv *tensor.Tensor, i int) *tensor.Tensor{
	"view": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		return v.viewOrCopy("aten::view", mv, base.Sizes())
	},
	"_reshape_alias": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		return v.viewOrCopy("aten::_reshape_alias", mv, base.Sizes(), base.Strides())
	},
	"alias": func(v *graphView, _, mv *tensor.Tensor, _ int) *tensor.Tensor {
		return v.viewOrCopy("aten::alias", mv)
	},
	"detach": func(_ *graphView, _, mv *tensor.Tensor, _ int) *tensor.Tensor { return mv },
	"permute": func(v *graphView, _, mv *tensor.Tensor, _ int) *tensor.Tensor {
		dims := args.PermuteOf(v.args).Dims
		inv := make([]int, len(dims))
		for i, d := range dims {
			inv[tensor.WrapDim(d, len(dims))] = i
		}
		return v.viewOrCopy("aten::permute", mv, inv)
	},
	"t": func(v *graphView, _, mv *tensor.Tensor, _ int) *tensor.Tensor {
		return v.viewOrCopy("aten::t", mv)
	},
	"transpose.int": func(v *graphView, _, mv *tensor.Tensor, _ int) *tensor.Tensor {
		p := args.TransposeOf(v.args)
		return v.viewOrCopy("aten::transpose.int", mv, p.Dim0, p.Dim1)
	},
	"expand": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		return sumTo(mv, base.Sizes(), v.mode == CopyViews)
	},
	"slice.Tensor": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		p := args.SliceOf(v.args)
		return callBelow("aten::slice_scatter", base, mv, p.Dim, optAny(p.Start), optAny(p.End), p.Step)
	},
	"select.int": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		p := args.SelectOf(v.args)
		return callBelow("aten::select_scatter", base, mv, p.Dim, p.Index)
	},
	"diagonal": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		p := args.DiagonalOf(v.args)
		return callBelow("aten::diagonal_scatter", base, mv, p.Offset, p.Dim1, p.Dim2)
	},
	"as_strided": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		p := args.AsStridedOf(v.args)
		return callBelow("aten::as_strided_scatter", base, mv, p.Size, p.Stride, optAny(p.StorageOffset))
	},
	"split.Tensor": func(v *graphView, base, mv *tensor.Tensor, i int) *tensor.Tensor {
		p := args.SplitOf(v.args)
		size := p.SplitSize
		dim := tensor.WrapDim(p.Dim, base.Dim())
		start := size * i
		end := min(start+size, base.Sizes()[dim])
		return callBelow("aten::slice_scatter", base, mv, dim, start, end, 1)
	},
	"split_with_sizes": func(v *graphView, base, mv *tensor.Tensor, i int) *tensor.Tensor {
		p := args.SplitWithSizesOf(v.args)
		sizes := p.SplitSizes
		dim := tensor.WrapDim(p.Dim, base.Dim())
		start := 0
		for _, s := range sizes[:i] {
			start += s
		}
		end := min(start+sizes[i], base.Sizes()[dim])
		return callBelow("aten::slice_scatter", base, mv, dim, start, end, 1)
	},
	"squeeze": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		r := mv
		for d, s := range base.Sizes() {
			if s == 1 {
				r = v.viewOrCopy("aten::unsqueeze", r, d)
			}
		}
		return r
	},
	"squeeze.dim": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		sizes := base.Sizes()
		if len(sizes) == 0 {
			return mv
		}
		if d := tensor.WrapDim(args.SqueezeOf(v.args).Dim, len(sizes)); sizes[d] == 1 {
			return v.viewOrCopy("aten::unsqueeze", mv, d)
		}
		return mv
	},
	"squeeze.dims": func(v *graphView, base, mv *tensor.Tensor, _ int) *tensor.Tensor {
		sizes := base.Sizes()
		if len(sizes) == 0 {
			return mv
		}
		mask := make([]bool, len(sizes))
		for _, d := range args.SqueezeDimsOf(v.args).Dim {
			mask[tensor.WrapDim(d, len(sizes))] = true
		}
		r := mv
		for d, s := range sizes {
			if mask[d] && s == 1 {
				r = v.viewOrCopy("aten::unsqueeze", r, d)
			}
		}
		return r
	},
	"unsqueeze": func(v *graphView, _, mv *tensor.Tensor, _ int) *tensor.Tensor {
		return v.viewOrCopy("aten::squeeze.dim", mv, args.UnsqueezeOf(v.args).Dim)
	},
	"unfold": func(v *graphView, _, _ *tensor.Tensor, _ int) *tensor.Tensor {
		tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Op: "aten::unfold",
			Msg: "functionalize: a write into an unfold view needs unfold_backward, which goaten does not have"})
		return nil
	},
}

// sumTo is ATen's sum_to(mutated_view, base sizes, always_return_non_view),
// the inverse of expand: the expanded dims summed back.
func sumTo(x *tensor.Tensor, shape []int, nonView bool) *tensor.Tensor {
	if len(shape) == 0 {
		return callBelow("aten::sum", x)
	}
	sizes := x.Sizes()
	lead := len(sizes) - len(shape)
	var dims []int
	for i := range lead {
		dims = append(dims, i)
	}
	for i := lead; i < len(sizes); i++ {
		if shape[i-lead] == 1 && sizes[i] != 1 {
			dims = append(dims, i)
		}
	}
	if len(dims) > 0 {
		x = callBelow("aten::sum.dim_IntList", x, dims, true)
	}
	switch {
	case lead > 0 && nonView:
		return callBelow("aten::view_copy", x, shape)
	case lead > 0:
		return callBelow("aten::view", x, shape)
	case nonView:
		return callBelow("aten::clone", x)
	}
	return x
}

// optAny is an optional argument as a boxed call takes it: the value, or
// nil for None.
func optAny[V any](o args.Opt[V]) any {
	if o.Ok {
		return o.V
	}
	return nil
}

// WrapResult wraps a value computed below the layer (a higher-order op's
// result in a functionalized trace) as the calling goroutine's graph
// capture wraps a factory's result: in its mode inside Enable, so that the
// views of the result replay as view ops; elsewhere as Wrap.
func WrapResult(inner *tensor.Tensor) *tensor.Tensor {
	if m, ok := tensor.ModeValue(modeKey).(Mode); ok && tensor.KeyIncluded(tensor.KeyFunctionalize) {
		if IsFunctional(inner) {
			tensor.Panicf("functional.WrapResult: the tensor is already functional")
		}
		return wrapValue(inner, layoutOf(inner), m)
	}
	return Wrap(inner)
}
