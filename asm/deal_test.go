package asm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDealMerge checks DealF32 and MergeF32 against the twins and each
// other over lengths 0..67 (past four blocks of eight pairs), at unaligned
// starts, the specials mixed in, with guards past the ends.
func TestDealMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 50))
	for n := range 68 {
		at := r.IntN(8)
		xv := ewValues32(r, n)
		x, xbuf := ewPad(xv, at, ewGuard)
		ne, no := (n+1)/2, n/2
		even, ebuf := ewPad(make([]float32, ne), at, ewGuard)
		odd, obuf := ewPad(make([]float32, no), at, ewGuard)
		DealF32(even, odd, x)
		for j := range n {
			got := even
			if j%2 == 1 {
				got = odd
			}
			if !ewSame(got[j/2], xv[j]) {
				t.Fatalf("DealF32, %d elements: element %d dealt as %v, want %v", n, j, got[j/2], xv[j])
			}
		}
		ewCheckGuards(t, "DealF32 even", ebuf, at, ne, ewGuard)
		ewCheckGuards(t, "DealF32 odd", obuf, at, no, ewGuard)
		y, ybuf := ewPad(make([]float32, n), at, ewGuard)
		MergeF32(y, even, odd)
		for j := range n {
			if !ewSame(y[j], xv[j]) {
				t.Fatalf("MergeF32, %d elements: element %d = %v, want %v", n, j, y[j], xv[j])
			}
		}
		ewCheckGuards(t, "MergeF32", ybuf, at, n, ewGuard)
		_ = xbuf
		// The twins give the same.
		e2, o2, y2 := make([]float32, ne), make([]float32, no), make([]float32, n)
		dealGo(e2, o2, xv)
		mergeGo(y2, e2, o2)
		for j := range n {
			if !ewSame(y2[j], xv[j]) {
				t.Fatalf("twins, %d elements: element %d = %v, want %v", n, j, y2[j], xv[j])
			}
		}
	}
	for _, f := range []func(){
		func() { DealF32(make([]float32, 2), make([]float32, 2), make([]float32, 5)) },
		func() { MergeF32(make([]float32, 4), make([]float32, 3), make([]float32, 1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("lengths that do not match: no panic")
				}
			}()
			f()
		}()
	}
}

// FuzzDealMerge deals and merges back a row read from data.
func FuzzDealMerge(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, data []byte) {
		x := make([]float32, len(data))
		for i, b := range data {
			x[i] = float32(b) - 128
		}
		even, odd, y := make([]float32, (len(x)+1)/2), make([]float32, len(x)/2), make([]float32, len(x))
		DealF32(even, odd, x)
		MergeF32(y, even, odd)
		for i := range x {
			if y[i] != x[i] {
				t.Fatalf("element %d: %v after dealing and merging, want %v", i, y[i], x[i])
			}
		}
	})
}

// TestMergeRows checks MergeRowsF32 against its twin and against MergeF32
// row by row: rows of 0..67 pairs (past four blocks of eight, the lengths
// where the AVX2 kernel's last block overlaps the one before), 0..3 rows,
// rows packed or further apart, unaligned starts, the specials mixed in;
// the gaps between the rows and guards past the end keep their values.
func TestMergeRows(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for w := range 68 {
		for rows := range 4 {
			for _, gap := range []int{0, 1, 2 * w, 5} {
				at := r.IntN(8)
				ldx := 2*w + gap
				even, odd := ewValues32(r, rows*w), ewValues32(r, rows*w)
				n := 0
				if rows > 0 {
					n = (rows-1)*ldx + 2*w
				}
				x, xbuf := ewPad(make([]float32, n), at, ewGuard)
				for i := range x {
					x[i] = ewGuard
				}
				MergeRowsF32(x, ldx, even, odd, rows, w)
				want := make([]float32, n)
				for i := range want {
					want[i] = ewGuard
				}
				for i := range rows {
					MergeF32(want[i*ldx:][:2*w], even[i*w:][:w], odd[i*w:][:w])
				}
				twin := slices.Clone(want)
				for i := range twin {
					twin[i] = ewGuard
				}
				mergeRowsGo(twin, ldx, even, odd, rows, w)
				for i := range want {
					if !ewSame(x[i], want[i]) || !ewSame(twin[i], want[i]) {
						t.Fatalf("%d rows of %d pairs %d apart: element %d = %v (twin %v), want %v", rows, w, ldx, i, x[i], twin[i], want[i])
					}
				}
				ewCheckGuards(t, "MergeRowsF32", xbuf, at, n, ewGuard)
			}
		}
	}
	for _, f := range []func(){
		func() { MergeRowsF32(make([]float32, 16), 7, make([]float32, 8), make([]float32, 8), 2, 4) },  // rows overlap
		func() { MergeRowsF32(make([]float32, 15), 8, make([]float32, 8), make([]float32, 8), 2, 4) },  // x short
		func() { MergeRowsF32(make([]float32, 16), 8, make([]float32, 7), make([]float32, 8), 2, 4) },  // even short
		func() { MergeRowsF32(make([]float32, 16), 8, make([]float32, 8), make([]float32, 7), 2, 4) },  // odd short
		func() { MergeRowsF32(make([]float32, 16), 8, make([]float32, 8), make([]float32, 8), -1, 4) }, // negative rows
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("MergeRowsF32 with sizes that do not fit: no panic")
				}
			}()
			f()
		}()
	}
}

// FuzzMergeRows merges rows read from data (its first bytes the rows, the
// pairs per row and the gap between rows) and checks them against the twin.
func FuzzMergeRows(f *testing.F) {
	f.Add([]byte{3, 14, 28, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		rows, w, gap := int(data[0]%8), int(data[1]%40), int(data[2]%64)
		ldx := 2*w + gap
		even, odd := make([]float32, rows*w), make([]float32, rows*w)
		for i := range even {
			if len(data) > 3 {
				even[i] = float32(data[3+i%(len(data)-3)]) - 128
			}
			odd[i] = float32(i)
		}
		n := 0
		if rows > 0 {
			n = (rows-1)*ldx + 2*w
		}
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = -1, -1
		}
		MergeRowsF32(x, ldx, even, odd, rows, w)
		mergeRowsGo(y, ldx, even, odd, rows, w)
		for i := range x {
			if x[i] != y[i] {
				t.Fatalf("%d rows of %d pairs %d apart: element %d = %v, twin %v", rows, w, ldx, i, x[i], y[i])
			}
		}
	})
}
