//go:build !purego

package asm

import "testing"

// BenchmarkPeak measures the float32 FMA ceiling of the cores it runs on:
// fmaPeak256/fmaPeak512 on every goroutine of RunParallel (as many as
// GOMAXPROCS; -cpu 1,2 gives one and two cores), in GFLOP/s. The sgemm
// kernels are measured against it (bench/README.md): it is what the
// hardware allows, the two-core line included.
func BenchmarkPeak(b *testing.B) {
	const iters = 1 << 16 // one call: 2^16 iterations, about 0.1 ms
	for _, c := range []struct {
		name  string
		ok    bool
		f     func(int)
		flops int // per iteration
	}{
		{"avx2/fma", useAVX2FMA, fmaPeak256, 12 * 8 * 2},
		{"avx512/fma", useAVX512, fmaPeak512, 12 * 16 * 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			if !c.ok {
				b.Skipf("%s kernels are off on this CPU (asm.Path() = %s)", c.name, Path())
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c.f(iters)
				}
			})
			b.ReportMetric(float64(b.N)*iters*float64(c.flops)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestPeakRuns runs both loops once: they return and leave the FPU usable.
func TestPeakRuns(t *testing.T) {
	if useAVX2FMA {
		fmaPeak256(100)
	}
	if useAVX512 {
		fmaPeak512(100)
	}
	if x := float32(1.5); x*x != 2.25 {
		t.Fatal("arithmetic broken after the peak loops")
	}
}
