package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
)

// TestCompileCPUAlternating times issue 24's chains (see
// BenchmarkCompileCPU) eagerly, with the Eager backend and with the cpu
// backend at each tile size of COMPILE_CPU_TILES (default: the default
// tile), the variants alternated call by call, COMPILE_CPU_REPS rounds, and
// prints the minimum and median per variant: on a shared machine whose
// load moves a benchmark by 2x from one minute to the next, only variants
// timed in the same minutes compare. By default it reports the process's
// CPU time per call (user and system, all threads: the collector's work
// included), which other processes' load disturbs less than wall time;
// COMPILE_CPU_WALL=1 reports wall time. It never fails: it measures. Run
// it with -cpu 1 or -cpu 2:
//
//	COMPILE_CPU_REPS=11 go test -run CompileCPUAlternating -cpu 1 -v ./bench/
func TestCompileCPUAlternating(t *testing.T) {
	reps, _ := strconv.Atoi(os.Getenv("COMPILE_CPU_REPS"))
	if reps == 0 {
		t.Skip("a measurement, not a check (it never fails): set COMPILE_CPU_REPS=N to run it")
	}
	wall := os.Getenv("COMPILE_CPU_WALL") == "1"
	var tiles []int
	for _, s := range strings.Split(os.Getenv("COMPILE_CPU_TILES"), ",") {
		if v, err := strconv.Atoi(s); err == nil {
			tiles = append(tiles, v)
		}
	}
	if tiles == nil {
		tiles = []int{compilecpu.DefaultTileElems}
	}
	unit := "CPU time"
	if wall {
		unit = "wall time"
	}
	fmt.Printf("# %s per call, GOMAXPROCS %d, %d rounds\n", unit, runtime.GOMAXPROCS(0), reps)
	for _, c := range chains() {
		in := c.inputs
		names := []string{"eager", "compiled-eager"}
		fs := []func(){directCall(c.f, in)}
		ce := compile.Compile(c.f, compile.Options{Backend: compile.Eager})
		fs = append(fs, func() { ce.Call(in...) })
		for _, tl := range tiles {
			cc := compile.Compile(c.f, compile.Options{Backend: compilecpu.New(compilecpu.Options{TileElems: tl})})
			names = append(names, fmt.Sprintf("compiled-cpu/tile%d", tl))
			fs = append(fs, func() { cc.Call(in...) })
		}
		times := make([][]float64, len(fs))
		for _, f := range fs {
			f()
			f()
		}
		for range reps {
			for i, f := range fs {
				runtime.GC()
				var r0, r1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				st := time.Now()
				f()
				el := time.Since(st)
				syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				ms := float64(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) / 1e6
				if wall {
					ms = float64(el.Nanoseconds()) / 1e6
				}
				times[i] = append(times[i], ms)
			}
		}
		for i := range fs {
			s := slices.Clone(times[i])
			slices.Sort(s)
			fmt.Printf("%-20s %-22s min %6.2f ms  median %6.2f ms  %5.1f GB/s at the min  %4.2fx eager's min\n",
				c.name, names[i], s[0], s[len(s)/2], float64(c.bytes)/s[0]/1e6, slices.Min(times[0])/s[0])
		}
	}
}
