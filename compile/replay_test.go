package compile_test

import (
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
)

// A whole step whose ops change between calls: a segment's trace follows
// the last call's tape while they agree and leaves it at the first
// difference (an op the last call did not run, a Go number that changed),
// and every call equals eager's bit for bit. Calls 1-4 run the same ops, 5
// multiplies by 2 once more, 6 is as 1-4 again, 7 and 8 add another
// number: the tape of the call before serves calls 2, 3, 4 and 8 to the
// end; graphs are compiled for calls 1, 5 and 7 (6 finds call 1's graph
// by its key).
func TestSegmentReplayFollowsAndLeaves(t *testing.T) {
	n := 0 // the call, set before each (the first compiled call runs the Go code twice)
	newStep := func() (w *T, step func(x *T) *T) {
		tensor.ManualSeed(3)
		w = tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
		return w, func(x *T) *T {
			autograd.SetGrad(w, nil)
			h := x.Matmul(w)
			if n == 5 {
				h = h.MulScalar(2)
			}
			shift := 0.0
			if n >= 7 {
				shift = 1
			}
			loss := h.AddScalar(shift).Tanh().SumAll()
			loss.Backward()
			autograd.NoGrad(func() { w.Sub_(w.Grad().MulScalar(0.1)) })
			return loss
		}
	}
	x := tensor.Randn([]int{5, 4})
	we, step := newStep()
	var le []*T
	for i := range 8 {
		n = i + 1
		le = append(le, step(x))
	}
	wc, step := newStep()
	c := compile.Compile(step, compile.Options{Logf: t.Logf})
	for i := range 8 {
		n = i + 1
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "loss", res.(*T), le[i])
	}
	sameValues(t, "w", wc, we)
	sameValues(t, "w.grad", wc.Grad(), we.Grad())
	if s := c.Stats(); s.Segments != 3 || s.SegmentHits != 5 || s.SegmentReplays != 4 {
		t.Errorf("stats %+v: want 3 segments compiled, 5 cache hits of which 4 replays", s)
	}
}

// A segment's tape holds the guards of the tensors the segment takes: a
// closed-over tensor of another shape, or one tensor where the last call
// had two, leaves the tape, and the call equals eager's.
func TestSegmentReplayGuards(t *testing.T) {
	type state struct{ w, u, v *T }
	newStep := func() (*state, func(x *T) *T) {
		tensor.ManualSeed(4)
		s := &state{w: tensor.Randn([]int{3}).SetRequiresGrad(true)}
		return s, func(x *T) *T {
			autograd.SetGrad(s.w, nil)
			loss := x.Mul(s.w).Add(s.u).SumAll()
			loss.Backward()
			autograd.NoGrad(func() { s.u.Add_(s.v) }) // u and v may be one tensor
			return loss
		}
	}
	x := tensor.Randn([]int{2, 3})
	// Per call: u's shape and whether v is u.
	calls := []struct {
		shape []int
		alias bool
	}{{[]int{3}, false}, {[]int{3}, false}, {[]int{1}, false}, {[]int{1}, false}, {[]int{3}, true}, {[]int{3}, true}, {[]int{3}, false}}
	run := func(call func(x *T) *T, s *state) (losses, us []*T) {
		tensor.ManualSeed(5)
		for _, k := range calls {
			s.u = tensor.Randn(k.shape)
			s.v = tensor.Randn(k.shape)
			if k.alias {
				s.v = s.u
			}
			losses = append(losses, call(x))
			us = append(us, s.u)
		}
		return losses, us
	}
	se, step := newStep()
	le, ue := run(step, se)
	sc, step := newStep()
	c := compile.Compile(step, compile.Options{Logf: t.Logf})
	lc, uc := run(func(x *T) *T {
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		return res.(*T)
	}, sc)
	for i := range calls {
		sameValues(t, "loss", lc[i], le[i])
		sameValues(t, "u", uc[i], ue[i])
	}
	sameValues(t, "w.grad", sc.w.Grad(), se.w.Grad())
	// Calls 2, 4 and 6 follow the tape of the call before; 3, 5 and 7
	// leave it at the placeholder whose guard changed, and 7 finds call
	// 1's graph by its key.
	if s := c.Stats(); s.SegmentReplays != 3 || s.SegmentHits != 4 || s.Segments != 3 {
		t.Errorf("stats %+v: want 3 segments compiled, 4 cache hits of which 3 replays", s)
	}
}

