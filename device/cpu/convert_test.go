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
