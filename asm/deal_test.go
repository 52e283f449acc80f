package asm

import (
	"math/rand/v2"
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
