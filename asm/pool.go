package asm

import (
	"runtime"
	"sync"
	"sync/atomic"
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

// barrier is a reusable meeting point for n goroutines. A goroutine that
// arrives early spins a little (the others are usually microseconds away)
// and then sleeps.
type barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
	mu    sync.Mutex
	cond  sync.Cond
}

func newBarrier(n int) *barrier {
	b := &barrier{n: int32(n)}
	b.cond.L = &b.mu
	return b
}

// wait returns once all n goroutines have called it (for this round).
func (b *barrier) wait() {
	gen := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.mu.Lock()
		b.gen.Add(1)
		b.cond.Broadcast()
		b.mu.Unlock()
		return
	}
	for i := 0; i < 4000; i++ {
		if b.gen.Load() != gen {
			return
		}
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
	b.mu.Lock()
	for b.gen.Load() == gen {
		b.cond.Wait()
	}
	b.mu.Unlock()
}
