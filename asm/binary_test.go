package asm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

var binOpNames = [numBinOps]string{"add", "sub", "mul", "div", "maximum", "minimum"}

// binCase runs one kernel form of a table on (d, x, y, s); x or y is
// ignored by the scalar forms.
type binCase[T float32 | float64] struct {
	name string
	run  func(tab *binTable[T], d, x, y []T, s T)
}

func binCases[T float32 | float64](twin *binTable[T]) []binCase[T] {
	var cs []binCase[T]
	for op := range numBinOps {
		name := binOpNames[op]
		cs = append(cs,
			binCase[T]{name + "/vv", func(tab *binTable[T], d, x, y []T, _ T) { tab.vv[op](d, x, y) }},
			binCase[T]{name + "/vs", func(tab *binTable[T], d, x, _ []T, s T) { tab.vs[op](d, x, s) }})
		if twin.sv[op] != nil {
			cs = append(cs, binCase[T]{name + "/sv", func(tab *binTable[T], d, _, y []T, s T) { tab.sv[op](d, s, y) }})
		}
	}
	return append(cs, binCase[T]{"axpy", func(tab *binTable[T], d, x, y []T, s T) { tab.axpy(d, s, x, y) }})
}

// checkBin runs c on the kernels in use and on the twins with the same
// operands: at offset off in guarded buffers, and in place over x and over
// y; the results must be the same values and the guards intact.
func checkBin[T float32 | float64](t testing.TB, tab, twin *binTable[T], c binCase[T], x0, y0 []T, s T, off int) {
	t.Helper()
	n := len(x0)
	want := make([]T, n)
	c.run(twin, want, append([]T(nil), x0...), append([]T(nil), y0...), s)
	for _, alias := range []string{"", "dst=x", "dst=y"} {
		x, xb := ewPad(x0, off, ewGuard)
		y, yb := ewPad(y0, off+1, ewGuard)
		d, db := ewPad(make([]T, n), off+2, ewGuard)
		switch alias {
		case "dst=x":
			d, db = x, xb
		case "dst=y":
			d, db = y, yb
		}
		c.run(tab, d, x, y, s)
		for i := range want {
			if !ewSame(d[i], want[i]) {
				t.Fatalf("%s n=%d off=%d %s: [%d] = %v, twin %v (x %v, y %v, s %v)", c.name, n, off, alias, i, d[i], want[i], x0[i], y0[i], s)
			}
		}
		ewCheckGuards(t, c.name+" "+alias+" dst", db, len(db)-9-n, n, ewGuard)
		if alias != "dst=x" {
			ewCheckGuards(t, c.name+" x", xb, off, n, ewGuard)
		}
		if alias != "dst=y" {
			ewCheckGuards(t, c.name+" y", yb, off+1, n, ewGuard)
		}
	}
}

func testBinary[T float32 | float64](t *testing.T, tab, twin *binTable[T]) {
	r := rand.New(rand.NewPCG(1, 2))
	scalars := []T{2.5, -0.0, T(math.NaN()), T(math.Inf(-1)), 0}
	for _, c := range binCases(twin) {
		for _, n := range ewLens() {
			for off := 0; off < 3; off++ {
				x, y := ewValues[T](r, n), ewValues[T](r, n)
				s := scalars[(n+off)%len(scalars)]
				if n%7 == 3 {
					s = ewValues[T](r, 1)[0]
				}
				checkBin(t, tab, twin, c, x, y, s, off)
			}
		}
	}
}

func TestBinaryF32(t *testing.T) { testBinary(t, bin32, &binGo32) }
func TestBinaryF64(t *testing.T) { testBinary(t, bin64, &binGo64) }

