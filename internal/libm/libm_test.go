package libm

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readHex reads the testdata file name: lines of hex words.
func readHex(t *testing.T, name string) [][]uint64 {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row []uint64
		for _, w := range strings.Fields(sc.Text()) {
			v, err := strconv.ParseUint(w, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

var f64s = map[string]func(float64) float64{"log": Log, "sin": Sin, "cos": Cos}

func TestVectors64(t *testing.T) {
	for name, f := range f64s {
		for _, r := range readHex(t, name+".txt") {
			x, want := math.Float64frombits(r[0]), r[1]
			if got := math.Float64bits(f(x)); got != want {
				t.Errorf("%s(%v [%#x]) = %v [%#x], glibc %v [%#x]", name, x, r[0], math.Float64frombits(got), got, math.Float64frombits(want), want)
			}
		}
	}
}

// mt19937 is a bare Mersenne Twister, seeded as std::mt19937(seed), to
// generate the same inputs as the script that recorded the CRCs.
type mt19937 struct {
	s [624]uint32
	i int
}

func newMT(seed uint32) *mt19937 {
	m := &mt19937{i: 624}
	m.s[0] = seed
	for i := 1; i < 624; i++ {
		m.s[i] = 1812433253*(m.s[i-1]^m.s[i-1]>>30) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.i >= 624 {
		for i := range 624 {
			y := m.s[i]&0x80000000 | m.s[(i+1)%624]&0x7fffffff
			v := m.s[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.s[i] = v
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// inputs are the arguments the CRC covers: for log, 1-u (u uniform on
// [0, 1) in 53 bits, as the samplers draw it), wide-range values and
// values near 1; for sin and cos, 2π·u, wide-range and [-8, 8).
func inputs(kind string, n int) []float64 {
	seed := map[string]uint32{"log": 1, "sin": 2, "cos": 3}[kind]
	m := newMT(seed)
	xs := make([]float64, n)
	for i := range xs {
		hi, lo := m.next(), m.next()
		u := float64((uint64(hi)<<32|uint64(lo))&(1<<53-1)) * 0x1p-53
		var x float64
		switch sel := i % 4; {
		case kind == "log" && sel < 2:
			x = 1 - u
		case kind == "log" && sel == 2:
			x = math.Ldexp(0.5+u, int(m.next()%240)-120)
		case kind == "log":
			x = 1 + float64((u-0.5)*0.25)
		case sel < 2:
			x = float64(2*math.Pi) * u
		case sel == 2:
			x = float64(u*2-1) * math.Ldexp(1, int(m.next()%56)-30)
		default:
			x = float64(u*2-1) * 8
		}
		xs[i] = x
	}
	return xs
}

// TestCRC64 compares all 2^20 outputs per function, through their CRC-32,
// with glibc's.
func TestCRC64(t *testing.T) {
	want := map[string]uint32{"log": 0x279ecadc, "sin": 0x9593d5f1, "cos": 0x4e4ea40e}
	n := 1 << 20
	if testing.Short() {
		t.Skip("-short: 2^20 evaluations per function (go test ./... runs it)")
	}
	for name, f := range f64s {
		h := crc32.NewIEEE()
		var b [8]byte
		for _, x := range inputs(name, n) {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(f(x)))
			h.Write(b[:])
		}
		if got := h.Sum32(); got != want[name] {
			t.Errorf("%s: CRC-32 of %d outputs %08x, glibc %08x", name, n, got, want[name])
		}
	}
}

func TestVectors32(t *testing.T) {
	f := math.Float32frombits
	for _, r := range readHex(t, "logf32x8.txt") {
		x := f(uint32(r[0]))
		if got := math.Float32bits(LogF32x8(x)); got != uint32(r[1]) {
			t.Errorf("LogF32x8(%v) = %v, want %v", x, f(got), f(uint32(r[1])))
		}
	}
	for _, r := range readHex(t, "sincosf32x8.txt") {
		x := f(uint32(r[0]))
		s, c := SinCosF32x8(x)
		if math.Float32bits(s) != uint32(r[1]) || math.Float32bits(c) != uint32(r[2]) {
			t.Errorf("SinCosF32x8(%v) = %v, %v, want %v, %v", x, s, c, f(uint32(r[1])), f(uint32(r[2])))
		}
	}
	for _, r := range readHex(t, "fma32.txt") {
		a, b, c := f(uint32(r[0])), f(uint32(r[1])), f(uint32(r[2]))
		if got := math.Float32bits(FMA32(a, b, c)); got != uint32(r[3]) {
			t.Errorf("FMA32(%v, %v, %v) = %v, want %v", a, b, c, f(got), f(uint32(r[3])))
		}
	}
}

// TestFMA32Exact compares FMA32 with a·b + c computed exactly and rounded
// once by math/big, on random operands and on sums built to land near a
// float32 tie after float64 rounding (where a plain float64 fma rounds twice).
func TestFMA32Exact(t *testing.T) {
	m := newMT(11)
	rnd := func() float32 { // a normal float32 in ±[2^-20, 2^20)
		b := m.next()
		return math.Float32frombits(b&0x80000000 | (127-20+b%40)<<23 | m.next()&0x7fffff)
	}
	for i := range 200000 {
		a, b, c := rnd(), rnd(), rnd()
		if i%2 == 1 {
			// a·b just around half an ulp of c: a = ulp(c)/2·(1 ± δ), b = 1 ± ε.
			ulp := math.Float32frombits(math.Float32bits(c)&0xff800000) * 0x1p-23
			a = ulp / 2 * math.Float32frombits(0x3f800000+m.next()%4-2)
			b = math.Float32frombits(0x3f800000 + m.next()%16 - 8)
			if m.next()&1 != 0 {
				a = -a
			}
		}
		exact := new(big.Float).SetPrec(200).SetFloat64(float64(a))
		exact.Mul(exact, new(big.Float).SetFloat64(float64(b)))
		exact.Add(exact, new(big.Float).SetFloat64(float64(c)))
		want, _ := exact.SetPrec(24).Float32()
		if got := FMA32(a, b, c); got != want {
			t.Fatalf("FMA32(%g, %g, %g) = %.10g, want %.10g", a, b, c, got, want)
		}
	}
}

// TestF32x8Exhaustive runs LogF32x8(1-u) and SinCosF32x8(float32(2π)·u) on
// every u the float32 normal sampler can draw (k·2^-24, k < 2^24) and
// compares a CRC-32 of the results with the one the avx_mathfun routines
// gave compiled by GCC 12 with -O2 -mavx2 -mfma (on x86-64 with AVX2).
func TestF32x8Exhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 2^24 evaluations, slow under qemu (go test ./... runs it)")
	}
	hl, hs := crc32.NewIEEE(), crc32.NewIEEE()
	var bl [32]byte
	var b4 [4]byte
	const twoPi = float32(2 * math.Pi)
	for k := uint32(0); k < 1<<24; k += 8 {
		for j := range uint32(8) {
			u := float32(k+j) * 0x1p-24
			binary.LittleEndian.PutUint32(bl[4*j:], math.Float32bits(LogF32x8(1-u)))
			s, c := SinCosF32x8(float32(twoPi * u))
			binary.LittleEndian.PutUint32(b4[:], math.Float32bits(s))
			hs.Write(b4[:])
			binary.LittleEndian.PutUint32(b4[:], math.Float32bits(c))
			hs.Write(b4[:])
		}
		hl.Write(bl[:])
	}
	if got := hl.Sum32(); got != 0xdbf3bad7 {
		t.Errorf("LogF32x8: CRC-32 %08x, GCC-compiled log256_ps dbf3bad7", got)
	}
	if got := hs.Sum32(); got != 0x9d45fe07 {
		t.Errorf("SinCosF32x8: CRC-32 %08x, GCC-compiled sincos256_ps 9d45fe07", got)
	}
}
