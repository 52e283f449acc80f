package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkPack runs a packer of rows rows (the AVX one where the CPU has it)
// and its twin on one block, src at offset soff of its buffer and d at
// doff, and compares them with each other and with the definition
// d[p*stride+i] = alpha·src[i*ld+p]; every element of d that is not a
// packed one (between columns when stride > rows, past the end) must keep
// its guard. pack and twin get d and the offset src.
func checkPack[T float32 | float64](t testing.TB, rows int, pack, twin func(d, s []T), src []T, ld, kc, stride, soff, doff int, alpha T) {
	t.Helper()
	g := T(math.Copysign(math.NaN(), -1)) // a NaN no packer writes
	s, _ := ewPad(src, soff, g)
	n := 0
	if kc > 0 {
		n = (kc-1)*stride + rows
	}
	want := make([]T, n)
	for i := range want {
		want[i] = g
	}
	twin(want, s)
	d, buf := ewPad(want, doff, T(-7))
	for i := range d {
		d[i] = T(-7)
	}
	pack(d, s)
	what := fmt.Sprintf("rows=%d kc=%d ld=%d stride=%d soff=%d doff=%d alpha=%v", rows, kc, ld, stride, soff, doff, alpha)
	ewCheckGuards(t, what, buf, doff, n, T(-7))
	for p := 0; p < kc; p++ {
		for i := 0; i < stride && p*stride+i < n; i++ {
			at := p*stride + i
			if i >= rows {
				if d[at] != T(-7) {
					t.Fatalf("%s: d[%d] (between columns) = %v, want it untouched", what, at, d[at])
				}
				continue
			}
			def := alpha * s[i*ld+p]
			if !ewSame(want[at], def) {
				t.Fatalf("%s: twin d[%d] = %v, want %v", what, at, want[at], def)
			}
			if !ewSame(d[at], want[at]) {
				t.Fatalf("%s: d[%d] = %v, twin %v (row %d, column %d)", what, at, d[at], want[at], i, p)
			}
		}
	}
}

// checkPack6 checks interleave6 (pack6 and its twin) on one block.
func checkPack6[T float32 | float64](t testing.TB, src []T, ld, kc, stride, soff, doff int, alpha T) {
	t.Helper()
	checkPack(t, 6, func(d, s []T) { interleave6(d, s, ld, kc, stride, alpha) },
		func(d, s []T) { interleave6Go(d, s, ld, kc, stride, alpha) }, src, ld, kc, stride, soff, doff, alpha)
}

// checkPack8 checks interleave8 (pack8 and its twin; alpha 1) on one block.
func checkPack8[T float32 | float64](t testing.TB, src []T, ld, kc, stride, soff, doff int) {
	t.Helper()
	checkPack(t, 8, func(d, s []T) { interleave8(d, s, ld, kc, stride) },
		func(d, s []T) { interleave8Go(d, s, ld, kc, stride) }, src, ld, kc, stride, soff, doff, 1)
}

func testPack6[T float32 | float64](t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, kc := range ewLens() {
		for _, stride := range []int{6, 12, 16} {
			for _, extra := range []int{0, 3} {
				ld := kc + extra
				src := ewValues[T](r, 5*ld+kc)
				for _, alpha := range []T{1, -2.5} {
					checkPack6(t, src, ld, kc, stride, r.IntN(4), r.IntN(4), alpha)
				}
			}
		}
	}
}

func TestPack6(t *testing.T) {
	t.Run("float32", testPack6[float32])
	t.Run("float64", testPack6[float64])
}

func FuzzPack6(f *testing.F) {
	f.Add(uint8(17), uint8(2), uint8(1), uint8(0), uint8(3), float64(1), uint64(1))
	f.Add(uint8(40), uint8(0), uint8(2), uint8(1), uint8(0), -0.5, uint64(2))
	f.Fuzz(func(t *testing.T, kc, extra, strideSel, soff, doff uint8, alpha float64, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 6))
		stride := []int{6, 12, 16}[strideSel%3]
		ld := int(kc) + int(extra%16)
		src64 := ewValues[float64](r, 5*ld+int(kc))
		checkPack6(t, src64, ld, int(kc), stride, int(soff%8), int(doff%8), alpha)
		src32 := ewValues[float32](r, 5*ld+int(kc))
		checkPack6(t, src32, ld, int(kc), stride, int(soff%8), int(doff%8), float32(alpha))
	})
}

