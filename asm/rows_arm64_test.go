//go:build !purego

package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// rowSpecials are the values the NEON row kernels' tricks are sensitive
// to: signed zeros, subnormals, the normal extremes, Infs, NaNs with
// payloads (quiet and signalling, both signs), and values whose products
// overflow or underflow.
var rowSpecials = func() []float32 {
	var v []float32
	for _, b := range []uint32{
		0x00000000, 0x00000001, 0x00000002, 0x007fffff, 0x00800000, 0x00800001,
		0x3f800000, 0x3f800001, 0x3f7fffff, 0x40000000, 0x1f800000, 0x5f800000,
		0x7f000000, 0x7f7fffff, 0x7f800000, 0x34000000, 0x4b000000,
		0x7fc00000, 0x7fc00001, 0x7f800001, 0x7fbfffff, 0x7fffffff, 0x7fd23456,
	} {
		v = append(v, math.Float32frombits(b), math.Float32frombits(b|0x80000000))
	}
	return v
}()

// rowValues returns n values: plain ones (of any exponent now and then),
// with specials at the given density (kind 0: none; 1: no NaNs; 2: one
// in 16; 3: one in 3); kind 4 is mostly signed zeros, the rest specials
// but NaNs (sums of zeros, products that underflow to zero).
func rowValues(r *rand.Rand, n, kind int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * 3)
		if r.IntN(8) == 0 {
			v[i] = float32(math.Ldexp(r.NormFloat64(), r.IntN(300)-150))
		}
		var s float32
		switch kind {
		case 1:
			if s = rowSpecials[r.IntN(len(rowSpecials))]; s != s || r.IntN(4) != 0 {
				continue
			}
		case 2:
			if r.IntN(16) != 0 {
				continue
			}
			s = rowSpecials[r.IntN(len(rowSpecials))]
		case 3:
			if r.IntN(3) != 0 {
				continue
			}
			s = rowSpecials[r.IntN(len(rowSpecials))]
		case 4:
			s = float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
			if t := rowSpecials[r.IntN(len(rowSpecials))]; r.IntN(4) == 0 && t == t {
				s = t
			}
		default:
			continue
		}
		v[i] = s
	}
	return v
}

// rowScalar is a plain scalar, or now and then a special one.
func rowScalar(r *rand.Rand) float32 {
	if r.IntN(6) == 0 {
		return rowSpecials[r.IntN(len(rowSpecials))]
	}
	return float32(r.NormFloat64() * 2)
}

// rowSameBits compares two float32 slices bit for bit (NaN payloads too).
func rowSameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if g, w := math.Float32bits(got[i]), math.Float32bits(want[i]); g != w {
			t.Fatalf("%s: [%d] = %#08x, twin %#08x", what, i, g, w)
		}
	}
}

// rowCase runs one table entry and its twin on copies of the same
// operands and compares every output bit for bit.
type rowCase struct {
	name string
	// run calls the entry of tab on ins (outputs first; in place when
	// alias) and returns the outputs to compare.
	run  func(tab *reduceTable, ins [][]float32, sc []float32) [][]float32
	ins  int // how many slices (outputs first)
	outs int // how many of them are outputs
	sc   int // how many scalars
	blk  int // the lengths the entry takes are multiples of blk
}

var rowCases = []rowCase{
	{"scaleShift", func(tab *reduceTable, a [][]float32, s []float32) [][]float32 {
		tab.scaleShift(a[0], a[1], s[0], s[1])
		return a[:1]
	}, 2, 1, 2, 1},
	{"affine", func(tab *reduceTable, a [][]float32, s []float32) [][]float32 {
		tab.affine(a[0], a[1], a[2], a[3], s[0], s[1])
		return a[:1]
	}, 4, 1, 2, 1},
	{"normGradSums", func(tab *reduceTable, a [][]float32, _ []float32) [][]float32 {
		s, b := tab.normGradSums(a[0], a[1], a[2])
		return [][]float32{s[:], b[:]}
	}, 3, 0, 0, 8},
	{"normGradDX", func(tab *reduceTable, a [][]float32, s []float32) [][]float32 {
		tab.normGradDX(a[0], a[1], a[2], a[3], s[0], s[1], s[2])
		return a[:1]
	}, 4, 1, 3, 1},
	{"normGradWB", func(tab *reduceTable, a [][]float32, s []float32) [][]float32 {
		tab.normGradWB(a[0], a[1], a[2], a[3], s[0], s[1])
		return a[:2]
	}, 4, 2, 2, 1},
	{"groupGradSums", func(tab *reduceTable, a [][]float32, _ []float32) [][]float32 {
		s, b := tab.groupGradSums(a[0], a[1])
		return [][]float32{s[:], b[:]}
	}, 2, 0, 0, 8},
	{"groupGradDX", func(tab *reduceTable, a [][]float32, s []float32) [][]float32 {
		tab.groupGradDX(a[0], a[1], a[2], s[0], s[1], s[2])
		return a[:1]
	}, 3, 1, 3, 1},
}

