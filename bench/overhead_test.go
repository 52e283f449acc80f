// Package bench holds goaten's benchmarks, named impl/op/size for benchstat.
package bench

import (
	"testing"

	gt "github.com/goaten/goaten"
)

// BenchmarkEager measures eager dispatch overhead: an add of small tensors
// through the public API, allocating and in place.
func BenchmarkEager(b *testing.B) {
	for _, n := range []int{1, 64} {
		shape := []int{n, n}
		name := "64x64"
		if n == 1 {
			shape, name = []int{1}, "1"
		}
		x := gt.Ones(shape...)
		y := gt.Ones(shape...)
		b.Run("goaten/add/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = x.Add(y)
			}
		})
		b.Run("goaten/add_/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = x.Add_(y)
			}
		})
	}
}
