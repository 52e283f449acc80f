package functional

import (
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

func init() {
	tensor.SetKeyFallback(tensor.KeyFunctionalize, kernel)
	tensor.SetFunctionalValue(value)
}

// special ops the layer handles itself.
var special = map[string]tensor.KeyKernel{
	"aten::resize_":            resizeKernel,
	"aten::sym_size.int":       metadataQuery,
	"aten::sym_stride.int":     metadataQuery,
	"aten::sym_numel":          metadataQuery,
	"aten::sym_storage_offset": metadataQuery,
	"aten::sym_is_contiguous":  metadataQuery,
}

// kernel is the KeyFunctionalize fallback: every op with a functional tensor
// among its arguments comes here.
//
// Composite ops that are views or mutate, or that the device has no kernel
// for, never come here: the dispatcher decomposes them above this layer, on
// the wrappers, so that the views and mutations inside them are
// functionalized too.
//
// The mode of the storages of the functional arguments (Gathers for a
// device without views, or a graph-capture mode) decides how views are
// made and replayed (viewKernel or graphViewKernel) and how a write is
// committed (commit); the rest is the same in every mode.
func kernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	defer skipFunctionalize()()
	m, found := argsMode(op, a)
	if !found {
		return plainKernel(op, d, a)
	}
	if m != Gathers && op.Name == "aten::resize_" {
		return graphResizeKernel(op, d, a)
	}
	if k := special[op.Name]; k != nil {
		return k(op, d, a)
	}
	s := op.Schema
	isView := s.IsView()
	mutates := len(s.Mutates()) > 0
	switch {
	case isView && !mutates && m != Gathers:
		return graphViewKernel(op, a, m)
	case isView && !mutates:
		return viewKernel(op, a)
	case s.IsInplace():
		return inplaceKernel(op, d, a)
	case s.IsOut():
		return outKernel(op, d, a)
	case mutates:
		return mutatingKernel(op, d, a)
	}
	return functionalKernel(op, d, a, m)
}

// argsMode is the mode of the functional tensors among a call's arguments,
// and whether there is one. Tensors of different modes cannot meet.
func argsMode(op *tensor.Op, args []any) (Mode, bool) {
	m, found := Gathers, false
	see := func(t *tensor.Tensor) {
		if !IsFunctional(t) {
			return
		}
		tm := modeOf(t)
		switch {
		case found && tm != m && tm != Gathers && m != Gathers:
			tensor.Panicf("functionalize: %s mixes functional tensors of modes %q and %q", op.Name, m, tm)
		case found && tm == Gathers:
			// A tensor of a device that functionalizes itself, met in a
			// graph capture: the capture's mode wins and the tensor is a
			// plain value of it (its current value, as a constant).
		default:
			m, found = tm, true
		}
	}
	for _, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			see(x)
		case []*tensor.Tensor:
			for _, t := range x {
				see(t)
			}
		}
	}
	return m, found
}

// unwrapArgs replaces every functional tensor of a by its synced inner value.
func unwrapArgs(a []any) []any {
	out := make([]any, len(a))
	for i, v := range a {
		switch x := v.(type) {
		case *tensor.Tensor:
			if IsFunctional(x) {
				out[i] = value(x)
			} else {
				out[i] = x
			}
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				if IsFunctional(t) {
					l[j] = value(t)
				} else {
					l[j] = t
				}
			}
			out[i] = l
		default:
			out[i] = v
		}
	}
	return out
}

// functionalKernel runs a functional op on the inner values and wraps its
// tensor results as new bases.
func functionalKernel(op *tensor.Op, d tensor.Dispatch, a []any, mode Mode) any {
	// The wrappers take the metadata the op's meta function gives for
	// theirs (the strides the CPU would give), not the inner values' (the
	// backend's own layout). It runs first, as the CPU kernel's checks do.
	var metas any
	if op.Meta != nil && !dataDependent[op.Name] {
		metas = op.Meta(op, a)
	}
	res := op.Redispatch(d, tensor.KeyFunctionalize, unwrapArgs(a))
	switch r := res.(type) {
	case *tensor.Tensor:
		m, _ := metas.(*tensor.Tensor)
		return wrapOne(r, m, d.Device, mode)
	case []*tensor.Tensor:
		ms, _ := metas.([]*tensor.Tensor)
		out := make([]*tensor.Tensor, len(r))
		for i, t := range r {
			var m *tensor.Tensor
			if len(ms) == len(r) {
				m = ms[i]
			}
			out[i] = wrapOne(t, m, d.Device, mode)
		}
		return out
	}
	return res
}

