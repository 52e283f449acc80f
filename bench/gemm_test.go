package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/asm"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// GEMM and convolution benchmarks (issue 4): square C = A·B in float32
// (sgemm) and float64 (dgemm) through the public API's mm, which allocates
// its result as torch.mm does, beside gonum's pure-Go BLAS
// (gonum.org/v1/gonum/blas/gonum) writing into a preallocated C; and a 3×3
// convolution of a ResNet-sized activation. bench/peers/gemm_peers.py runs
// the same shapes in PyTorch and numpy (OpenBLAS), and bench/compare.sh
// prints the table. GFLOP/s counts 2·N³ per product.
//
// Each case runs with GOMAXPROCS 1 and 2, named .../procs=1 and .../procs=2
// and set inside the sub-benchmark: with b.Loop the whole first measurement
// of a sub-benchmark happens before go test applies its -cpu value, so under
// -cpu 1,2 the first "one core" run of each case really ran with the
// GOMAXPROCS the previous case left behind (2). Run these with -cpu 1 (or
// any single value); bench/compare.sh does.

// gemmSizes are the square sizes. gonum runs up to gonumMaxSize only: at
// about 10–15 GFLOP/s its 2048 product takes 1–2 s an operation, and its
// ratio to goaten is already settled at 1024.
var gemmSizes = []int{64, 128, 256, 512, 1024, 2048}

const gonumMaxSize = 1024

// The convolution: input [8,64,56,56], weight [64,64,3,3], stride 1,
// padding 1, no bias; output [8,64,56,56].
const (
	convN, convC, convH, convW, convK, convR = 8, 64, 56, 56, 64, 3
	convName                                 = "8x64x56x56"
)

var gemmProcs = []int{1, 2}

func gemmFlops(n int) float64 { return 2 * float64(n) * float64(n) * float64(n) }

