package autograd

import (
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// T is the tensor type.
type T = tensor.Tensor

// meta is what autograd keeps on a tensor (tensor.Tensor.AutogradMeta).
type meta struct {
	leafRequiresGrad bool  // a leaf marked with SetRequiresGrad
	grad             *T    // accumulated gradient (leaves, and RetainGrad tensors)
	gradFn           *Node // the node that produced this tensor, or nil
	outputNr         int   // which output of gradFn
	accum            *Node // AccumulateGrad node of a leaf, made on first use
	retainsGrad      bool
	hooks            []*hookEntry
	view             *viewInfo // set on differentiable views
	attrVersion      uint64    // version when gradFn was last set (views)
	// accumulating serialises AccumulateGrad's read-add-write of grad when
	// backward passes that share this leaf run at once.
	accumulating sync.Mutex
}

// viewInfo records how a view was made from its root base, so that the
// view's history can be regenerated after an in-place change of the base
// and an in-place change of the view can be pushed into the base.
type viewInfo struct {
	base        *T
	steps       []viewStep
	multiOutput bool // made by an op that returns several views (split)
}

// viewStep is one view op applied to the previous tensor of the chain.
type viewStep struct {
	op   *tensor.Op
	args []any // args[args.SelfAt] is nil: the tensor the step applies to
	idx  int   // which output of a multi-output view op
}

func (v *viewInfo) replay(x *T) *T {
	for _, s := range v.steps {
		a := append([]any(nil), s.args...)
		a[args.SelfAt] = x
		switch r := s.op.Invoke(a).(type) {
		case *T:
			x = r
		case []*T:
			x = r[s.idx]
		}
	}
	return x
}

func (v *viewInfo) hasAsStrided() bool {
	for _, s := range v.steps {
		if s.op.Schema.Name == "as_strided" {
			return true
		}
	}
	return false
}

func getMeta(t *T) *meta {
	if t == nil {
		return nil
	}
	m, _ := t.AutogradMeta.(*meta)
	return m
}

func ensureMeta(t *T) *meta {
	if m, ok := t.AutogradMeta.(*meta); ok {
		return m
	}
	m := &meta{}
	t.AutogradMeta = m
	return m
}

// refresh regenerates the history of a view whose storage was written in
// place since its history was set: the view now reads the base's current
// history through its view ops (PyTorch's view + in-place rule).
func refresh(t *T, m *meta) {
	if m.view == nil || t.Version() == m.attrVersion {
		return
	}
	m.attrVersion = t.Version()
	base := m.view.base
	if !requiresGrad(base) {
		m.gradFn, m.outputNr = nil, 0
		return
	}
	r := m.view.replay(base)
	rm := getMeta(r)
	if rm == nil || rm.gradFn == nil {
		m.gradFn, m.outputNr = nil, 0
		return
	}
	m.gradFn, m.outputNr = rm.gradFn, rm.outputNr
	t.Keys = t.Keys.With(tensor.KeyAutograd)
}

// requiresGrad reports whether gradients flow to t.
func requiresGrad(t *T) bool {
	m := getMeta(t)
	if m == nil {
		return false
	}
	if m.view != nil {
		refresh(t, m)
	}
	return m.leafRequiresGrad || m.gradFn != nil
}

// gradEdge is where a gradient for t goes: its grad_fn output, the
// AccumulateGrad node of a leaf that requires grad, or nowhere.
func gradEdge(t *T) Edge {
	m := getMeta(t)
	if m == nil {
		return Edge{}
	}
	if m.view != nil {
		refresh(t, m)
	}
	if m.gradFn != nil {
		return Edge{m.gradFn, m.outputNr}
	}
	if m.leafRequiresGrad {
		return Edge{accumulateNode(t, m), 0}
	}
	return Edge{}
}

var accumMu sync.Mutex

func accumulateNode(t *T, m *meta) *Node {
	accumMu.Lock()
	defer accumMu.Unlock()
	if m.accum == nil {
		m.accum = newNode("AccumulateGrad", &accumulateGrad{leaf: t}, nil, []varMeta{metaOf(t)})
		m.accum.seq = ^uint64(0)
	}
	return m.accum
}

// setHistory makes t output nr of node n.
func setHistory(t *T, n *Node, nr int) {
	m := ensureMeta(t)
	m.gradFn, m.outputNr = n, nr
	m.leafRequiresGrad = false
	m.attrVersion = t.Version()
	t.Keys = t.Keys.With(tensor.KeyAutograd)
}

// armed records whether the Autograd key has been switched on for every
// call (see the package documentation).
var armed atomic.Bool

func arm() {
	if armed.Load() {
		return
	}
	armMu.Lock()
	defer armMu.Unlock()
	if !armed.Load() {
		tensor.ArmKey(tensor.KeyAutograd)
		armed.Store(true)
	}
}

var armMu sync.Mutex

// detached returns a tensor that shares t's data, metadata and version
// counter but has no autograd history (what a formula sees of a saved
// tensor outside create_graph).
func detached(t *T) *T {
	if t == nil {
		return nil
	}
	a := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw()).ShareVersion(t)
	a.SetWrappedNumber(t.IsWrappedNumber())
	a.Keys = t.Keys.Without(tensor.KeyAutograd)
	return a
}

// readOnly is detached without sharing t's version counter: what formulas
// read saved tensors through (they never write them). It does not write to
// t, so backward passes of different goroutines may read a shared tensor.
func readOnly(t *T) *T {
	if t == nil {
		return nil
	}
	a := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw())
	a.SetWrappedNumber(t.IsWrappedNumber())
	a.Keys = t.Keys.Without(tensor.KeyAutograd)
	return a
}

// isDifferentiable reports whether a tensor of dtype d can carry a gradient.
func isDifferentiable(d tensor.DType) bool { return d.IsFloat() }
