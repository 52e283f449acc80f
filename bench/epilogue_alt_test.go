package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
)

// TestGemmEpilogueAlternating measures what running a GEMM's pointwise
// epilogue (bias and activation, residual add) on the product's rows while
// they are in cache could save over the separate pass the cpu backend makes
// now (a fusion group reading the whole product after the dispatcher's mm
// or addmm wrote it), on the matrix products of issue 24's models. Per
// case, alternated call by call for GEMM_EPI_REPS rounds (minimum and
// median wall time):
//
//   - gemm: the product alone (addmm with its bias, or mm);
//   - separate: the product, then the epilogue as one in-place pass over it
//     (what a fused group costs at best: one read and one write);
//   - compiled-cpu: the function compiled by the cpu backend (the product
//     through the dispatcher, the epilogue as a tile program);
//   - rows<R>: the product computed in blocks of R rows, each block's
//     epilogue run right after its product, while it is in L1/L2 (the
//     schedule an in-cache epilogue would have, with the product's cost of
//     being cut into blocks);
//   - rows<R>-gemm: the same blocks without the epilogue.
//
// The in-cache epilogue gains (separate - gemm) - (rows<R> - rows<R>-gemm)
// at best, and costs rows<R>-gemm - gemm. It never fails: it measures.
//
//	GEMM_EPI_REPS=15 go test -run GemmEpilogueAlternating -cpu 1 -v ./bench/
func TestGemmEpilogueAlternating(t *testing.T) {
	reps, _ := strconv.Atoi(os.Getenv("GEMM_EPI_REPS"))
	if reps == 0 {
		t.Skip("a measurement, not a check (it never fails): set GEMM_EPI_REPS=N to run it")
	}
	fmt.Printf("# GEMM epilogues, GOMAXPROCS %d, %d rounds, load average %s\n", runtime.GOMAXPROCS(0), reps, loadAvg())
	gt.ManualSeed(4)
	type epiCase struct {
		name    string
		m, k, n int
		bias    bool
		epi     func(y, r *gt.Tensor) *gt.Tensor // in place on y; r: a residual [m, n]
	}
	relu := func(y, _ *gt.Tensor) *gt.Tensor { return y.Relu_() }
	gelu := func(y, _ *gt.Tensor) *gt.Tensor { return y.Copy_(y.Gelu()) }
	resid := func(y, r *gt.Tensor) *gt.Tensor { return y.Add_(r) }
	cases := []epiCase{
		{"mlp-l2 addmm+relu 256x1024x1024", 256, 1024, 1024, true, relu},
		{"gpt-fc addmm+gelu 1024x256x1024", 1024, 256, 1024, true, gelu},
		{"gpt-proj mm+residual 1024x1024x256", 1024, 1024, 256, false, resid},
	}
	for _, c := range cases {
		x := gt.Randn(c.m, c.k)
		w := gt.Randn(c.n, c.k).MulScalar(0.02)
		wt := w.T()
		b := gt.Randn(c.n).MulScalar(0.02)
		res := gt.Randn(c.m, c.n)
		prod := func(x *gt.Tensor) *gt.Tensor {
			if c.bias {
				return b.Addmm(x, wt)
			}
			return x.Matmul(wt)
		}
		fn := func(x, res *gt.Tensor) *gt.Tensor {
			y := prod(x)
			switch {
			case c.name[:6] == "gpt-fc":
				return y.Gelu()
			case c.bias:
				return y.Relu()
			}
			return y.Add(res)
		}
		cc := compile.Compile(fn, compile.Options{Fullgraph: true, Backend: compilecpu.Backend})
		names := []string{"gemm", "separate", "compiled-cpu"}
		fs := []func(){
			func() { prod(x) },
			func() { c.epi(prod(x), res) },
			func() {
				if _, err := cc.Call(x, res); err != nil {
					t.Fatal(err)
				}
			},
		}
		for _, rows := range []int{32, 128} {
			blocks := func(epi bool) func() {
				return func() {
					for r0 := 0; r0 < c.m; r0 += rows {
						r1 := min(r0+rows, c.m)
						y := prod(x.Narrow(0, r0, r1-r0))
						if epi {
							c.epi(y, res.Narrow(0, r0, r1-r0))
						}
					}
				}
			}
			names = append(names, fmt.Sprintf("rows%d", rows), fmt.Sprintf("rows%d-gemm", rows))
			fs = append(fs, blocks(true), blocks(false))
		}
		times := make([][]float64, len(fs))
		for _, f := range fs {
			f()
			f()
		}
		for r := range reps {
			for k := range fs {
				i := (k + r) % len(fs)
				runtime.GC()
				st := time.Now()
				fs[i]()
				times[i] = append(times[i], float64(time.Since(st).Nanoseconds())/1e6)
			}
		}
		for i, n := range names {
			s := slices.Clone(times[i])
			slices.Sort(s)
			fmt.Printf("epilogue %-36s %-13s min %7.3f ms  median %7.3f ms\n", c.name, n, s[0], s[len(s)/2])
		}
	}
}
