package goaten_test

import (
	"fmt"
	"sync"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// TestConcurrentOps runs 8 goroutines × 1,000 mixed ops on independent
// tensors (arithmetic, views, in-place, reductions, matmul, printing, random
// numbers from a per-goroutine generator) and checks each result. Run it
// with -race.
func TestConcurrentOps(t *testing.T) {
	const workers, iters = 8, 1000
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			gen := tensor.NewGenerator(uint64(w))
			u := make([]float64, 1)
			for i := 0; i < iters; i++ {
				gen.Uniform(u)
				k := float32(w*iters + i)
				a := gt.FromFloat32s([]float32{k, 1, 2, 3, 4, 5}, 2, 3)
				var got, want float64
				switch i % 6 {
				case 0:
					got, want = a.Add(a).Sum(nil).Item().Float64(), float64(2*(k+15))
				case 1:
					v := a.Permute([]int{1, 0})
					v.MulScalar_(2)
					got, want = a.At(0, 0).Float64(), float64(2*k)
				case 2:
					got, want = a.Mm(a.Permute([]int{1, 0})).At(0, 0).Float64(), float64(k*k+5)
				case 3:
					vals, _ := a.MaxDim(1)
					got, want = vals.At(1).Float64(), 5
				case 4:
					s := a.String()
					if len(s) == 0 {
						errs <- fmt.Errorf("worker %d: empty repr", w)
						return
					}
					got, want = 1, 1
				case 5:
					r := gt.Call("aten::_softmax", a, 1, false).(*gt.Tensor)
					got, want = r.Sum(nil).Item().Float64(), 2
					if u[0] < 0 || u[0] >= 1 {
						errs <- fmt.Errorf("worker %d: uniform draw %v", w, u[0])
						return
					}
				}
				if d := got - want; d > 1e-3*max(1, want) || d < -1e-3*max(1, want) {
					errs <- fmt.Errorf("worker %d op %d: got %v, want %v", w, i%6, got, want)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestGeneratorStreamsPerGoroutine checks that a per-goroutine generator gives
// the same stream whatever the other goroutines do.
func TestGeneratorStreamsPerGoroutine(t *testing.T) {
	ref := make([]float64, 64)
	tensor.NewGenerator(42).Normal(ref)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]float64, 64)
			tensor.NewGenerator(42).Normal(got)
			for i := range got {
				if got[i] != ref[i] {
					t.Errorf("stream differs at %d", i)
					return
				}
			}
			tensor.DefaultGenerator().Uniform(got) // shared generator: safe, not reproducible
		}()
	}
	wg.Wait()
}
