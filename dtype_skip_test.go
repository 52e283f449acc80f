package goaten_test

import (
	"testing"

	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// f64only declares float64 as its only dtype: the conformance runner skips
// (and counts) the records that use another.
var f64only = device.Register(device.Backend{
	Name:    "f64only",
	FromCPU: func(t *tensor.Tensor) any { return t.Float64s() },
	DTypes:  []tensor.DType{tensor.Float64},
})

func TestUnsupportedDType(t *testing.T) {
	f64 := map[string]any{"dtype": "float64", "shape": []any{}}
	f32 := map[string]any{"dtype": "float32", "shape": []any{}}
	for _, c := range []struct {
		r    golden.Record
		want bool
	}{
		{golden.Record{Args: []any{f64}, Out: f64}, false},
		{golden.Record{Args: []any{f64}, Out: f32}, true},
		{golden.Record{Args: []any{[]any{f64, f32}}, Out: f64}, true},
		{golden.Record{Args: []any{f64}, Kwargs: map[string]any{"dtype": map[string]any{"scalar_type": "int32"}}, Out: f64}, true},
		{golden.Record{Args: []any{f64}, Out: f64, Mutated: map[string]any{"0": f32}}, true},
	} {
		if got := unsupportedDType(&c.r, f64only); got != c.want {
			t.Errorf("unsupportedDType(%v) = %v, want %v", c.r, got, c.want)
		}
		if unsupportedDType(&c.r, tensor.CPU) {
			t.Errorf("the CPU supports every dtype")
		}
	}
}