// dataDependent lists ops whose meta function cannot give the output shape.
var dataDependent = map[string]bool{
	"aten::nonzero":      true,
	"aten::index.Tensor": true,
}

// wrapOne wraps an inner result on dev, the functionalized device of the
// call, as a new base of mode mode; results on other devices (a copy to
// the CPU) are returned as they are.
func wrapOne(v, m *tensor.Tensor, dev tensor.Device, mode Mode) *tensor.Tensor {
	if v == nil || v.Device() != dev {
		return v
	}
	l := layoutOf(v)
	if m != nil && slices.Equal(m.Sizes(), v.Sizes()) && m.DType() == v.DType() && len(m.Strides()) == len(l.sizes) {
		l = layout{l.sizes, append([]int(nil), m.Strides()...), m.StorageOffset()}
	}
	return wrapValue(v, l, mode)
}

// metadataQuery answers sym_size, sym_stride, ... from the wrapper's own
// metadata (the inner value's strides are the backend's business).
func metadataQuery(op *tensor.Op, _ tensor.Dispatch, a []any) any { return op.Meta(op, a) }

// viewKernel creates views: wrappers sharing the base's storage, whose
// metadata comes from the view's meta function and whose value is replayed
// from the base (lazily, on first use).
func viewKernel(op *tensor.Op, a []any) any {
	self := args.Self(a)
	if !IsFunctional(self) {
		tensor.Panicf("functionalize: %s views a tensor that is not functional", op.Name)
	}
	if op.Name == "aten::as_strided" {
		checkAsStridedBounds(self, a)
	}
	var outs []*tensor.Tensor
	res := op.Meta(op, a)
	switch r := res.(type) {
	case *tensor.Tensor:
		outs = []*tensor.Tensor{r}
	case []*tensor.Tensor:
		outs = r
	default:
		tensor.Panicf("functionalize: unexpected result of %s's meta function", op.Name)
	}
	recs := viewOutputs(op, a, self, outs)
	wrapped := make([]*tensor.Tensor, len(outs))
	for i, m := range outs {
		if m.DType() != self.DType() {
			tensor.Panicf("functionalize: %s changes the dtype of a view, which is not supported", op.Name)
		}
		l := layoutOf(m)
		out := tensor.NewMeta(l.sizes, l.strides, l.offset, self.DType(), self.Device())
		out.WithRaw(newView(self, recs[i], l))
		out.Keys = tensor.KeySet(0).With(tensor.KeyFunctionalize)
		out.ShareVersion(self)
		wrapped[i] = out
	}
	if _, ok := res.(*tensor.Tensor); ok {
		return wrapped[0]
	}
	return wrapped
}

// checkAsStridedBounds is as_strided's storage bounds check, against the
// size of the functional storage (the meta function cannot see it).
func checkAsStridedBounds(self *tensor.Tensor, a []any) {
	p := args.AsStridedOf(a)
	sizes, strides := p.Size, p.Stride
	if len(sizes) != len(strides) {
		return // the meta function reports it
	}
	for _, s := range strides {
		if s < 0 {
			return
		}
	}
	offset := p.StorageOffset.Or(self.StorageOffset())
	if offset < 0 {
		return
	}
	item := self.DType().ItemSize()
	need := core.StorageNBytes(sizes, strides, item, 0)
	if need == 0 {
		return
	}
	w := wrapperOf(self)
	w.st.mu.Lock()
	have := w.st.layout.extent() * item
	w.st.mu.Unlock()
	total := need + offset*item
	if total > have {
		tensor.Panicf("setStorage: sizes %s, strides %s, storage offset %d, and itemsize %d requiring a storage size of %d are out of bounds for storage of size %d",
			tensor.ShapeString(sizes), tensor.ShapeString(strides), offset, item, total, have)
	}
}

