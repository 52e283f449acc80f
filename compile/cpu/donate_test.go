package cpu_test

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// donateModel is a two-layer loss whose forward saves a 4 MiB activation
// (tanh's output, [256, 4096] float32) that only the backward reads, with
// its parameters and the compiled loss.
type donateModel struct {
	w1, w2 *tensor.Tensor
	loss   *compile.Compiled
}

func newDonateModel() *donateModel {
	m := &donateModel{w1: randnSeeded(1, 512, 4096), w2: randnSeeded(2, 4096, 10)}
	m.w1.SetRequiresGrad(true)
	m.w2.SetRequiresGrad(true)
	m.loss = compile.Compile(func(x *tensor.Tensor) *tensor.Tensor {
		return x.Mm(m.w1).Tanh().Mm(m.w2).Sum(nil)
	}, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	return m
}

// step runs the compiled loss and its backward (retaining the graph or
// not), returning the loss and copies of the gradients.
func (m *donateModel) step(t *testing.T, x *tensor.Tensor, retain bool) (float32, []float32, []float32) {
	autograd.ZeroGrads([]*tensor.Tensor{m.w1, m.w2}, true)
	r, err := m.loss.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	l := r.(*tensor.Tensor)
	autograd.Backward(l, nil, autograd.Options{RetainGraph: retain})
	return tensor.Elems[float32](l.Storage())[l.StorageOffset()],
		slices.Clone(tensor.Elems[float32](m.w1.Grad().Contiguous().Storage())[:m.w1.Numel()]),
		slices.Clone(tensor.Elems[float32](m.w2.Grad().Contiguous().Storage())[:m.w2.Numel()])
}

// TestSavedActivationsDonated: once a compiled training graph's backward
// has run without retain_graph, the storages its forward made for the saved
// activations alone go back to the forward's plan, whose next call fills
// them instead of allocating: a step allocates at least three quarters of
// the activation's 4 MiB less than when the graph is retained (and nothing
// goes back; freeing the graph allocates a little of its own), and computes
// the same bits.
func TestSavedActivationsDonated(t *testing.T) {
	x := randnSeeded(3, 256, 512)
	a, b := newDonateModel(), newDonateModel()
	for i := range 3 { // warm: the traces, the plans, the first donations
		la, g1a, g2a := a.step(t, x, false)
		lb, g1b, g2b := b.step(t, x, true)
		if la != lb || !slices.Equal(g1a, g1b) || !slices.Equal(g2a, g2b) {
			t.Fatalf("step %d: the loss or the gradients differ with the saved activations handed back", i)
		}
	}
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts: the race detector allocates on its own, and -short (the qemu pass) keeps to correctness; go test ./... runs it")
	}
	// The fewest bytes a step allocated, over windows of 4 steps: the
	// kernels' scratch pools (sync.Pool) refill after a collection, which
	// adds megabytes to some windows.
	var m0, m1 runtime.MemStats
	perStep := func(m *donateModel, retain bool) uint64 {
		runtime.ReadMemStats(&m0)
		for range 4 {
			m.step(t, x, retain)
		}
		runtime.ReadMemStats(&m1)
		return (m1.TotalAlloc - m0.TotalAlloc) / 4
	}
	donated, retained := uint64(math.MaxUint64), uint64(math.MaxUint64)
	for range 4 {
		donated, retained = min(donated, perStep(a, false)), min(retained, perStep(b, true))
	}
	t.Logf("bytes allocated a step: %d with the activations handed back, %d with the graph retained", donated, retained)
	if retained < donated+3<<20 {
		t.Errorf("a step allocated %d bytes with the saved activations handed back, %d without: want at least 3 MiB less", donated, retained)
	}
}

