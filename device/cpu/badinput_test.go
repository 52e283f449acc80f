package cpu_test

import (
	"math"
	"testing"

	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/internal/optest"
	"github.com/goaten/goaten/tensor"
)

// Regression tests for crashes FuzzDispatcher found (the fuzz corpus under
// testdata/fuzz keeps the inputs themselves; these name the bug). A case with
// an empty want must succeed; otherwise it must fail with a *tensor.Error
// whose message contains want.

// emptyPastEnd is a [1, 0] view at storage offset 1 of an empty storage, as
// x[1::2] of a [2, 0] tensor is in PyTorch.
func emptyPastEnd(d tensor.DType) *tensor.Tensor {
	return tensor.Empty(d, 2, 0).Slice(tensor.WithStart(1), tensor.WithStep(2))
}

func TestFuzzRegressions(t *testing.T) {
	f32 := func(s ...int) *tensor.Tensor { return tensor.Empty(tensor.Float32, s...) }
	f64 := func(s ...int) *tensor.Tensor { return tensor.Empty(tensor.Float64, s...) }
	old := tensor.MaxElements
	tensor.MaxElements = 1 << 22
	defer func() { tensor.MaxElements = old }()
	cases := []struct {
		name string
		op   string
		args []any
		want string
	}{
		{"abs of an empty int64 view past its storage", "aten::abs", []any{emptyPastEnd(tensor.Int64)}, ""},
		{"relu of an empty int64 view past its storage", "aten::relu", []any{emptyPastEnd(tensor.Int64)}, ""},
		{"group norm of an empty view past its storage", "aten::native_group_norm",
			[]any{emptyPastEnd(tensor.Float32), nil, nil, 1, 0, 0, 1, 1e-5}, ""},
		{"pdist with an empty trailing dim", "aten::_pdist_forward", []any{f32(3, 4, 0), 2.0}, ""},
		{"bool[3] of 2 entries", "aten::native_layer_norm_backward",
			[]any{f32(2, 3), f32(2, 3), []int{3}, f32(2, 1), f32(2, 1), nil, nil, []bool{true, true}},
			"Tried to convert a List with 2 elements to a fixed-size array of size 3"},
		{"bool[3] of 0 entries", "aten::native_group_norm_backward",
			[]any{f32(2, 4), f32(2, 4), f32(2, 1), f32(2, 1), nil, 2, 4, 1, 1, []bool{}},
			"Tried to convert a List with 0 elements to a fixed-size array of size 3"},
		{"layer norm backward of an empty input with an int64 weight", "aten::native_layer_norm_backward",
			[]any{f64(0, 1), f64(0, 1), []int{1}, f64(0, 1), f64(0, 1), tensor.FromSlice([]int64{4}), tensor.FromSlice([]float64{5}), []bool{true, true, true}}, ""},
		{"convolution_backward grad_output with a smaller batch", "aten::convolution_backward",
			[]any{f32(0, 3, 3), f32(1, 3, 4), f32(3, 3, 3), []int{3}, []int{2}, []int{2}, []int{1}, false, []int{0}, 1, []bool{true, true, true}},
			"grad_output.size(0)=0 must be equal to input.size(0)=1"},
		{"transposed convolution_backward grad_output with a smaller batch", "aten::convolution_backward",
			[]any{f32(1, 4, 22, 22), f32(2, 2, 4, 4), f32(2, 2, 4, 5), []int{4}, []int{3, 2}, []int{1, 2}, []int{4, 4}, true, []int{2, 3}, 2, []bool{true, true, true}},
			"grad_output.size(0)=1 must be equal to input.size(0)=2"},
		{"rand of 2^64 elements", "aten::rand", []any{[]int{1 << 32, 1 << 32}},
			"Storage size calculation overflowed with sizes=[4294967296, 4294967296]"},
		{"randn of 2^64 elements", "aten::randn", []any{[]int{1 << 32, 1 << 32}},
			"Storage size calculation overflowed with sizes=[4294967296, 4294967296]"},
		{"col2im kernel of 2^64 elements", "aten::col2im",
			[]any{f32(2, 9, 9), []int{6, 5}, []int{1 << 32, 1 << 32}, []int{1, 1}, []int{1, 1}, []int{2, 2}},
			"Expected size of input's dimension 1 to be divisible by the product of kernel_size"},
		{"constant_pad_nd whose size plus pads passes int64", "aten::constant_pad_nd",
			[]any{f64(4, 1, 4), []int{math.MaxInt64, math.MaxInt64, 7, 0}, 4},
			"resulted in a negative output size"},
		{"reflection_pad1d with pads of -2^63", "aten::reflection_pad1d",
			[]any{f32(1, 2, 4), []int{math.MinInt64, math.MinInt64}}, "is too small"},
		{"replication_pad2d with pads past int64 whose sum fits", "aten::replication_pad2d",
			[]any{f32(1, 2, 4, 4), []int{math.MaxInt64, math.MinInt64 + 5, 1, 1}}, ""},
		{"convolution with a dilation of 2^63-1", "aten::convolution",
			[]any{f32(1, 1, 2, 2), f32(1, 1, 3, 3), nil, []int{1, 1}, []int{0, 0}, []int{math.MaxInt64}, false, []int{0, 0}, 1},
			"Kernel size can't be greater than actual input size"},
		{"convolution with a stride of 2^63-1", "aten::convolution",
			[]any{tensor.Empty(tensor.Int64, 1, 3, 4), tensor.Empty(tensor.Int64, 3, 3, 3), nil, []int{math.MaxInt64}, []int{2}, []int{1}, false, []int{0}, 1}, ""},
		{"convolution with a stride of 2^63-1 and a padding of 2^62", "aten::convolution",
			[]any{f32(1, 1, 2, 2), f32(1, 1, 3, 3), nil, []int{math.MaxInt64, math.MaxInt64}, []int{1 << 62, 1 << 62}, []int{1, 1}, false, []int{0, 0}, 1}, ""},
		{"col2im with a padding of 2^63-1", "aten::col2im",
			[]any{f32(27, 9), []int{5, 5}, []int{3, 3}, []int{1, 1}, []int{7, math.MaxInt64}, []int{2, 2}},
			"expected size of input's dimension 2 to match the calculated number of sliding blocks"},
		{"slice with a step whose stride product wraps negative", "aten::slice.Tensor",
			[]any{f32(3, 3, 4), 1, nil, nil, math.MaxInt64},
			"as_strided: Negative strides are not supported at the moment, got strides: [12, -4, 1]"},
		{"slice with a step whose stride product wraps to 0", "aten::slice.Tensor",
			[]any{f32(3, 3, 4), 1, 0, nil, 1 << 62}, ""},
		{"split_with_sizes whose sizes wrap round to the dim size", "aten::split_with_sizes",
			[]any{f32(5), []int{1 << 62, 1 << 62, 6, math.MaxInt64}},
			"split_with_sizes expects split_sizes to sum exactly to 5"},
		{"group norm whose N*C*HxW wraps round to the input's numel", "aten::native_group_norm",
			[]any{tensor.Empty(tensor.BFloat16, 2, 2, 0), nil, nil, 4, 3, 1 << 62, 1, 3.25},
			"Expected X.numel() == N * C * HxW"},
		{"group norm backward whose N*C*HxW wraps round", "aten::native_group_norm_backward",
			[]any{f32(2, 2, 0), f32(2, 2, 0), f32(4, 1), f32(4, 1), nil, 4, 3, 1 << 62, 1, []bool{true, false, false}},
			"Expected dY.numel() == N * C * HxW"},
	}
	for _, c := range cases {
		optest.BadInput(t, c.name, c.op, c.args, c.want)
	}
}