// testBinaryStream checks the exported streaming kernels (non-temporal
// stores at any length, from the first 64-byte boundary) against the
// twins' vv kernels: lengths 0..67 and past, unaligned starts, in place.
func testBinaryStream[T float32 | float64](t *testing.T, twin *binTable[T], fs [4]func(d, x, y []T)) {
	r := rand.New(rand.NewPCG(5, 6))
	for op, f := range fs {
		c := binCase[T]{binOpNames[op] + "/stream", func(tab *binTable[T], d, x, y []T, _ T) {
			if tab == twin {
				twin.vv[op](d, x, y)
				return
			}
			f(d, x, y)
		}}
		for _, n := range append(ewLens(), 1000, 4099) {
			for off := 0; off < 4; off++ {
				checkBin(t, nil, twin, c, ewValues[T](r, n), ewValues[T](r, n), 0, off)
			}
		}
	}
}

// testBinaryRows checks the row kernels (AddRowsStreamF32, ...) against
// the twins' vv row by row: widths of whole vectors and not, 1 to 5 rows,
// dst 32-byte aligned or not (where they must report false and write
// nothing), in place over x, guards after the rows.
func testBinaryRows[T float32 | float64](t *testing.T, twin *binTable[T], fs [4]func(d, x, y []T) bool) {
	r := rand.New(rand.NewPCG(7, 8))
	var z T
	vec := 32 / int(unsafe.Sizeof(z)) // elements per 32-byte vector
	for op, f := range fs {
		for _, n := range []int{1, vec - 1, vec, 2 * vec, 3 * vec, 4 * vec, 5 * vec, 9 * vec, 67 * vec, 67, 1000} {
			for _, rows := range []int{1, 2, 5} {
				for _, mis := range []int{0, 1} {
					for _, inPlace := range []bool{false, true} {
						x0, y := ewValues[T](r, rows*n), ewValues[T](r, n)
						want := make([]T, rows*n)
						rowsGo(twin.vv[op])(want, x0, y, rows)
						// dst: 32-byte aligned plus mis elements, then guards.
						buf := make([]T, rows*n+2*vec+9)
						a := int(uintptr(unsafe.Pointer(&buf[0]))%32) / int(unsafe.Sizeof(z))
						off := (vec-a)%vec + mis
						for i := range buf {
							buf[i] = ewGuard
						}
						d := buf[off : off+rows*n]
						x := x0
						if inPlace {
							copy(d, x0)
							x = d
						}
						ok := f(d, x, y)
						name := fmt.Sprintf("%s/rows n=%d rows=%d misaligned=%d in place=%v", binOpNames[op], n, rows, mis, inPlace)
						if !ok {
							if mis == 0 && (n*int(unsafe.Sizeof(z)))%32 == 0 && hasStreamRows[T]() {
								t.Fatalf("%s: reported false", name)
							}
							for i := range d {
								if inPlace && !ewSame(d[i], x0[i]) || !inPlace && !ewSame(d[i], T(ewGuard)) {
									t.Fatalf("%s: reported false but wrote [%d]", name, i)
								}
							}
							continue
						}
						if mis != 0 || (n*int(unsafe.Sizeof(z)))%32 != 0 {
							t.Fatalf("%s: streamed rows it cannot", name)
						}
						for i := range want {
							if !ewSame(d[i], want[i]) {
								t.Fatalf("%s: [%d] = %v, twin %v", name, i, d[i], want[i])
							}
						}
						ewCheckGuards(t, name, buf, off, rows*n, T(ewGuard))
					}
				}
			}
		}
	}
}

// hasStreamRows reports whether the kernels in use have row kernels.
func hasStreamRows[T float32 | float64]() bool {
	var z T
	if _, ok := any(z).(float32); ok {
		return bin32.nt != nil && bin32.nt.rows[opAdd] != nil
	}
	return bin64.nt != nil && bin64.nt.rows[opAdd] != nil
}

func TestBinaryRowsF32(t *testing.T) {
	testBinaryRows(t, &binGo32, [4]func(d, x, y []float32) bool{AddRowsStreamF32, SubRowsStreamF32, MulRowsStreamF32, DivRowsStreamF32})
}

func TestBinaryRowsF64(t *testing.T) {
	testBinaryRows(t, &binGo64, [4]func(d, x, y []float64) bool{AddRowsStreamF64, SubRowsStreamF64, MulRowsStreamF64, DivRowsStreamF64})
}

