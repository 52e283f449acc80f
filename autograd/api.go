package autograd

import (
	"slices"
	"sync"

	"github.com/goaten/goaten/tensor"
)

// SetRequiresGrad marks a leaf tensor as needing gradients (PyTorch's
// requires_grad_). Only floating tensors can require gradients, and only
// leaves can be switched off.
func SetRequiresGrad(t *T, requires bool) *T {
	m := getMeta(t)
	if requires {
		if !isDifferentiable(t.DType()) {
			tensor.Panicf("only Tensors of floating point dtype can require gradients")
		}
		arm()
		t.ShareVersion(t) // give t its own version counter now, in the caller's goroutine
		m = ensureMeta(t)
		if m.gradFn == nil {
			m.leafRequiresGrad = true
		}
		t.Keys = t.Keys.With(tensor.KeyAutograd)
		return t
	}
	if m == nil {
		return t
	}
	if m.gradFn != nil {
		tensor.Panicf("you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
	}
	m.leafRequiresGrad = false
	t.Keys = t.Keys.Without(tensor.KeyAutograd)
	return t
}

// RequiresGrad marks t as a leaf that needs gradients and returns it.
func RequiresGrad(t *T) *T { return SetRequiresGrad(t, true) }

// IsRequiringGrad reports whether gradients flow to t.
func IsRequiringGrad(t *T) bool { return requiresGrad(t) }

// IsLeaf reports whether t has no recorded history.
func IsLeaf(t *T) bool { return GradFn(t) == nil }

// GradOf returns the gradient accumulated into t (nil if none).
func GradOf(t *T) *T {
	m := getMeta(t)
	if m == nil {
		return nil
	}
	accumMu.Lock()
	defer accumMu.Unlock()
	return m.grad
}

// SetGrad replaces t's accumulated gradient (nil clears it, as an
// optimizer's zero_grad(set_to_none=True) does).
func SetGrad(t, g *T) {
	if g != nil && !slices.Equal(g.Sizes(), t.Sizes()) {
		tensor.Panicf("assigned grad has data of a different size")
	}
	m := ensureMeta(t)
	accumMu.Lock()
	old := m.grad
	accumMu.Unlock()
	noteGradWrite(t, old)
	accumMu.Lock()
	m.grad = g
	accumMu.Unlock()
}

// ZeroGrads resets the gradients of params as PyTorch's zero_grad
// (optimizer's or module's) does: with setToNone it drops them (the next
// backward pass starts from nothing); without, each gradient keeps its
// tensor, detached from any graph a create_graph backward built (a detached
// tensor sharing its data, where PyTorch's detach_ keeps the object), and
// is filled with zeros.
func ZeroGrads(params []*T, setToNone bool) {
	for _, p := range params {
		if setToNone {
			SetGrad(p, nil)
			continue
		}
		g := p.Grad()
		if g == nil {
			continue
		}
		if GradFn(g) != nil {
			g = g.Detach()
			SetGrad(p, g)
		} else if g.RequiresGrad() {
			SetRequiresGrad(g, false)
		}
		NoGrad(func() { g.Zero_() })
	}
}

// Detach returns a tensor sharing t's data and version counter, with no
// history (t.detach()).
func Detach(t *T) *T { return t.Detach() }

// hookEntry is a tensor hook.
type hookEntry struct {
	fn      func(grad *T) *T
	removed bool
}

// HookHandle removes a hook.
type HookHandle struct{ h *hookEntry }

// Remove unregisters the hook.
func (h HookHandle) Remove() {
	if h.h != nil {
		h.h.removed = true
	}
}

var hookMu sync.Mutex

// RegisterHook registers fn to run on the gradient of t when it is
// computed. fn may return a replacement gradient, or nil to keep it.
func RegisterHook(t *T, fn func(grad *T) *T) HookHandle {
	if !requiresGrad(t) {
		tensor.Panicf("cannot register a hook on a tensor that doesn't require gradient")
	}
	e := gradEdge(t)
	h := &hookEntry{fn: fn}
	hookMu.Lock()
	defer hookMu.Unlock()
	if e.Node.hooks == nil {
		e.Node.hooks = map[int][]*hookEntry{}
	}
	e.Node.hooks[e.Input] = append(e.Node.hooks[e.Input], h)
	m := ensureMeta(t)
	m.hooks = append(m.hooks, h)
	return HookHandle{h}
}

// RetainGrad makes a non-leaf tensor keep its gradient in Grad, as
// leaves do.
func RetainGrad(t *T) {
	if !requiresGrad(t) {
		tensor.Panicf("can't retain_grad on Tensor that has requires_grad=False")
	}
	m := ensureMeta(t)
	if m.gradFn == nil || m.retainsGrad {
		return
	}
	m.retainsGrad = true
	RegisterHook(t, func(g *T) *T {
		accumMu.Lock()
		old := m.grad
		accumMu.Unlock()
		var next *T
		if old == nil {
			next = g.Clone()
		} else {
			next = old.Add(g)
		}
		accumMu.Lock()
		m.grad = next
		accumMu.Unlock()
		return nil
	})
}

// ---- grad modes ----

// The grad mode belongs to the goroutine that set it, as PyTorch's is
// thread-local: a NoGrad scope in one goroutine never changes what another
// records, and a new goroutine starts with recording on. Recording is off
// exactly while the goroutine excludes the Autograd key (package tensor
// keeps the per-goroutine modes; see tensor/modes.go). Scopes nest as in
// PyTorch: the innermost one decides, and leaving it — by return or by
// panic — restores the mode it found.

// NoGrad runs f with gradient recording switched off in the calling
// goroutine (torch.no_grad): its ops skip the Autograd layer entirely.
func NoGrad(f func()) {
	defer SetGradEnabled(false)()
	f()
}

// EnableGrad runs f with gradient recording on in the calling goroutine,
// even inside NoGrad (torch.enable_grad).
func EnableGrad(f func()) {
	defer SetGradEnabled(true)()
	f()
}

// InferenceMode runs f with the Autograd layer switched off in the calling
// goroutine (torch.inference_mode); in goaten it is the same as NoGrad.
func InferenceMode(f func()) { NoGrad(f) }

// IsGradEnabled reports whether the calling goroutine records gradients.
func IsGradEnabled() bool { return !tensor.KeyExcluded(tensor.KeyAutograd) }

// SetGradEnabled switches gradient recording in the calling goroutine off
// (false) or on (true) until the returned function is called, which puts
// back the mode it found (torch.set_grad_enabled as a scope). Call it from
// the same goroutine, typically with defer.
func SetGradEnabled(on bool) (restore func()) {
	return tensor.SetKeyExcluded(tensor.KeyAutograd, !on)
}
