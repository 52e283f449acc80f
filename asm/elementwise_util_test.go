package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Helpers shared by the elementwise kernel tests (binary, unary, reduce,
// convert).

// ewGuard fills the buffer around every operand; it must survive.
const ewGuard = -7777.25

// ewSpecial32 are the float32 values every differential test mixes in.
var ewSpecial32 = []float32{
	0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -2, 3,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0x1p-127, -0x1.8p-130,
	0x1p-126, math.MaxFloat32, -math.MaxFloat32, 1e30, -1e30, 88.7, -88.7, 104, -104,
	1e-20, -1e-20, 16777216, 16777217, 100000, -12345.678,
}

// ewValues32 returns n float32 values: a random mix of the specials,
// values of every magnitude, and ones near ±1.
func ewValues32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		switch r.IntN(4) {
		case 0:
			v[i] = ewSpecial32[r.IntN(len(ewSpecial32))]
		case 1:
			v[i] = math.Float32frombits(r.Uint32())
		default:
			v[i] = float32(r.NormFloat64() * 4)
		}
	}
	return v
}

// ewValues64 is ewValues32 for float64, with float64's own extremes.
func ewValues64(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch r.IntN(5) {
		case 0:
			v[i] = float64(ewSpecial32[r.IntN(len(ewSpecial32))])
		case 1:
			v[i] = math.Float64frombits(r.Uint64())
		case 2:
			v[i] = []float64{math.MaxFloat64, math.SmallestNonzeroFloat64, -0x1p-1070, 1e300, -1e-300}[r.IntN(5)]
		default:
			v[i] = r.NormFloat64() * 4
		}
	}
	return v
}

func ewValues[T float32 | float64](r *rand.Rand, n int) []T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(ewValues32(r, n)).([]T)
	}
	return any(ewValues64(r, n)).([]T)
}

// ewPad returns a copy of src at offset off of a buffer with guards on both
// sides (off before, 9 after), and the buffer.
func ewPad[T any](src []T, off int, g T) (s, buf []T) {
	buf = make([]T, off+len(src)+9)
	for i := range buf {
		buf[i] = g
	}
	copy(buf[off:], src)
	return buf[off : off+len(src)], buf
}

// ewCheckGuards fails if anything outside buf[off:off+n] changed.
func ewCheckGuards[T comparable](t testing.TB, what string, buf []T, off, n int, g T) {
	t.Helper()
	for i, v := range buf {
		if (i < off || i >= off+n) && v != g {
			t.Fatalf("%s: guard at %d (data at %d:%d) overwritten with %v", what, i, off, off+n, v)
		}
	}
}

// ewSame reports whether a and b are the same value: equal bits, or both NaN.
func ewSame[T float32 | float64](a, b T) bool {
	if a != a {
		return b != b
	}
	switch x := any(a).(type) {
	case float32:
		return math.Float32bits(x) == math.Float32bits(any(b).(float32))
	case float64:
		return math.Float64bits(x) == math.Float64bits(any(b).(float64))
	}
	return false
}

// ewLens are the lengths each differential test runs: 0..67 (past four
// times the widest step) and a few long ones.
func ewLens() []int {
	n := make([]int, 0, 72)
	for i := 0; i <= 67; i++ {
		n = append(n, i)
	}
	return append(n, 127, 128, 129, 1000)
}
