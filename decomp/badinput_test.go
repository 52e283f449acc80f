package decomp_test

import (
	"math"
	"testing"

	"github.com/goaten/goaten/internal/optest"
	"github.com/goaten/goaten/tensor"
)

// Regression tests for crashes FuzzDispatcher found in the decompositions
// (the corpus under ../testdata/fuzz keeps the inputs). A case with an empty
// want must succeed; otherwise it must fail with a *tensor.Error whose
// message contains want.
func TestFuzzRegressions(t *testing.T) {
	old := tensor.MaxElements
	tensor.MaxElements = 1 << 22
	defer func() { tensor.MaxElements = old }()
	f32 := func(s ...int) *tensor.Tensor { return tensor.Empty(tensor.Float32, s...) }
	cases := []struct {
		name string
		op   string
		args []any
		want string
	}{
		{"tensor_split into 2^40 sections", "aten::tensor_split.sections", []any{f32(4), 1 << 40, 0},
			"refusing to allocate a list of 1099511627776 tensors"},
		{"chunk of an empty dim into 2^62 chunks", "aten::chunk", []any{f32(0), 1 << 62, 0},
			"refusing to allocate a list of 4611686018427387904 tensors"},
		{"max_pool1d without a kernel size", "aten::max_pool1d", []any{f32(1, 3, 4), []int{}},
			"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size 0"},
		{"max_pool1d without a padding", "aten::max_pool1d", []any{f32(1, 3, 4), []int{2}, []int{}, []int{}},
			"max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size 0"},
		{"pixel_shuffle by 2^32", "aten::pixel_shuffle", []any{f32(1, 4, 2, 2), 1 << 32}, "is too large"},
		{"pixel_unshuffle of empty planes by 2^62", "aten::pixel_unshuffle", []any{f32(1, 4, 0, 0), 1 << 62}, "is too large"},
		{"unflatten of a 0-d tensor", "aten::unflatten.int", []any{f32(), 0, []int{1}}, "Dimension specified as 0 but tensor has no dimensions"},
		{"bilinear of 0-d tensors", "aten::bilinear", []any{f32(), f32(), f32(1, 1, 1), nil}, "Dimension specified as -1 but tensor has no dimensions"},
		{"conv1d padding='same' without a dilation", "aten::conv1d.padding",
			[]any{f32(1, 2, 5), f32(3, 2, 2), nil, []int{1}, "same", []int{}, 1},
			"dilation cannot broadcast to 1 dimensions"},
		{"conv1d padding='same' without a stride", "aten::conv1d.padding",
			[]any{f32(1, 2, 5), f32(3, 2, 2), nil, []int{}, "same", []int{1}, 1},
			"stride cannot broadcast to 1 dimensions"},
		{"roll by -2^63", "aten::roll", []any{tensor.FromSlice([]int64{0, 1, 2, 3, 4}), []int{math.MinInt64}, []int{0}}, ""},
	}
	for _, c := range cases {
		optest.BadInput(t, c.name, c.op, c.args, c.want)
	}
	// roll by -2^63 is roll by 2 (mod 5), not what a wrapped n - shift gives.
	r := tensor.Call("aten::roll", tensor.FromSlice([]int64{0, 1, 2, 3, 4}), []int{math.MinInt64}, []int{0}).(*tensor.Tensor)
	if got := r.Int64s(); got[0] != 3 {
		t.Errorf("roll by -2^63: %v, want [3 4 0 1 2]", got)
	}
}
