package asm

import (
	"math/rand/v2"
	"testing"
)

// padWant is PadRowsU32 written out element by element, on a copy of x.
func padWant(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32) []uint32 {
	want := append([]uint32(nil), x...)
	for r := range rows {
		for j := range left + n + right {
			e := v
			if j >= left && j < left+n {
				e = src[r*lds+j-left]
			}
			want[r*ldx+j] = e
		}
	}
	return want
}

// TestPadRows checks PadRowsU32 and its twin against padWant: rows
// copying 0..67 elements (past four moves of eight, the lengths where the
// AVX2 kernel's last move overlaps the one before), pads of 0..3 and 9,
// 0..3 rows packed or further apart, source rows packed or further apart,
// unaligned starts; the gaps between the rows and guards past the end keep
// their values, and src is left as it was.
func TestPadRows(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	const guard = 0xdeadbeef
	for n := range 68 {
		for _, pads := range [][2]int{{0, 0}, {1, 1}, {0, 3}, {2, 0}, {3, 9}} {
			left, right := pads[0], pads[1]
			for rows := range 4 {
				for _, gap := range []int{0, 5} {
					w := left + n + right
					ldx, lds := w+gap, n+2*gap
					at := r.IntN(8)
					src := make([]uint32, rows*lds+at)[at:]
					for i := range src {
						src[i] = r.Uint32()
					}
					keep := append([]uint32(nil), src...)
					m := 0
					if rows > 0 {
						m = (rows-1)*ldx + w
					}
					buf := make([]uint32, m+at+8)
					for i := range buf {
						buf[i] = guard
					}
					x := buf[at:][:m]
					v := r.Uint32()
					want := padWant(x, ldx, src, lds, rows, left, n, right, v)
					PadRowsU32(x, ldx, src, lds, rows, left, n, right, v)
					twin := append([]uint32(nil), want...)
					for i := range twin {
						twin[i] = guard
					}
					padRowsGo(twin, ldx, src, lds, rows, left, n, right, v)
					for i := range want {
						if x[i] != want[i] || twin[i] != want[i] {
							t.Fatalf("%d rows of %d+%d+%d, %d apart: element %d = %#x (twin %#x), want %#x", rows, left, n, right, ldx, i, x[i], twin[i], want[i])
						}
					}
					for i, g := range buf {
						if (i < at || i >= at+m) && g != guard {
							t.Fatalf("%d rows of %d+%d+%d: guard %d overwritten with %#x", rows, left, n, right, i-at, g)
						}
					}
					for i := range src {
						if src[i] != keep[i] {
							t.Fatalf("%d rows of %d+%d+%d: src element %d changed", rows, left, n, right, i)
						}
					}
				}
			}
		}
	}
	for _, f := range []func(){
		func() { PadRowsU32(make([]uint32, 20), 9, make([]uint32, 16), 8, 2, 1, 8, 1, 0) },  // rows overlap
		func() { PadRowsU32(make([]uint32, 19), 10, make([]uint32, 16), 8, 2, 1, 8, 1, 0) }, // x short
		func() { PadRowsU32(make([]uint32, 20), 10, make([]uint32, 15), 8, 2, 1, 8, 1, 0) }, // src short
		func() { PadRowsU32(make([]uint32, 20), 10, make([]uint32, 16), 8, 2, -1, 8, 1, 0) },
		func() { PadRowsU32(make([]uint32, 20), 10, make([]uint32, 16), 8, -1, 1, 8, 1, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("PadRowsU32 with sizes that do not fit: no panic")
				}
			}()
			f()
		}()
	}
}

// FuzzPadRows pads rows read from data (its first bytes the rows, the
// pads, the elements copied and the gaps) and checks them against padWant.
func FuzzPadRows(f *testing.F) {
	f.Add([]byte{3, 1, 1, 56, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 6 {
			return
		}
		rows, left, right, n := int(data[0]%6), int(data[1]%12), int(data[2]%12), int(data[3]%80)
		ldx, lds := left+n+right+int(data[4]%8), n+int(data[5]%8)
		src := make([]uint32, rows*lds)
		for i := range src {
			if len(data) > 6 {
				src[i] = uint32(data[6+i%(len(data)-6)]) + uint32(i)<<8
			}
		}
		m := 0
		if rows > 0 {
			m = (rows-1)*ldx + left + n + right
		}
		x := make([]uint32, m)
		for i := range x {
			x[i] = 0xfeedface
		}
		want := padWant(x, ldx, src, lds, rows, left, n, right, 7)
		PadRowsU32(x, ldx, src, lds, rows, left, n, right, 7)
		for i := range x {
			if x[i] != want[i] {
				t.Fatalf("%d rows of %d+%d+%d, %d apart: element %d = %#x, want %#x", rows, left, n, right, ldx, i, x[i], want[i])
			}
		}
	})
}
