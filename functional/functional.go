// Package functional is goaten's Functionalize layer: on a device without
// native views or in-place ops (one whose DeviceHooks.Functionalize is set)
// it turns views and mutation into functional core ops, following PyTorch's
// FunctionalTensorWrapper / FunctionalStorageImpl design.
//
// Every user-visible tensor on such a device is a wrapper: a *tensor.Tensor
// carrying tensor.KeyFunctionalize whose raw value is a *wrapper holding
//
//   - the tensor's current inner value, a plain tensor on the same device
//     (no KeyFunctionalize) whose raw data is the backend's;
//   - the chain of view records from its base (each a forward replay and an
//     inverse built from slice_scatter, select_scatter, index_put, ...);
//   - a pointer to the functional storage shared by the base and all of its
//     views, with a generation counter and a queue of pending updates.
//
// The wrapper's own metadata (sizes, strides, storage offset) is what the
// same program would see on the CPU with real aliasing: views get their
// metadata from the core meta functions applied to the wrapper's metadata.
//
// Inner values are never mutated (the backend never sees an in-place op), so
// they may be shared freely. An in-place op runs the functional op, queues
// the new value as an update on the shared storage and bumps its
// generation; every other alias of that storage is then stale and
// regenerates on its next use by applying the pending updates to the base
// (walking each update's view chain back with the inverses) and replaying
// its own view chain on the new base.
//
// The layer registers itself as the KeyFunctionalize fallback kernel, so
// every op reaching a functional tensor passes through it; decompositions
// of non-core ops run above it, on the wrappers.
//
// The same layer captures graphs (compile.Trace's Functionalize, PyTorch's
// functionalize): a base wrapped with WrapFor in a graph-capture mode
// (ReapplyViews, CopyViews) and every tensor computed from it replay views
// with the view ops themselves (or their *_copy ops), undo writes with
// PyTorch's view inverses, and compute values exactly where PyTorch's
// FunctionalTensorWrapper does, so that the ops reaching the layer below
// are the ones make_fx(functionalize(f)) records (see graph.go). The mode
// is a property of a storage, chosen when its base is wrapped.
package functional

import (
	"slices"
	"sync"

	"github.com/goaten/goaten/tensor"
)

// layout is a tensor's place in its storage: sizes, strides, offset.
type layout struct {
	sizes, strides []int
	offset         int
}

func layoutOf(t *tensor.Tensor) layout {
	return layout{t.Shape(), append([]int(nil), t.Strides()...), t.StorageOffset()}
}

func (l layout) numel() int  { return tensor.Numel(l.sizes) }
func (l layout) extent() int { return tensor.StorageExtent(l.sizes, l.strides, l.offset) }

func (l layout) equal(o layout) bool {
	return l.offset == o.offset && slices.Equal(l.sizes, o.sizes) && slices.Equal(l.strides, o.strides)
}

func (l layout) contiguous() bool { return tensor.IsContiguousStrides(l.sizes, l.strides) }

// storage is shared by a base tensor and all of its views (PyTorch's
// FunctionalStorageImpl).
type storage struct {
	mu sync.Mutex
	// mode says how views are replayed; it is chosen when the base is
	// wrapped and never changes.
	mode Mode
	// root is the inner value of the base the views hang from.
	root *tensor.Tensor
	// layout is root's place in the (notional) storage: views that address
	// the storage directly (as_strided) are resolved through it.
	layout layout
	// updates are mutations made through views, not yet applied to root.
	updates []update
	// gen counts mutations; an alias whose generation differs is stale.
	gen uint64
	// epoch changes when resize_ replaces root by a flat copy of the
	// storage: the view chains of older epochs no longer apply.
	epoch uint64
	// mutations counts in-place writes (and resizes) ever made.
	mutations uint64
	// input is the value WrapFor was given for a base of a graph-capture
	// mode (see Unwrap).
	input *tensor.Tensor
}

// update is a new value for a view of the storage (PyTorch's
// FunctionalStorageImpl::Update).
type update struct {
	val   *tensor.Tensor
	metas []*viewMeta
	owner *wrapper
}

