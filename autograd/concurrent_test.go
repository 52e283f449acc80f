package autograd_test

import (
	"sync"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// Backward passes on graphs that share leaves run concurrently; the
// gradients of the shared leaf add up.
func TestConcurrentBackward(t *testing.T) {
	w := tensor.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	const n = 8
	var wg sync.WaitGroup
	grads := make([]*T, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			x := tensor.FromSlice([]float64{float64(i), 1, 2})
			y := w.Mul(x).Sin().SumAll()
			grads[i] = autograd.Grad([]*T{y}, []*T{w}, nil)[0]
			w.Mul(w).SumAll().Backward()
		}(i)
	}
	wg.Wait()
	wantVals(t, "accumulated", w.Grad(), 2*n, 4*n, 6*n)
	for i, g := range grads {
		if g == nil || g.Numel() != 3 {
			t.Fatalf("goroutine %d: gradient %v", i, g)
		}
	}
}
