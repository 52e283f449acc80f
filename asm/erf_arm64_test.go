//go:build !purego

package asm

import (
	"math"
	"testing"
)

// erfNEONSpecials are the inputs erf_arm64.s is sensitive to: ±0 and
// subnormals (erf x ≈ 2x/√π, rounded by NARROW's subnormal path), tiny x
// and the neighbours of 2^-126, of 1 (the branch between the polynomial
// and 1 - erfc), of 10.6 (the clamp) and of the point where erf rounds to
// 1, ±Inf, the largest finite values and NaNs with payloads (the twin's
// lanes), and a geometric sweep over (1e-3, 12).
func erfNEONSpecials() []float32 {
	bits := []uint32{0, 1, 2, 3, 0x007fffff, 0x007ffffe, 0x00400000, 0x00800000, 0x00800001, 0x7f800000,
		0x7fc00000, 0x7f800001, 0x7fbfffff, 0x7fc12345, 0x7fffffff, 0x7f812345, 0x7f7fffff, 0x7f7ffffe}
	var xs []float32
	for _, b := range bits {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, c := range []float32{1, 10.6, 0.5, 2, 3.9, 4, 6, 0x1p-126, 0x1p-125, 0x1p-100, 0x1p-60, 0x1p-30, 0x1p-12, 1e20} {
		b := math.Float32bits(c)
		for i := uint32(0); i < 8; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	for v := 1e-3; v < 12; v *= 1.01 {
		xs = append(xs, float32(v))
	}
	return xs
}

// TestErfNEON compares erf's table in use (the kernel and, where it stops
// at a NaN, the twin) with its twin bit for bit on the specials and their
// negations, at every length up to 40 and several starts, and in place.
func TestErfNEON(t *testing.T) {
	checkNEONKernels(t, []neonKernel{{"erf", erfF32NEON, erfGo1}}, erfNEONSpecials(), 97)
}

// TestErfNEONStops calls erfF32 directly: it stops at the vector (or tail
// element) holding the first NaN and writes nothing from there on; ±Inf
// and the largest finite values it does itself.
func TestErfNEONStops(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), math.Float32frombits(0xff812345), math.Float32frombits(0x7f800001)} {
		for n := 1; n <= 13; n++ {
			for at := 0; at < n; at++ {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(i)*0.37 - 2
				}
				x[at] = bad
				d := make([]float32, n)
				for i := range d {
					d[i] = -7
				}
				want := at &^ 3 // the vector holding it
				if at >= n&^3 {
					want = at // in the tail: the element itself
				}
				if got := erfF32(d, x); got != want {
					t.Fatalf("n=%d, x[%d] = %v: stopped after %d, want %d", n, at, bad, got, want)
				}
				for i := range d {
					if i < want && d[i] != erfGo1(x[i]) || i >= want && d[i] != -7 {
						t.Fatalf("n=%d, x[%d] = %v: d[%d] = %v", n, at, bad, i, d[i])
					}
				}
			}
		}
	}
	x := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32, 1}
	d := make([]float32, len(x))
	if got := erfF32(d, x); got != len(x) {
		t.Fatalf("stopped after %d on ±Inf and ±MaxFloat32", got)
	}
	for i := range x {
		if math.Float32bits(d[i]) != math.Float32bits(erfGo1(x[i])) {
			t.Fatalf("erf(%v) = %v, twin %v", x[i], d[i], erfGo1(x[i]))
		}
	}
}