func TestBinaryStreamF32(t *testing.T) {
	testBinaryStream(t, &binGo32, [4]func(d, x, y []float32){AddStreamF32, SubStreamF32, MulStreamF32, DivStreamF32})
}

func TestBinaryStreamF64(t *testing.T) {
	testBinaryStream(t, &binGo64, [4]func(d, x, y []float64){AddStreamF64, SubStreamF64, MulStreamF64, DivStreamF64})
}

// TestBinarySemantics pins the twins to PyTorch's rules on special values.
func TestBinarySemantics(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	negz := float32(math.Copysign(0, -1))
	cases := []struct {
		name    string
		f       func(d, x, y []float32)
		x, y, w float32
	}{
		{"maximum NaN first", MaximumF32, nan, 1, nan},
		{"maximum NaN second", MaximumF32, 1, nan, nan},
		{"maximum inf", MaximumF32, -inf, 3, 3},
		{"minimum NaN second", MinimumF32, -inf, nan, nan},
		{"minimum", MinimumF32, 2, -3, -3},
		{"div by zero", DivF32, -1, 0, -inf},
		{"sub", SubF32, 0, 0, 0},
		{"mul -0", MulF32, -1, 0, negz},
	}
	for _, c := range cases {
		d := []float32{7}
		c.f(d, []float32{c.x}, []float32{c.y})
		if !ewSame(d[0], c.w) {
			t.Errorf("%s(%v, %v) = %v, want %v", c.name, c.x, c.y, d[0], c.w)
		}
	}
	// Ties give the first operand: maximum(+0, -0) = +0, maximum(-0, +0) = -0.
	d := []float32{7, 7}
	MaximumF32(d, []float32{0, negz}, []float32{negz, 0})
	if math.Signbit(float64(d[0])) || !math.Signbit(float64(d[1])) {
		t.Errorf("maximum ties: %v, want [0 -0]", d)
	}
}

// TestFMA32 checks the twins' fused multiply-add against exact arithmetic.
func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	exact := func(a, b, c float32) float32 {
		x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetPrec(400).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetPrec(400).SetFloat64(float64(c)))
		f, _ := x.Float32()
		return f
	}
	for i := 0; i < 200000; i++ {
		a, b := float32(r.NormFloat64()), float32(r.NormFloat64())
		// c near -a·b makes the sum cancel; its low bits make ties likely.
		c := -a * b * float32(1+r.IntN(3))
		if i%2 == 0 {
			c = math.Float32frombits(math.Float32bits(c) ^ uint32(r.IntN(8)))
		}
		if i%5 == 0 {
			b = math.Float32frombits(r.Uint32() & 0x807fffff) // subnormal products
			c = math.Float32frombits(r.Uint32() & 0x80ffffff)
		}
		if got, want := fma32(a, b, c), exact(a, b, c); !ewSame(got, want) && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", a, b, c, got, want)
		}
		if got, want := FMAF32(a, b, c), fma32(a, b, c); !ewSame(got, want) {
			t.Fatalf("FMAF32(%g, %g, %g) = %g, the twin %g", a, b, c, got, want)
		}
	}
	// The special values, each with each (FMAF32 runs the instruction
	// where the CPU has it): the same bits as the twin, NaN for NaN.
	sp := append([]float32{0, float32(math.Copysign(0, -1)), 1, -1, 0x1p-149, -0x1p-126, 3.4e38, -3.4e38},
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	for _, a := range sp {
		for _, b := range sp {
			for _, c := range sp {
				if got, want := FMAF32(a, b, c), fma32(a, b, c); !ewSame(got, want) {
					t.Fatalf("FMAF32(%g, %g, %g) = %g, the twin %g", a, b, c, got, want)
				}
			}
		}
	}
}

func TestBinaryLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("AddF32 with slices of different lengths did not panic")
		}
	}()
	AddF32(make([]float32, 3), make([]float32, 3), make([]float32, 2))
}

