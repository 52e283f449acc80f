// Package bench holds goaten's benchmarks, named impl/op/size for benchstat.
package bench

import (
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
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
		x := gt.Ones(shape)
		y := gt.Ones(shape)
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
	// Modes are per goroutine: with none set anywhere a call pays one atomic
	// load for them; with some goroutine in a scope, every call looks its
	// own goroutine's modes up (nograd-elsewhere); inside a scope of its own
	// the look-up finds them (nograd).
	x, y := gt.Ones(1), gt.Ones(1)
	b.Run("goaten/add/1/nograd-elsewhere", func(b *testing.B) {
		b.ReportAllocs()
		in, done := make(chan struct{}), make(chan struct{})
		go autograd.NoGrad(func() { close(in); <-done })
		<-in
		defer close(done)
		for b.Loop() {
			_ = x.Add(y)
		}
	})
	b.Run("goaten/add/1/nograd", func(b *testing.B) {
		b.ReportAllocs()
		autograd.NoGrad(func() {
			for b.Loop() {
				_ = x.Add(y)
			}
		})
	})
}

// BenchmarkEagerSmall is issue 25's small ops on 64×64 float32 tensors,
// out of place through the public API: add, mul, relu, a full sum, a
// 64×64 matmul, and a tiny MLP forward (Linear 64→64, ReLU, Linear 64→10
// on a batch of 64). cpu-ns/op counts every thread, the collector's
// included. bench/peers/eager_torch.py prints the same cases for PyTorch.
func BenchmarkEagerSmall(b *testing.B) {
	gt.ManualSeed(0)
	x, y := gt.Rand(64, 64), gt.Rand(64, 64)
	w1, b1 := gt.Rand(64, 64), gt.Rand(64)
	w2, b2 := gt.Rand(10, 64), gt.Rand(10)
	cases := []struct {
		name string
		f    func()
	}{
		{"add", func() { _ = x.Add(y) }},
		{"mul", func() { _ = x.Mul(y) }},
		{"relu", func() { _ = x.Relu() }},
		{"sum", func() { _ = x.SumAll() }},
		{"matmul", func() { _ = x.Matmul(y) }},
		{"mlp", func() {
			h := gt.Linear(x, w1, gt.WithBias(b1)).Relu()
			_ = gt.Linear(h, w2, gt.WithBias(b2))
		}},
	}
	for _, c := range cases {
		b.Run("goaten/"+c.name+"/64x64", func(b *testing.B) { cpuLoop(b, c.f) })
	}
}
