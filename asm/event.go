package asm

import (
	"runtime"
	"sync"
)

// The parallel GEMM drivers run on the shared worker pool of package
// internal/parallel; event is how their goroutines wait for each other.

// event lets goroutines wait for a condition on atomics that others
// change: a waiter spins a little (the change is usually microseconds
// away), then sleeps until a notify. Whoever makes a condition true calls
// notify after the change.
type event struct {
	mu   sync.Mutex
	cond *sync.Cond
	once sync.Once
}

func (e *event) init() { e.cond = sync.NewCond(&e.mu) }

// wait returns once ready() is true.
func (e *event) wait(ready func() bool) {
	for i := 0; i < 4000; i++ {
		if ready() {
			return
		}
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
	e.once.Do(e.init)
	e.mu.Lock()
	for !ready() {
		e.cond.Wait()
	}
	e.mu.Unlock()
}

// notify wakes the sleeping waiters to check their conditions again.
func (e *event) notify() {
	e.once.Do(e.init)
	e.mu.Lock()
	e.cond.Broadcast()
	e.mu.Unlock()
}