// inplaceKernel runs the functional op and writes its result into self
// (through self's view chain into its base, visible to every alias).
func inplaceKernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	f, _, ok := op.Functional()
	if !ok {
		return mutatingKernel(op, d, a)
	}
	self := args.Self(a)
	if !IsFunctional(self) {
		tensor.Panicf("functionalize: %s writes into a tensor that is not functional", op.Name)
	}
	if f.Schema.IsView() {
		tensor.Panicf("functionalize: in-place view op %s is not supported", op.Name)
	}
	// The functional op's meta checks run below (as the CPU's in-place
	// kernels run them), then PyTorch's checks for writing into self.
	res := f.Redispatch(d, tensor.KeyFunctionalize, unwrapArgs(a)).(*tensor.Tensor)
	core.CheckInplaceResult(self, res)
	commit(self, castFor(self, res))
	self.BumpVersion()
	return self
}

// outKernel runs an out= op as its functional op and writes the results
// into the out tensors, resizing them as the op's meta function says.
func outKernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	f, _, ok := op.Functional()
	if !ok {
		return mutatingKernel(op, d, a)
	}
	s := op.Schema
	muts := s.Mutates()
	fargs := op.FunctionalArgs(a)
	var metas []*tensor.Tensor
	switch m := op.Meta(op, a).(type) {
	case *tensor.Tensor:
		metas = []*tensor.Tensor{m}
	case []*tensor.Tensor:
		metas = m
	}
	var inner []any
	if m, _ := argsMode(op, a); m != Gathers {
		// PyTorch syncs every argument, the out tensors too, in order.
		inner = op.FunctionalArgs(unwrapArgs(a))
	} else {
		inner = unwrapArgs(fargs)
	}
	res := f.Redispatch(d, tensor.KeyFunctionalize, inner)
	var vals []*tensor.Tensor
	switch r := res.(type) {
	case *tensor.Tensor:
		vals = []*tensor.Tensor{r}
	case []*tensor.Tensor:
		vals = r
	}
	if len(vals) != len(muts) {
		tensor.Panicf("functionalize: %s gives %d results for %d out tensors", f.Name, len(vals), len(muts))
	}
	outs := make([]*tensor.Tensor, len(muts))
	for k, i := range muts {
		o := a[i].(*tensor.Tensor)
		if !IsFunctional(o) {
			tensor.Panicf("functionalize: %s writes into a tensor that is not functional", op.Name)
		}
		if k < len(metas) && !slices.Equal(o.Sizes(), metas[k].Sizes()) {
			resizeTo(o, layoutOf(metas[k]))
		}
		commit(o, castFor(o, vals[k]))
		o.BumpVersion()
		outs[k] = o
	}
	if len(s.Returns) == 1 {
		return outs[0]
	}
	return outs
}

// AutoFunctionalizer runs a call of a mutating op functionally on the
// inner values of its arguments (all of them, in schema order as given):
// it returns the op's results and the new values of the written arguments
// (in Schema.Mutates order; nil for an absent optional), or ok false to
// leave the call to the clone-run-commit rule. The hop package installs
// PyTorch's auto_functionalized this way.
type AutoFunctionalizer func(op *tensor.Op, inner []any) (results any, written []*tensor.Tensor, ok bool)

var autoFunctionalize AutoFunctionalizer

// SetAutoFunctionalize installs f for calls of mutating ops on tensors of
// a graph-capture mode (compile.Trace's Functionalize); a device without
// views keeps the clone-run-commit rule.
func SetAutoFunctionalize(f AutoFunctionalizer) { autoFunctionalize = f }

// autoFunctionalizedKernel runs a mutating op through the installed
// AutoFunctionalizer and writes the new values into the written arguments.
func autoFunctionalizedKernel(op *tensor.Op, d tensor.Dispatch, a []any, mode Mode) (any, bool) {
	res, written, ok := autoFunctionalize(op, unwrapArgs(a))
	if !ok {
		return nil, false
	}
	for k, i := range op.Schema.Mutates() {
		if k >= len(written) || written[k] == nil || i >= len(a) {
			continue
		}
		o, _ := a[i].(*tensor.Tensor)
		if o == nil || !IsFunctional(o) {
			tensor.Panicf("functionalize: %s writes into a tensor that is not functional", op.Name)
		}
		commit(o, castFor(o, written[k]))
		o.BumpVersion()
	}
	switch r := res.(type) {
	case *tensor.Tensor:
		if r != nil {
			return wrapOne(r, nil, d.Device, mode), true
		}
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(r))
		for k, t := range r {
			if t != nil {
				out[k] = wrapOne(t, nil, d.Device, mode)
			}
		}
		return out, true
	}
	return res, true
}

