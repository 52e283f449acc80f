package functional_test

import (
	"testing"

	"github.com/goaten/goaten/tensor"
)

func benchLoop(b *testing.B, dev tensor.Device) {
	x := seq(dev, 64, 64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Select(0, i%64).AddScalar_(1)
		if i%16 == 15 {
			x.SumAll()
		}
	}
}

func BenchmarkRowUpdateCPU(b *testing.B)        { benchLoop(b, tensor.CPU) }
func BenchmarkRowUpdateFunctional(b *testing.B) { benchLoop(b, fdev) }

func benchView(b *testing.B, dev tensor.Device) {
	x := seq(dev, 64, 64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.T().Slice(tensor.WithStart(1), tensor.WithEnd(33), tensor.WithStep(2)).SumAll()
	}
}

func BenchmarkViewReadCPU(b *testing.B)        { benchView(b, tensor.CPU) }
func BenchmarkViewReadFunctional(b *testing.B) { benchView(b, fdev) }
