package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSumRows checks SumRowsF32 against SumF32 row by row, bit for bit,
// over 0…5 rows of 0…100 elements (whole blocks of 32 and tails), the
// specials among the values.
func TestSumRows(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	for rows := range 6 {
		for n := range 101 {
			x := ewValues32(r, rows*n)
			got := make([]float64, rows)
			SumRowsF32(got, x, n)
			for i := range rows {
				want := SumF32(x[i*n : (i+1)*n])
				if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
					t.Fatalf("%d rows of %d: row %d sums to %v, want %v", rows, n, i, got[i], want)
				}
			}
		}
	}
}