// TestRowsNEONBits compares each NEON row kernel in use with its twin bit
// for bit, NaN payloads included: lengths 0..67 and longer, unaligned,
// in place (the output aliasing the first input) or not, operands plain,
// with specials but no NaN, or with NaNs, scalars now and then special.
func TestRowsNEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, c := range rowCases {
		for _, n := range ewLens() {
			if n%c.blk != 0 {
				continue
			}
			for trial := range 10 {
				checkRowCase(t, r, c, n, trial%5, trial >= 5)
			}
		}
	}
}

func checkRowCase(t *testing.T, r *rand.Rand, c rowCase, n, kind int, alias bool) {
	t.Helper()
	off := r.IntN(4)
	sc := make([]float32, c.sc)
	for i := range sc {
		sc[i] = rowScalar(r)
	}
	var mine, twin, bufs [][]float32
	for range c.ins {
		v := rowValues(r, n, kind)
		p, buf := ewPad(v, off, -7)
		mine, twin, bufs = append(mine, p), append(twin, v), append(bufs, buf)
	}
	if alias && c.outs == 1 {
		// The output is the first input (normGradWB's dw and db are
		// in/out already; its twin reads dy after writing dw).
		mine[0], twin[0] = mine[c.outs], twin[c.outs]
	}
	what := fmt.Sprintf("%s n=%d kind=%d off=%d alias=%v scalars=%v", c.name, n, kind, off, alias, sc)
	got := c.run(red32, mine, sc)
	want := c.run(&reduceGo, twin, sc)
	for k := range want {
		rowSameBits(t, fmt.Sprintf("%s out %d", what, k), got[k], want[k])
	}
	for k := range bufs {
		ewCheckGuards(t, what, bufs[k], off, n, -7)
	}
}

// TestRowsNEONStops: each row kernel stops before the block of 8 where an
// operand in any lane is a NaN (the smallest and the largest payloads),
// and not for an Inf or the largest finite value.
func TestRowsNEONStops(t *testing.T) {
	const n = 64
	for _, bits := range []uint32{0x7f7fffff, 0xff800000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffc00000} {
		nanIn := bits&0x7fffffff > 0x7f800000
		for op := range 4 {
			for at := range n {
				var a [4][]float32
				for k := range a {
					a[k] = make([]float32, n)
					for i := range a[k] {
						a[k][i] = 1
					}
				}
				a[op][at] = math.Float32frombits(bits)
				want := n
				if nanIn {
					want = at &^ 7
				}
				for _, c := range []struct {
					name string
					ops  int // operands (outputs that are inputs too first)
					done int
				}{
					{"affineNEON", 3, affineNEON(make([]float32, n), a[0], a[1], a[2], 1, 1)},
					{"normGradDXNEON", 3, normGradDXNEON(make([]float32, n), a[0], a[1], a[2], 1, 1, 1)},
					{"groupGradDXNEON", 2, groupGradDXNEON(make([]float32, n), a[0], a[1], 1, 1, 1)},
					{"normGradWBNEON", 4, normGradWBNEON(a[0], a[1], a[2], a[3], 1, 1)}, // last: it writes a[0], a[1]
				} {
					if op < c.ops && c.done != want {
						t.Errorf("%s, operand %d [%d] = %#x: %d done, want %d", c.name, op, at, bits, c.done, want)
					}
				}
			}
		}
	}
}

// TestSqDiffNEONBits compares sqDiffLanes in use with its twin bit for
// bit, the running sums starting from plain values or specials (NaN
// payloads included), the operands as TestRowsNEONBits (squares that
// overflow, underflow, are subnormal or zero).
func TestSqDiffNEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for _, n := range []int{0, 16, 32, 48, 64, 128, 1024} {
		for trial := range 10 {
			kind := trial % 5
			x, y := rowValues(r, n, kind), rowValues(r, n, kind)
			if trial == 9 {
				copy(y, x) // zero differences
			}
			var got, want [16]float64
			for l := range got {
				got[l] = r.NormFloat64()
				if trial >= 5 && r.IntN(3) == 0 {
					got[l] = float64(rowSpecials[r.IntN(len(rowSpecials))])
				}
				want[l] = got[l]
			}
			red32.sqDiffLanes(&got, x, y)
			reduceGo.sqDiffLanes(&want, x, y)
			for l := range got {
				if g, w := math.Float64bits(got[l]), math.Float64bits(want[l]); g != w {
					t.Fatalf("n=%d kind=%d lane %d: %#x, twin %#x", n, kind, l, g, w)
				}
			}
		}
	}
}