// FuzzBinary runs every binary kernel form on operands decoded from data.
func FuzzBinary(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4}, uint8(0), uint8(1))
	f.Add(make([]byte, 8*67+3), uint8(5), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, which, off uint8) {
		x32 := make([]float32, len(data)/8)
		y32 := make([]float32, len(x32))
		x64 := make([]float64, len(data)/16)
		y64 := make([]float64, len(x64))
		for i := range x32 {
			x32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[8*i:]))
			y32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[8*i+4:]))
		}
		for i := range x64 {
			x64[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[16*i:]))
			y64[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[16*i+8:]))
		}
		c32, c64 := binCases(&binGo32), binCases(&binGo64)
		var s32 float32 = 1.5
		var s64 = -0.75
		if len(x32) > 0 {
			s32 = x32[0]
		}
		if len(x64) > 0 {
			s64 = x64[0]
		}
		checkBin(t, bin32, &binGo32, c32[int(which)%len(c32)], x32, y32, s32, int(off%8))
		checkBin(t, bin64, &binGo64, c64[int(which)%len(c64)], x64, y64, s64, int(off%8))
	})
}

// TestBinaryInUse makes sure the differential tests above compare the
// assembly, not the twin with itself, wherever there is assembly.
func TestBinaryInUse(t *testing.T) {
	if Path() != "go" && (bin32 == &binGo32 || bin64 == &binGo64) {
		t.Fatalf("path %s but the binary kernels are the twins", Path())
	}
}

// streamed wraps the exported kernels' dispatch over tab so that every
// result takes the streaming kernels (tab.nt: non-temporal stores after an
// ordinary head up to the first 32-byte boundary of dst).
func streamed[T float32 | float64](tab *binTable[T]) *binTable[T] {
	w := &binTable[T]{axpy: func(d []T, a T, x, y []T) { binAxpy(tab, "axpy", d, a, x, y) }}
	for op := range numBinOps {
		w.vv[op] = func(d, x, y []T) { binVV(tab, op, "vv", d, x, y) }
		w.vs[op] = func(d, x []T, s T) { binVS(tab, op, "vs", d, x, s) }
		if tab.sv[op] != nil {
			w.sv[op] = func(d []T, s T, y []T) { binSV(tab, op, "sv", d, s, y) }
		}
	}
	return w
}

// TestBinaryStreaming is TestBinaryF32/F64 with every result streamed:
// the same values as the twins, aligned or not, in place or not, and the
// guards past the end intact.
func TestBinaryStreaming(t *testing.T) {
	if useAVX2FMA && (bin32.nt == nil || bin64.nt == nil) {
		t.Fatal("the AVX2 path has no streaming kernels")
	}
	defer func(b int) { streamBytes = b }(streamBytes)
	streamBytes = 0
	t.Run("f32", func(t *testing.T) { testBinary(t, streamed(bin32), &binGo32) })
	t.Run("f64", func(t *testing.T) { testBinary(t, streamed(bin64), &binGo64) })
}

// TestClampScalar: the one-pass clamp (the fused AVX2 kernel for bounds
// that are not NaN, else the chunked maximum then minimum) gives the
// twins' maximum then minimum bit for bit (NaN, ±Inf, ±0 ties, NaN
// bounds), over lengths across its vectors and chunks,
// unaligned starts and in place, the guards past the end intact, with and
// without streamed results; ClampScalarStream* likewise, streamed at any
// length.
func TestClampScalar(t *testing.T) {
	defer func(b int) { streamBytes = b }(streamBytes)
	r := rand.New(rand.NewPCG(3, 4))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -0.5, 0.5}
	for _, sb := range []int{streamBytes, 0} {
		streamBytes = sb
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 41, 67, clampChunk - 1, clampChunk + 5, 3*clampChunk + 33} {
			for off := range 3 {
				x := make([]float64, n)
				for i := range x {
					x[i] = r.NormFloat64()
					if r.IntN(8) == 0 {
						x[i] = special[r.IntN(len(special))]
					}
				}
				for _, lim := range [][2]float64{{-0.5, 0.5}, {0, 0}, {math.Copysign(0, -1), 1}, {math.Inf(-1), math.Inf(1)}, {1, -1}, {math.NaN(), 1}, {-1, math.NaN()}} {
					clampCheck(t, x, lim[0], lim[1], off, ClampScalarF32, &binGo32)
					clampCheck(t, x, lim[0], lim[1], off, ClampScalarF64, &binGo64)
					clampCheck(t, x, lim[0], lim[1], off, ClampScalarStreamF32, &binGo32)
					clampCheck(t, x, lim[0], lim[1], off, ClampScalarStreamF64, &binGo64)
				}
			}
		}
	}
}

