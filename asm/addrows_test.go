package asm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAddRows checks AddRowsF32 against its twin (and the twin against
// float32 addition) over rows of 0…40 elements with gaps between them,
// which must stay as they were, the specials among the values.
func TestAddRows(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for range 300 {
		rows, w := 1+r.IntN(4), r.IntN(41)
		ldd, lds := w+r.IntN(3), w+r.IntN(5)
		nd, ns := max(0, (rows-1)*ldd+w+r.IntN(3)), max(0, (rows-1)*lds+w)
		d0, src := ewValues32(r, nd), ewValues32(r, ns)
		got, want := slices.Clone(d0), slices.Clone(d0)
		AddRowsF32(got, ldd, src, lds, rows, w)
		addRowsGo(want, ldd, src, lds, rows, w)
		for i := range got {
			if !ewSame(got[i], want[i]) {
				t.Fatalf("%d rows of %d (ldd %d, lds %d): element %d = %v, want %v", rows, w, ldd, lds, i, got[i], want[i])
			}
			e := d0[i]
			if ldd > 0 && i/ldd < rows && i%ldd < w {
				e = d0[i] + src[(i/ldd)*lds+i%ldd]
			}
			if !ewSame(want[i], e) && !(math.IsNaN(float64(want[i])) && math.IsNaN(float64(e))) {
				t.Fatalf("twin: element %d = %v, want %v", i, want[i], e)
			}
		}
	}
}
