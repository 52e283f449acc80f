//go:build !purego

package asm

import (
	"math"
	"testing"
)

// TestGeluNEONSpecial checks geluF32 bit for bit, NaN payloads included,
// on the inputs its bit tricks are sensitive to, in every lane of a
// vector and in the one-element tail: ±0, subnormals, t·t underflowing,
// 14.5 (the clamp) and its neighbours, ±Inf, NaNs of both signs, quiet
// and signalling, and the ends of the exp reduction's n.
func TestGeluNEONSpecial(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), 0x1p-149, -0x1p-149, 0x1p-126, -0x1p-126,
		math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff), 0x1p-70, -0x1p-70, 0x1p-63, -0x1p-64,
		14.5, -14.5, math.Nextafter32(14.5, 0), -math.Nextafter32(14.5, 0), math.Nextafter32(14.5, 20),
		-math.Nextafter32(14.5, 20), 20, -20, math.MaxFloat32, -math.MaxFloat32, 1, -1, 0.5, -0.5,
		float32(math.Inf(1)), float32(math.Inf(-1)), 1.1774, -1.1774, 9.5, -9.5, 13, -13,
	}
	for _, b := range []uint32{0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fc12345, 0x7fffffff,
		0xff800001, 0xffbfffff, 0xffc00000, 0xffc12345, 0xffffffff} {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, v := range xs {
		want := math.Float32bits(geluGo1(v))
		for n := 1; n <= 5; n++ { // 4: a vector; 1, 5: the tail
			for lane := range n {
				x := make([]float32, n)
				for i := range x {
					x[i] = 0.75 // another value in the other lanes
				}
				x[lane] = v
				d := make([]float32, n)
				geluF32(d, x)
				if got := math.Float32bits(d[lane]); got != want {
					t.Fatalf("gelu(%v = %#x) n=%d lane %d = %#x, want %#x", v, math.Float32bits(v), n, lane, got, want)
				}
				for i := range d {
					if i != lane && d[i] != geluGo1(0.75) {
						t.Fatalf("gelu(%v) n=%d lane %d disturbs lane %d: %v", v, n, lane, i, d[i])
					}
				}
			}
		}
	}
}
