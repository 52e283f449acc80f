package asm

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// acmRun runs one addcmul table's kernel of T.
func acmRun[T float32 | float64](tab *addcmulTable, d, x, t1, t2 []T, v T) {
	switch d := any(d).(type) {
	case []float32:
		tab.f32(d, any(x).([]float32), any(t1).([]float32), any(t2).([]float32), any(v).(float32))
	case []float64:
		tab.f64(d, any(x).([]float64), any(t1).([]float64), any(t2).([]float64), any(v).(float64))
	}
}

// checkAddcmul runs the kernel in use and the twin on the same operands:
// at offsets off, off+1, off+2 and off+3 of guarded buffers, in place over
// x, t1 and t2, and with t1 and t2 one slice (Adam's grad·grad); the
// results must be the same values and the guards intact.
func checkAddcmul[T float32 | float64](t testing.TB, x0, a0, b0 []T, v T, off int) {
	t.Helper()
	n := len(x0)
	for _, alias := range []string{"", "dst=x", "dst=t1", "dst=t2", "t1=t2", "dst=x t1=t2"} {
		b0 := b0
		if alias == "t1=t2" || alias == "dst=x t1=t2" {
			b0 = a0
		}
		want := make([]T, n)
		acmRun(&addcmulGo, want, append([]T(nil), x0...), append([]T(nil), a0...), append([]T(nil), b0...), v)
		x, xb := ewPad(x0, off, ewGuard)
		a, ab := ewPad(a0, off+1, ewGuard)
		b, bb := ewPad(b0, off+2, ewGuard)
		d, db := ewPad(make([]T, n), off+3, ewGuard)
		dOff := off + 3
		switch alias {
		case "dst=x", "dst=x t1=t2":
			d, db, dOff = x, xb, off
		case "dst=t1":
			d, db, dOff = a, ab, off+1
		case "dst=t2":
			d, db, dOff = b, bb, off+2
		}
		bOff := off + 2
		if alias == "t1=t2" || alias == "dst=x t1=t2" {
			b, bb, bOff = a, ab, off+1
		}
		acmRun(acm, d, x, a, b, v)
		for i := range want {
			if !ewSame(d[i], want[i]) {
				t.Fatalf("addcmul n=%d off=%d %s: [%d] = %v, twin %v (x %v, t1 %v, t2 %v, v %v)", n, off, alias, i, d[i], want[i], x0[i], a0[i], b0[i], v)
			}
		}
		ewCheckGuards(t, "addcmul "+alias+" dst", db, dOff, n, ewGuard)
		for _, g := range []struct {
			name string
			buf  []T
			off  int
		}{{"x", xb, off}, {"t1", ab, off + 1}, {"t2", bb, bOff}} {
			if &g.buf[0] != &db[0] {
				ewCheckGuards(t, "addcmul "+alias+" "+g.name, g.buf, g.off, n, ewGuard)
			}
		}
	}
}

func testAddcmul[T float32 | float64](t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	scalars := []T{1, 1 - 0.999, -2.5, T(math.Copysign(0, -1)), T(math.NaN()), T(math.Inf(1)), 0x1p-70, 3e38}
	for _, n := range ewLens() {
		for off := range 3 {
			x, a, b := ewValues[T](r, n), ewValues[T](r, n), ewValues[T](r, n)
			v := scalars[(n+off)%len(scalars)]
			if n%5 == 2 {
				v = ewValues[T](r, 1)[0]
			}
			checkAddcmul(t, x, a, b, v, off)
		}
	}
}

// TestAddcmulF32 and TestAddcmulF64 compare the kernels in use with their
// twins over lengths 0..67 and longer, unaligned starts, in place and
// aliased factors, NaN/Inf/±0/subnormal operands and scalars.
func TestAddcmulF32(t *testing.T) { testAddcmul[float32](t) }
func TestAddcmulF64(t *testing.T) { testAddcmul[float64](t) }

// acmRoundingCases are float32 triples (c, a, b) where rounding the
// float64 sum a·b + c to float32 would round twice: sums on a float32
// midpoint, subnormal and overflowing results, signed zeros (the cases of
// device/cpu's TestAddcmulRounding).
func acmRoundingCases(r *rand.Rand) [][3]float32 {
	negz := float32(math.Copysign(0, -1))
	cases := [][3]float32{
		// 1+2⁻²³ + 2⁻²⁴(1-2⁻³⁶): the float64 sum is the midpoint
		// 1+2⁻²³+2⁻²⁴, the exact value below it: 1+2⁻²³, not 1+2⁻²².
		{1 + 0x1p-23, 0x1p-12 * (1 + 0x1p-18), 0x1p-12 * (1 - 0x1p-18)},
		{1 + 0x1p-23, -0x1p-12 * (1 + 0x1p-18), -0x1p-12 * (1 - 0x1p-18)},
		{-(1 + 0x1p-23), 0x1p-12 * (1 + 0x1p-18), -0x1p-12 * (1 - 0x1p-18)},
		{1, 0x1p-12 * (1 + 0x1p-18), 0x1p-12 * (1 + 0x1p-18)},
		{0, 0x1p-70, 0x1p-70 * 1.75},                  // subnormal
		{0x1p-149, -0x1p-75 * 1.5, 0x1p-75},           // subnormal, cancelling
		{negz, negz, 1},                               // -0 + -0
		{0, negz, 1},                                  // +0 + -0
		{math.MaxFloat32, 0x1p104, 1},                 // max + half an ulp: overflows
		{math.MaxFloat32, 0x1p104 * (1 - 0x1p-20), 1}, // just below: stays finite
	}
	for range 3000 {
		e := r.IntN(80) - 90 // products and sums near float32's subnormal range
		cases = append(cases, [3]float32{
			float32(math.Ldexp(r.NormFloat64(), 2*e+r.IntN(8))),
			float32(math.Ldexp(r.NormFloat64(), e)),
			float32(math.Ldexp(r.NormFloat64(), e)),
		})
		// A midpoint on purpose: c with its last bit set, a·b half an ulp
		// of c plus or minus a little.
		c := float32(1+r.Float64()) * float32(math.Ldexp(1, r.IntN(20)-10))
		c = math.Float32frombits(math.Float32bits(c) | 1)
		_, exp := math.Frexp(float64(c))
		half := math.Ldexp(1, exp-25) // half an ulp of c
		a := float32(math.Sqrt(half)) * (1 + float32(r.IntN(16))*0x1p-20)
		b := float32(half / float64(a))
		cases = append(cases, [3]float32{c, a, b})
	}
	return cases
}

