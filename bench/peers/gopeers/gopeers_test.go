// Package gopeers benchmarks Go peers of goaten on the shapes of
// bench/gemm_test.go: GoMLX's pure-Go backend (SimpleGo,
// github.com/gomlx/gomlx/backends/simplego). It is a module of its own so
// that goaten's module gains no dependency; bench/compare.sh runs it when
// GOPEERS=1 (the first run downloads GoMLX through the module proxy):
//
//	cd bench/peers/gopeers && GOFLAGS=-mod=mod go test -run XXX -bench . -cpu 1 .
//
// Lines are BenchmarkGemm/gomlx/{sgemm,dgemm}/N/procs=1 and
// BenchmarkConv2d/gomlx/conv2d/8x64x56x56/procs=1, one core as the peer
// columns of the table (GOMAXPROCS and SimpleGo's own parallelism, which
// defaults to NumCPU, are both set to 1; procsList has the count). Each op
// is a compiled graph run on tensors already on the backend; the result is
// allocated by the backend and released after each run.
//
// Born (github.com/born-ml/born), the other Go peer of issue 4, is not
// here: proxy.golang.org answers 403 for it ("not available") and this
// machine cannot reach GitHub.
package gopeers

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	timage "github.com/gomlx/gomlx/pkg/core/tensors/images"
)

// The shapes of bench/gemm_test.go, up to N = 1024: SimpleGo runs at
// about 6 GFLOP/s here, so a 2048 product takes 2–3 s.
var gemmSizes = []int{64, 128, 256, 512, 1024}

const (
	convN, convC, convH, convW, convK, convR = 8, 64, 56, 56, 64, 3
	convName                                 = "8x64x56x56"
)

// procsList are the core counts; SimpleGo is slow enough (its conv2d takes
// about 4 s an op here) that only the one the table shows runs.
var procsList = []int{1}

func backend(b *testing.B, procs int) backends.Backend {
	be, err := simplego.New(fmt.Sprintf("parallelism=%d", procs))
	if err != nil {
		b.Fatal(err)
	}
	return be
}

func randSlice[T float32 | float64](n int, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]T, n)
	for i := range v {
		v[i] = T(r.NormFloat64())
	}
	return v
}

// runExec times exec on args under GOMAXPROCS procs as name/procs=P.
func runExec(b *testing.B, name string, procs int, flops float64, bytes int64, mk func(be backends.Backend) (*graph.Exec, []any)) {
	b.Run(fmt.Sprintf("%s/procs=%d", name, procs), func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		be := backend(b, procs)
		defer be.Finalize()
		exec, args := mk(be)
		call := func() {
			for _, t := range exec.MustExec(args...) {
				t.MustFinalizeAll()
			}
		}
		b.SetBytes(bytes)
		b.ReportAllocs()
		call() // compile, move the inputs to the backend
		runtime.GC()
		for b.Loop() {
			call()
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

func gemm[T float32 | float64](b *testing.B, op string, n, procs int) {
	size := int64(4)
	if op == "dgemm" {
		size = 8
	}
	runExec(b, fmt.Sprintf("gomlx/%s/%d", op, n), procs, 2*float64(n)*float64(n)*float64(n), 3*int64(n*n)*size,
		func(be backends.Backend) (*graph.Exec, []any) {
			x := tensors.FromFlatDataAndDimensions(randSlice[T](n*n, 1), n, n)
			y := tensors.FromFlatDataAndDimensions(randSlice[T](n*n, 2), n, n)
			return graph.MustNewExec(be, func(a, b *graph.Node) *graph.Node { return graph.MatMul(a, b) }), []any{x, y}
		})
}

// BenchmarkGemm is gomlx/{sgemm,dgemm}/N: graph.MatMul of two N×N tensors.
func BenchmarkGemm(b *testing.B) {
	for _, n := range gemmSizes {
		for _, p := range procsList {
			gemm[float32](b, "sgemm", n, p)
		}
		for _, p := range procsList {
			gemm[float64](b, "dgemm", n, p)
		}
	}
}

// BenchmarkConv2d is gomlx/conv2d/8x64x56x56: graph.Convolve, channels
// first, of a float32 [8,64,56,56] input with a [64,64,3,3] kernel, stride
// 1, padding 1 (PadSame), no bias.
func BenchmarkConv2d(b *testing.B) {
	flops := 2 * float64(convN*convK*convH*convW) * float64(convC*convR*convR)
	bytes := 4 * int64(convN*convC*convH*convW+convK*convC*convR*convR+convN*convK*convH*convW)
	for _, p := range procsList {
		runExec(b, "gomlx/conv2d/"+convName, p, flops, bytes, func(be backends.Backend) (*graph.Exec, []any) {
			x := tensors.FromFlatDataAndDimensions(randSlice[float32](convN*convC*convH*convW, 1), convN, convC, convH, convW)
			w := tensors.FromFlatDataAndDimensions(randSlice[float32](convK*convC*convR*convR, 2), convK, convC, convR, convR)
			return graph.MustNewExec(be, func(x, w *graph.Node) *graph.Node {
				return graph.Convolve(x, w).ChannelsAxis(timage.ChannelsFirst).Strides(1).PadSame().Done()
			}), []any{x, w}
		})
	}
}
