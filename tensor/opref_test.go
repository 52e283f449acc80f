package tensor_test

import (
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// Generated wrappers pass required keyword-only arguments by name.
func TestWrapperKeywordOnly(t *testing.T) {
	x := tensor.FromSlice([]float64{1, -1})
	out := tensor.Empty(tensor.Float64, 0)
	r := x.Atan2Out(tensor.FromSlice([]float64{1, 1}), out)
	if r != out || out.Numel() != 2 || out.At(0).Float64() <= 0.78 || out.At(0).Float64() >= 0.79 {
		t.Fatalf("Atan2Out: %v", r)
	}
	if got := tensor.FromSlice([]float64{1.256}).RoundDecimals(2).At(0).Float64(); got != 1.26 {
		t.Fatalf("RoundDecimals(2) = %v", got)
	}
}
