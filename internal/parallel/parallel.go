// Package parallel is goaten's CPU worker pool: goroutines, started on
// first need, that the GEMM kernels (package asm) and the CPU device's
// strided loops share. It is sized by GOMAXPROCS, read at each call, and
// small problems never reach it: callers check a grain size first, so a
// small op creates no goroutine, takes no lock and allocates nothing.
//
// One set of goroutines serves both entry points, For (pieces of a loop
// that the caller also works through) and Go (team members that must run
// at once). A goroutine that finishes a job goes idle: it pushes itself on
// a stack and looks for its next job for a while (spinFor) before it parks,
// unless other threads are waiting for a CPU (busy).
// The stack is last in, first out, so a job goes to the goroutine likeliest
// to be still looking, which takes it within a microsecond, instead of
// waking a parked one while another spins: a spinning goroutine keeps its P
// busy (it yields with runtime.Gosched, which requeues it), so a goroutine
// woken onto the caller's P would not be stolen by that P until the spin
// ends — up to spinFor late.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinFor is how long an idle goroutine keeps looking for work before it
// parks, when the machine has CPU time to spare (see busy). Waking a parked
// one takes the OS (and on a virtual machine the hypervisor) 50–150 µs,
// measured here as the start lag of the second GEMM goroutine: a sixth of a
// 512³ sgemm on two cores. Back-to-back parallel ops (a training loop, a
// benchmark) find a goroutine still looking.
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

// job is one piece of work for a pool goroutine: a For's loop (loop set)
// or a Go's function (fn set).
type job struct {
	loop *forLoop
	fn   func()
	wg   *sync.WaitGroup
}

// worker is a pool goroutine; jobs hands it its next job while it is idle,
// and spinning says that it is looking for one without having parked.
type worker struct {
	jobs     chan job
	spinning atomic.Bool
}

// wait returns the worker's next job: it looks for one for up to spinFor,
// unless other threads wait for a CPU (busy), and then parks.
func (w *worker) wait() job {
	if !busy() {
		spinners.Add(1)
		w.spinning.Store(true)
		j, ok := poll(w.jobs)
		w.spinning.Store(false)
		spinners.Add(-1)
		if ok {
			return j
		}
	}
	return <-w.jobs
}

// spinners counts the idle goroutines that are spinning (in poll).
var spinners atomic.Int32

// Spinning reports whether an idle pool goroutine is looking for work
// without having parked: whether ForSmall may find a helper now. A caller
// that would otherwise run every piece of a ForSmall itself can check it
// first and skip the loop's bookkeeping.
func Spinning() bool { return spinners.Load() > 0 }

var pool struct {
	mu    sync.Mutex
	idle  []*worker // last in, first out
	total int       // goroutines alive, busy or idle
}

// Workers returns how many goroutines a parallel section may use now
// (GOMAXPROCS).
func Workers() int { return runtime.GOMAXPROCS(0) }

// maxIdle is how many idle goroutines stay: what a team of GOMAXPROCS
// needs besides its caller.
func maxIdle() int { return max(1, Workers()-1) }

// dispatch hands j to an idle goroutine, or to a new one when there is
// none and must is set or fewer than GOMAXPROCS-1 exist; it reports
// whether j was handed out. With spinning set, j goes only to an idle
// goroutine that is still spinning (a small job: waking a parked one, or
// starting one, takes 50–150 µs on an idle machine, longer on a busy one,
// and CPU time).
func dispatch(j job, must, spinning bool) bool {
	pool.mu.Lock()
	if n := len(pool.idle); n > 0 && (!spinning || pool.idle[n-1].spinning.Load()) {
		w := pool.idle[n-1]
		pool.idle[n-1] = nil
		pool.idle = pool.idle[:n-1]
		pool.mu.Unlock()
		w.jobs <- j // its buffer is empty while it is on the stack
		return true
	}
	if !must && (spinning || pool.total >= Workers()-1) {
		pool.mu.Unlock()
		return false
	}
	pool.total++
	pool.mu.Unlock()
	go work(j)
	return true
}

// work runs j and then the jobs handed to it, until it finds enough idle
// goroutines already on the stack when it would join them.
func work(j job) {
	w := &worker{jobs: make(chan job, 1)}
	for {
		if j.loop != nil {
			j.loop.run()
		} else {
			j.fn()
		}
		// Idle before wg.Done, so that a caller that waits on wg and
		// starts another team finds this goroutine.
		pool.mu.Lock()
		stay := len(pool.idle) < maxIdle()
		if stay {
			pool.idle = append(pool.idle, w)
		} else {
			pool.total--
		}
		pool.mu.Unlock()
		j.wg.Done()
		if !stay {
			return
		}
		j = w.wait()
	}
}

