package compile

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Effects on Go objects. A traced Go function runs on stand-in tensors, but
// what it does to objects outside them happens for real: a Backward fills
// the .grad of the parameters it closes over, an optimizer step stores new
// momentum buffers in its state map and counts steps. None of it can live
// in a graph, and a trace-time tensor left in such an object cannot be read
// afterwards. So a trace never leaves one there (autograd.EffectHooks tell
// the tracer of each such effect before it happens):
//
//   - Compile's trace of a cached graph treats Backward, a write to a
//     .grad and an optimizer step as a graph break (PyTorch's Dynamo
//     breaks the graph at loss.backward() too): with Fullgraph it is an
//     error in Dynamo's words, otherwise the function runs in segments
//     (segments.go), where its Go code runs on every call, as eager's does;
//   - in segment mode the Backward is traced into the segment's graph, its
//     engine under no_grad (as PyTorch's engine runs when create_graph is
//     off), and every tensor a segment computes takes its real value when
//     the segment runs (materialize): the .grad a traced backward stored in
//     a real parameter and the buffers an optimizer step stored in its
//     state are real tensors when the call returns;
//   - Trace (make_fx) in fake mode undoes the .grad writes when it ends
//     (the graph records the backward ops; running it computes them) and
//     refuses an optimizer step.
//
// Grad mode is part of the graph: a Compile trace records each switch of
// it as a call of torch._C._set_grad_enabled (Dynamo's
// wrap_with_set_grad_enabled), so that an in-place update of a parameter
// under NoGrad runs under no_grad when the graph runs.

// SetGradEnabled is the graph's torch._C._set_grad_enabled(mode): it
// switches the running goroutine's grad mode (the graph's Runnable puts
// back the caller's mode when it returns).
var SetGradEnabled fx.Target = setGradEnabled{}

type setGradEnabled struct{}

func (setGradEnabled) TargetName() string    { return "_set_grad_enabled" }
func (setGradEnabled) QualifiedName() string { return "torch._C._set_grad_enabled" }
func (setGradEnabled) Impure() bool          { return true }

// Call implements fx.Callable.
func (setGradEnabled) Call(args []any, _ fx.Kwargs) (any, error) {
	on, ok := args[0].(bool)
	if len(args) != 1 || !ok {
		return nil, fmt.Errorf("torch._C._set_grad_enabled takes one bool, got %v", args)
	}
	autograd.SetGradEnabled(on)
	return nil, nil
}

// recordGradMode adds a _set_grad_enabled node when the calling
// goroutine's grad mode differs from the one the graph is in.
func (tr *tracer) recordGradMode() {
	if !tr.recordGrad {
		return
	}
	if on := autograd.IsGradEnabled(); on != tr.gradMode {
		tr.gm.Graph.CallFunction(SetGradEnabled, []any{on}, nil)
		tr.gradMode = on
	}
}

// endGradMode puts the graph back in the grad mode it started in.
func (tr *tracer) endGradMode() {
	if tr.recordGrad && tr.gradMode != tr.gradStart {
		tr.gm.Graph.CallFunction(SetGradEnabled, []any{tr.gradStart}, nil)
		tr.gradMode = tr.gradStart
	}
}

// switchesGrad reports whether gm calls _set_grad_enabled.
func switchesGrad(gm *fx.GraphModule) bool {
	for _, n := range gm.Graph.Nodes() {
		if n.Target == SetGradEnabled {
			return true
		}
	}
	return false
}

// inGradMode wraps run so that the graph starts in grad mode on and the
// caller's mode is back when it returns, whatever the graph switched.
func inGradMode(gm *fx.GraphModule, on bool, run Runnable) Runnable {
	if !switchesGrad(gm) {
		return run
	}
	return func(inputs []*tensor.Tensor) (any, error) {
		defer autograd.SetGradEnabled(on)()
		return run(inputs)
	}
}

// graphBreakHint ends every graph-break message (isGraphBreak finds it).
const graphBreakHint = "Without fullgraph=True the function runs in segments: its Go code runs on every call and each segment's graph is cached."

// graphBreak raises the graph break of a compiled function's trace at an
// effect it cannot cache (PyTorch's Unsupported, gb_type first).
func graphBreak(what string) {
	var gbType, explanation string
	switch what {
	case "Tensor.backward":
		gbType = "Unsupported Tensor.backward() call"
		explanation = "A graph cannot hold `Tensor.backward()`: it writes the .grad of the leaves it reaches, outside the graph's tensors."
	case "Tensor.grad":
		gbType = "Unsupported write to Tensor.grad"
		explanation = "A graph cannot hold a write to a tensor's .grad: it changes which tensor the .grad is, outside the graph's tensors."
	default:
		gbType = fmt.Sprintf("Unsupported %s() call", what)
		explanation = fmt.Sprintf("A graph cannot hold `%s()`: it keeps state (momentum buffers, step counts) in Go objects that a cached graph would not update.", what)
	}
	tensor.Raise(&tensor.Error{Kind: tensor.RuntimeError, Msg: fmt.Sprintf("%s\n  Explanation: %s\n  Hint: %s\n  Hint: Or return the loss and call Backward and the optimizer step outside the compiled function.",
		gbType, explanation, graphBreakHint)})
}

