package compile_test

import (
	"sync"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

// A compiled whole step (forward, Backward, an update under NoGrad) whose
// parameter is an input, called from 4 goroutines each with its own
// parameter: every goroutine's parameter and gradient equal its eager run's.
func TestWholeStepConcurrentCalls(t *testing.T) {
	for _, b := range reviewBackends {
		t.Run(b.name, func(t *testing.T) { wholeStepConcurrentCalls(t, b.b) })
	}
}

func wholeStepConcurrentCalls(t *testing.T, backend compile.Backend) {
	step := func(x, w *T) *T {
		autograd.SetGrad(w, nil)
		loss := x.Matmul(w).Tanh().SumAll()
		loss.Backward()
		autograd.NoGrad(func() { w.Sub_(w.Grad().MulScalar(0.1)) })
		return loss
	}
	c := compile.Compile(step, compile.Options{Backend: backend, Logf: func(string, ...any) {}})
	tensor.ManualSeed(6)
	x := tensor.Randn([]int{5, 4})
	var ws, we []*T
	for range 4 {
		w := tensor.Randn([]int{4, 3})
		ws = append(ws, w.Clone().SetRequiresGrad(true))
		we = append(we, w.Clone().SetRequiresGrad(true))
	}
	for g := range 4 {
		for range 10 {
			step(x, we[g])
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := c.Call(x, ws[g]); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range 4 {
		sameValues(t, "w", ws[g], we[g])
		sameValues(t, "w.grad", ws[g].Grad(), we[g].Grad())
	}
}

// A whole step whose parameter is an input (not closed over): the .grad
// its Backward gives the parameter reaches the caller's tensor, also when
// an in-place update of the parameter ended its segment's trace (the
// traced input took the update's result, and with it the input's old
// .grad), and a read of w.Grad() after a data-dependent break sees it.
func TestWholeStepInputParameterGrad(t *testing.T) {
	var seen []float64
	step := func(x, w *T) *T {
		autograd.SetGrad(w, nil)
		loss := x.Matmul(w).Tanh().SumAll()
		loss.Backward()
		autograd.NoGrad(func() { w.Sub_(w.Grad().MulScalar(0.1)) })
		seen = append(seen, w.Grad().SumAll().Item().Float64())
		return loss
	}
	c := compile.Compile(step, compile.Options{Logf: t.Logf})
	tensor.ManualSeed(7)
	x := tensor.Randn([]int{5, 4})
	w := tensor.Randn([]int{4, 3})
	ws, we := w.Clone().SetRequiresGrad(true), w.Clone().SetRequiresGrad(true)
	for i := range 4 {
		seen = nil
		le := step(x, we)
		want := seen[0]
		res, err := c.Call(x, ws)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "loss", res.(*T), le)
		if ws.Grad() == nil {
			t.Fatalf("call %d: the input's .grad is nil after the compiled step", i+1)
		}
		sameValues(t, "w", ws, we)
		sameValues(t, "w.grad", ws.Grad(), we.Grad())
		if seen[len(seen)-1] != want {
			t.Fatalf("call %d: w.Grad() read in the step: %v, eager %v", i+1, seen[len(seen)-1], want)
		}
	}
}
