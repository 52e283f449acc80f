package asm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// maxIdxValues draws n candidates: ties (a few small integers), the
// specials (NaN, ±Inf, ±0) and ordinary values.
func maxIdxValues(r *rand.Rand, n int) []float32 {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1))}
	x := make([]float32, n)
	for i := range x {
		switch r.IntN(4) {
		case 0:
			x[i] = float32(r.IntN(3))
		case 1:
			x[i] = specials[r.IntN(len(specials))]
		default:
			x[i] = float32(r.NormFloat64())
		}
	}
	return x
}

// TestMaxIndexRows checks MaxIndexRowsF32 against its twin over rows of
// 0…40 columns with gaps between the rows (which must stay as they were),
// ties and specials among the candidates and the running maxima, and
// checks that folding the same candidates again changes nothing.
func TestMaxIndexRows(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for range 400 {
		rows, cols := 1+r.IntN(4), r.IntN(41)
		ldm, ldv := max(1, cols+r.IntN(3)), cols+r.IntN(5)
		i0, cs, rs := int32(r.IntN(100)-50), int32(1+r.IntN(3)), int32(r.IntN(200))
		nm, nv := (rows-1)*ldm+cols+r.IntN(3), (rows-1)*ldv+cols
		m0, v := maxIdxValues(r, nm), maxIdxValues(r, nv)
		mi0 := make([]int32, nm)
		for i := range mi0 {
			mi0[i] = int32(r.IntN(1000))
		}
		m, mi := slices.Clone(m0), slices.Clone(mi0)
		wm, wmi := slices.Clone(m0), slices.Clone(mi0)
		MaxIndexRowsF32(m, mi, ldm, v, ldv, rows, cols, i0, cs, rs)
		maxIndexRowsGo(wm, wmi, ldm, v, ldv, rows, cols, i0, cs, rs)
		check := func(what string) {
			for i := range m {
				if math.Float32bits(m[i]) != math.Float32bits(wm[i]) || mi[i] != wmi[i] {
					t.Fatalf("%s: %d rows of %d (ldm %d, ldv %d): element %d is (%v, %d), want (%v, %d)",
						what, rows, cols, ldm, ldv, i, m[i], mi[i], wm[i], wmi[i])
				}
			}
		}
		check("once")
		MaxIndexRowsF32(m, mi, ldm, v, ldv, rows, cols, i0, cs, rs)
		check("twice")
		// The twin itself: a lane takes a candidate exactly when it is
		// greater or NaN, and elements outside the rows keep their values.
		for i := range wm {
			row, col := i/ldm, i%ldm
			if row >= rows || col >= cols {
				if math.Float32bits(wm[i]) != math.Float32bits(m0[i]) || wmi[i] != mi0[i] {
					t.Fatalf("element %d outside the rows changed", i)
				}
				continue
			}
			x := v[row*ldv+col]
			want, wantI := m0[i], mi0[i]
			if x > m0[i] || x != x {
				want, wantI = x, i0+int32(row)*rs+int32(col)*cs
			}
			if math.Float32bits(wm[i]) != math.Float32bits(want) || wmi[i] != wantI {
				t.Fatalf("row %d column %d: candidate %v against %v gave (%v, %d), want (%v, %d)", row, col, x, m0[i], wm[i], wmi[i], want, wantI)
			}
		}
	}
}

func TestMaxIndexRowsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for rows past the slices")
		}
	}()
	MaxIndexRowsF32(make([]float32, 10), make([]int32, 10), 5, make([]float32, 10), 5, 3, 5, 0, 1, 5)
}