// wrapper is the raw value of a functional tensor (PyTorch's
// FunctionalTensorWrapper). Its fields are guarded by st.mu.
type wrapper struct {
	st *storage
	// value is the current inner value, nil when it must be regenerated.
	value *tensor.Tensor
	// metas is the view chain from st.root to this tensor.
	metas []*viewMeta
	// injective is set when writing a value through the chain and reading
	// it back gives the same value (no expanded or overlapping view).
	injective bool
	gen       uint64
	epoch     uint64
	// aliasesInput (graph-capture modes) is set while value is the input
	// WrapFor was given or, with ReapplyViews, a view of it: what the
	// caller writes back into the input shows through it (see Unwrap).
	aliasesInput bool
}

// viewMeta is one view record: forward replays the view on a new base;
// reverse writes a new value of the view into its base, returning the new
// base (PyTorch's ViewMeta with its view inverse).
type viewMeta struct {
	name      string
	fwd       func(base *tensor.Tensor) *tensor.Tensor
	rev       func(base, view *tensor.Tensor) *tensor.Tensor
	injective bool
	// storageLevel records address the storage (as_strided): they start a
	// chain and take the root as their base.
	storageLevel bool
}

// liftMu guards the raw field of tensors carrying KeyFunctionalize that are
// lifted into wrappers lazily (see wrapperOf).
var liftMu sync.RWMutex

// wrapperOf returns t's wrapper. A tensor created on a functionalized device
// by the framework (a constructor, a transfer) carries KeyFunctionalize but
// still holds the backend's raw data: it becomes a fresh base here, in
// place, so that every later view of it shares one storage.
func wrapperOf(t *tensor.Tensor) *wrapper {
	liftMu.RLock()
	w, ok := t.Raw().(*wrapper)
	liftMu.RUnlock()
	if ok {
		return w
	}
	liftMu.Lock()
	defer liftMu.Unlock()
	if w, ok := t.Raw().(*wrapper); ok {
		return w
	}
	inner := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw())
	inner.Keys = t.Keys.Without(tensor.KeyFunctionalize)
	w = newBase(inner, layoutOf(t), Gathers)
	t.WithRaw(w)
	t.ShareVersion(t) // allocate the version counter views will share
	return w
}

// newBase makes the wrapper of a fresh base whose inner value is v.
func newBase(v *tensor.Tensor, l layout, m Mode) *wrapper {
	if m != Gathers {
		// PyTorch's generations: 0 for a new storage and each new wrapper.
		st := &storage{mode: m, root: v, layout: l}
		return &wrapper{st: st, value: v, injective: true}
	}
	st := &storage{root: v, layout: l, gen: 1}
	return &wrapper{st: st, value: v, injective: true, gen: st.gen}
}

// wrapValue makes a user-visible functional tensor holding the inner value
// v as a new base of mode m, with outer metadata l.
func wrapValue(v *tensor.Tensor, l layout, m Mode) *tensor.Tensor {
	v.Keys = v.Keys.Without(tensor.KeyFunctionalize)
	out := tensor.NewMeta(l.sizes, l.strides, l.offset, v.DType(), v.Device())
	out.WithRaw(newBase(v, l, m))
	out.Keys = tensor.KeySet(0).With(tensor.KeyFunctionalize)
	out.ShareVersion(out) // allocate the version counter views will share
	return out
}

// syncLocked brings w up to date: pending updates are applied to the base
// and w's value is replayed from it. outer is w's tensor.
func (w *wrapper) syncLocked(outer *tensor.Tensor) {
	st := w.st
	if w.value != nil && w.gen == st.gen && w.epoch == st.epoch {
		return
	}
	st.applyUpdatesLocked()
	if w.epoch != st.epoch {
		// resize_ replaced the base by the flat storage: address it directly.
		w.metas = storageRecords(st.layout, layoutOf(outer))
		w.injective = chainInjective(w.metas)
		w.epoch = st.epoch
	}
	v := st.root
	for _, m := range w.metas {
		v = m.fwd(v)
	}
	w.value = v
	w.gen = st.gen
}

