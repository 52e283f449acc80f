package bench

import (
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/hop"
)

// wlSteps is the number of steps of the loops BenchmarkWhileLoop runs.
const wlSteps = 1000

// wlCond and wlBody are a small loop: a counter and a decaying 4-element
// state, three ops a step.
func wlCond(a ...*gt.Tensor) *gt.Tensor { return a[0].LtScalar(wlSteps) }

func wlBody(a ...*gt.Tensor) []*gt.Tensor {
	return []*gt.Tensor{a[0].AddScalar(1), a[1].MulScalar(0.999).Add(a[2])}
}

// wlLoop is the program compiled: a while_loop over (i, x) reading y.
func wlLoop(i, x, y *gt.Tensor) []*gt.Tensor {
	return hop.WhileLoop(wlCond, wlBody, []*gt.Tensor{i, x}, []*gt.Tensor{y})
}

// scCombine is a scan's small step: the carry decays and takes the
// step's slice of xs; the step's output is the new carry.
func scCombine(carry, x, _ []*gt.Tensor) ([]*gt.Tensor, []*gt.Tensor) {
	n := carry[0].MulScalar(0.999).Add(x[0])
	return []*gt.Tensor{n}, []*gt.Tensor{n.Clone()}
}

// scScan is the program compiled: a scan of scCombine over xs' rows.
func scScan(x, xs *gt.Tensor) []*gt.Tensor {
	c, ys := hop.Scan(scCombine, []*gt.Tensor{x}, []*gt.Tensor{xs}, 0, false)
	return append(c, ys...)
}

// BenchmarkHOPLoop compares 1,000 steps of a small loop run as a Go loop
// of the same ops (eager/goloop), as the higher-order op eagerly and
// compiled (the node's sub-graphs run by the Eager backend's flattened
// programs), for while_loop and for scan (its Go loop: the same combine
// on each row, the outputs stacked). One op is one loop of 1,000 steps;
// ns/step is reported.
func BenchmarkHOPLoop(b *testing.B) {
	b.Run("while_loop", benchWhileLoop)
	b.Run("scan", benchScan)
}

func benchScan(b *testing.B) {
	x0, xs := gt.Ones(4), gt.Full(0.001, wlSteps, 4)
	step := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/wlSteps, "ns/step")
	}
	b.Run("eager/goloop/1000x4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			carry := []*gt.Tensor{x0}
			ys := make([]*gt.Tensor, wlSteps)
			for i := range wlSteps {
				var y []*gt.Tensor
				carry, y = scCombine(carry, []*gt.Tensor{xs.Select(0, i)}, nil)
				ys[i] = y[0]
			}
			_ = gt.Stack(ys)
		}
		step(b)
	})
	b.Run("eager/scan/1000x4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = scScan(x0, xs)
		}
		step(b)
	})
	c := compile.Compile(scScan, compile.Options{Fullgraph: true, Backend: compile.Eager})
	if _, err := c.Call(x0, xs); err != nil {
		b.Fatal(err)
	}
	b.Run("compiled/scan/1000x4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Call(x0, xs); err != nil {
				b.Fatal(err)
			}
		}
		step(b)
	})
}

func benchWhileLoop(b *testing.B) {
	i0 := gt.FromInt64s([]int64{0}).Reshape([]int{})
	x0, y := gt.Ones(4), gt.Full(0.001, 4)
	step := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/wlSteps, "ns/step")
	}
	b.Run("eager/goloop/1000x4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			i, x := i0, x0
			for wlCond(i, x, y).Item().Bool() {
				o := wlBody(i, x, y)
				i, x = o[0], o[1]
			}
		}
		step(b)
	})
	b.Run("eager/while_loop/1000x4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = wlLoop(i0, x0, y)
		}
		step(b)
	})
	c := compile.Compile(wlLoop, compile.Options{Fullgraph: true, Backend: compile.Eager})
	if _, err := c.Call(i0, x0, y); err != nil {
		b.Fatal(err)
	}
	b.Run("compiled/while_loop/1000x4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Call(i0, x0, y); err != nil {
				b.Fatal(err)
			}
		}
		step(b)
	})
}
