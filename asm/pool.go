package asm

import (
	"runtime"
	"sync"
)

// A tiny shared worker pool for the parallel kernels. Workers are started on
// first need and never exit; their number only grows, up to the largest fan-out
// asked for (GOMAXPROCS-1 in practice). Small problems never reach it, so they
// create no goroutines and take no locks.

type poolTask struct {
	f  func(i int)
	i  int
	wg *sync.WaitGroup
}

var pool struct {
	mu      sync.Mutex
	workers int
	tasks   chan poolTask
}

func init() { pool.tasks = make(chan poolTask, 256) }

// workers returns how many pieces a parallel kernel may split into now.
func workers() int { return runtime.GOMAXPROCS(0) }

// parallelFor runs f(0), …, f(n-1) and returns when all are done: f(0) on
// the calling goroutine, the others on pool workers. While it waits, the
// caller runs queued tasks itself, so nested calls cannot deadlock.
func parallelFor(n int, f func(i int)) {
	if n <= 1 {
		if n == 1 {
			f(0)
		}
		return
	}
	startWorkers(n - 1)
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for i := 1; i < n; i++ {
		pool.tasks <- poolTask{f, i, &wg}
	}
	f(0)
	for {
		select {
		case t := <-pool.tasks:
			t.run()
			continue
		default:
		}
		break
	}
	wg.Wait()
}

func (t poolTask) run() {
	t.f(t.i)
	t.wg.Done()
}

// startWorkers makes sure at least n workers exist.
func startWorkers(n int) {
	pool.mu.Lock()
	for pool.workers < n {
		pool.workers++
		go func() {
			for t := range pool.tasks {
				t.run()
			}
		}()
	}
	pool.mu.Unlock()
}

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
