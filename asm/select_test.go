package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// cmpCase is one comparison entry point with its definition.
type cmpCase[T float32 | float64] struct {
	name string
	f    func(dst []bool, x, y []T)
	def  func(x, y T) bool
}

func cmpCases[T float32 | float64](eq, ne, lt, le, gt, ge func(dst []bool, x, y []T)) []cmpCase[T] {
	return []cmpCase[T]{
		{"eq", eq, func(x, y T) bool { return x == y }},
		{"ne", ne, func(x, y T) bool { return x != y }},
		{"lt", lt, func(x, y T) bool { return x < y }},
		{"le", le, func(x, y T) bool { return x <= y }},
		{"gt", gt, func(x, y T) bool { return x > y }},
		{"ge", ge, func(x, y T) bool { return x >= y }},
	}
}

// cmpOperands returns x and y of length n where a third of the pairs are
// equal and some are ±0 or share a NaN, besides ewValues' specials.
func cmpOperands[T float32 | float64](r *rand.Rand, n int) (x, y []T) {
	x, y = ewValues[T](r, n), ewValues[T](r, n)
	for i := range y {
		switch r.IntN(6) {
		case 0, 1:
			y[i] = x[i]
		case 2:
			x[i], y[i] = 0, 0 // and below -0: -0 == +0
			if r.IntN(2) == 0 {
				y[i] = -y[i]
			}
		}
	}
	return x, y
}

// checkCmp runs c on x and y placed at offset off of guarded buffers and
// compares each bool with the definition; the guards must stay.
func checkCmp[T float32 | float64](t testing.TB, c cmpCase[T], x, y []T, off int) {
	t.Helper()
	xs, _ := ewPad(x, off, T(7))
	ys, _ := ewPad(y, (off+1)%4, T(7))
	d, buf := ewPad(make([]bool, len(x)), off, true)
	for i := range d {
		d[i] = i%3 == 0 // stale values the kernel must overwrite
	}
	c.f(d, xs, ys)
	ewCheckGuards(t, fmt.Sprintf("%s n=%d off=%d", c.name, len(x), off), buf, off, len(x), true)
	for i := range d {
		if want := c.def(x[i], y[i]); d[i] != want {
			t.Fatalf("%s n=%d off=%d: d[%d] = %v for %v, %v; want %v", c.name, len(x), off, i, d[i], x[i], y[i], want)
		}
	}
}

func testCmp[T float32 | float64](t *testing.T, cases []cmpCase[T]) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		for _, n := range ewLens() {
			x, y := cmpOperands[T](r, n)
			checkCmp(t, c, x, y, r.IntN(4))
		}
	}
}

func TestCompare(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testCmp(t, cmpCases(EqF32, NeF32, LtF32, LeF32, GtF32, GeF32)) })
	t.Run("float64", func(t *testing.T) { testCmp(t, cmpCases(EqF64, NeF64, LtF64, LeF64, GtF64, GeF64)) })
}

// checkSelect runs sel on guarded buffers at offset off, also in place
// (dst = x and dst = y), and compares with the definition bit for bit.
func checkSelect[T uint32 | uint64](t testing.TB, sel func(dst []T, c []uint8, x, y []T), c []uint8, x, y []T, off int) {
	t.Helper()
	want := make([]T, len(x))
	for i := range want {
		want[i] = y[i]
		if c[i] != 0 {
			want[i] = x[i]
		}
	}
	const g = 0x5a5a5a5a
	cs, _ := ewPad(c, (off+3)%4, 9)
	xs, _ := ewPad(x, off, T(g))
	ys, _ := ewPad(y, (off+1)%4, T(g))
	for _, mode := range []string{"out", "x", "y"} {
		d, buf := ewPad(make([]T, len(x)), off, T(g))
		switch mode {
		case "x":
			d, buf = ewPad(x, off, T(g))
			sel(d, cs, d, ys)
		case "y":
			d, buf = ewPad(y, off, T(g))
			sel(d, cs, xs, d)
		default:
			sel(d, cs, xs, ys)
		}
		what := fmt.Sprintf("n=%d off=%d dst=%s", len(x), off, mode)
		ewCheckGuards(t, what, buf, off, len(x), T(g))
		for i := range d {
			if d[i] != want[i] {
				t.Fatalf("%s: d[%d] = %#x (c=%d x=%#x y=%#x), want %#x", what, i, d[i], c[i], x[i], y[i], want[i])
			}
		}
	}
}

