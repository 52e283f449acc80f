package autograd_test

import (
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// BenchmarkOverhead measures what the Autograd layer adds to a small op:
// before the layer is switched on (off), on plain tensors after an earlier
// SetRequiresGrad switched it on process-wide (plain), inside NoGrad, and
// an add that records a node. Run it alone (-run x -bench Overhead): other
// tests of the package switch the layer on.
func BenchmarkOverhead(b *testing.B) {
	x := tensor.FullOf(tensor.Float32, 1, 1)
	y := tensor.FullOf(tensor.Float32, 1, 1)
	b.Run("goaten/add/off", func(b *testing.B) { // before any SetRequiresGrad in this process
		b.ReportAllocs()
		for b.Loop() {
			_ = x.Add(y)
		}
	})
	w := tensor.FullOf(tensor.Float32, 1, 1).SetRequiresGrad(true)
	b.Run("goaten/add/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = x.Add(y)
		}
	})
	b.Run("goaten/add/nograd", func(b *testing.B) {
		b.ReportAllocs()
		autograd.NoGrad(func() {
			for b.Loop() {
				_ = x.Add(y)
			}
		})
	})
	b.Run("goaten/add/recorded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = w.Add(y)
		}
	})
	b.Run("goaten/view/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = x.Unsqueeze(0)
		}
	})
}
