package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkZero runs ZeroF32 and ZeroF64 on n elements of garbage at offset off
// of guarded buffers: every element becomes +0 and the guards stay.
func checkZero(t testing.TB, r *rand.Rand, n, off int) {
	t.Helper()
	what := fmt.Sprintf("n=%d off=%d stream=%d", n, off, resultStreamBytes)
	const guard = float32(-7)
	d, buf := ewPad(ewValues[float32](r, n), off, guard)
	ZeroF32(d)
	ewCheckGuards(t, "ZeroF32 "+what, buf, off, n, guard)
	for i, v := range d {
		if math.Float32bits(v) != 0 {
			t.Fatalf("ZeroF32 %s: [%d] = %v, want +0", what, i, v)
		}
	}
	d64, buf64 := ewPad(ewValues[float64](r, n), off, -7)
	ZeroF64(d64)
	ewCheckGuards(t, "ZeroF64 "+what, buf64, off, n, -7)
	for i, v := range d64 {
		if math.Float64bits(v) != 0 {
			t.Fatalf("ZeroF64 %s: [%d] = %v, want +0", what, i, v)
		}
	}
}

// TestZero runs ZeroF32 and ZeroF64 over every length up to 67 and some
// longer ones, at every offset of a 64-byte line, with the streaming kernel
// off (the usual threshold) and on for every length (threshold 0).
func TestZero(t *testing.T) {
	defer func(b int) { resultStreamBytes = b }(resultStreamBytes)
	for _, sb := range []int{resultStreamBytes, 0} {
		resultStreamBytes = sb
		r := rand.New(rand.NewPCG(25, 26))
		for _, n := range append(ewLens(), 4099) {
			for off := range 16 {
				checkZero(t, r, n, off)
			}
		}
	}
}

func FuzzZero(f *testing.F) {
	f.Add(uint16(100), uint8(3), uint64(1))
	f.Fuzz(func(t *testing.T, n uint16, off uint8, seed uint64) {
		defer func(b int) { resultStreamBytes = b }(resultStreamBytes)
		resultStreamBytes = 0
		checkZero(t, rand.New(rand.NewPCG(seed, 26)), int(n), int(off%16))
	})
}
