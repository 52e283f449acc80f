package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goaten/goaten/internal/goid"
)

// TestRange checks that every index is visited exactly once, ranges are
// aligned, and the number of pieces follows the grain and GOMAXPROCS.
func TestRange(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 15, 16, 100, 1000, 4097, 100000} {
			for _, grain := range []int{1, 16, 1000} {
				seen := make([]int32, n)
				var pieces atomic.Int32
				Range(n, grain, 8, func(lo, hi int) {
					pieces.Add(1)
					if lo%8 != 0 || lo > hi || hi > n {
						t.Errorf("n=%d grain=%d: bad range [%d,%d)", n, grain, lo, hi)
						return
					}
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&seen[i], 1)
					}
				})
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("procs=%d n=%d grain=%d: index %d visited %d times", procs, n, grain, i, s)
					}
				}
				if want := Pieces(n, grain); int(pieces.Load()) > want {
					t.Errorf("procs=%d n=%d grain=%d: %d pieces, want at most %d", procs, n, grain, pieces.Load(), want)
				}
				if n < 2*grain && pieces.Load() > 1 {
					t.Errorf("n=%d grain=%d: split below twice the grain", n, grain)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestForNested runs For inside For deeper than there are workers: the
// callers drain the queue themselves, so it must finish.
func TestForNested(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var count atomic.Int64
	For(4, func(int) {
		For(4, func(int) {
			For(4, func(int) { count.Add(1) })
		})
	})
	if got := count.Load(); got != 64 {
		t.Fatalf("nested For ran %d leaves, want 64", got)
	}
}

// TestSmallNoAlloc: a range below the grain runs inline and allocates nothing.
func TestSmallNoAlloc(t *testing.T) {
	sum := 0
	f := func(lo, hi int) { sum += hi - lo }
	if a := testing.AllocsPerRun(100, func() { Range(100, 1000, 1, f) }); a != 0 {
		t.Fatalf("Range below the grain allocated %v times", a)
	}
	if sum != 100*101 {
		t.Fatalf("sum = %d", sum)
	}
}

// TestSplitNoAlloc: a Range or For split among goroutines reuses its
// bookkeeping from call to call: a warm call allocates nothing.
func TestSplitNoAlloc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var sum atomic.Int64
	f := func(lo, hi int) { sum.Add(int64(hi - lo)) }
	g := func(i int) { sum.Add(1) }
	Range(1000, 10, 1, f)
	if a := testing.AllocsPerRun(100, func() { Range(1000, 10, 1, f) }); a != 0 {
		t.Errorf("Range split in pieces allocated %v times a call", a)
	}
	if a := testing.AllocsPerRun(100, func() { For(4, g) }); a != 0 {
		t.Errorf("For allocated %v times a call", a)
	}
	if want := int64(1000*102 + 4*101); sum.Load() != want {
		t.Fatalf("sum = %d, want %d", sum.Load(), want)
	}
}

// TestGo checks that Go starts every f at once: 16 goroutines that each
// wait until all 16 run would deadlock (the test times out) if one sat in
// a queue behind the others; and again with the goroutines of the first
// round idle, which must take the next jobs as well. Of the 16, one
// (GOMAXPROCS-1) stays idle once wg.Wait returns.
func TestGo(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for round := 0; round < 3; round++ {
		const n = 16
		var started atomic.Int32
		var wg sync.WaitGroup
		wg.Add(n)
		for i := 0; i < n; i++ {
			Go(&wg, func() {
				started.Add(1)
				for started.Load() < n {
					runtime.Gosched()
				}
			})
		}
		wg.Wait()
		// The goroutines went idle before wg.Done: the next round must
		// not need new ones for its first GOMAXPROCS-1 jobs.
		if h := idleCount(); h != 1 {
			t.Fatalf("round %d: %d idle goroutines after the jobs, want GOMAXPROCS-1 = 1", round, h)
		}
	}
}

func spinningIdle() bool {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, w := range pool.idle {
		if w.spinning.Load() {
			return true
		}
	}
	return false
}

func idleCount() int {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	return len(pool.idle)
}

// TestGoAfterFor: a team started right after a For (a convolution's batch
// loop, then its products) runs on the goroutine the For left idle, not on
// a new one woken onto the caller's P, which the idle goroutine's spinning
// would keep from running.
func TestGoAfterFor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	For(2, func(int) {})
	pool.mu.Lock()
	total, idle := pool.total, len(pool.idle)
	pool.mu.Unlock()
	if idle != 1 {
		t.Fatalf("after For: %d idle goroutines, want 1", idle)
	}
	for range 100 {
		var wg sync.WaitGroup
		wg.Add(1)
		Go(&wg, func() {})
		wg.Wait()
		For(2, func(int) {})
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.total != total {
		t.Fatalf("Go and For started goroutines: %d alive, %d before", pool.total, total)
	}
}