// A call that runs a higher-order op where the last call's segment had
// none leaves the tape when the op starts recording (the graph so far is
// the tape's matched nodes), and equals eager's.
func TestSegmentReplayLeavesForHOP(t *testing.T) {
	withWrap := false
	newStep := func() (w *T, step func(x *T) *T) {
		tensor.ManualSeed(7)
		w = tensor.Randn([]int{3}).SetRequiresGrad(true)
		return w, func(x *T) *T {
			autograd.SetGrad(w, nil)
			h := x.Mul(w).Sin()
			if withWrap {
				h = hop.Wrap(func(a ...*T) []*T { return []*T{a[0].Cos().MulScalar(3)} }, h)[0]
			}
			loss := h.SumAll()
			loss.Backward()
			return loss
		}
	}
	x := tensor.Randn([]int{2, 3})
	plan := []bool{false, false, true, false, true}
	we, step := newStep()
	var le, ge []*T
	for _, p := range plan {
		withWrap = p
		le = append(le, step(x))
		ge = append(ge, we.Grad())
	}
	wc, step := newStep()
	c := compile.Compile(step, compile.Options{Logf: t.Logf})
	for i, p := range plan {
		withWrap = p
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "loss", res.(*T), le[i])
		sameValues(t, "w.grad", wc.Grad(), ge[i])
	}
	// Call 2 follows call 1's tape; 3 and 5 leave it when the Wrap
	// starts and compile (a graph with a sub-graph is keyed by its
	// sub-GraphModule's identity, so 5 does not find 3's); a graph with a
	// higher-order op keeps no tape, so 4 is traced and finds 1's graph.
	if s := c.Stats(); s.SegmentReplays != 1 || s.SegmentHits != 2 || s.Segments != 3 {
		t.Errorf("stats %+v: want 3 segments compiled, 2 cache hits of which 1 replay", s)
	}
}

// A tape keeps the values of a call's arguments, not the Go slices they
// were: a sizes buffer the Go code changes in place between calls leaves
// the tape.
func TestSegmentReplaySeesChangedSlices(t *testing.T) {
	shape := []int{2, 3}
	w := tensor.Randn([]int{6}).SetRequiresGrad(true)
	c := compile.Compile(func(x *T) *T {
		autograd.SetGrad(w, nil)
		y := x.Mul(w).View(shape)
		y.SumAll().Backward()
		return y
	}, compile.Options{Logf: t.Logf})
	x := tensor.Randn([]int{6})
	for i := range 3 {
		if i == 2 {
			shape[0], shape[1] = 3, 2
		}
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "y", res.(*T), x.Mul(w).View(shape))
	}
	if s := c.Stats(); s.SegmentReplays != 1 || s.Segments != 2 {
		t.Errorf("stats %+v: want 2 segments compiled, 1 replay", s)
	}
}

// Adam's step burns its bias corrections, Go numbers that change every
// step, into the graph: each call's segment with the step is a new graph.
// After three such calls in a row the step ends the segment and runs
// eagerly with the rest of the call, and the forward and backward segment
// is replayed from then on; every call equals eager's bit for bit.
func TestSegmentEagerOptimizerStep(t *testing.T) {
	newStep := func() (w *T, opt optim.Optimizer, step func(x *T) *T) {
		tensor.ManualSeed(8)
		w = tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
		opt, err := optim.NewAdam([]*T{w}, optim.WithLR(0.01))
		if err != nil {
			t.Fatal(err)
		}
		return w, opt, func(x *T) *T {
			opt.ZeroGrad()
			loss := x.Matmul(w).Tanh().SumAll()
			loss.Backward()
			opt.Step()
			return loss
		}
	}
	x := tensor.Randn([]int{5, 4})
	we, oe, step := newStep()
	var le []*T
	for range 7 {
		le = append(le, step(x))
	}
	wc, oc, step := newStep()
	c := compile.Compile(step, compile.Options{Logf: t.Logf})
	for i := range 7 {
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "loss", res.(*T), le[i])
	}
	sameValues(t, "w", wc, we)
	sameValues(t, "w.grad", wc.Grad(), we.Grad())
	se, sc := oe.State(we), oc.State(wc)
	if sc.Step != se.Step {
		t.Errorf("step %d, eager %d", sc.Step, se.Step)
	}
	for k, v := range se.Tensors {
		sameValues(t, k, sc.Tensors[k], v)
	}
	// Calls 1-3 compile their graph with the step; 4 compiles the forward
	// and backward; 5-7 replay it.
	if s := c.Stats(); s.Segments != 4 || s.SegmentReplays != 3 || s.SegmentHits != 3 {
		t.Errorf("stats %+v: want 4 segments compiled, 3 replays", s)
	}
}