func selectOperands[T uint32 | uint64](r *rand.Rand, n int) (c []uint8, x, y []T) {
	c, x, y = make([]uint8, n), make([]T, n), make([]T, n)
	for i := range c {
		c[i] = []uint8{0, 0, 1, 1, 2, 128, 255}[r.IntN(7)]
		x[i], y[i] = T(r.Uint64()), T(r.Uint64())
	}
	return c, x, y
}

func TestSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range ewLens() {
		c, x, y := selectOperands[uint32](r, n)
		checkSelect(t, Select32, c, x, y, r.IntN(4))
		c, x64, y64 := selectOperands[uint64](r, n)
		checkSelect(t, Select64, c, x64, y64, r.IntN(4))
	}
}

func FuzzCompare(f *testing.F) {
	f.Add(uint8(37), uint8(1), uint8(2), uint64(1))
	f.Fuzz(func(t *testing.T, n, off, op uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 7))
		c32 := cmpCases(EqF32, NeF32, LtF32, LeF32, GtF32, GeF32)
		c64 := cmpCases(EqF64, NeF64, LtF64, LeF64, GtF64, GeF64)
		x, y := cmpOperands[float32](r, int(n))
		checkCmp(t, c32[int(op)%len(c32)], x, y, int(off%8))
		x64, y64 := cmpOperands[float64](r, int(n))
		checkCmp(t, c64[int(op)%len(c64)], x64, y64, int(off%8))
	})
}

func FuzzSelect(f *testing.F) {
	f.Add(uint8(37), uint8(1), uint64(1))
	f.Fuzz(func(t *testing.T, n, off uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 8))
		c, x, y := selectOperands[uint32](r, int(n))
		checkSelect(t, Select32, c, x, y, int(off%8))
		c, x64, y64 := selectOperands[uint64](r, int(n))
		checkSelect(t, Select64, c, x64, y64, int(off%8))
	})
}

// checkThreshold runs ThresholdBackwardF32 (the AVX2 loop where the CPU
// has it) at offset off of guarded buffers against its definition.
func checkThreshold(t testing.TB, g, x []float32, th float32, off int) {
	t.Helper()
	const guard = float32(-7)
	gp, _ := ewPad(g, off, guard)
	xp, _ := ewPad(x, off, guard)
	d, buf := ewPad(make([]float32, len(x)), off, guard)
	ThresholdBackwardF32(d, gp, xp, th)
	what := fmt.Sprintf("n=%d off=%d th=%v", len(x), off, th)
	ewCheckGuards(t, what, buf, off, len(x), guard)
	sd, sbuf := ewPad(make([]float32, len(x)), off, guard)
	ThresholdBackwardStreamF32(sd, gp, xp, th)
	ewCheckGuards(t, what+" streamed", sbuf, off, len(x), guard)
	twin := make([]float32, len(x))
	thresholdBackwardGo(twin, g, x, th)
	for i := range x {
		want := g[i]
		if x[i] <= th {
			want = 0
		}
		if !ewSame(d[i], want) || !ewSame(twin[i], want) || !ewSame(sd[i], want) {
			t.Fatalf("%s: [%d] x=%v g=%v: %v (streamed %v, twin %v), want %v", what, i, x[i], g[i], d[i], sd[i], twin[i], want)
		}
	}
}

// TestThresholdBackward runs the ordinary and (streamBytes 0) the
// streaming kernel over every length and offset of ewLens.
func TestThresholdBackward(t *testing.T) {
	defer func(b int) { streamBytes = b }(streamBytes)
	ths := []float32{0, float32(math.Copysign(0, -1)), -1, 0.5, float32(math.NaN()), float32(math.Inf(1))}
	for _, sb := range []int{streamBytes, 0} {
		streamBytes = sb
		r := rand.New(rand.NewPCG(19, 20))
		for _, n := range ewLens() {
			checkThreshold(t, ewValues[float32](r, n), ewValues[float32](r, n), ths[r.IntN(len(ths))], r.IntN(8))
		}
	}
}

func FuzzThresholdBackward(f *testing.F) {
	f.Add(uint8(19), uint8(1), float32(0), uint64(1))
	f.Fuzz(func(t *testing.T, n, off uint8, th float32, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 20))
		checkThreshold(t, ewValues[float32](r, int(n)), ewValues[float32](r, int(n)), th, int(off%8))
	})
}
