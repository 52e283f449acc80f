package asm

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/x448/float16"
)

// checkCvt runs the four conversions (kernels in use, through the exported
// functions) and their twins on f (float32) and h (16-bit) at offset off.
func checkCvt(t testing.TB, f []float32, h []uint16, off int) {
	t.Helper()
	n := len(f)
	for _, c := range []struct {
		name string
		got  func(d []uint16, s []float32)
		twin func(d []uint16, s []float32)
	}{{"F32ToF16", F32ToF16, f32to16Go}, {"F32ToBF16", F32ToBF16, f32tobfGo}} {
		want := make([]uint16, n)
		c.twin(want, f)
		s, sb := ewPad(f, off, ewGuard)
		d, db := ewPad(make([]uint16, n), off+1, 0xdead)
		c.got(d, s)
		for i := range want {
			if d[i] != want[i] {
				t.Fatalf("%s n=%d off=%d: [%d] %v (%#x) = %#04x, twin %#04x", c.name, n, off, i, f[i], math.Float32bits(f[i]), d[i], want[i])
			}
		}
		ewCheckGuards(t, c.name+" dst", db, off+1, n, 0xdead)
		ewCheckGuards(t, c.name+" src", sb, off, n, ewGuard)
	}
	h = h[:min(len(h), n)]
	for _, c := range []struct {
		name string
		got  func(d []float32, s []uint16)
		twin func(d []float32, s []uint16)
	}{{"F16ToF32", F16ToF32, f16to32Go}, {"BF16ToF32", BF16ToF32, bf16to32Go}} {
		want := make([]float32, len(h))
		c.twin(want, h)
		s, sb := ewPad(h, off, 0xbeef)
		d, db := ewPad(make([]float32, len(h)), off+1, ewGuard)
		c.got(d, s)
		for i := range want {
			if math.Float32bits(d[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s n=%d off=%d: [%d] %#04x = %#x, twin %#x", c.name, len(h), off, i, h[i], math.Float32bits(d[i]), math.Float32bits(want[i]))
			}
		}
		ewCheckGuards(t, c.name+" dst", db, off+1, len(h), ewGuard)
		ewCheckGuards(t, c.name+" src", sb, off, len(h), 0xbeef)
	}
}

func TestConvert(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range ewLens() {
		for off := 0; off < 3; off++ {
			h := make([]uint16, n)
			for i := range h {
				h[i] = uint16(r.Uint32())
			}
			checkCvt(t, ewValues32(r, n), h, off)
		}
	}
}

// TestConvertSweep converts every float16/bfloat16 bit pattern and every
// 257th float32 one (all of them with GOATEN_SWEEP=1, about a minute),
// comparing kernel and twin, then checks the twins' rounding.
func TestConvertSweep(t *testing.T) {
	h := make([]uint16, 1<<16)
	for i := range h {
		h[i] = uint16(i)
	}
	step := uint64(257)
	switch {
	case os.Getenv("GOATEN_SWEEP") == "1":
		step = 1
	case testing.Short() || raceEnabled:
		step = 4099
	}
	f := make([]float32, 0, 1<<20)
	for b := uint64(0); b < 1<<32; b += step {
		f = append(f, math.Float32frombits(uint32(b)))
		if len(f) == cap(f) {
			checkCvt(t, f, h, 0)
			f = f[:0]
		}
	}
	checkCvt(t, f, h, 0)
	// The twins: bfloat16 rounding to nearest even, checked through float64.
	d := make([]uint16, 1)
	for _, v := range []float32{1 + 0x1p-8, 1 + 0x3p-8, 1 + 0x1p-8 + 0x1p-20, -(1 + 0x1p-8), math.MaxFloat32, float32(math.Inf(-1))} {
		f32tobfGo(d, []float32{v})
		got := float64(math.Float32frombits(uint32(d[0]) << 16))
		lo := float64(math.Float32frombits(math.Float32bits(v) &^ 0xffff))
		hi := lo + math.Copysign(0x1p-7*math.Pow(2, math.Floor(math.Log2(math.Abs(lo)))), lo)
		want := lo
		if dl, dh := math.Abs(float64(v)-lo), math.Abs(float64(v)-hi); dh < dl || dh == dl && math.Float32bits(v)&0x10000 != 0 {
			want = hi
		}
		if math.IsInf(float64(v), 0) || v == math.MaxFloat32 {
			want = math.Copysign(math.Inf(1), float64(v))
		}
		if got != want {
			t.Errorf("bfloat16(%v) = %v, want %v", v, got, want)
		}
	}
	if F32ToF16(d, []float32{65520}); d[0] != float16.Inf(1).Bits() {
		t.Errorf("float16(65520) = %#x, want +Inf", d[0])
	}
}

// FuzzConvert runs the conversions on bit patterns from data.
func FuzzConvert(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 1, 0x7c, 0, 0, 0xc0, 0x7f}, uint8(2))
	f.Add(make([]byte, 4*67), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, off uint8) {
		x := make([]float32, len(data)/4)
		h := make([]uint16, len(data)/2)
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		for i := range h {
			h[i] = binary.LittleEndian.Uint16(data[2*i:])
		}
		checkCvt(t, x, h, int(off%8))
	})
}

