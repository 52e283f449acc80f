package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// The float64 reductions (sum, dot, sumSqDev, moments, accumulateRows) at
// the edges of float32's range, against their twins bit for bit, NaN
// payloads included: the NEON kernels widen float32 through its bits
// (reduce_arm64.s), so subnormals, ±0, the largest magnitudes and the
// values next to exponent 255 are the cases that matter; and an Inf or a
// NaN anywhere (first or last element of a block, the tail, two NaNs in
// one running sum, NaN times NaN) must give the twin's bits.

// widenStrictNaN says whether checkWiden compares NaN payloads: the NEON
// kernels and the twins give the twin's, while the AVX2 and AVX-512
// kernels pick another NaN operand where two meet (sumSqDev and moments
// with a NaN m, two NaNs in one running sum), which sameF64 allows.
var widenStrictNaN = runtime.GOARCH != "amd64" || red32 == &reduceGo

// sameWiden reports whether a and b have the same bits (any NaN for any
// NaN when !widenStrictNaN).
func sameWiden(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || !widenStrictNaN && a != a && b != b
}

// widenEdge32 are finite float32s whose widening is delicate.
var widenEdge32 = []uint32{
	0x00000000, 0x80000000, // ±0
	0x00000001, 0x80000001, 0x00000002, 0x00400000, 0x007fffff, 0x807fffff, // subnormals
	0x00800000, 0x80800000, 0x00800001, // the smallest normals
	0x3f800000, 0xbf800000, 0x3f800001, 0x3fffffff, // 1, -1 and neighbours
	0x7f000000, 0x7f7fffff, 0xff7fffff, 0x7f7ffffe, 0x7f400000, // the largest, next to exponent 255
}

// widenSpecial32 are the exponent-255 patterns: ±Inf, quiet and signaling
// NaNs with payloads.
var widenSpecial32 = []uint32{
	0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001,
	0x7fc12345, 0xffbfffff, 0x7fffffff, 0x7fa00000,
}

// widenValues returns n finite float32s: edge values, random bit patterns
// with exponent below 255, random subnormals and plain numbers.
func widenValues(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		switch r.IntN(5) {
		case 0:
			v[i] = math.Float32frombits(widenEdge32[r.IntN(len(widenEdge32))])
		case 1:
			u := r.Uint32()
			if u&0x7f800000 == 0x7f800000 {
				u &^= 0x00800000
			}
			v[i] = math.Float32frombits(u)
		case 2:
			v[i] = math.Float32frombits(r.Uint32() & 0x807fffff)
		default:
			v[i] = float32(r.NormFloat64())
		}
	}
	return v
}

// checkWiden compares the table's float64 reductions with the twins on x,
// y (same length) at offset off, bit for bit.
func checkWiden(t *testing.T, what string, x0, y0 []float32, off int) {
	t.Helper()
	n := len(x0)
	x, _ := ewPad(x0, off, ewGuard)
	y, _ := ewPad(y0, off+1, ewGuard)
	fail := func(op string, got, want float64) {
		t.Helper()
		if !sameWiden(got, want) {
			t.Fatalf("%s n=%d off=%d: %s = %v (%#x), twin %v (%#x)", what, n, off, op, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	if n > 0 {
		fail("sum", red32.sum(x), reduceGo.sum(x0))
		fail("dot", red32.dot(x, y), reduceGo.dot(x0, y0))
		fail("dot(y, x)", red32.dot(y, x), reduceGo.dot(y0, x0))
	}
	ms := []float64{0, math.Copysign(0, -1), 0.1, -1e300, 1e308, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff4000000000001), 0x1p-1074}
	if n > 0 {
		ms = append(ms, float64(x0[0]), float64(x0[n-1])/3)
	}
	for _, m := range ms {
		if n > 0 {
			fail(fmt.Sprintf("sumSqDev(m=%v)", m), red32.sumSqDev(x, m), reduceGo.sumSqDev(x0, m))
		}
		if nb := n &^ 31; nb > 0 {
			g1, g2 := red32.moments(x[:nb], m)
			w1, w2 := reduceGo.moments(x0[:nb], m)
			fail(fmt.Sprintf("moments(k=%v).s1", m), g1, w1)
			fail(fmt.Sprintf("moments(k=%v).s2", m), g2, w2)
		}
	}
	if nb := n &^ 7; nb > 0 {
		for _, rows := range []int{1, 3} {
			stride := nb + off
			xs := make([]float32, (rows-1)*stride+nb)
			for i := range xs {
				xs[i] = x0[i%n]
			}
			start := []float64{0, math.Copysign(0, -1), 1e308, -0x1p-1074, math.NaN(), math.Inf(-1)}
			got, want := make([]float64, nb), make([]float64, nb)
			for i := range got {
				got[i] = start[i%len(start)]
				want[i] = got[i]
			}
			red32.accumulateRows(got, xs, rows, stride)
			reduceGo.accumulateRows(want, xs, rows, stride)
			for i := range got {
				fail(fmt.Sprintf("accumulateRows(rows=%d)[%d]", rows, i), got[i], want[i])
			}
		}
	}
}

// TestReduceWiden: finite edge values at every length of ewLens, then one
// or two Inf/NaN patterns at the positions that matter.
func TestReduceWiden(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, n := range ewLens() {
		for off := range 3 {
			checkWiden(t, "finite", widenValues(r, n), widenValues(r, n), off)
		}
	}
	// All the largest magnitudes, of one sign and alternating: sums near
	// 2^128·n, squares near 2^256.
	for _, n := range []int{16, 32, 67, 1000} {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i] = math.MaxFloat32
			y[i] = math.MaxFloat32
			if i%3 == 1 {
				y[i] = -y[i]
			}
		}
		checkWiden(t, "max", x, y, 1)
		checkWiden(t, "max alternating", y, x, 2)
	}
	for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 48, 64, 67, 129} {
		for _, at := range []int{0, 1, 7, 8, 15, 16, 31, 32, n - 1} {
			if at >= n {
				continue
			}
			for _, s := range widenSpecial32 {
				x, y := widenValues(r, n), widenValues(r, n)
				x[at] = math.Float32frombits(s)
				checkWiden(t, fmt.Sprintf("x[%d]=%#x", at, s), x, y, at%3)
				// A second NaN with another payload in the same running sum,
				// and NaN times NaN.
				x[(at+16)%n] = math.Float32frombits(0xffc0beef)
				y[at] = math.Float32frombits(0x7fc0cafe)
				checkWiden(t, fmt.Sprintf("x[%d]=%#x, two NaNs", at, s), x, y, 0)
			}
		}
	}
}
