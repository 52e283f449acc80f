package goid

import (
	"sync"
	"testing"
)

// TestIDMatchesStack checks ID against the id runtime.Stack prints, in many
// goroutines at once, and that live goroutines have distinct ids.
func TestIDMatchesStack(t *testing.T) {
	if haveG && !Fast() {
		t.Fatal("calibration found no single word of g holding the goroutine id")
	}
	const n = 64
	ids := make([]uint64, n)
	var wg sync.WaitGroup
	var start sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			for range 100 {
				if got, want := ID(), slowID(); got != want {
					t.Errorf("ID() = %d, runtime.Stack says %d", got, want)
					return
				}
			}
			ids[i] = ID()
		}()
	}
	start.Done()
	wg.Wait()
	seen := map[uint64]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("two live goroutines share id %d", id)
		}
		seen[id] = true
	}
}

func BenchmarkID(b *testing.B) {
	for b.Loop() {
		_ = ID()
	}
}

func BenchmarkSlowID(b *testing.B) {
	for b.Loop() {
		_ = slowID()
	}
}