// TestExtremesNEONBits compares maxLanes, minLanes, maxVal and minVal in
// use with their twins: values and indices, bits and all (NaN payloads,
// which zero), on the operands of TestRowsNEONBits and on rows of many
// ties (small integers, ±0, ±Inf, NaNs of several payloads).
func TestExtremesNEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	ties := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2, float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001)}
	for _, n := range ewLens() {
		for trial := range 12 {
			x := rowValues(r, n, trial%5)
			if trial >= 5 {
				// Ties; from trial 8 on without NaNs, from 10 on nothing but zeros and negatives (or positives).
				for i := range x {
					k := len(ties)
					if trial >= 8 {
						k = 7
					}
					x[i] = ties[r.IntN(k)]
					if trial >= 10 && x[i] != 0 && (x[i] > 0) == (trial == 10) {
						x[i] = -x[i]
					}
				}
			}
			what := fmt.Sprintf("n=%d trial=%d", n, trial)
			for _, c := range []struct {
				name      string
				got, want func([]float32) ([8]float32, [8]int32)
			}{{"maxLanes", red32.maxLanes, reduceGo.maxLanes}, {"minLanes", red32.minLanes, reduceGo.minLanes}} {
				gv, gi := c.got(x)
				wv, wi := c.want(x)
				if gi != wi {
					t.Fatalf("%s %s: indices %v, twin %v", c.name, what, gi, wi)
				}
				rowSameBits(t, c.name+" "+what, gv[:], wv[:])
			}
			for _, c := range []struct {
				name      string
				got, want func([]float32) float32
			}{{"maxVal", red32.maxVal, reduceGo.maxVal}, {"minVal", red32.minVal, reduceGo.minVal}} {
				rowSameBits(t, c.name+" "+what, []float32{c.got(x)}, []float32{c.want(x)})
			}
		}
	}
}

// TestRowsNEONExhaustive runs scaleShift (two pairs of scalars), affine
// (w the chunk reversed, b it rotated), normGradDX, groupGradDX and the
// extremes in use and their twins over every float32 bit pattern, chunk
// by chunk of 2^16 patterns, and compares the bits. GOATEN_ROWS_STEP=k
// checks every k-th chunk (1: all 2^32 patterns); unset, a sample (16
// chunks, 1 s under qemu-aarch64). GOATEN_ROWS_STEP=17 (3856 chunks, a
// 17th of the patterns, every sign and exponent) passed under
// qemu-aarch64 in 282 s; all 2^32 would take about 80 minutes there.
func TestRowsNEONExhaustive(t *testing.T) {
	step := 4099
	if s := os.Getenv("GOATEN_ROWS_STEP"); s != "" {
		var err error
		if step, err = strconv.Atoi(s); err != nil || step < 1 {
			t.Fatalf("GOATEN_ROWS_STEP=%q", s)
		}
	}
	const n = 1 << 16
	x, w, b := make([]float32, n), make([]float32, n), make([]float32, n)
	got, want := make([]float32, n), make([]float32, n)
	for c := 0; c < 1<<16; c += step {
		base := uint32(c) << 16
		for i := range x {
			x[i] = math.Float32frombits(base + uint32(i))
			w[n-1-i] = x[i]
			b[(i+1)%n] = x[i]
		}
		what := fmt.Sprintf("chunk %#x", base)
		for _, sc := range [][2]float32{{1.5, -0.25}, {-0x1p-100, 0x1p-140}} {
			red32.scaleShift(got, x, sc[0], sc[1])
			reduceGo.scaleShift(want, x, sc[0], sc[1])
			rowSameBits(t, what+" scaleShift", got, want)
		}
		red32.affine(got, x, w, b, 1.5, -0.25)
		reduceGo.affine(want, x, w, b, 1.5, -0.25)
		rowSameBits(t, what+" affine", got, want)
		red32.normGradDX(got, x, w, b, 0.75, -1.25, 3)
		reduceGo.normGradDX(want, x, w, b, 0.75, -1.25, 3)
		rowSameBits(t, what+" normGradDX", got, want)
		red32.groupGradDX(got, x, w, 0.75, -1.25, 3)
		reduceGo.groupGradDX(want, x, w, 0.75, -1.25, 3)
		rowSameBits(t, what+" groupGradDX", got, want)
		gv, gi := red32.maxLanes(x)
		wv, wi := reduceGo.maxLanes(x)
		if gi != wi {
			t.Fatalf("%s maxLanes: indices %v, twin %v", what, gi, wi)
		}
		rowSameBits(t, what+" maxLanes", gv[:], wv[:])
		gv, gi = red32.minLanes(x)
		wv, wi = reduceGo.minLanes(x)
		if gi != wi {
			t.Fatalf("%s minLanes: indices %v, twin %v", what, gi, wi)
		}
		rowSameBits(t, what+" minLanes", gv[:], wv[:])
		rowSameBits(t, what+" maxVal, minVal", []float32{red32.maxVal(x), red32.minVal(x)},
			[]float32{reduceGo.maxVal(x), reduceGo.minVal(x)})
	}
}