func clampCheck[T float32 | float64](t *testing.T, x0 []float64, lo, hi float64, off int, clamp func(d, x []T, lo, hi T), twin *binTable[T]) {
	t.Helper()
	n := len(x0)
	want := make([]T, n)
	for i, v := range x0 {
		want[i] = T(v)
	}
	twin.vs[opMax](want, want, T(lo))
	twin.vs[opMin](want, want, T(hi))
	same := func(a, b T) bool {
		return a == b && math.Signbit(float64(a)) == math.Signbit(float64(b)) || a != a && b != b
	}
	buf := make([]T, off+n+4)
	x := make([]T, n)
	for i, v := range x0 {
		x[i] = T(v)
	}
	const guard = 12345
	for i := range buf {
		buf[i] = guard
	}
	d := buf[off : off+n]
	clamp(d, x, T(lo), T(hi))
	for i := range d {
		if !same(d[i], want[i]) {
			t.Fatalf("n=%d off=%d clamp(%v, %v, %v) = %v, want %v", n, off, x[i], lo, hi, d[i], want[i])
		}
	}
	for _, g := range buf[off+n:] {
		if g != guard {
			t.Fatalf("n=%d off=%d: guard overwritten", n, off)
		}
	}
	clamp(x, x, T(lo), T(hi)) // in place
	for i := range x {
		if !same(x[i], want[i]) {
			t.Fatalf("n=%d in place: clamp = %v, want %v", n, x[i], want[i])
		}
	}
}

// TestCubeF32: CubeF32 and CubeStreamF32 give the twin's (x·x)·x bit for
// bit (NaN, ±Inf, ±0, overflow and subnormal products) over lengths 0..67
// and longer, unaligned starts and in place, the guards past the end
// intact, with and without streamed results.
func TestCubeF32(t *testing.T) {
	for _, f := range []func(d, x []float32){CubeF32, CubeStreamF32} {
		testCube(t, f)
	}
}

func testCube(t *testing.T, cube func(d, x []float32)) {
	defer func(b int) { streamBytes = b }(streamBytes)
	r := rand.New(rand.NewPCG(5, 6))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		1e13, -1e13, 1e-15, -3e-14, math.MaxFloat32, math.SmallestNonzeroFloat32}
	lens := []int{100, 1000, 4099}
	for n := range 68 {
		lens = append(lens, n)
	}
	for _, sb := range []int{streamBytes, 0} {
		streamBytes = sb
		for _, n := range lens {
			for off := range 3 {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.NormFloat64() * 10)
					if r.IntN(6) == 0 {
						x[i] = special[r.IntN(len(special))]
					}
				}
				want := make([]float32, n)
				cubeGo(want, x)
				const guard = 12345
				buf := make([]float32, off+n+4)
				for i := range buf {
					buf[i] = guard
				}
				d := buf[off : off+n]
				cube(d, x)
				same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }
				for i := range d {
					if !same(d[i], want[i]) {
						t.Fatalf("sb=%d n=%d off=%d: cube(%v) = %v, twin %v", sb, n, off, x[i], d[i], want[i])
					}
				}
				for _, g := range buf[off+n:] {
					if g != guard {
						t.Fatalf("n=%d off=%d: guard overwritten", n, off)
					}
				}
				cube(x, x) // in place
				for i := range x {
					if !same(x[i], want[i]) {
						t.Fatalf("n=%d in place: %v, twin %v", n, x[i], want[i])
					}
				}
			}
		}
	}
}

