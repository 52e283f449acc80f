package asm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Square GEMM, C = A·B, through goaten and through gonum's pure-Go BLAS in
// the same run, so the ratio means something on a busy machine. Run with
//
//	go test -run '^$' -bench 'gemm' -count 5 ./asm/
//
// Each size runs with GOMAXPROCS 1 and 2, named procs=1 and procs=2 (set
// here: -cpu is unreliable with sub-benchmarks, whose first run keeps the
// GOMAXPROCS of the run before). GFLOP/s counts 2·N³ per operation.

var gemmSizes = []int{64, 128, 256, 512, 1024}

func reportGemm(b *testing.B, n int) {
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchOperands[T float](n int) (a, bm, c []T) {
	r := rand.New(rand.NewPCG(1, 1))
	return randSlice[T](r, n*n), randSlice[T](r, n*n), make([]T, n*n)
}

// benchGemm runs goaten/N (the kernels Sgemm/Dgemm pick), goaten-NAME/N for
// each other assembly kernel this CPU has (avx2 on an AVX-512 machine), and
// gonum/N through peer.
func benchGemm[T float](b *testing.B, impls []gemmImpl[T], use **gemmImpl[T], f gemmFunc[T], peer gemmFunc[T]) {
	size := int64(unsafe.Sizeof(T(0)))
	run := func(name string, n int, f gemmFunc[T], a, bm, c []T) {
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%d/procs=%d", name, n, procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				b.ReportAllocs()
				b.SetBytes(3 * int64(n*n) * size)
				for b.Loop() {
					f(false, false, n, n, n, 1, a, n, bm, n, 0, c, n)
				}
				reportGemm(b, n)
			})
		}
	}
	for _, n := range gemmSizes {
		a, bm, c := benchOperands[T](n)
		for i := range impls {
			im := &impls[i]
			name := "goaten"
			if i > 0 {
				if im.name == "go" {
					continue // the twin has its own run: GOATEN_PUREGO=1 or -tags purego
				}
				name += "-" + im.name
			}
			save := *use
			*use = im
			run(name, n, f, a, bm, c)
			*use = save
		}
		run("gonum", n, peer, a, bm, c)
	}
}

func BenchmarkSgemm(b *testing.B) {
	benchGemm(b, sgemmImpls, &sgemmUse, Sgemm, func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
		gonum.Implementation{}.Sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	})
}

func BenchmarkDgemm(b *testing.B) {
	benchGemm(b, dgemmImpls, &dgemmUse, Dgemm, func(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) {
		gonum.Implementation{}.Dgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	})
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// The micro-kernels alone on L1-resident panels: the ceiling for the drivers.
func BenchmarkSgemmKernel(b *testing.B) { benchKernels(b, sgemmImpls) }
func BenchmarkDgemmKernel(b *testing.B) { benchKernels(b, dgemmImpls) }

func benchKernels[T float](b *testing.B, impls []gemmImpl[T]) {
	for _, im := range impls {
		bl := &im.bl
		k := bl.kc
		r := rand.New(rand.NewPCG(1, 1))
		a, bm, c := randSlice[T](r, k*bl.mr), randSlice[T](r, k*bl.nr), make([]T, bl.mr*bl.nr)
		b.Run(im.name, func(b *testing.B) {
			for b.Loop() {
				im.kern(k, a, bm, c, bl.nr)
			}
			b.ReportMetric(2*float64(k*bl.mr*bl.nr)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
