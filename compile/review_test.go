package compile_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// callWithin runs f, failing the test when it does not return within d
// (a call blocked on a lock left held).
func callWithin(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("the call did not return within %v: deadlock", d)
	}
}

// A Go panic (not a *tensor.Error) inside the traced function while Call
// traces it propagates to the caller, and leaves the Compiled usable: a
// later call does not block on c.mu.
func TestCompilePanicInTraceReleasesLock(t *testing.T) {
	boom := true
	c := compile.Compile(func(x *T) *T {
		y := x.Sin()
		if boom {
			panic("boom")
		}
		return y.Cos()
	})
	x := tensor.Randn([]int{3})
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the function's panic", r)
			}
		}()
		c.Call(x)
	}()
	boom = false
	callWithin(t, 10*time.Second, func() {
		res, err := c.Call(x)
		if err != nil {
			t.Error(err)
			return
		}
		sameValues(t, "result", res.(*T), x.Sin().Cos())
	})
	callWithin(t, 10*time.Second, func() { c.Stats() })
}

// One compiled function that reads tensor data (segments, replayed tapes)
// called from 4 goroutines at once: each call's result is its own
// eager result (run under -race).
func TestSegmentsConcurrentCalls(t *testing.T) {
	for _, b := range reviewBackends {
		t.Run(b.name, func(t *testing.T) { segmentsConcurrentCalls(t, b.b) })
	}
}

// reviewBackends are the backends the concurrency tests run on: Eager's
// program, and compile/cpu's plans with their arenas.
var reviewBackends = []struct {
	name string
	b    compile.Backend
}{{"eager", compile.Eager}, {"cpu", cpu.Backend}}

func segmentsConcurrentCalls(t *testing.T, backend compile.Backend) {
	fn := func(x *T) *T {
		y := x.Sin().MulScalar(2)
		if y.SumAll().Item().Float64() > 0 {
			return y.Cos()
		}
		return y.Exp()
	}
	c := compile.Compile(fn, compile.Options{Backend: backend, Logf: func(string, ...any) {}})
	tensor.ManualSeed(5)
	var xs []*T
	for range 4 {
		xs = append(xs, tensor.Randn([]int{4, 3}))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				x := xs[(g+i)%4]
				res, err := c.Call(x)
				if err != nil {
					t.Error(err)
					return
				}
				sameValues(t, "result", res.(*T), fn(x))
			}
		}()
	}
	wg.Wait()
	if s := c.Stats(); s.Calls != 80 || s.SegmentReplays == 0 {
		t.Errorf("stats %+v: want 80 calls, some replayed", s)
	}
}

// A backend that fails by panicking with a *tensor.Error (as ops do) while
// a segment's graph is compiled: the call returns the error, and the next
// call does not block on the Compiled's lock.
func TestSegmentBackendPanicReleasesLock(t *testing.T) {
	fail := true
	backend := func(gm *fx.GraphModule, in []*tensor.Tensor) (compile.Runnable, error) {
		if fail {
			tensor.Panicf("backend: cannot compile")
		}
		return compile.Eager(gm, in)
	}
	fn := func(x *T) *T {
		y := x.Sin()
		if y.SumAll().Item().Float64() > 1e9 {
			return y
		}
		return y.Cos()
	}
	c := compile.Compile(fn, compile.Options{Backend: backend, Logf: func(string, ...any) {}})
	x := tensor.Randn([]int{3})
	callWithin(t, 10*time.Second, func() {
		if _, err := c.Call(x); err == nil || !strings.Contains(err.Error(), "backend: cannot compile") {
			t.Errorf("got error %v, want the backend's", err)
		}
	})
	fail = false
	callWithin(t, 10*time.Second, func() {
		res, err := c.Call(x)
		if err != nil {
			t.Error(err)
			return
		}
		sameValues(t, "result", res.(*T), fn(x))
	})
}