// runProcs times f under GOMAXPROCS procs as sub-benchmark name/procs=P,
// reporting bytes moved and GFLOP/s.
func runProcs(b *testing.B, name string, procs int, flops float64, bytes int64, f func()) {
	b.Run(fmt.Sprintf("%s/procs=%d", name, procs), func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		b.SetBytes(bytes)
		b.ReportAllocs()
		f() // warm up: first-touch page faults, heap growth, worker start-up
		runtime.GC()
		for b.Loop() {
			f()
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// runProcsBest is runProcs that also reports the fastest single call as
// best-GFLOP/s (the clock read around each call costs tens of ns, under 1%
// of the smallest case here).
func runProcsBest(b *testing.B, name string, procs int, flops float64, bytes int64, f func()) {
	b.Run(fmt.Sprintf("%s/procs=%d", name, procs), func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		b.SetBytes(bytes)
		b.ReportAllocs()
		f() // warm up: first-touch page faults, heap growth, worker start-up
		runtime.GC()
		best := time.Duration(math.MaxInt64)
		for b.Loop() {
			t0 := time.Now()
			f()
			best = min(best, time.Since(t0))
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(flops/best.Seconds()/1e9, "best-GFLOP/s")
	})
}

func randFloat64s(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

// BenchmarkGemm is goaten/{sgemm,dgemm}/N (x.Mm(y), a fresh result each
// time), kernel/{sgemm,dgemm}/N (package asm's Sgemm/Dgemm into a
// preallocated C: the GEMM without allocation, dispatch or the garbage
// collector) and gonum/{sgemm,dgemm}/N (Implementation{}.Sgemm/Dgemm into a
// preallocated C, one core only), each with GOMAXPROCS 1 and 2.
func BenchmarkGemm(b *testing.B) {
	for _, n := range gemmSizes {
		a32, b32 := randFloat32s(n*n, 1), randFloat32s(n*n, 2)
		a64, b64 := randFloat64s(n*n, 1), randFloat64s(n*n, 2)
		x32, y32 := gt.FromFloat32s(a32, n, n), gt.FromFloat32s(b32, n, n)
		x64, y64 := gt.FromFloat64s(a64, n, n), gt.FromFloat64s(b64, n, n)
		fl := gemmFlops(n)
		for _, p := range gemmProcs {
			runProcs(b, fmt.Sprintf("goaten/sgemm/%d", n), p, fl, 3*int64(n*n)*4, func() { x32.Mm(y32) })
		}
		for _, p := range gemmProcs {
			runProcs(b, fmt.Sprintf("goaten/dgemm/%d", n), p, fl, 3*int64(n*n)*8, func() { x64.Mm(y64) })
		}
		c32, c64 := make([]float32, n*n), make([]float64, n*n)
		for _, p := range gemmProcs {
			runProcs(b, fmt.Sprintf("kernel/sgemm/%d", n), p, fl, 3*int64(n*n)*4, func() {
				asm.Sgemm(false, false, n, n, n, 1, a32, n, b32, n, 0, c32, n)
			})
		}
		for _, p := range gemmProcs {
			runProcs(b, fmt.Sprintf("kernel/dgemm/%d", n), p, fl, 3*int64(n*n)*8, func() {
				asm.Dgemm(false, false, n, n, n, 1, a64, n, b64, n, 0, c64, n)
			})
		}
		if n > gonumMaxSize {
			continue
		}
		impl := gonum.Implementation{}
		runProcs(b, fmt.Sprintf("gonum/sgemm/%d", n), 1, fl, 3*int64(n*n)*4, func() {
			impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a32, n, b32, n, 0, c32, n)
		})
		runProcs(b, fmt.Sprintf("gonum/dgemm/%d", n), 1, fl, 3*int64(n*n)*8, func() {
			impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a64, n, b64, n, 0, c64, n)
		})
	}
}

// gemmSmallSizes are BenchmarkGemmSmall's square sizes (issue 25: small
// products, where packing and the result's allocation weigh most).
var gemmSmallSizes = []int{64, 96, 128, 256}

// BenchmarkGemmSmall is goaten/sgemm/N (mm, a fresh result each time) and
// kernel/sgemm/N (asm.Sgemm into a preallocated C) for the small sizes, and
// goaten/bmm/64x128x32x128 (bmm of [64,128,32] by [64,32,128], per-head
// attention scores), each with GOMAXPROCS 1 and 2. bench/peers/gemm_peers.py
// --small runs the same cases in PyTorch and numpy. Besides the mean
// (GFLOP/s) each case reports its fastest single call (best-GFLOP/s), which
// is what gemm_peers.py measures: on a loaded machine the mean also counts
// the time other processes took the core, and the garbage collector's.
func BenchmarkGemmSmall(b *testing.B) {
	for _, n := range gemmSmallSizes {
		a32, b32 := randFloat32s(n*n, 1), randFloat32s(n*n, 2)
		x32, y32 := gt.FromFloat32s(a32, n, n), gt.FromFloat32s(b32, n, n)
		c32 := make([]float32, n*n)
		fl := gemmFlops(n)
		for _, p := range gemmProcs {
			runProcsBest(b, fmt.Sprintf("goaten/sgemm/%d", n), p, fl, 3*int64(n*n)*4, func() { x32.Mm(y32) })
		}
		for _, p := range gemmProcs {
			runProcsBest(b, fmt.Sprintf("kernel/sgemm/%d", n), p, fl, 3*int64(n*n)*4, func() {
				asm.Sgemm(false, false, n, n, n, 1, a32, n, b32, n, 0, c32, n)
			})
		}
	}
	const bs, m, k, n = 64, 128, 32, 128
	x := gt.FromFloat32s(randFloat32s(bs*m*k, 1), bs, m, k)
	y := gt.FromFloat32s(randFloat32s(bs*k*n, 2), bs, k, n)
	for _, p := range gemmProcs {
		runProcsBest(b, fmt.Sprintf("goaten/bmm/%dx%dx%dx%d", bs, m, k, n), p, 2*bs*m*k*n, 4*int64(bs*(m*k+k*n+m*n)), func() { x.Bmm(y) })
	}
}

// BenchmarkConv2d is goaten/conv2d/8x64x56x56: gt.Conv2d (aten::conv2d) of
// a float32 [8,64,56,56] input with a [64,64,3,3] weight, stride 1,
// padding 1, no bias, with GOMAXPROCS 1 and 2. GFLOP/s counts
// 2·N·K·H·W·C·R·R; bytes are input, weight and output.
func BenchmarkConv2d(b *testing.B) {
	x := gt.FromFloat32s(randFloat32s(convN*convC*convH*convW, 1), convN, convC, convH, convW)
	w := gt.FromFloat32s(randFloat32s(convK*convC*convR*convR, 2), convK, convC, convR, convR)
	flops := 2 * float64(convN*convK*convH*convW) * float64(convC*convR*convR)
	bytes := 4 * int64(convN*convC*convH*convW+convK*convC*convR*convR+convN*convK*convH*convW)
	for _, p := range gemmProcs {
		runProcs(b, "goaten/conv2d/"+convName, p, flops, bytes, func() {
			gt.Conv2d(x, w, gt.WithPadding([]int{1, 1}))
		})
	}
}