// TestConvertF16Edges converts the float32 and float16 values next to the
// thresholds of the float16 kernels (the subnormal/normal boundary 2^-14,
// half the smallest subnormal 2^-25, the overflow 65520, Inf, NaN
// payloads that the narrowing cuts or keeps, float32 subnormals), both
// signs, each in every lane of a kernel step.
func TestConvertF16Edges(t *testing.T) {
	var f []float32
	for _, b := range []uint32{
		0, 1, 0x7fffff, 0x800000, // ±0, float32 subnormals, the smallest normal
		0x32ffffff, 0x33000000, 0x33000001, 0x337fffff, 0x33800000, 0x33800001, // 2^-25 (ties to 0), 2^-24
		0x33c00000, 0x34200000, 0x34300000, 0x34500000, // 3·2^-25, ties on odd and even subnormals
		0x387fbfff, 0x387fc000, 0x387fc001, 0x387fdfff, 0x387fe000, 0x387fffff, // rounding up to 2^-14
		0x38800000, 0x38800fff, 0x38801000, 0x38801001, 0x38803000, 0x38000000, 0x37ffffff,
		0x3f800000, 0x3f801000, 0x3f803000, 0x3f802fff, // 1, ties
		0x477fdfff, 0x477fe000, 0x477fefff, 0x477ff000, 0x477fffff, 0x47800000, 0x47800001, // 65504, 65520, 65536
		0x7f7fffff, 0x7f800000, // the largest float32, Inf
		0x7f800001, 0x7f801fff, 0x7f802000, 0x7fbfffff, 0x7fc00000, 0x7fc00001, 0x7fffe000, 0x7fffffff, // NaNs
	} {
		f = append(f, math.Float32frombits(b), math.Float32frombits(b|0x80000000))
	}
	var h []uint16
	for _, b := range []uint16{0, 1, 0x3ff, 0x400, 0x401, 0x7bff, 0x7c00, 0x7c01, 0x7dff, 0x7e00, 0x7e01, 0x7fff} {
		h = append(h, b, b|0x8000)
	}
	for len(h) < len(f) {
		h = append(h, h[:min(len(h), len(f)-len(h))]...)
	}
	for rot := range 8 {
		fr := append(append([]float32{}, f[rot:]...), f[:rot]...)
		hr := append(append([]uint16{}, h[rot:]...), h[:rot]...)
		for off := 0; off < 3; off++ {
			checkCvt(t, fr, hr, off)
		}
	}
}

// TestF32ToF16All compares F32ToF16 with its twin on whole blocks of 2^16
// consecutive float32 bit patterns: every 97th block (-short: every
// 1021st), and with GOATEN_F16_ALL=1 every block (all 2^32 patterns).
func TestF32ToF16All(t *testing.T) {
	const block = 1 << 16
	step := uint64(97)
	if testing.Short() {
		step = 1021
	}
	if os.Getenv("GOATEN_F16_ALL") == "1" {
		step = 1
	}
	f := make([]float32, block)
	got, want := make([]uint16, block), make([]uint16, block)
	for hi := uint64(0); hi < 1<<32; hi += step * block {
		for i := range f {
			f[i] = math.Float32frombits(uint32(hi) + uint32(i))
		}
		F32ToF16(got, f)
		f32to16Go(want, f)
		for i := range f {
			if got[i] != want[i] {
				t.Fatalf("F32ToF16(%#x) = %#04x, twin %#04x", uint32(hi)+uint32(i), got[i], want[i])
			}
		}
	}
}
