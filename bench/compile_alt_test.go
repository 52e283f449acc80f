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

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// TestCompileCPUAlternating times issue 24's chains (see
// BenchmarkCompileCPU) eagerly, with the Eager backend and with the cpu
// backend at each tile size of COMPILE_CPU_TILES (0: the tile the backend
// chooses per group; default 0 and DefaultTileElems), the variants
// alternated call by call, COMPILE_CPU_REPS rounds, and prints the minimum
// and median per variant: on a shared machine whose load moves a benchmark
// by 2x from one minute to the next, only variants timed in the same
// minutes compare. COMPILE_CPU_EXTRA=1 adds the chains that set the cpu
// backend's choice of tile size (extraChains). By default it reports the
// process's CPU time per call (user and system, all threads: the
// collector's work included), which other processes' load disturbs less
// than wall time; COMPILE_CPU_WALL=1 reports wall time. It never fails: it
// measures. Run it with -cpu 1 or -cpu 2:
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
		tiles = []int{0, compilecpu.DefaultTileElems}
	}
	unit := "CPU time"
	if wall {
		unit = "wall time"
	}
	fmt.Printf("# %s per call, GOMAXPROCS %d, %d rounds\n", unit, runtime.GOMAXPROCS(0), reps)
	cs := chains()
	if os.Getenv("COMPILE_CPU_EXTRA") == "1" {
		cs = append(cs, extraChains()...)
	}
	for _, c := range cs {
		in := c.inputs
		names := []string{"eager", "compiled-eager"}
		fs := []func(){directCall(c.f, in)}
		ce := compile.Compile(c.f, compile.Options{Backend: compile.Eager})
		fs = append(fs, func() { ce.Call(in...) })
		for _, tl := range tiles {
			cc := compile.Compile(c.f, compile.Options{Backend: compilecpu.New(compilecpu.Options{TileElems: tl})})
			name := fmt.Sprintf("compiled-cpu/tile%d", tl)
			if tl == 0 {
				name = "compiled-cpu/auto"
			}
			names = append(names, name)
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

// extraChains are 16M-float32 chains on 16384×1024 beside issue 24's: some
// that mostly move bytes, some that compute more, one with a reduction
// (bench/README.md, "Tile sizes"). bytes counts inputs read once and the
// result written once.
func extraChains() []chain {
	x := gt.FromFloat32s(randFloat32s(n16M, 1), 16384, 1024)
	r := gt.FromFloat32s(randFloat32s(n16M, 2), 16384, 1024)
	w := gt.FromFloat32s(randFloat32s(1024, 4), 1024)
	return []chain{
		{"x*2+1", func(x *gt.Tensor) *gt.Tensor { return x.MulScalar(2).AddScalar(1) }, []*gt.Tensor{x}, 8 * n16M},
		{"(x+r)*2", func(x, r *gt.Tensor) *gt.Tensor { return x.Add(r).MulScalar(2) }, []*gt.Tensor{x, r}, 12 * n16M},
		{"(x+r).sigmoid()", func(x, r *gt.Tensor) *gt.Tensor { return x.Add(r).Sigmoid() }, []*gt.Tensor{x, r}, 12 * n16M},
		{"x.exp()*x", func(x *gt.Tensor) *gt.Tensor { return x.Exp().Mul(x) }, []*gt.Tensor{x}, 8 * n16M},
		{"layer_norm(x)", func(x, w *gt.Tensor) *gt.Tensor {
			return tensor.LayerNorm(x, []int{1024}, tensor.WithWeight(w))
		}, []*gt.Tensor{x, w}, 8*n16M + 4*1024},
		{"softmax(x+r)", func(x, r *gt.Tensor) *gt.Tensor { return x.Add(r).Softmax(-1) }, []*gt.Tensor{x, r}, 12 * n16M},
		{"(x*r).sum(-1)", func(x, r *gt.Tensor) *gt.Tensor { return x.Mul(r).Sum([]int{-1}) }, []*gt.Tensor{x, r}, 8*n16M + 4*16384},
	}
}

// TestCompileCPUKernelsInL1 prints each kernel the cpu backend's tile
// programs call, run over 8K-element slices (in L1) 2048 times, best of
// 15, in ns per element: the throughputs compile/cpu's tilesize.go
// weighs groups by. A measurement, run with COMPILE_CPU_KERNELS=1.
func TestCompileCPUKernelsInL1(t *testing.T) {
	if os.Getenv("COMPILE_CPU_KERNELS") != "1" {
		t.Skip("a measurement, not a check (it never fails): set COMPILE_CPU_KERNELS=1 to run it")
	}
	const n, rows = 8192, 1024
	x := randFloat32s(n, 9)
	d := make([]float32, n)
	perRow := func(k func(d, x []float32)) func(d, x []float32) {
		return func(d, x []float32) {
			for r := 0; r < n; r += rows {
				k(d[r:r+rows], x[r:r+rows])
			}
		}
	}
	ks := []struct {
		name string
		k    func(d, x []float32)
	}{
		{"mul scalar", func(d, x []float32) { asm.MulScalarF32(d, x, 2) }},
		{"div scalar", func(d, x []float32) { asm.DivScalarF32(d, x, 8) }},
		{"mul", func(d, x []float32) { asm.MulF32(d, x, x) }},
		{"sum rows", perRow(func(d, x []float32) { d[0] = float32(asm.SumF32(x)) })},
		{"abs", asm.AbsF32}, {"neg", asm.NegF32}, {"relu", asm.ReluF32}, {"reciprocal", asm.ReciprocalF32},
		{"sqrt", asm.SqrtF32}, {"rsqrt", asm.RsqrtF32}, {"exp", asm.ExpF32}, {"sigmoid", asm.SigmoidF32},
		{"tanh", asm.TanhF32}, {"gelu", asm.GeluF32}, {"sin", asm.SinF32}, {"cos", asm.CosF32},
		{"log", asm.LogF32}, {"gelu_tanh", asm.GeluTanhF32}, {"erf", asm.ErfF32},
		{"softmax rows", perRow(asm.SoftmaxF32)},
		{"log_softmax rows", perRow(asm.LogSoftmaxF32)},
		{"layer_norm rows", perRow(func(d, x []float32) { asm.LayerNormF32(d, x, nil, nil, 1e-5) })},
	}
	fmt.Printf("# asm path %s, %d-element slices\n", asm.Path(), n)
	for _, k := range ks {
		best := time.Hour
		for range 15 {
			st := time.Now()
			for range 2048 {
				k.k(d, x)
			}
			best = min(best, time.Since(st))
		}
		fmt.Printf("%-18s %.3f ns/element\n", k.name, float64(best.Nanoseconds())/float64(2048*n))
	}
}
