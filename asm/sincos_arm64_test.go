//go:build !purego

package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sinCosNEONSpecials are the inputs sincos_arm64.s is sensitive to: ±0,
// subnormals (sin x = x, rounded by NARROW's subnormal path) and the
// neighbours of 2^-126, ±Inf and NaNs with payloads (the twin's lanes),
// the neighbours of 1e6 (the kernel's limit), points where x·2/π is near
// a half-integer (the rounding of n) or an integer (r near 0, the sign of
// sin r) for n up to 2^20 (the exact n·pio2A), and 1, π/4 and the largest
// values below the limit.
func sinCosNEONSpecials() []float32 {
	bits := []uint32{
		0, 1, 2, 3, 0x007fffff, 0x00800000, 0x00800001, 0x007ffffe, 0x00400000, 0x00400001, 0x7f800000,
		0x7fc00000, 0x7f800001, 0x7fbfffff, 0x7fc12345, 0x7fffffff, 0x7f812345, 0x7f7fffff, 0x3f800000,
		0x0c000000, 0x20000000, 0x39800000, 0x3f490fdb,
	}
	var xs []float32
	for _, b := range bits {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, c := range []float32{1e6, 0x1p-126, 0x1p-125, 0x1p-60, 0x1p-12, 524288, 999999.94} {
		b := math.Float32bits(c)
		for i := uint32(0); i < 8; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	for _, n := range []float64{0, 1, 2, 3, 4, 5, 7, 100, 1000, 12345, 1 << 16, 1<<20 - 1, 1 << 19, 636619, 636620} {
		for _, h := range []float64{0.5, 1} { // x·2/π = n + ½ and n + 1
			b := math.Float32bits(float32((n + h) * math.Pi / 2))
			for i := uint32(0); i < 4; i++ {
				xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
			}
		}
	}
	return xs
}

// TestSinCosNEON compares sin's and cos's tables in use (the kernel and,
// where it stops, the twin) with their twins bit for bit on the specials
// and their negations, at every length up to 40 and several starts (so
// that a stopping lane sits at each place of a vector and in the tail),
// and in place.
func TestSinCosNEON(t *testing.T) {
	checkNEONKernels(t, []neonKernel{{"sin", sinF32NEON, sinGo1}, {"cos", cosF32NEON, cosGo1}}, sinCosNEONSpecials(), 13)
}

// TestSinCosNEONStops calls sinCosF32 directly: it stops at the vector
// (or tail element) holding the first lane it leaves to the twin and
// writes nothing from there on.
func TestSinCosNEONStops(t *testing.T) {
	for _, bad := range []float32{1e6, -1e6, float32(math.Inf(1)), float32(math.NaN()), math.Float32frombits(0xff812345)} {
		for n := 1; n <= 13; n++ {
			for at := 0; at < n; at++ {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(i) + 0.5
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
				if got := sinCosF32(d, x, 0); got != want {
					t.Fatalf("n=%d, x[%d] = %v: stopped after %d, want %d", n, at, bad, got, want)
				}
				for i := range d {
					if i < want && d[i] != sinGo1(x[i]) || i >= want && d[i] != -7 {
						t.Fatalf("n=%d, x[%d] = %v: d[%d] = %v", n, at, bad, i, d[i])
					}
				}
			}
		}
	}
}

// geluTanhNEONSpecials are the inputs gelutanh_arm64.s is sensitive to:
// ±0, subnormals, ±Inf and NaNs (the twin's lanes), the largest finite
// values, points where |u| is near 512 (where e is set to 0) and 700
// (exp64's clamp), where the result becomes subnormal or zero (x near
// -10 to -14), and where u·log2 e is near a half-integer.
func geluTanhNEONSpecials() []float32 {
	bits := []uint32{0, 1, 2, 0x007fffff, 0x00800000, 0x7f800000, 0x7fc00000, 0x7f800001, 0x7fc12345, 0x7f7fffff, 0x3f800000}
	var xs []float32
	for _, b := range bits {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, c := range []float32{21.4, 24.5, 24.55, 27.5, 9.9, 10.5, 11, 11.5, 12, 12.5, 13, 14, 0x1p-126, 0x1p-20, 1e20, 3e38} {
		b := math.Float32bits(c)
		for i := uint32(0); i < 8; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	for v := 1e-3; v < 30; v *= 1.01 {
		xs = append(xs, float32(v))
	}
	return xs
}

// TestGeluTanhNEON compares gelu_tanh's table in use with its twin bit for
// bit on the specials and their negations, at every length up to 40 and
// several starts, and in place.
func TestGeluTanhNEON(t *testing.T) {
	checkNEONKernels(t, []neonKernel{{"gelu_tanh", geluTanhF32NEON, geluTanhGo1}}, geluTanhNEONSpecials(), 97)
}

// narrowModel is NARROW (neon64_arm64.h) in Go: the float32 bits of v from
// the integer rounding at bit 29 for |v| ≥ 2^-126, and below from the
// float64 sum 2^-97 + |v|.
func narrowModel(v float64) uint32 {
	b := math.Float64bits(v)
	s := b & (1 << 63)
	a := b ^ s
	var f uint64
	if a>>32 <= 0x380fffff { // |v| < 2^-126
		f = math.Float64bits(0x1p-97+math.Float64frombits(a)) - math.Float64bits(0x1p-97)
	} else {
		f = (a + (a>>29)&1 + 0xc80000000fffffff) >> 29
	}
	return uint32(f) | uint32(s>>32)
}

// TestNarrowModel checks NARROW's arithmetic against float32(v) on the
// ties and their neighbours at every float32 exponent (normal and
// subnormal, up to the overflow to Inf) and on random float64 values
// below 2^128: the sums of the sin, cos and gelu_tanh kernels reach ties
// too rarely to test them.
func TestNarrowModel(t *testing.T) {
	check := func(v float64) {
		if got, want := narrowModel(v), math.Float32bits(float32(v)); got != want {
			t.Fatalf("narrow(%v = %#x) = %#x, float32 %#x", v, math.Float64bits(v), got, want)
		}
	}
	for e := -151; e <= 128; e++ {
		for _, m := range []float64{1, 1.5, 1 + 0x1p-23, 2 - 0x1p-23, 1.25 + 0x1p-24, 1 + 0x1p-24, 1 + 3*0x1p-24} {
			v := math.Ldexp(m, e)
			for _, w := range []float64{v, math.Nextafter(v, 0), math.Nextafter(v, 4*v)} {
				if w < 0x1p128 {
					check(w)
					check(-w)
				}
			}
		}
		for k := 1; k < 64; k++ { // ties and near-ties below 2^-126: odd multiples of 2^-150
			v := math.Ldexp(float64(2*k+1), -150)
			check(v)
			check(math.Nextafter(v, 0))
			check(math.Nextafter(v, 1))
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 1 << 20 {
		v := math.Float64frombits(r.Uint64() &^ (1 << 62)) // |v| < 2, any exponent below, both signs
		if math.Abs(v) < 0x1p128 {
			check(v)
		}
		check(math.Ldexp(float64(r.Uint64()>>11)/0x1p53, -r.IntN(160)))
	}
}
