package autograd

import "github.com/goaten/goaten/tensor"

// Effects a tracer must know of. A compiler traces a Go function by
// running it on stand-in tensors; what the function does to Go objects
// outside its tensors — a backward pass filling leaves' .grad, an
// optimizer step keeping momentum buffers and step counts — a graph cannot
// hold. The calling goroutine's tracer installs EffectHooks and is told of
// each such effect before it happens, so that it can record it, undo it, or
// refuse it (package compile).

// EffectHooks are a tracer's hooks; a nil field is not called.
type EffectHooks struct {
	// Backward is given each backward pass (Backward, BackwardAll) with
	// its options and the function that runs it; the pass happens only if
	// Backward calls run.
	Backward func(o Options, run func())
	// GradWrite is called before leaf's .grad is replaced by accumulation
	// or SetGrad; old is its current value.
	GradWrite func(leaf, old *T)
	// Effect is called before other Go state changes (NoteEffect).
	Effect func(what string)
}

// effectHooksKey is where a goroutine keeps its tracer's hooks.
var effectHooksKey = new(byte)

// SetEffectHooks installs h for the calling goroutine until restore is
// called (nil h removes the hooks).
func SetEffectHooks(h *EffectHooks) (restore func()) {
	if h == nil {
		return tensor.SetModeValue(effectHooksKey, nil)
	}
	return tensor.SetModeValue(effectHooksKey, h)
}

func effectHooks() *EffectHooks {
	h, _ := tensor.ModeValue(effectHooksKey).(*EffectHooks)
	return h
}

// NoteEffect tells the calling goroutine's tracer, if any, that Go state
// outside tensors is about to change (what names it: "Optimizer.step");
// the tracer may refuse it by panicking. Outside a trace it does nothing.
func NoteEffect(what string) {
	if h := effectHooks(); h != nil && h.Effect != nil {
		h.Effect(what)
	}
}

// noteGradWrite tells the tracer that leaf's .grad is about to change.
func noteGradWrite(leaf, old *T) {
	if h := effectHooks(); h != nil && h.GradWrite != nil {
		h.GradWrite(leaf, old)
	}
}
