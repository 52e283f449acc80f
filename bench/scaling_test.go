package bench

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/internal/cputime"
)

// BenchmarkScaling (issue 25) calls each op with GOMAXPROCS 1 and 2 in
// turn, one call each, so that both see the same load on a shared machine,
// and reports the median time of a call at each setting and their ratio:
//
//	p1-ms, p2-ms   median time of a call with GOMAXPROCS 1, 2
//	p2/p1          p2-ms / p1-ms: above 1, two cores are slower than one
//	p1-cpu, p2-cpu process CPU time per call, in ms: on a machine shared
//	               with others a second core's CPU time comes out of the
//	               same share, so an idle thread that spins costs the busy one
//	faults         page faults per call (a result in pages fresh from the OS)
//	p1-GB/s, p2-GB/s bytes moved per second at the median, where counted
//
// Cases: ref/ — STREAM's copy and triad in plain Go and package asm's add
// kernel on preallocated 16M float32 slices, split among GOMAXPROCS
// goroutines of their own: the bandwidth the machine gives one and two
// cores in the same run; elementwise/ — BenchmarkElementwise's ops; ops/ —
// the op survey of BenchmarkOps. Each sub-benchmark sets GOMAXPROCS itself
// (go test's -cpu does not apply; ns/op is the time of a pair). Issue 25's
// target: no p2/p1 above 1.
func BenchmarkScaling(b *testing.B) {
	xs, ys := randFloat32s(n16M, 1), randFloat32s(n16M, 2)
	ds := make([]float32, n16M)
	copy(ds, xs) // resident before the first timing
	refs := []apiCase{
		{"stream-copy/16M", n16M, 8 * n16M, func() { split(n16M, func(lo, hi int) { copy(ds[lo:hi], xs[lo:hi]) }) }},
		{"stream-triad/16M", n16M, 12 * n16M, func() {
			split(n16M, func(lo, hi int) {
				d, a, c := ds[lo:hi], xs[lo:hi], ys[lo:hi]
				for i := range d {
					d[i] = a[i] + 3*c[i]
				}
			})
		}},
		{"add-kernel/16M", n16M, 12 * n16M, func() {
			split(n16M, func(lo, hi int) { asm.AddF32(ds[lo:hi], xs[lo:hi], ys[lo:hi]) })
		}},
	}
	for _, c := range refs {
		b.Run("ref/"+c.name, func(b *testing.B) { runPairs(b, c) })
	}
	for _, c := range elementwiseCases() {
		b.Run("elementwise/"+c.name, func(b *testing.B) { runPairs(b, c) })
	}
	for _, c := range opsCases(b) {
		b.Run("ops/"+c.name, func(b *testing.B) { runPairs(b, c) })
	}
}

// split runs f over GOMAXPROCS contiguous pieces of [0, n) on goroutines
// of its own: the references' parallel loop.
func split(n int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for i := 1; i < p; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(n*i/p, n*(i+1)/p)
		}()
	}
	f(0, n/p)
	wg.Wait()
}

// runPairs times c.f with GOMAXPROCS 1 and 2 in turn (which goes first
// alternates), after a warm-up that lasts until the collector has run
// twice (at most 64 calls or about 200 ms of them): the heap has then grown
// to hold a cycle's garbage, and the timed calls reuse its pages as a loop
// of such calls does. The 64 MiB results of the 16M cases take a cycle of
// about six calls; before it, each call's result is in pages fresh from
// the OS.
func runPairs(b *testing.B, c apiCase) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	start := time.Now()
	for gc, i := ms.NumGC, 0; i < 64 && ms.NumGC < gc+2 && (i < 4 || time.Since(start) < 200*time.Millisecond); i++ {
		runtime.GOMAXPROCS(1 + i%2)
		c.f()
		runtime.ReadMemStats(&ms)
	}
	var (
		times [2][]float64
		cpu   [2]time.Duration
		flt   int64
		calls int
	)
	for b.Loop() {
		for k := range 2 {
			p := (k + calls) % 2 // 0: GOMAXPROCS 1, 1: GOMAXPROCS 2
			runtime.GOMAXPROCS(p + 1)
			c0, f0 := cputime.Process(), cputime.MinorFaults()
			t0 := time.Now()
			c.f()
			el := time.Since(t0)
			cpu[p] += cputime.Process() - c0
			flt += cputime.MinorFaults() - f0
			times[p] = append(times[p], float64(el.Nanoseconds()))
		}
		calls++
	}
	med := [2]float64{median(times[0]), median(times[1])}
	b.ReportMetric(med[0]/1e6, "p1-ms")
	b.ReportMetric(med[1]/1e6, "p2-ms")
	b.ReportMetric(med[1]/med[0], "p2/p1")
	b.ReportMetric(cpu[0].Seconds()*1e3/float64(calls), "p1-cpu")
	b.ReportMetric(cpu[1].Seconds()*1e3/float64(calls), "p2-cpu")
	b.ReportMetric(float64(flt)/float64(2*calls), "faults")
	if c.bytes > 0 {
		b.ReportMetric(float64(c.bytes)/med[0], "p1-GB/s")
		b.ReportMetric(float64(c.bytes)/med[1], "p2-GB/s")
	}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
