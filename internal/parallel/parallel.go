// Package parallel is goaten's CPU worker pool: a fixed set of goroutines,
// started on first need and never stopped, that the GEMM kernels (package
// asm) and the CPU device's strided loops share. It is sized by GOMAXPROCS,
// read at each call, and small problems never reach it: callers check a
// grain size first, so a small op creates no goroutine, takes no lock and
// allocates nothing.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinFor is how long an idle worker or helper keeps looking for work
// before it parks. Waking a parked one takes the OS (and on a virtual
// machine the hypervisor) 50–150 µs, measured here as the start lag of the
// second GEMM goroutine: a sixth of a 512³ sgemm on two cores. Back-to-back
// parallel ops (a training loop, a benchmark) find a worker still looking;
// between them an idle worker yields its thread to any other goroutine
// (runtime.Gosched) at each look, so it delays nothing that can run.
const spinFor = 500 * time.Microsecond

// poll waits up to spinFor for a value on ch without parking, yielding
// between looks; ok is false if none came.
func poll[T any](ch chan T) (v T, ok bool) {
	start := time.Now()
	for {
		select {
		case v = <-ch:
			return v, true
		default:
		}
		if time.Since(start) > spinFor {
			return v, false
		}
		runtime.Gosched()
	}
}

type task struct {
	f     func(i int)
	i     int
	wg    *sync.WaitGroup
	first *atomic.Pointer[panicked] // the For call's first panic
}

// panicked is a panic value caught in a task, to be raised again on the
// goroutine that called For.
type panicked struct{ v any }

var pool struct {
	mu      sync.Mutex
	workers int
	tasks   chan task
}

func init() { pool.tasks = make(chan task, 256) }

// Workers returns how many goroutines a parallel section may use now
// (GOMAXPROCS).
func Workers() int { return runtime.GOMAXPROCS(0) }

// For runs f(0), …, f(n-1) and returns when all are done: f(0) on the
// calling goroutine, the others on pool workers. While it waits, the caller
// runs queued tasks itself, so nested calls cannot deadlock. A panic in any
// f(i) (an op's error, such as an integer division by zero) is raised again
// on the caller once every f(i) has returned, with the first panic's value:
// it neither kills the process from a worker nor leaves workers writing
// after the caller has moved on.
func For(n int, f func(i int)) {
	if n <= 1 {
		if n == 1 {
			f(0)
		}
		return
	}
	startWorkers(n - 1)
	var wg sync.WaitGroup
	var first atomic.Pointer[panicked]
	wg.Add(n)
	for i := 1; i < n; i++ {
		pool.tasks <- task{f, i, &wg, &first}
	}
	task{f, 0, &wg, &first}.run()
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
	if p := first.Load(); p != nil {
		Rethrow(p.v)
	}
}

// Rethrow raises a worker's panic value again on the caller. Package tensor
// sets it to tensor.Rethrow, so that a *tensor.Error keeps its op name and
// the user's line when it crosses goroutines.
var Rethrow = func(v any) { panic(v) }

func (t task) run() {
	defer t.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			t.first.CompareAndSwap(nil, &panicked{r})
		}
	}()
	t.f(t.i)
}

// startWorkers makes sure at least n workers exist.
func startWorkers(n int) {
	pool.mu.Lock()
	for pool.workers < n {
		pool.workers++
		go func() {
			for {
				t, ok := poll(pool.tasks)
				if !ok {
					t = <-pool.tasks
				}
				t.run()
			}
		}()
	}
	pool.mu.Unlock()
}

// Pieces returns how many pieces n units of work split into so that each
// has at least grain units and no more pieces than Workers: 1 when n is
// below twice the grain (without asking for GOMAXPROCS).
func Pieces(n, grain int) int {
	if n < 2*grain {
		return 1
	}
	return max(1, min(Workers(), n/grain))
}

// Range splits [0, n) into p = Pieces(n, grain) contiguous ranges, whose
// bounds other than n are multiples of align, and calls f(lo, hi) for each,
// in parallel when p > 1. The split depends on GOMAXPROCS: callers whose
// result would depend on where a range starts (a floating-point sum) use
// For over pieces of a fixed size instead.
func Range(n, grain, align int, f func(lo, hi int)) {
	p := Pieces(n, grain)
	if p == 1 {
		f(0, n)
		return
	}
	step := (n + p - 1) / p
	step = (step + align - 1) / align * align
	For((n+step-1)/step, func(i int) { f(i*step, min(n, (i+1)*step)) })
}

// helpers counts the helper goroutines of Go that are idle: looking for a
// job on helperJobs, or parked on it.
var (
	helpers    atomic.Int32
	helperJobs = make(chan helperJob, 64)
)

type helperJob struct {
	f  func()
	wg *sync.WaitGroup
}

// Go runs f on a goroutine of its own that starts at once, then calls
// wg.Done, for work whose goroutines wait for each other (a GEMM team) and
// so cannot sit in the pool's queue: an idle helper when there is one
// (still looking for work after its last job, it starts within a
// microsecond), else a new one. A helper counts itself idle before wg.Done,
// so a caller that waits on wg and calls Go again finds it. Helpers stay
// for the next job; beyond GOMAXPROCS-1 idle ones (what a team of
// GOMAXPROCS needs) they exit.
func Go(wg *sync.WaitGroup, f func()) {
	if helpers.Add(-1) >= 0 {
		helperJobs <- helperJob{f, wg} // an idle helper is bound to take it
		return
	}
	helpers.Add(1)
	go helper(helperJob{f, wg})
}

func helper(j helperJob) {
	for {
		j.f()
		stay := false
		for {
			n := helpers.Load()
			if int(n) >= max(1, Workers()-1) {
				break
			}
			if helpers.CompareAndSwap(n, n+1) {
				stay = true
				break
			}
		}
		j.wg.Done()
		if !stay {
			return
		}
		var ok bool
		if j, ok = poll(helperJobs); !ok {
			j = <-helperJobs
		}
	}
}
