package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkGeluBwd runs GeluBackwardF32 at offset off of guarded buffers
// against the twin, element by element, and the chunked kernels, bit for
// bit (NaN for NaN); with alias, dst is x itself.
func checkGeluBwd(t testing.TB, g, x []float32, off int, alias bool) {
	t.Helper()
	n := len(x)
	what := fmt.Sprintf("n=%d off=%d alias=%v", n, off, alias)
	const guard = float32(-7)
	gp, _ := ewPad(g, off, guard)
	xp, xBuf := ewPad(x, off, guard)
	d, buf := ewPad(make([]float32, n), off, guard)
	if alias {
		d, buf = xp, xBuf
	}
	GeluBackwardF32(d, gp, xp)
	ewCheckGuards(t, what, buf, off, n, guard)
	chunks := make([]float32, n)
	geluBwdChunks(chunks, g, x)
	for i := range n {
		want := geluBwdGo1(g[i], x[i])
		if !ewSame(d[i], want) || !ewSame(chunks[i], want) {
			t.Fatalf("%s: [%d] g=%v x=%v: %v (chunks %v), want %v", what, i, g[i], x[i], d[i], chunks[i], want)
		}
	}
}

// TestGeluBackward: lengths 0..67 and longer, unaligned, aliased, with
// NaN, Inf, signed zeros and random bit patterns among the values.
func TestGeluBackward(t *testing.T) {
	if useAVX512 && geluBwdKernel == nil {
		t.Fatal("the AVX-512 kernel is not in use on an AVX-512 path")
	}
	r := rand.New(rand.NewPCG(29, 30))
	for _, n := range append(ewLens(), 4099) {
		checkGeluBwd(t, ewValues[float32](r, n), ewValues[float32](r, n), r.IntN(16), n%3 == 0)
	}
}

// TestGeluBackwardSweep compares every 4093rd float32 bit pattern of x and
// x in [-12, 12] by steps of 2^-10, against the twin: both branches of
// erf, exp's clamps and underflow.
func TestGeluBackwardSweep(t *testing.T) {
	var x []float32
	for b := uint64(0); b < 1<<32; b += 4093 {
		x = append(x, math.Float32frombits(uint32(b)))
	}
	for v := float32(-12); v <= 12; v += 1.0 / 1024 {
		x = append(x, v)
	}
	g := make([]float32, len(x))
	r := rand.New(rand.NewPCG(31, 32))
	for i := range g {
		g[i] = float32(r.NormFloat64())
	}
	checkGeluBwd(t, g, x, 0, false)
}

func FuzzGeluBackward(f *testing.F) {
	f.Add(uint8(19), uint8(1), uint64(1))
	f.Fuzz(func(t *testing.T, n, off uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 30))
		checkGeluBwd(t, ewValues[float32](r, int(n)), ewValues[float32](r, int(n)), int(off%16), seed%3 == 0)
	})
}
