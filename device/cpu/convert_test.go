package cpu

import (
	"math"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// TestFloatToIntCasts checks float -> integer conversion against values
// printed by torch 1.13 on x86 (x.to(dtype)).
func TestFloatToIntCasts(t *testing.T) {
	src := tensor.FromSlice([]float32{float32(math.Inf(1)), float32(math.NaN()), 3e9, -3e9, 300.7, -1.5})
	want := map[tensor.DType][]int64{
		tensor.Int32: {-2147483648, -2147483648, -2147483648, -2147483648, 300, -1},
		tensor.Int16: {0, 0, 0, 0, 300, -1},
		tensor.Int8:  {0, 0, 0, 0, 44, -1},
		tensor.Uint8: {0, 0, 0, 0, 44, 255},
		tensor.Int64: {math.MinInt64, math.MinInt64, 3000000000, -3000000000, 300, -1},
	}
	for d, w := range want {
		dst := tensor.Empty(d, 6)
		copyInto(dst, src)
		got := dst.Int64s()
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s: got %v, want %v", d, got, w)
				break
			}
		}
	}
}

// A transposed matrix made contiguous goes through the tiled copy; check it
// against element reads, with odd sizes and a storage offset.
func TestTransposeCopy(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {3, 70}, {67, 33}, {100, 2}} {
		r, c := sz[0], sz[1]
		base := tensor.Empty(tensor.Float32, r*c+5)
		for i := range tensor.Elems[float32](base.Storage()) {
			tensor.Elems[float32](base.Storage())[i] = float32(i)
		}
		// A c×r view reading the r×c block at offset 5 transposed.
		v := tensor.NewMeta([]int{c, r}, []int{1, c}, 5, tensor.Float32, tensor.CPU).WithRaw(base.Storage())
		out := tensor.Empty(tensor.Float32, c, r)
		copyInto(out, v)
		for i := 0; i < c; i++ {
			for j := 0; j < r; j++ {
				if out.At(i, j) != v.At(i, j) {
					t.Fatalf("%dx%d: (%d,%d) = %v, want %v", c, r, i, j, out.At(i, j), v.At(i, j))
				}
			}
		}
	}
}