// TestDonatedOutputsKept: a saved activation that is also an output (or
// on an output's storage) is the caller's and is never handed back: after
// the backward and another call, the first call's output still holds its
// values.
func TestDonatedOutputsKept(t *testing.T) {
	w := randnSeeded(4, 64, 64)
	w.SetRequiresGrad(true)
	cc := compile.Compile(func(x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		h := x.Mm(w).Tanh() // saved by tanh's backward and returned
		return h.Sum(nil), h.View([]int{-1})
	}, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	x := randnSeeded(5, 64, 64)
	call := func() (*tensor.Tensor, *tensor.Tensor) {
		r, err := cc.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		l := r.([]any)
		return l[0].(*tensor.Tensor), l[1].(*tensor.Tensor)
	}
	call()
	l, h := call()
	want := slices.Clone(tensor.Elems[float32](h.Storage())[:h.Numel()])
	l.Backward()
	for range 3 {
		l2, _ := call()
		l2.Backward()
	}
	if got := tensor.Elems[float32](h.Storage())[:h.Numel()]; !slices.Equal(got, want) {
		t.Fatal("an output that the forward also saved was overwritten by a later call")
	}
}

// TestDonatedBackwardTwice: a second backward through a compiled training
// graph without retain_graph fails with PyTorch's words instead of reading
// activations that were handed back.
func TestDonatedBackwardTwice(t *testing.T) {
	m := newDonateModel()
	x := randnSeeded(6, 256, 512)
	r, err := m.loss.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	l := r.(*tensor.Tensor)
	l.Backward()
	err = tensor.Try(func() { l.Backward() })
	if err == nil || !strings.Contains(err.Error(), "Trying to backward through the graph a second time") {
		t.Fatalf("second backward: %v", err)
	}
}

// TestDonatedConcurrent: goroutines running the same compiled training
// graph at once (autograd.Grad, so that nothing accumulates into shared
// .grad fields) each get the gradients of a serial run while their
// activations go back to, and come from, the plan's one pool.
func TestDonatedConcurrent(t *testing.T) {
	m := newDonateModel()
	params := []*tensor.Tensor{m.w1, m.w2}
	xs := make([]*tensor.Tensor, 4)
	want := make([][]float32, len(xs))
	grads := func(x *tensor.Tensor) []float32 {
		r, err := m.loss.Call(x)
		if err != nil {
			panic(err)
		}
		gs := autograd.Grad([]*tensor.Tensor{r.(*tensor.Tensor)}, params, nil)
		return slices.Concat(tensor.Elems[float32](gs[0].Contiguous().Storage())[:m.w1.Numel()],
			tensor.Elems[float32](gs[1].Contiguous().Storage())[:m.w2.Numel()])
	}
	for i := range xs {
		xs[i] = randnSeeded(uint64(10+i), 256, 512)
		want[i] = grads(xs[i])
	}
	var wg sync.WaitGroup
	bad := make([]bool, len(xs))
	for i := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if !slices.Equal(grads(xs[i]), want[i]) {
					bad[i] = true
				}
			}
		}()
	}
	wg.Wait()
	for i, b := range bad {
		if b {
			t.Errorf("goroutine %d: the gradients differ from a serial run's", i)
		}
	}
}

// TestGradientsUncopiedStayIntact: the gradients a compiled backward makes
// become the parameters' .grad without a copy (the AOT function marks them
// unshared), so the plan must never write them again: a .grad kept from
// one step keeps its values through the next steps, which compute eager's
// bits.
func TestGradientsUncopiedStayIntact(t *testing.T) {
	m := newDonateModel()
	x1, x2 := randnSeeded(4, 256, 512), randnSeeded(5, 256, 512)
	m.step(t, x1, false)
	_, w1, w2 := m.step(t, x1, false)
	g1, g2 := m.w1.Grad(), m.w2.Grad()
	for range 3 {
		m.step(t, x2, false)
	}
	if m.w1.Grad() == g1 || g1.Storage() == m.w1.Grad().Storage() {
		t.Fatal("a later step's gradient is on the kept gradient's storage")
	}
	for i, c := range []struct {
		g    *tensor.Tensor
		want []float32
	}{{g1, w1}, {g2, w2}} {
		if !slices.Equal(c.g.Contiguous().Float32s(), c.want) {
			t.Errorf("kept gradient %d changed after later steps", i)
		}
	}
	// Eager's gradients on x2.
	e1, e2 := m.w1.Detach().SetRequiresGrad(true), m.w2.Detach().SetRequiresGrad(true)
	x2.Mm(e1).Tanh().Mm(e2).Sum(nil).Backward()
	if !slices.Equal(m.w1.Grad().Contiguous().Float32s(), e1.Grad().Contiguous().Float32s()) ||
		!slices.Equal(m.w2.Grad().Contiguous().Float32s(), e2.Grad().Contiguous().Float32s()) {
		t.Error("the compiled step's gradients differ from eager's")
	}
}