// forLoop is a For in progress: its goroutines take the next index until
// none is left.
type forLoop struct {
	f     func(i int)
	rf    func(lo, hi int) // a Range's f, called on piece i: [i·step, min(total, (i+1)·step))
	step  int
	total int
	n     int
	next  atomic.Int64
	wg    sync.WaitGroup
	first atomic.Pointer[panicked] // the first panic of an f(i)
}

// panicked is a panic value caught in a task, to be raised again on the
// goroutine that called For.
type panicked struct{ v any }

func (l *forLoop) run() {
	for {
		i := int(l.next.Add(1) - 1)
		if i >= l.n {
			return
		}
		l.call(i)
	}
}

func (l *forLoop) call(i int) {
	defer func() {
		if r := recover(); r != nil {
			l.first.CompareAndSwap(nil, &panicked{r})
		}
	}()
	if l.rf != nil {
		l.rf(i*l.step, min(l.total, (i+1)*l.step))
		return
	}
	l.f(i)
}

// loops keeps finished forLoops: once For's caller has waited for every
// goroutine it handed the loop to, nothing refers to it any more.
var loops = sync.Pool{New: func() any { return new(forLoop) }}

// For runs f(0), …, f(n-1) and returns when all are done: f(0) on the
// calling goroutine, the others on whichever goroutine takes them first —
// up to GOMAXPROCS-1 pool goroutines and the caller, which takes the next
// index after each of its own. An index no pool goroutine has started by
// then runs on the caller, so a late or busy goroutine (a nested For, a
// thread the OS has not scheduled yet) delays nothing, and nested calls
// cannot deadlock. A panic in any f(i) (an op's error, such as an integer
// division by zero) is raised again on the caller once every f(i) has
// returned, with the first panic's value: it neither kills the process
// from a worker nor leaves workers writing after the caller has moved on.
func For(n int, f func(i int)) { forN(n, f, false) }

// ForSmall is For for a loop whose f(i) are short and slowed by a helper
// that starts late: only pool goroutines that are still spinning take
// indices, the caller the rest (see dispatch).
func ForSmall(n int, f func(i int)) { forN(n, f, true) }

// forN is For; with spinning set, only spinning goroutines are asked to
// help.
func forN(n int, f func(i int), spinning bool) {
	if n <= 1 {
		if n == 1 {
			f(0)
		}
		return
	}
	l := loops.Get().(*forLoop)
	l.f = f
	runLoop(l, n, spinning)
}

// runLoop runs the n calls of l (its f or rf set) and puts l back in loops.
func runLoop(l *forLoop, n int, spinning bool) {
	l.n = n
	l.next.Store(1)
	for range min(n-1, Workers()-1) {
		l.wg.Add(1)
		if !dispatch(job{loop: l, wg: &l.wg}, false, spinning) {
			l.wg.Done()
			break
		}
	}
	l.call(0)
	l.run()
	l.wg.Wait()
	p := l.first.Swap(nil)
	l.f, l.rf = nil, nil
	loops.Put(l)
	if p != nil {
		Rethrow(p.v)
	}
}

// Rethrow raises a worker's panic value again on the caller. Package tensor
// sets it to tensor.Rethrow, so that a *tensor.Error keeps its op name and
// the user's line when it crosses goroutines.
var Rethrow = func(v any) { panic(v) }

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
	// Small pieces go only to spinning goroutines while other threads wait
	// for a CPU (SmallPiece). A grain of 1 may stand for units of any size
	// (callers clamp grain/unitSize to at least 1): only a larger one
	// tells the work.
	l := loops.Get().(*forLoop)
	l.rf, l.step, l.total = f, step, n
	runLoop(l, (n+step-1)/step, grain > 1 && step < SmallPiece*grain && busy())
}

// SmallPiece is the size of a Range's piece, in grains, below which it is
// shared, while other threads wait for a CPU, only with goroutines that
// are spinning (dispatch): 32 grains are about a million elements of a
// loop whose grain is 32768 elements, 0.1–1 ms of work. Measured on the
// project machine under other sessions' load (when idle goroutines do not
// spin), smaller pieces took up to 1.4 times as long on two cores as on
// one (the mean over the spatial dims of 8×64×56×56, layer_norm's backward
// over 1024×256), with up to 1.4 times the CPU time; on the idle machine a
// parked goroutine woken for them still saved 15–35% (gather, constant
// padding). The pieces are the same either way; only which goroutine runs
// them changes.
const SmallPiece = 32

// Go runs f on a goroutine of its own that starts at once, then calls
// wg.Done, for work whose goroutines wait for each other (a GEMM team) and
// so cannot wait for a pool goroutine to come free: an idle pool goroutine
// when there is one (still looking for work after its last job, it starts
// within a microsecond), else a new one. A pool goroutine goes idle before
// wg.Done, so a caller that waits on wg and calls Go again finds it; beyond
// GOMAXPROCS-1 idle ones (what a team of GOMAXPROCS needs) they exit.
func Go(wg *sync.WaitGroup, f func()) {
	dispatch(job{fn: f, wg: wg}, true, false)
}