// TestForCaller: f(0) runs on the calling goroutine, and every index runs
// once even when no pool goroutine is free (a For inside a For's task).
func TestForCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for range 50 {
		var mine atomic.Bool
		me := goid.ID()
		var seen [8]atomic.Int32
		For(2, func(int) {
			For(8, func(i int) { seen[i].Add(1) })
		})
		For(3, func(i int) {
			if i == 0 && goid.ID() == me {
				mine.Store(true)
			}
		})
		if !mine.Load() {
			t.Fatal("f(0) did not run on the calling goroutine")
		}
		for i := range seen {
			if n := seen[i].Load(); n != 2 {
				t.Fatalf("index %d ran %d times, want 2", i, n)
			}
		}
	}
}

// TestSmallPiecesStay: with no goroutine spinning (GOATEN_SPIN=0, which
// also counts as CPU pressure), a Range of small pieces runs them all on
// the caller, and one of large
// pieces still visits every index once.
func TestSmallPiecesStay(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer spinMode.Store(spinMode.Swap(spinNever))
	For(2, func(int) {}) // a pool goroutine exists
	for spinningIdle() {
		runtime.Gosched() // until the idle goroutines have parked
	}
	me := goid.ID()
	for range 20 {
		var away atomic.Int32
		Range(2*(2*SmallPiece-2), 2, 1, func(lo, hi int) { // two pieces of SmallPiece-1 grains
			if goid.ID() != me {
				away.Add(1)
			}
		})
		if away.Load() != 0 {
			t.Fatal("a small piece ran on a parked goroutine")
		}
		var seen [4 * SmallPiece * 2]atomic.Int32
		Range(len(seen), 2, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("index %d visited %d times", i, seen[i].Load())
			}
		}
	}
}

// TestParseAvg10 reads /proc/pressure/cpu's format.
func TestParseAvg10(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"some avg10=46.76 avg60=54.28 avg300=61.24 total=2018786011\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 46.76, true},
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 0, true},
		{"", 0, false},
		{"some avg10=x avg60=1", 0, false},
	} {
		got, ok := parseAvg10([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseAvg10(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// A panic in a task, on a worker or on the caller, reaches For's caller with
// its value, after every task has returned.
func TestForPanics(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, bad := range []int{0, 1, 5} {
		var done atomic.Int32
		got := func() (r any) {
			defer func() { r = recover() }()
			For(8, func(i int) {
				defer done.Add(1)
				if i == bad {
					panic("task failed")
				}
				for j := 0; j < 1000; j++ {
					runtime.Gosched()
				}
			})
			return nil
		}()
		if got != "task failed" {
			t.Fatalf("task %d panicked; For's caller recovered %v", bad, got)
		}
		if n := done.Load(); n != 8 {
			t.Fatalf("task %d panicked; For returned with %d of 8 tasks finished", bad, n)
		}
	}
	// The pool still works afterwards.
	var sum atomic.Int64
	For(8, func(i int) { sum.Add(int64(i)) })
	if sum.Load() != 28 {
		t.Fatalf("after panics, For summed %d, want 28", sum.Load())
	}
}

// TestSpinning: Spinning reports a goroutine that waits for a job in its
// spin (GOATEN_SPIN=1), and none once it has its job, or when it waits
// parked (GOATEN_SPIN=0). With one P the waiting goroutine runs only when
// the test yields, so its spin cannot run out unseen.
func TestSpinning(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer spinMode.Store(spinMode.Swap(spinNever))
	for spinners.Load() != 0 {
		runtime.Gosched() // the pool's goroutines spin out and park
	}
	for _, mode := range []int32{spinAlways, spinNever} {
		spinMode.Store(mode)
		w := &worker{jobs: make(chan job, 1)}
		done := make(chan job)
		go func() { done <- w.wait() }()
		saw := false
		for range 100 {
			runtime.Gosched()
			if Spinning() {
				saw = true
				break
			}
		}
		if saw != (mode == spinAlways) {
			t.Fatalf("spin mode %d: Spinning() = %v while a goroutine waits", mode, saw)
		}
		w.jobs <- job{fn: func() {}}
		<-done
		if Spinning() || spinners.Load() != 0 {
			t.Fatalf("spin mode %d: %d spinning goroutines counted after the wait", mode, spinners.Load())
		}
	}
}