// applyUpdatesLocked folds the queued updates into the root (PyTorch's
// FunctionalStorageImpl::apply_updates).
func (st *storage) applyUpdatesLocked() {
	for i, u := range st.updates {
		st.root = applyUpdate(st.root, u)
		st.updates[i] = update{}
	}
	st.updates = st.updates[:0]
}

// applyUpdate writes u.val through u's view chain into base: the forward
// views give the intermediate bases, then the inverses walk back to the root.
func applyUpdate(base *tensor.Tensor, u update) *tensor.Tensor {
	k := len(u.metas)
	if k == 0 {
		return u.val
	}
	tmp := make([]*tensor.Tensor, k)
	tmp[0] = base
	for i := 1; i < k; i++ {
		tmp[i] = u.metas[i-1].fwd(tmp[i-1])
	}
	t := u.val
	for i := k - 1; i >= 0; i-- {
		t = u.metas[i].rev(tmp[i], t)
	}
	return t
}

// commitLocked records val as w's new value (PyTorch's replace_ +
// commit_update): the update is queued on the shared storage and the
// generation bumped, so every other alias regenerates on its next use.
func (w *wrapper) commitLocked(val *tensor.Tensor) {
	st := w.st
	st.mutations++
	switch n := len(st.updates); {
	case len(w.metas) == 0:
		// A new value for the whole base supersedes every pending update
		// (they were applied to w's value before it was computed).
		for i := range st.updates {
			st.updates[i] = update{}
		}
		st.updates = st.updates[:0]
		st.root = val
	case n > 0 && st.updates[n-1].owner == w && w.injective:
		// The same view written again: only the last value matters.
		st.updates[n-1].val = val
	default:
		st.updates = append(st.updates, update{val: val, metas: w.metas, owner: w})
	}
	st.gen++
	if w.injective {
		w.value, w.gen = val, st.gen
	} else {
		// An expanded or overlapping view reads back what was written last
		// into each element: regenerate it from the base.
		w.value = nil
	}
}

func chainInjective(ms []*viewMeta) bool {
	for _, m := range ms {
		if !m.injective {
			return false
		}
	}
	return true
}

// value returns t's current inner value, syncing it first.
func value(t *tensor.Tensor) *tensor.Tensor {
	w := wrapperOf(t)
	w.st.mu.Lock()
	defer w.st.mu.Unlock()
	if w.st.mode != Gathers {
		defer skipFunctionalize()()
		w.graphSyncLocked()
		return w.value
	}
	w.syncLocked(t)
	return w.value
}

// commit writes val (already of t's shape and dtype) into t.
func commit(t *tensor.Tensor, val *tensor.Tensor) {
	val.Keys = val.Keys.Without(tensor.KeyFunctionalize)
	w := wrapperOf(t)
	w.st.mu.Lock()
	defer w.st.mu.Unlock()
	if w.st.mode != Gathers {
		w.graphCommitLocked(val)
		return
	}
	if w.epoch != w.st.epoch {
		w.syncLocked(t)
	}
	w.commitLocked(val)
}

// modeOf is the mode of t's storage (Gathers for a tensor that is not
// functional).
func modeOf(t *tensor.Tensor) Mode {
	if !IsFunctional(t) {
		return Gathers
	}
	return wrapperOf(t).st.mode
}

// newView makes the wrapper of a view of parentOuter described by rec; a
// nil rec addresses the storage: the view is the one with layout vl.
func newView(parentOuter *tensor.Tensor, rec *viewMeta, vl layout) *wrapper {
	p := wrapperOf(parentOuter)
	st := p.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if p.epoch != st.epoch {
		p.syncLocked(parentOuter)
	}
	var metas []*viewMeta
	if rec == nil {
		metas = storageRecords(st.layout, vl)
	} else {
		metas = make([]*viewMeta, len(p.metas)+1)
		copy(metas, p.metas)
		metas[len(p.metas)] = rec
	}
	// The value is computed on first use.
	return &wrapper{st: st, metas: metas, injective: chainInjective(metas), epoch: st.epoch}
}

// IsFunctional reports whether t is a functionalized tensor (it carries
// tensor.KeyFunctionalize).
func IsFunctional(t *tensor.Tensor) bool {
	return t != nil && t.Keys.Has(tensor.KeyFunctionalize)
}

