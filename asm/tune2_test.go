package asm

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestTuneParallel(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	save := parallelMin
	defer func() { parallelMin = save }()
	for _, n := range []int{48, 64, 80, 96, 128, 160, 192, 256} {
		a, b, c := benchOperands[float32](n)
		reps := max(1, 20000000/(n*n*n))
		best := [2]time.Duration{time.Hour, time.Hour}
		for rep := 0; rep < 60; rep++ {
			for mode := 0; mode < 2; mode++ {
				parallelMin = 1 << 62
				if mode == 1 {
					parallelMin = 0
				}
				t0 := time.Now()
				for i := 0; i < reps; i++ {
					Sgemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
				}
				best[mode] = min(best[mode], time.Since(t0))
			}
		}
		f := 2 * float64(n*n*n) * float64(reps) / 1e9
		t.Logf("N=%d serial %.1f parallel %.1f GFLOP/s", n, f/best[0].Seconds(), f/best[1].Seconds())
	}
}
