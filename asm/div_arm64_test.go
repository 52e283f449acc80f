//go:build !purego

package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// divSpecials are the operands the kernels of div_arm64.s are sensitive
// to: ±0, subnormals, ±Inf, NaNs (quiet and signalling, both signs, with
// payloads), the largest finite, the ends of the reciprocal's range
// [2^-126, 2^125) and of the division's [2^-63, 2^63) and their
// neighbours, numbers past those ends (whose quotients would underflow or
// overflow), mantissas of all ones (RECIPFIX), and ordinary numbers.
func divSpecials() []float32 {
	bits := []uint32{
		0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000,
		0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff,
		0xffbfffff, 0x7fc12345, 0xffd54321, 0x7fffffff, 0xffffffff, 0x7f812345, 0xff812345,
		0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x3fffffff, 0xbfffffff, 0x3fc00000,
	}
	var xs []float32
	for _, b := range bits {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, c := range []float32{0x1p-126, 0x1p125, 0x1p126, 0x1p-63, 0x1p63, 0x1p-62, 0x1p62, 0x1p-102, 0x1p124,
		0x1p-100, 0x1p-80, 0x1p-70, 0x1p70, 0x1p80, 0x1p100, 0x1.ep125, 0x1.cp-64, 0x1.cp63, 0x1.fp124,
		3, 0.1, 1e-38, 3e38, 7} {
		b := math.Float32bits(c)
		for i := uint32(0); i < 3; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	for _, x := range xs[:len(xs):len(xs)] {
		xs = append(xs, -x)
	}
	return xs
}

// sameBits reports the first index where d and want differ in bits, or -1.
func sameBits(d, want []float32) int {
	for i := range want {
		if math.Float32bits(d[i]) != math.Float32bits(want[i]) {
			return i
		}
	}
	return -1
}

// TestReciprocalNEON compares reciprocalF32 with 1/x (the twin's FDIVS)
// bit for bit on the specials at every length up to 40 and start (vectors
// of mixed lanes, the fallback and the one-element tail), and in place.
func TestReciprocalNEON(t *testing.T) {
	xs := divSpecials()
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	want := make([]float32, len(xs))
	reciprocalGo1s := func(d, x []float32) {
		for i := range d {
			d[i] = reciprocalGo1(x[i])
		}
	}
	reciprocalGo1s(want, xs)
	for n := 0; n <= 40; n++ {
		for off := 0; off+n <= len(xs); off += 7 {
			d := make([]float32, n)
			reciprocalF32(d, xs[off:off+n])
			if i := sameBits(d, want[off:off+n]); i >= 0 {
				t.Fatalf("1/%#x = %#x, twin %#x (n %d)", math.Float32bits(xs[off+i]), math.Float32bits(d[i]), math.Float32bits(want[off+i]), n)
			}
		}
	}
	in := append([]float32(nil), xs...)
	reciprocalF32(in, in)
	if i := sameBits(in, want); i >= 0 {
		t.Fatalf("in place: 1/%#x = %#x, twin %#x", math.Float32bits(xs[i]), math.Float32bits(in[i]), math.Float32bits(want[i]))
	}
}

// checkDivNEON runs the three division forms on (x, y) and on (x, s) and
// (s, y), each in one call, and compares their bits with the twins'.
func checkDivNEON(t *testing.T, x, y []float32, s float32) {
	t.Helper()
	checkDivForm(t, "vv", x, y, s)
	checkDivForm(t, "vs", x, y, s)
	checkDivForm(t, "sv", x, y, s)
}

// checkDivForm runs one form: x / y (vv), x / s (vs) or s / y (sv).
func checkDivForm(t *testing.T, form string, x, y []float32, s float32) {
	t.Helper()
	n := len(x)
	d, want := make([]float32, n), make([]float32, n)
	a, b := x, y
	switch form {
	case "vv":
		divVV32(d, x, y)
		divGo(want, x, y)
	case "vs":
		divVSNEON(d, x, s)
		divVSGo(want, x, s)
		b = slices.Repeat([]float32{s}, n)
	case "sv":
		divSVNEON(d, s, y)
		divSVGo(want, s, y)
		a = slices.Repeat([]float32{s}, n)
	}
	if i := sameBits(d, want); i >= 0 {
		t.Fatalf("%s: %#x / %#x = %#x, twin %#x (n %d)", form, math.Float32bits(a[i]), math.Float32bits(b[i]), math.Float32bits(d[i]), math.Float32bits(want[i]), n)
	}
}

// TestDivNEON compares the division kernels with their twins bit for bit
// on every pair of specials (0/0, Inf/Inf, x/±0, NaN payloads, quotients
// that overflow or underflow, the range ends), lanes of every kind side by
// side, at lengths up to 9 and every start, every special as the scalar,
// and in place.
func TestDivNEON(t *testing.T) {
	sp := divSpecials()
	var x, y []float32
	for _, a := range sp {
		for _, b := range sp {
			x, y = append(x, a), append(y, b)
		}
	}
	for n := 0; n <= 9; n++ {
		for off := n; off+n <= len(x); off += 1031 {
			checkDivNEON(t, x[off:off+n], y[off:off+n], x[off-n])
		}
	}
	checkDivNEON(t, x, y, 1)
	for _, s := range sp {
		checkDivNEON(t, sp, sp, s)
	}
	want := make([]float32, len(x))
	divGo(want, x, y)
	in := append([]float32(nil), x...)
	divVV32(in, in, y)
	if i := sameBits(in, want); i >= 0 {
		t.Fatalf("in place: %#x / %#x = %#x, twin %#x", math.Float32bits(x[i]), math.Float32bits(y[i]), math.Float32bits(in[i]), math.Float32bits(want[i]))
	}
}

// TestDivSignificands runs the division kernels on every divisor
// significand (GOATEN_DIV_STEP=1; every k-th with GOATEN_DIV_STEP=k, every
// 4099th by default), each divisor against a set of dividends spread over
// the range [2^-63, 2^63) and its ends, ±0, and the dividends whose
// quotient is nearest a rounding boundary (divHard), at exponents and signs
// that vary with the divisor; the bits are compared with the twins' FDIVS.
func TestDivSignificands(t *testing.T) {
	step := uint32(4099)
	if s := os.Getenv("GOATEN_DIV_STEP"); s != "" {
		n, _ := strconv.ParseUint(s, 10, 32)
		step = uint32(max(n, 1))
	}
	r := rand.New(rand.NewPCG(13, 14))
	var spread []float32
	for _, c := range []float32{0, 0x1p-63, 0x1p63, 0x1p-62, 0x1p62, 1, 1.5} {
		b := math.Float32bits(c)
		spread = append(spread, math.Float32frombits(b), math.Float32frombits(b-1), math.Float32frombits(b+1))
	}
	for e := -64; e <= 63; e++ { // two significands an exponent, one past each end
		spread = append(spread, float32(math.Ldexp(1+r.Float64(), e)), float32(math.Ldexp(1+r.Float64(), e)))
	}
	for len(spread)%4 != 0 {
		spread = append(spread, 0.375)
	}
	for i := range spread {
		if i%2 == 1 {
			spread[i] = -spread[i]
		}
	}
	scale := func(ai uint32, e int) float32 { return float32(math.Ldexp(float64(ai)*0x1p-23, e)) }
	var x, y []float32
	flush := func() {
		checkDivForm(t, "vv", x, y, 0)
		checkDivForm(t, "sv", x, y, x[len(x)/2])
		x, y = x[:0], y[:0]
	}
	count := 0
	for bi := uint32(1 << 23); bi < 1<<24; bi += step {
		eb := int(bi%126) - 63 // the divisor's exponent, in [-63, 62]
		b := scale(bi, eb)
		if bi&2 != 0 {
			b = -b
		}
		for _, a := range spread {
			x, y = append(x, a), append(y, b)
		}
		divHard(bi, func(ai uint32) {
			ea := int(ai%126) - 63
			x, y = append(x, scale(ai, ea)), append(y, scale(bi, eb))
			x, y = append(x, -scale(ai, 62-int(ai%64))), append(y, b)
		})
		for len(x)%4 != 0 { // the next divisor's lanes start a vector
			x, y = append(x, 1.25), append(y, b)
		}
		checkDivForm(t, "vs", spread, nil, b) // spread / b in one call, the scalar's reciprocal once
		if len(x) >= 1<<14 {
			count += len(x)
			flush()
		}
	}
	if len(x) > 0 {
		count += len(x)
		flush()
	}
	t.Logf("%d pairs (divisor step %d)", count, step)
}

// BenchmarkDiv runs the float32 division forms on 16M elements, the NEON
// kernels against their twins (BenchmarkUnary has reciprocal).
func BenchmarkDiv(b *testing.B) {
	x, y := benchInput(benchLen), benchInput(benchLen)
	d := make([]float32, benchLen)
	for _, impl := range []struct {
		name string
		tab  *binTable[float32]
	}{{Path(), bin32}, {"go", &binGo32}} {
		for _, form := range []string{"vv", "vs", "sv"} {
			b.Run(fmt.Sprintf("%s/div_%s/16M", impl.name, form), func(b *testing.B) {
				b.SetBytes(12 * benchLen)
				for b.Loop() {
					switch form {
					case "vv":
						impl.tab.vv[opDiv](d, x, y)
					case "vs":
						impl.tab.vs[opDiv](d, x, 1.7)
					case "sv":
						impl.tab.sv[opDiv](d, 1.7, y)
					}
				}
				reportElems(b, benchLen)
			})
		}
	}
}

// divSpecials64 are the float64 operands of the same kinds: ±0,
// subnormals, ±Inf, NaNs with payloads, the largest finite, the ends of
// the division's range [2^-256, 2^256) and their neighbours, numbers far
// past them (quotients that overflow or underflow), mantissas of all ones
// (RECIPD's fix) and ordinary numbers.
func divSpecials64() []float64 {
	bits := []uint64{
		0, 1, 0x000fffffffffffff, 0x0008000000000000, 0x7ff0000000000000, 0x7ff8000000000000,
		0x7ff0000000000001, 0x7ff7ffffffffffff, 0x7ff8123456789abc, 0x7ff4000000000321, 0x7fffffffffffffff,
		0x7fefffffffffffff, 0x3ff0000000000000, 0x3fffffffffffffff, 0x3ff8000000000000, 0x3ffffffffffffffe,
		0x0010000000000000, 0x7fe0000000000000,
	}
	var xs []float64
	for _, b := range bits {
		xs = append(xs, math.Float64frombits(b))
	}
	for _, c := range []float64{0x1p-256, 0x1p256, 0x1p-255, 0x1p255, 0x1p-257, 0x1p257, 0x1p-511, 0x1p511,
		0x1p-1021, 0x1p1022, 0x1.fp255, 0x1.8p-256, 3, 0.1, 1e-300, 1e300, 7, 1e-30, 1e30} {
		b := math.Float64bits(c)
		for i := uint64(0); i < 3; i++ {
			xs = append(xs, math.Float64frombits(b-i), math.Float64frombits(b+i))
		}
	}
	for _, x := range xs[:len(xs):len(xs)] {
		xs = append(xs, -x)
	}
	return xs
}

// firstDiff64 reports the first index where d and want differ in bits, or -1.
func firstDiff64(d, want []float64) int {
	for i := range want {
		if math.Float64bits(d[i]) != math.Float64bits(want[i]) {
			return i
		}
	}
	return -1
}

// checkDivForm64 runs one float64 form: x / y (vv), x / s (vs) or s / y
// (sv), through the table (bin64), and compares its bits with the twin's.
func checkDivForm64(t *testing.T, form string, x, y []float64, s float64) {
	t.Helper()
	n := len(x)
	d, want := make([]float64, n), make([]float64, n)
	a, b := x, y
	switch form {
	case "vv":
		bin64.vv[opDiv](d, x, y)
		divGo(want, x, y)
	case "vs":
		bin64.vs[opDiv](d, x, s)
		divVSGo(want, x, s)
		b = slices.Repeat([]float64{s}, n)
	case "sv":
		bin64.sv[opDiv](d, s, y)
		divSVGo(want, s, y)
		a = slices.Repeat([]float64{s}, n)
	}
	if i := firstDiff64(d, want); i >= 0 {
		t.Fatalf("%s: %#x / %#x = %#x, twin %#x (n %d)", form, math.Float64bits(a[i]), math.Float64bits(b[i]), math.Float64bits(d[i]), math.Float64bits(want[i]), n)
	}
}

// checkDivNEON64 runs the three float64 forms on (x, y), (x, s), (s, y).
func checkDivNEON64(t *testing.T, x, y []float64, s float64) {
	t.Helper()
	checkDivForm64(t, "vv", x, y, s)
	checkDivForm64(t, "vs", x, y, s)
	checkDivForm64(t, "sv", x, y, s)
}

// TestDiv64NEON compares the float64 division kernels (through the table,
// so divKernelsNEON64 is installed) with their twins bit for bit on every
// pair of specials (0/0, Inf/Inf, x/±0, NaN payloads, over- and underflow,
// the range ends), at lengths up to 7 and every start, every special as
// the scalar, in place, and on random pairs: random bits, and significands
// at exponents within and just past the range.
func TestDiv64NEON(t *testing.T) {
	// NEON is in the arm64 base ISA; only GOATEN_PUREGO=1 turns it off,
	// and then the table must hold the twin (the comparisons below still run).
	kern := reflect.ValueOf(divVV64).Pointer()
	if !useNEON {
		kern = reflect.ValueOf(binGo64.vv[opDiv]).Pointer()
	}
	if reflect.ValueOf(bin64.vv[opDiv]).Pointer() != kern {
		t.Fatalf("bin64.vv[opDiv] is not the %s kernel", Path())
	}
	sp := divSpecials64()
	var x, y []float64
	for _, a := range sp {
		for _, b := range sp {
			x, y = append(x, a), append(y, b)
		}
	}
	for n := 0; n <= 7; n++ {
		for off := n; off+n <= len(x); off += 257 {
			checkDivNEON64(t, x[off:off+n], y[off:off+n], x[off-n])
		}
	}
	checkDivNEON64(t, x, y, 1)
	for _, s := range sp {
		checkDivNEON64(t, sp, sp, s)
	}
	want := make([]float64, len(x))
	divGo(want, x, y)
	in := append([]float64(nil), x...)
	bin64.vv[opDiv](in, in, y)
	if i := firstDiff64(in, want); i >= 0 {
		t.Fatalf("in place: %#x / %#x = %#x, twin %#x", math.Float64bits(x[i]), math.Float64bits(y[i]), math.Float64bits(in[i]), math.Float64bits(want[i]))
	}
	r := rand.New(rand.NewPCG(15, 16))
	rnd := func() float64 {
		if r.IntN(4) == 0 {
			return math.Float64frombits(r.Uint64())
		}
		f := math.Ldexp(1+r.Float64(), r.IntN(540)-270)
		if r.IntN(2) == 0 {
			f = -f
		}
		return f
	}
	for range 64 {
		x, y = x[:0], y[:0]
		for range 4096 {
			x, y = append(x, rnd()), append(y, rnd())
		}
		checkDivNEON64(t, x, y, rnd())
	}
}
