package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkGather runs GatherRows on rows of w elements at random offsets and
// checks each row against its definition and dst's guard past the rows.
func checkGather[T float32 | float64](t *testing.T, w, rows int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(w), uint64(rows)))
	src := make([]T, 3000)
	for i := range src {
		src[i] = T(rng.Float64()*2 - 1)
	}
	offs := make([]int, rows+3)
	for i := range offs {
		offs[i] = rng.IntN(len(src)-w-40) - 20
	}
	r := NewRowOffsets(offs)
	base := 20 + rng.IntN(20)
	p0, n := 2, rows
	dst := make([]T, n*w+5)
	for i := range dst {
		dst[i] = -7
	}
	GatherRows(dst, src, base, &r, p0, n, w)
	for p := range n {
		for j := range w {
			if got, want := dst[p*w+j], src[base+offs[p0+p]+j]; got != want {
				t.Fatalf("w=%d rows=%d: dst[%d] (row %d, column %d) = %v, want %v", w, rows, p*w+j, p, j, got, want)
			}
		}
	}
	for i := n * w; i < len(dst); i++ {
		if dst[i] != -7 {
			t.Fatalf("w=%d rows=%d: dst[%d] past the rows = %v, want it untouched", w, rows, i, dst[i])
		}
	}
}

func TestGatherRows(t *testing.T) {
	for _, rows := range []int{1, 2, 7, 64, 257} {
		checkGather[float32](t, 32, rows) // the vector loop's rows
		checkGather[float64](t, 16, rows)
		checkGather[float32](t, 16, rows) // the Go loop's
		checkGather[float64](t, 5, rows)
	}
}

func TestGatherRowsOutOfRange(t *testing.T) {
	src, dst := make([]float32, 100), make([]float32, 64)
	r := NewRowOffsets([]int{0, 60, 10})
	for _, c := range []struct {
		name        string
		base, p0, n int
	}{
		{"past src's end", 9, 0, 2},
		{"before src", -1, 0, 1},
		{"past the offsets", 0, 2, 2},
		{"past dst's end", 0, 0, 3},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: GatherRows did not panic", c.name)
				}
			}()
			GatherRows(dst, src, c.base, &r, c.p0, c.n, 32)
		}()
	}
}

// checkCopyRowsStrided runs CopyRows on rows of w elements and checks them
// and the gaps between the destination rows.
func checkCopyRowsStrided[T float32 | float64](t *testing.T, w, rows, ldd, lds int) {
	t.Helper()
	src := make([]T, (rows-1)*lds+w+3)
	for i := range src {
		src[i] = T(i + 1)
	}
	dst := make([]T, (rows-1)*ldd+w+4)
	for i := range dst {
		dst[i] = -7
	}
	CopyRows(dst, ldd, src, lds, rows, w)
	for i, v := range dst {
		r, j := i/ldd, i%ldd
		want := T(-7)
		if r < rows && j < w {
			want = src[r*lds+j]
		}
		if v != want {
			t.Fatalf("w=%d rows=%d ldd=%d lds=%d: dst[%d] = %v, want %v", w, rows, ldd, lds, i, v, want)
		}
	}
}

func TestCopyRowsStrided(t *testing.T) {
	for _, w := range []int{1, 3, 7, 8, 9, 14, 16, 31, 32, 33, 56, 100} {
		for _, rows := range []int{1, 2, 5} {
			checkCopyRowsStrided[float32](t, w, rows, w+2, w+5)
			checkCopyRowsStrided[float64](t, w, rows, w+7, w)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("CopyRows past dst's end did not panic")
		}
	}()
	CopyRows(make([]float32, 40), 20, make([]float32, 100), 32, 2, 32)
}

// TestCopyRowsAdd checks CopyRowsAdd against v + b element by element (bit
// for bit, NaN and infinities included) and the gaps between the rows.
func TestCopyRowsAdd(t *testing.T) {
	check := func(t *testing.T, w, rows, ldd, lds int) {
		t.Helper()
		rng := rand.New(rand.NewPCG(uint64(w), uint64(rows)))
		src := make([]float32, (rows-1)*lds+w+3)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * 1e3)
		}
		src[0], src[len(src)/2] = float32(math.Inf(1)), float32(math.NaN())
		for _, b := range []float32{0.1, -3e-5, float32(math.Inf(-1))} {
			dst := make([]float32, (rows-1)*ldd+w+4)
			for i := range dst {
				dst[i] = -7
			}
			CopyRowsAdd(dst, ldd, src, lds, rows, w, b)
			for i, v := range dst {
				r, j := i/ldd, i%ldd
				want := float32(-7)
				if r < rows && j < w {
					want = src[r*lds+j] + b
				}
				if math.Float32bits(v) != math.Float32bits(want) && !(v != v && want != want) {
					t.Fatalf("w=%d rows=%d ldd=%d lds=%d b=%v: dst[%d] = %v, want %v", w, rows, ldd, lds, b, i, v, want)
				}
			}
		}
	}
	for _, w := range []int{1, 7, 8, 9, 14, 16, 31, 32, 33, 56} {
		for _, rows := range []int{1, 2, 5} {
			check(t, w, rows, w+2, w+5)
		}
	}
	d := make([]float64, 10)
	CopyRowsAdd(d, 5, []float64{1, 2, 3, 4, 5, 6}, 3, 2, 3, 0.5)
	if want := []float64{1.5, 2.5, 3.5, 0, 0, 4.5, 5.5, 6.5, 0, 0}; fmt.Sprint(d) != fmt.Sprint(want) {
		t.Errorf("float64 CopyRowsAdd gave %v, want %v", d, want)
	}
}

func TestPackCols(t *testing.T) {
	for _, c := range []struct{ rows, cols, ld, stride int }{
		{32, 40, 50, 32}, {16, 9, 9, 16}, {8, 100, 1156, 32}, {5, 7, 8, 6}, {13, 17, 20, 16},
	} {
		src := make([]float32, (c.rows-1)*c.ld+c.cols)
		for i := range src {
			src[i] = float32(i + 1)
		}
		n := (c.cols-1)*c.stride + c.rows
		dst := make([]float32, n+3)
		for i := range dst {
			dst[i] = -7
		}
		PackCols(dst, src, c.ld, c.rows, c.cols, c.stride)
		for i, v := range dst {
			p, r := i/c.stride, i%c.stride
			want := float32(-7)
			if p < c.cols && r < c.rows {
				want = src[r*c.ld+p]
			}
			if v != want {
				t.Fatalf("%+v: dst[%d] = %v, want %v", c, i, v, want)
			}
		}
		d64 := make([]float64, n)
		s64 := make([]float64, len(src))
		for i := range s64 {
			s64[i] = float64(i + 1)
		}
		PackCols(d64, s64, c.ld, c.rows, c.cols, c.stride)
		for p := range c.cols {
			for r := range c.rows {
				if d64[p*c.stride+r] != s64[r*c.ld+p] {
					t.Fatalf("%+v float64: dst[%d] = %v, want %v", c, p*c.stride+r, d64[p*c.stride+r], s64[r*c.ld+p])
				}
			}
		}
	}
	if nr := GemmTileCols[float32](); nr != sgemmUse.bl.nr || nr < 1 {
		t.Errorf("GemmTileCols[float32]() = %d, want the sgemm's %d", nr, sgemmUse.bl.nr)
	}
	if nr := GemmTileCols[float64](); nr != dgemmUse.bl.nr || nr < 1 {
		t.Errorf("GemmTileCols[float64]() = %d, want the dgemm's %d", nr, dgemmUse.bl.nr)
	}
}
