package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Square GEMM, C = A·B, through goaten and through gonum's pure-Go BLAS in
// the same run, so the ratio means something on a busy machine. Run with
//
//	go test -run '^$' -bench 'gemm' -cpu 1,2 -count 5 ./asm/
//
// -cpu sets GOMAXPROCS (names get a -2 suffix for two); GFLOP/s is 2·N³ per
// operation.

var gemmSizes = []int{64, 128, 256, 512, 1024}

func reportGemm(b *testing.B, n int) {
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchOperands[T float](n int) (a, bm, c []T) {
	r := rand.New(rand.NewPCG(1, 1))
	return randSlice[T](r, n*n), randSlice[T](r, n*n), make([]T, n*n)
}

func BenchmarkSgemm(b *testing.B) {
	impl := gonum.Implementation{}
	for _, n := range gemmSizes {
		a, bm, c := benchOperands[float32](n)
		b.Run(fmt.Sprintf("goaten/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(3 * n * n * 4))
			for b.Loop() {
				Sgemm(false, false, n, n, n, 1, a, n, bm, n, 0, c, n)
			}
			reportGemm(b, n)
		})
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(3 * n * n * 4))
			for b.Loop() {
				impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, bm, n, 0, c, n)
			}
			reportGemm(b, n)
		})
	}
}

func BenchmarkDgemm(b *testing.B) {
	impl := gonum.Implementation{}
	for _, n := range gemmSizes {
		a, bm, c := benchOperands[float64](n)
		b.Run(fmt.Sprintf("goaten/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(3 * n * n * 8))
			for b.Loop() {
				Dgemm(false, false, n, n, n, 1, a, n, bm, n, 0, c, n)
			}
			reportGemm(b, n)
		})
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(3 * n * n * 8))
			for b.Loop() {
				impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, bm, n, 0, c, n)
			}
			reportGemm(b, n)
		})
	}
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
