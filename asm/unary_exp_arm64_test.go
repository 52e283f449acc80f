//go:build !purego

package asm

import (
	"math"
	"testing"
)

// neonKernel is a NEON unary kernel and its twin.
type neonKernel struct {
	name   string
	kernel func(d, x []float32)
	twin   func(float32) float32
}

// expNEONKernels are the NEON kernels of unary_exp_arm64.s and their twins.
var expNEONKernels = []neonKernel{{"exp", expF32, expGo1}, {"sigmoid", sigmoidF32, sigmoidGo1}, {"silu", siluF32, siluGo1},
	{"tanh", tanhF32, tanhGo1}, {"log", logF32, logGo1}}

// checkExpNEON runs kernel on xs (one call, so every length takes the 8-,
// 4- and 1-element paths it reaches) and compares the bits, NaN payloads
// included, with twin's.
func checkExpNEON(t *testing.T, name string, kernel func(d, x []float32), twin func(float32) float32, xs []float32) {
	t.Helper()
	d := make([]float32, len(xs))
	kernel(d, xs)
	for i, x := range xs {
		if want := twin(x); math.Float32bits(d[i]) != math.Float32bits(want) {
			t.Fatalf("%s(%v (%#x)) [%d of %d] = %v (%#x), twin %v (%#x)", name, x, math.Float32bits(x), i, len(xs),
				d[i], math.Float32bits(d[i]), want, math.Float32bits(want))
		}
	}
}

// checkNEONKernels compares each kernel of ks with its twin bit for bit on
// xs and their negations: all of them in one call, every length up to 40
// from every step-th start (the vector paths and the one-element tail),
// and in place.
func checkNEONKernels(t *testing.T, ks []neonKernel, xs []float32, step int) {
	t.Helper()
	for _, x := range xs[:len(xs):len(xs)] {
		xs = append(xs, -x)
	}
	for _, k := range ks {
		checkExpNEON(t, k.name, k.kernel, k.twin, xs)
		for n := 0; n <= 40; n++ {
			for off := 0; off+n <= len(xs); off += step {
				checkExpNEON(t, k.name, k.kernel, k.twin, xs[off:off+n])
			}
		}
		in := append([]float32(nil), xs...)
		k.kernel(in, in)
		for i, x := range xs {
			if want := k.twin(x); math.Float32bits(in[i]) != math.Float32bits(want) {
				t.Fatalf("in place: %s(%#x) = %#x, twin %#x", k.name, math.Float32bits(x), math.Float32bits(in[i]), math.Float32bits(want))
			}
		}
	}
}

// expNEONSpecials are the inputs the kernel's tricks are sensitive to:
// ±0, subnormals, ±Inf, NaNs (quiet and signalling, both signs, with
// payloads), the neighbours of the clamp bounds expLo = -120 and
// expHi = 89, of the overflow and underflow thresholds and of the
// divisions' special ranges, and points where x·log2e is near a
// half-integer (the rounding of n).
func expNEONSpecials() []float32 {
	bits := []uint32{
		0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
		0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff,
		0xffbfffff, 0x7fc12345, 0xffd54321, 0x7fffffff, 0xffffffff, 0x7f812345, 0xff812345,
		0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000,
	}
	var xs []float32
	for _, b := range bits {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, c := range []float32{expLo, expHi, -87.33655, 88.72284, -103.97208, -104, -126, -149, 128, -173, 174,
		0x1p-23, 0x1p-24, 0x1p-60, 64, -64, 17, -17, // sigmoid's 1 + e = 2 - 2^-23, silu's vector range
		0.625, expHi / 2, 44.36142, 9.010913, 9.357487, 0x1p-126, 0x1p-63, // tanh's: its two forms, the clamp of 2|x|, e^2|x| overflowing, 1 + e = 2^26, 2^27, subnormal x², x³
		0.70710678, 1.41421356, 0.5, 2, 0x1p-127, 0x1p-149, 0x1p-130 * 0.70710678} { // log's: m at √½, powers of two, subnormals
		b := math.Float32bits(c)
		for i := uint32(0); i < 8; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	for n := -174; n <= 130; n++ { // x·log2e = n + ½ and its neighbours
		x := float32((float64(n) + 0.5) / math.Log2E)
		b := math.Float32bits(x)
		for i := uint32(0); i < 4; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	return xs
}

// TestExpNEON compares the NEON kernels with their twins bit for bit on
// the specials (and their negations, for sigmoid's two sides), at every
// length up to 40 and every start (the vector paths and the one-element
// tail), and in place.
func TestExpNEON(t *testing.T) { checkNEONKernels(t, expNEONKernels, expNEONSpecials(), 37) }

// TestExpShiftNEON compares the reductions table's expShift (softmax's
// e^(x-m)) with its twin bit for bit on the specials and their negations,
// for shifts m that are ordinary, huge, infinite, subnormal or NaN, at
// lengths up to 40 and in place.
func TestExpShiftNEON(t *testing.T) {
	xs := expNEONSpecials()
	for _, x := range expNEONSpecials() {
		xs = append(xs, -x)
	}
	inf := float32(math.Inf(1))
	for _, m := range []float32{0, 1.5, -3, 88.7, -100, 1e30, -1e30, inf, -inf, 0x1p-149, float32(math.NaN()),
		math.Float32frombits(0xffc12345)} {
		check := func(x []float32, inPlace bool) {
			want := make([]float32, len(x))
			expShiftGo(want, x, m)
			d := make([]float32, len(x))
			if inPlace {
				d = append(d[:0], x...)
				red32.expShift(d, d, m)
			} else {
				red32.expShift(d, x, m)
			}
			for i := range x {
				if math.Float32bits(d[i]) != math.Float32bits(want[i]) {
					t.Fatalf("e^(%#x - %v) [%d of %d, in place %v] = %#x, twin %#x", math.Float32bits(x[i]), m, i, len(x), inPlace,
						math.Float32bits(d[i]), math.Float32bits(want[i]))
				}
			}
		}
		check(xs, false)
		check(xs, true)
		for n := 0; n <= 40; n++ {
			check(xs[n*3:n*4], false)
		}
	}
}