// mutatingKernel handles any other op that writes into its arguments
// (PyTorch's auto_functionalize): the written tensors are cloned, the op
// runs below on the clones, and the clones become the new values. In a
// graph-capture mode the installed AutoFunctionalizer goes first.
func mutatingKernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	if m, _ := argsMode(op, a); m != Gathers && autoFunctionalize != nil {
		if r, ok := autoFunctionalizedKernel(op, d, a, m); ok {
			return r
		}
	}
	s := op.Schema
	inner := unwrapArgs(a)
	muts := s.Mutates()
	clones := map[int]*tensor.Tensor{}
	for _, i := range muts {
		switch x := inner[i].(type) {
		case *tensor.Tensor:
			if x != nil {
				c := cloneInner(x)
				clones[i] = c
				inner[i] = c
			}
		case []*tensor.Tensor:
			tensor.Panicf("functionalize: %s writes into a list of tensors, which is not supported", op.Name)
		}
	}
	res := op.Redispatch(d, tensor.KeyFunctionalize, inner)
	for i, c := range clones {
		o := a[i].(*tensor.Tensor)
		if !IsFunctional(o) {
			tensor.Panicf("functionalize: %s writes into a tensor that is not functional", op.Name)
		}
		commit(o, c)
		o.BumpVersion()
	}
	// Results that alias a written argument are that argument.
	aliasOf := func(r int) *tensor.Tensor {
		if r >= len(s.Returns) {
			return nil
		}
		ra := s.Returns[r].Type.Alias
		if ra == nil {
			return nil
		}
		for _, i := range muts {
			if b := s.Args[i].Type.Base().Alias; b != nil && b.Set == ra.Set {
				t, _ := a[i].(*tensor.Tensor)
				return t
			}
		}
		return nil
	}
	dev := d.Device
	mode, _ := argsMode(op, a)
	switch r := res.(type) {
	case *tensor.Tensor:
		if t := aliasOf(0); t != nil {
			return t
		}
		return wrapOne(r, nil, dev, mode)
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(r))
		for k, t := range r {
			if al := aliasOf(k); al != nil {
				out[k] = al
			} else {
				out[k] = wrapOne(t, nil, dev, mode)
			}
		}
		return out
	}
	return res
}

// resizeKernel is resize_: the tensor gets the layout resize_'s meta
// function gives, over a storage grown with zeros as needed.
func resizeKernel(op *tensor.Op, _ tensor.Dispatch, a []any) any {
	self := args.Resize_Of(a).Self
	if !IsFunctional(self) {
		tensor.Panicf("functionalize: resize_ of a tensor that is not functional")
	}
	m := op.Meta(op, a).(*tensor.Tensor)
	resizeTo(self, layoutOf(m))
	return self
}

// resizeTo gives t the layout nl. The storage is flattened (in storage
// order) and grown with zeros if nl needs more of it; every alias then
// addresses the flat storage directly (a new epoch).
func resizeTo(t *tensor.Tensor, nl layout) {
	w := wrapperOf(t)
	st := w.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.mode != Gathers {
		w.graphResizeLocked(t, nl)
		return
	}
	w.syncLocked(t)
	st.applyUpdatesLocked()
	if layoutOf(t).equal(nl) {
		return
	}
	e := st.layout.extent()
	need := nl.extent()
	if st.layout.equal(nl) {
		// Back to the root's own layout: nothing moves.
		t.SetMeta(nl.sizes, nl.strides, nl.offset)
		w.metas, w.injective, w.value = nil, true, st.root
		st.gen++
		w.gen = st.gen
		st.mutations++
		return
	}
	flatL := layout{sizes: []int{e}, strides: []int{1}}
	flat := storageGather(st.root, st.layout, flatL)
	if need > e {
		flat = below(opPad, flat, []int{0, need - e}, tensor.Int(0))
		e = need
		flatL = layout{sizes: []int{e}, strides: []int{1}}
	}
	st.root, st.layout = flat, flatL
	if nl.offset == 0 && nl.contiguous() && nl.numel() == e {
		// The common case: a base resized to a new shape filling its
		// storage becomes the root again.
		st.root = reshape(flat, nl.sizes)
		st.layout = nl
	}
	st.epoch++
	st.gen++
	st.mutations++
	t.SetMeta(nl.sizes, nl.strides, nl.offset)
	w.metas = storageRecords(st.layout, nl)
	w.injective = chainInjective(w.metas)
	w.epoch = st.epoch
	w.value = nil
}