// Sync applies every pending update of t's storage and regenerates t, as
// PyTorch's torch._sync does. It is a no-op for other tensors.
func Sync(t *tensor.Tensor) {
	if IsFunctional(t) {
		value(t)
	}
}

// Unwrap returns the current inner value of a functional tensor (synced
// first): a plain tensor on the same device holding the backend's data,
// which must not be mutated. Other tensors are returned as they are.
//
// For a tensor of a graph-capture mode it does what functorch's
// _unwrap_functional_tensor does at the end of functionalize(f): pending
// updates of the storage are applied, and when there were any the tensor
// is regenerated from its base. A stale tensor whose storage's updates
// another alias has already applied is regenerated too, where functorch
// returns the stale value, unless that value is the tensor WrapFor was
// given or (ReapplyViews) a view of it: that one is returned as it is, as
// functorch returns it, for the caller writes the input's final value
// back into it (functionalize's copy_ into a mutated input), which the
// view then shows.
func Unwrap(t *tensor.Tensor) *tensor.Tensor {
	if !IsFunctional(t) {
		return t
	}
	if w := wrapperOf(t); w.st.mode != Gathers {
		st := w.st
		st.mu.Lock()
		defer st.mu.Unlock()
		defer skipFunctionalize()()
		applied := st.graphApplyLocked()
		stale := w.gen != st.gen && !w.aliasesInput
		if applied || stale {
			w.graphRegenerateLocked()
		}
		return w.value
	}
	return value(t)
}

// Wrap makes a new functional base tensor whose value is inner, a tensor on
// a functionalized device (not itself functional). The wrapper has inner's
// metadata. It is WrapFor(inner, Gathers).
func Wrap(inner *tensor.Tensor) *tensor.Tensor { return WrapFor(inner, Gathers) }

// WrapFor makes a new functional base tensor whose value is inner (not
// itself functional), with inner's metadata; mode says how the views of it
// and of the tensors computed from it are replayed. Graph capture
// (compile.Trace's Functionalize) wraps its traced inputs with
// ReapplyViews or CopyViews.
func WrapFor(inner *tensor.Tensor, mode Mode) *tensor.Tensor {
	if IsFunctional(inner) {
		tensor.Panicf("functional.Wrap: the tensor is already functional")
	}
	if mode > CopyViews {
		tensor.Panicf("functional.WrapFor: unknown mode %d", mode)
	}
	t := wrapValue(inner, layoutOf(inner), mode)
	if mode != Gathers {
		w := wrapperOf(t)
		w.st.input, w.aliasesInput = inner, true
	}
	return t
}

// Commit writes the inner value v into the functional tensor t, as an
// in-place op would (t.copy_(v) with v already of t's shape): the new value
// goes through t's view chain into its base and every alias sees it. v is
// converted to t's dtype. Higher-order ops use it to write results back.
func Commit(t, v *tensor.Tensor) {
	if !IsFunctional(t) {
		tensor.Panicf("functional.Commit: the tensor is not functional")
	}
	if IsFunctional(v) {
		v = value(v)
	}
	if !slices.Equal(t.Sizes(), v.Sizes()) {
		tensor.Panicf("functional.Commit: value of shape %s for a tensor of shape %s", tensor.ShapeString(v.Sizes()), tensor.ShapeString(t.Sizes()))
	}
	commit(t, castFor(t, v))
	t.BumpVersion()
}

// Mutations reports how many in-place writes (including resizes) the
// storage of t has seen through any of its aliases: nonzero means an input
// of a functionalized program was mutated and needs copying back.
func Mutations(t *tensor.Tensor) uint64 {
	if !IsFunctional(t) {
		return 0
	}
	w := wrapperOf(t)
	w.st.mu.Lock()
	defer w.st.mu.Unlock()
	return w.st.mutations
}

// SameStorage reports whether two functional tensors alias one storage (a
// base and its views).
func SameStorage(a, b *tensor.Tensor) bool {
	if !IsFunctional(a) || !IsFunctional(b) {
		return false
	}
	return wrapperOf(a).st == wrapperOf(b).st
}
