package tensorqueue_test

import (
	"sync"
	"testing"
	"time"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// One compiled function with a script object input called from 4
// goroutines, each with queues of its own: every call's result and queue
// equal the eager call's (run under -race: the guards on the flattened
// state and the graph's run share nothing between calls).
func TestCompileObjectsConcurrentCalls(t *testing.T) {
	c := compile.Compile(guardsModel, compile.Options{Fullgraph: true})
	tensor.ManualSeed(9)
	x := tensor.Randn([]int{2, 3})
	var tops [4]*tensor.Tensor
	for g := range tops {
		tops[g] = randn(tensor.Float32, false, 2, 3)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				q, eq := emptyQueue(tops[g].Clone()), emptyQueue(tops[g].Clone())
				want, _ := guardsModel(eq, x)
				res, err := c.CallArgs(q, x)
				if err != nil {
					t.Error(err)
					return
				}
				got := res.([]any)[0].(*tensor.Tensor)
				gv, wv := got.Float64s(), want.Float64s()
				for i := range gv {
					if gv[i] != wv[i] {
						t.Errorf("goroutine %d: element %d is %v, want %v", g, i, gv[i], wv[i])
						return
					}
				}
				if n, m := len(torchbind.Unwrap[*tq.TensorQueue](q).GetRawQueue()), len(torchbind.Unwrap[*tq.TensorQueue](eq).GetRawQueue()); n != m {
					t.Errorf("goroutine %d: the queue holds %d tensors, eager's %d", g, n, m)
					return
				}
			}
		}()
	}
	wg.Wait()
	if s := c.Stats(); s.Frames != 1 || s.Calls != 40 || s.Hits != 39 {
		t.Errorf("stats %+v: want one graph, 40 calls, 39 hits", s)
	}
}

// A Go panic out of a function with an object input while CallArgs traces
// it leaves the Compiled usable: the next call does not block on its lock.
func TestCompileObjectsPanicReleasesLock(t *testing.T) {
	boom := true
	c := compile.Compile(func(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, tensor.ScriptObject) {
		if boom {
			panic("boom")
		}
		return guardsModel(q, x)
	})
	x := tensor.Randn([]int{2, 3})
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the function's panic", r)
			}
		}()
		c.CallArgs(emptyQueue(), x)
	}()
	boom = false
	done := make(chan error, 1)
	go func() {
		_, err := c.CallArgs(emptyQueue(randn(tensor.Float32, false, 2, 3)), x)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call after a panic did not return within 10s: deadlock on the Compiled's lock")
	}
}
