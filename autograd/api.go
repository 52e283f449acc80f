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
	m.grad = g
	accumMu.Unlock()
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

// The grad mode is process-wide (see the package documentation): gradients
// are recorded unless a NoGrad scope is open and no EnableGrad scope is.
var (
	modeMu    sync.Mutex
	noGradN   int    // open NoGrad scopes
	enableN   int    // open EnableGrad scopes
	undoNoGrd func() // set while the Autograd key is excluded
)

// applyMode excludes the Autograd key from every call exactly while
// recording is off.
func applyMode() {
	off := noGradN > 0 && enableN == 0
	switch {
	case off && undoNoGrd == nil:
		undoNoGrd = tensor.ExcludeKey(tensor.KeyAutograd)
	case !off && undoNoGrd != nil:
		undoNoGrd()
		undoNoGrd = nil
	}
}

func enterMode(counter *int) func() {
	modeMu.Lock()
	*counter++
	applyMode()
	modeMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			modeMu.Lock()
			*counter--
			applyMode()
			modeMu.Unlock()
		})
	}
}

// NoGrad runs f with gradient recording switched off (torch.no_grad): ops
// skip the Autograd layer entirely. The mode is process-wide.
func NoGrad(f func()) {
	defer enterMode(&noGradN)()
	f()
}

// EnableGrad runs f with gradient recording on, even inside NoGrad
// (torch.enable_grad).
func EnableGrad(f func()) {
	defer enterMode(&enableN)()
	f()
}

// InferenceMode runs f with the Autograd layer switched off
// (torch.inference_mode); in goaten it is the same as NoGrad.
func InferenceMode(f func()) { NoGrad(f) }

// IsGradEnabled reports whether gradients are being recorded.
func IsGradEnabled() bool {
	modeMu.Lock()
	defer modeMu.Unlock()
	return !(noGradN > 0 && enableN == 0)
}

// SetGradEnabled switches gradient recording off (false) or on (true) until
// the returned function is called (torch.set_grad_enabled as a scope).
func SetGradEnabled(on bool) (restore func()) {
	if on {
		return enterMode(&enableN)
	}
	return enterMode(&noGradN)
}
