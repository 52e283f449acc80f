//go:build !purego

package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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
// in 16; 3: one in 3).
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

// TestRowsNEONInUse: with NEON the table holds the NEON row kernels.
func TestRowsNEONInUse(t *testing.T) {
	if !useNEON {
		t.Skip("no NEON")
	}
	ptr := func(f any) uintptr { return reflect.ValueOf(f).Pointer() }
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"scaleShift", red32.scaleShift, scaleShiftF32NEON}, {"affine", red32.affine, affineF32NEON},
	} {
		if ptr(c.got) != ptr(c.want) {
			t.Errorf("%s: not the NEON kernel", c.name)
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
			for trial := range 8 {
				checkRowCase(t, r, c, n, trial%4, trial >= 4)
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
	if alias && c.outs < c.ins {
		// The first output is the first input after the outputs.
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