// exactFMA32 is a·b + c rounded once to float32, by math/big.
func exactFMA32(a, b, c float32) float32 {
	if c == 0 && (a == 0 || b == 0) { // big.Float has no signed zero sums
		return float32(float64(a)*float64(b) + float64(c))
	}
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

// TestAddcmulRounding holds the float32 twin to math/big (v·t1 rounded,
// then the multiply-add rounded once) where the float64 sum would round
// twice, and the kernel in use to the twin on the same cases, at v = 1 and
// at a v that rounds v·t1.
func TestAddcmulRounding(t *testing.T) {
	cases := acmRoundingCases(rand.New(rand.NewPCG(11, 12)))
	n := len(cases)
	x, a, b := make([]float32, n), make([]float32, n), make([]float32, n)
	for i, c := range cases {
		x[i], a[i], b[i] = c[0], c[1], c[2]
	}
	for _, v := range []float32{1, 1 - 0.999, -3} {
		got := make([]float32, n)
		addcmulGo32(got, x, a, b, v)
		for i := range got {
			want := exactFMA32(v*a[i], b[i], x[i])
			if math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("twin addcmul(%g, %g, %g, v=%g) = %g, want %g", x[i], a[i], b[i], v, got[i], want)
			}
		}
		if v == 1 && got[0] != 1+0x1p-23 {
			t.Errorf("the midpoint case gave %g", got[0])
		}
		for _, off := range []int{0, 1, 3} {
			checkAddcmul(t, x[off:], a[off:], b[off:], v, off)
		}
	}
}

// TestAddcmulLengths: slices of different lengths panic.
func TestAddcmulLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("AddcmulF32 with slices of different lengths did not panic")
		}
	}()
	AddcmulF32(make([]float32, 3), make([]float32, 3), make([]float32, 3), make([]float32, 2), 1)
}

// TestAddcmulExported: AddcmulF32/F64 run the kernel in use, in place too.
func TestAddcmulExported(t *testing.T) {
	x := []float32{1, 2, 3}
	AddcmulF32(x, x, []float32{2, 2, 2}, []float32{0.5, -1, 4}, 0.5)
	if x[0] != 1.5 || x[1] != 1 || x[2] != 7 {
		t.Errorf("AddcmulF32 in place = %v, want [1.5 1 7]", x)
	}
	y := []float64{1, 2}
	d := make([]float64, 2)
	AddcmulF64(d, y, []float64{3, 3}, []float64{1, -1}, -1)
	if d[0] != -2 || d[1] != 5 {
		t.Errorf("AddcmulF64 = %v, want [-2 5]", d)
	}
	AddcmulF32(nil, nil, nil, nil, 1) // empty: nothing to do
}

// TestAddcmulInUse makes sure the differential tests compare the assembly,
// not the twin with itself, wherever there is assembly.
func TestAddcmulInUse(t *testing.T) {
	if Path() != "go" && acm == &addcmulGo {
		t.Fatalf("path %s but the addcmul kernels are the twins", Path())
	}
}

// FuzzAddcmul runs both kernels on operands decoded from data.
func FuzzAddcmul(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4}, uint8(1))
	f.Add(make([]byte, 12*67+5), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, off uint8) {
		n32, n64 := len(data)/12, len(data)/24
		x32, a32, b32 := make([]float32, n32), make([]float32, n32), make([]float32, n32)
		x64, a64, b64 := make([]float64, n64), make([]float64, n64), make([]float64, n64)
		for i := range x32 {
			x32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[12*i:]))
			a32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[12*i+4:]))
			b32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[12*i+8:]))
		}
		for i := range x64 {
			x64[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[24*i:]))
			a64[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[24*i+8:]))
			b64[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[24*i+16:]))
		}
		var v32 float32 = 0.001
		v64 := -0.75
		if n32 > 0 {
			v32 = a32[n32-1]
		}
		if n64 > 0 {
			v64 = b64[0]
		}
		checkAddcmul(t, x32, a32, b32, v32, int(off%8))
		checkAddcmul(t, x64, a64, b64, v64, int(off%8))
	})
}