// TestBackwardF32: SigmoidBackwardF32 and TanhBackwardF32 give the twin's
// values bit for bit (NaN, ±Inf, ±0, large and tiny operands) over lengths
// 0..67 and longer, unaligned starts and in place (d = g and d = y), the
// guards past the end intact, with and without streamed results.
func TestBackwardF32(t *testing.T) {
	defer func(b int) { streamBytes = b }(streamBytes)
	r := rand.New(rand.NewPCG(7, 8))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		1, -1, 1e20, -3e-20, math.MaxFloat32, math.SmallestNonzeroFloat32}
	lens := []int{100, 1000, 4099}
	for n := range 68 {
		lens = append(lens, n)
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }
	for _, k := range []struct {
		name string
		op   bwdOp
		f    func(d, g, y []float32)
	}{{"sigmoid", bwdSigmoid, SigmoidBackwardF32}, {"tanh", bwdTanh, TanhBackwardF32}} {
		for _, sb := range []int{streamBytes, 0} {
			streamBytes = sb
			for _, n := range lens {
				for off := range 3 {
					g, y := make([]float32, n), make([]float32, n)
					for i := range g {
						g[i], y[i] = float32(r.NormFloat64()), float32(r.Float64()*2-0.5)
						if r.IntN(6) == 0 {
							g[i] = special[r.IntN(len(special))]
						}
						if r.IntN(6) == 0 {
							y[i] = special[r.IntN(len(special))]
						}
					}
					want := make([]float32, n)
					bwdGo(k.op, want, g, y)
					const guard = 12345
					buf := make([]float32, off+n+4)
					for i := range buf {
						buf[i] = guard
					}
					d := buf[off : off+n]
					k.f(d, g, y)
					for i := range d {
						if !same(d[i], want[i]) {
							t.Fatalf("%s sb=%d n=%d off=%d: (%v, %v) = %v, twin %v", k.name, sb, n, off, g[i], y[i], d[i], want[i])
						}
					}
					for _, v := range buf[off+n:] {
						if v != guard {
							t.Fatalf("%s n=%d off=%d: guard overwritten", k.name, n, off)
						}
					}
					g2, y2 := slices.Clone(g), slices.Clone(y)
					k.f(g2, g2, y)
					k.f(y2, g, y2)
					for i := range want {
						if !same(g2[i], want[i]) || !same(y2[i], want[i]) {
							t.Fatalf("%s n=%d in place [%d]: %v, %v, twin %v", k.name, n, i, g2[i], y2[i], want[i])
						}
					}
				}
			}
		}
	}
}

// FuzzBinaryRows runs the float32 row kernels on random rows against the
// twins.
func FuzzBinaryRows(f *testing.F) {
	f.Add(uint8(0), uint16(64), uint8(3), uint64(1))
	f.Add(uint8(3), uint16(8), uint8(1), uint64(2))
	fs := [4]func(d, x, y []float32) bool{AddRowsStreamF32, SubRowsStreamF32, MulRowsStreamF32, DivRowsStreamF32}
	f.Fuzz(func(t *testing.T, op uint8, n uint16, rows uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 9))
		o, nn, rr := int(op%4), 1+int(n%2048), 1+int(rows%8)
		x, y := ewValues[float32](r, rr*nn), ewValues[float32](r, nn)
		want := make([]float32, rr*nn)
		rowsGo(binGo32.vv[o])(want, x, y, rr)
		d := make([]float32, rr*nn) // a fresh allocation: 32-byte aligned or not, as it comes
		if !fs[o](d, x, y) {
			return // nothing written: checked by testBinaryRows
		}
		for i := range want {
			if !ewSame(d[i], want[i]) {
				t.Fatalf("%s n=%d rows=%d: [%d] = %v, twin %v", binOpNames[o], nn, rr, i, d[i], want[i])
			}
		}
	})
}