func testPack8[T float32 | float64](t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, kc := range ewLens() {
		for _, stride := range []int{8, 16, 32} {
			for _, extra := range []int{0, 3} {
				ld := kc + extra
				src := ewValues[T](r, 7*ld+kc)
				checkPack8(t, src, ld, kc, stride, r.IntN(4), r.IntN(4))
			}
		}
	}
}

func TestPack8(t *testing.T) {
	t.Run("float32", testPack8[float32])
	t.Run("float64", testPack8[float64])
}

func FuzzPack8(f *testing.F) {
	f.Add(uint8(17), uint8(2), uint8(1), uint8(0), uint8(3), uint64(1))
	f.Add(uint8(40), uint8(0), uint8(2), uint8(1), uint8(0), uint64(2))
	f.Fuzz(func(t *testing.T, kc, extra, strideSel, soff, doff uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 8))
		stride := []int{8, 16, 32}[strideSel%3]
		ld := int(kc) + int(extra%16)
		checkPack8(t, ewValues[float32](r, 7*ld+int(kc)), ld, int(kc), stride, int(soff%8), int(doff%8))
		checkPack8(t, ewValues[float64](r, 7*ld+int(kc)), ld, int(kc), stride, int(soff%8), int(doff%8))
	})
}

// checkCopyRows runs copyRowsN (the AVX row copies where they apply) on kc
// rows of w elements, ld apart in src at offset soff, into d at doff, and
// compares with the definition d[p*w+j] = src[p*ld+j]; d's guards must hold.
func checkCopyRows[T float32 | float64](t testing.TB, src []T, w, ld, kc, soff, doff int) {
	t.Helper()
	s, _ := ewPad(src, soff, T(math.Copysign(math.NaN(), -1)))
	want := make([]T, kc*w)
	d, buf := ewPad(want, doff, T(-7))
	for i := range d {
		d[i] = T(-7)
	}
	switch w {
	case 8:
		copyRows8(d, s, ld, kc)
	case 16:
		copyRows16(d, s, ld, kc)
	case 32:
		copyRows32(d, s, ld, kc)
	}
	what := fmt.Sprintf("copyRows%d kc=%d ld=%d soff=%d doff=%d", w, kc, ld, soff, doff)
	ewCheckGuards(t, what, buf, doff, kc*w, T(-7))
	for p := 0; p < kc; p++ {
		for j := 0; j < w; j++ {
			if !ewSame(d[p*w+j], s[p*ld+j]) {
				t.Fatalf("%s: d[%d] = %v, want src[%d] = %v", what, p*w+j, d[p*w+j], p*ld+j, s[p*ld+j])
			}
		}
	}
}

func testCopyRows[T float32 | float64](t *testing.T) {
	r := rand.New(rand.NewPCG(16, 32))
	for _, kc := range ewLens() {
		for _, w := range []int{8, 16, 32} {
			for _, extra := range []int{0, 5} {
				ld := w + extra
				src := ewValues[T](r, max(0, (kc-1)*ld+w))
				checkCopyRows(t, src, w, ld, kc, r.IntN(4), r.IntN(4))
			}
		}
	}
}

func TestCopyRows(t *testing.T) {
	t.Run("float32", testCopyRows[float32])
	t.Run("float64", testCopyRows[float64])
}

func FuzzCopyRows(f *testing.F) {
	f.Add(uint8(17), uint8(1), uint8(3), uint8(0), uint8(2), uint64(1))
	f.Fuzz(func(t *testing.T, kc, wSel, extra, soff, doff uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 16))
		w := []int{8, 16, 32}[wSel%3]
		ld := w + int(extra%16)
		n := max(0, (int(kc)-1)*ld+w)
		checkCopyRows(t, ewValues[float32](r, n), w, ld, int(kc), int(soff%8), int(doff%8))
		checkCopyRows(t, ewValues[float64](r, n), w, ld, int(kc), int(soff%8), int(doff%8))
	})
}