// isGraphBreak reports whether err is a compiled function's graph break.
func isGraphBreak(err error) bool {
	var te *tensor.Error
	return errors.As(err, &te) && strings.Contains(te.Msg, graphBreakHint)
}

// isTraceTensor reports whether t is one of a trace's tensors (a proxy or
// a fake), not a real tensor the function closes over.
func isTraceTensor(t *tensor.Tensor) bool {
	_, fake := t.Raw().(*fakeStorage)
	return fake || t.Keys.Has(tensor.KeyTrace)
}

// gradWrites remembers the .grad of each real leaf a trace wrote, as it
// was before the first write.
type gradWrites struct {
	leaves []*tensor.Tensor
	old    map[*tensor.Tensor]*tensor.Tensor
}

func (w *gradWrites) note(leaf, old *tensor.Tensor) {
	if isTraceTensor(leaf) {
		return
	}
	if w.old == nil {
		w.old = map[*tensor.Tensor]*tensor.Tensor{}
	}
	if _, seen := w.old[leaf]; !seen {
		w.old[leaf] = old
		w.leaves = append(w.leaves, leaf)
	}
}

// undo puts back the .grad of each leaf whose .grad is a trace's tensor
// (all of them when all is set).
func (w *gradWrites) undo(all bool) {
	for _, leaf := range w.leaves {
		if g := leaf.Grad(); all || g != nil && isTraceTensor(g) {
			autograd.SetGrad(leaf, w.old[leaf])
		}
	}
}

// cachedHooks are the hooks of Compile's trace of a cached graph: every
// effect is a graph break, raised before it happens.
func cachedHooks() *autograd.EffectHooks {
	return &autograd.EffectHooks{
		Backward:  func(autograd.Options, func()) { graphBreak("Tensor.backward") },
		GradWrite: func(_, _ *tensor.Tensor) { graphBreak("Tensor.grad") },
		Effect:    graphBreak,
	}
}

// traceHooks are the hooks of a fake Trace: .grad writes are noted (and
// undone when the trace ends), other effects refused.
func traceHooks(w *gradWrites) *autograd.EffectHooks {
	return &autograd.EffectHooks{
		Backward:  func(_ autograd.Options, run func()) { run() },
		GradWrite: w.note,
		Effect: func(what string) {
			tensor.Panicf("compile.Trace: %s() in a fake trace would store trace-time tensors in Go objects (an optimizer's state); compile the function with compile.Compile, which runs it in segments, or call it outside the trace", what)
		},
	}
}

// segmentHooks are the hooks of segment mode: the backward is traced, its
// engine under no_grad unless it records a graph; .grad writes are noted,
// so that a failing call leaves no trace-time tensor in a .grad; an
// optimizer step is traced into the segment, or, for a function whose
// steps keep changing the graph (stepMissLimit), ends the segment and runs
// eagerly with the rest of the call.
func segmentHooks(s *segmenter, tr *tracer) *autograd.EffectHooks {
	return &autograd.EffectHooks{
		Backward: func(o autograd.Options, run func()) {
			if o.CreateGraph {
				run()
				return
			}
			autograd.NoGrad(run)
		},
		GradWrite: s.writes.note,
		Effect: func(string) {
			if s.passthrough {
				return
			}
			if s.c.eagerSteps() {
				if err := s.run(tr); err != nil {
					panic(asTensorError(err))
				}
				s.passthrough = true
				return
			}
			s.stepped = true
		},
	}
}

// materialize makes t, a tensor a segment computed while it was traced,
// the real tensor r the segment's run gave for it: t's layout, data,
// version counter, keys and autograd state become r's. Go objects that kept
// t (a parameter's .grad, an optimizer's buffers) then hold a real tensor,
// as a lazy tensor becomes real when its graph runs.
func materialize(t, r *tensor.Tensor) {
	if t == nil || r == nil || t == r || t.DType() != r.DType() {
		return
	}
	if t.StorageOffset() != r.StorageOffset() || !slices.Equal(t.Sizes(), r.Sizes()) || !slices.Equal(t.Strides(), r.Strides()) {
		t.SetMeta(r.Sizes(), r.Strides(), r.StorageOffset()) // (it copies the slices: most results have their trace's layout)
	}
	t.WithRaw(r.Raw()).ShareVersion(r)
	t.SetWrappedNumber(r.IsWrappedNumber())
	t.Keys = r.Keys
	t.AutogradMeta = r.AutogradMeta
}
