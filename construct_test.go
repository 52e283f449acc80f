package goaten_test

import (
	"slices"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
)

func TestConstructorSizes(t *testing.T) {
	for _, c := range []struct {
		name string
		x    *gt.Tensor
		want []int
		d    gt.DType
	}{
		{"Zeros()", gt.Zeros(), []int{}, gt.Float32},
		{"Zeros(2, 3)", gt.Zeros(2, 3), []int{2, 3}, gt.Float32},
		{"Zeros([]int{2, 3})", gt.Zeros([]int{2, 3}), []int{2, 3}, gt.Float32},
		{"Zeros(int64(2), int32(3))", gt.Zeros(int64(2), int32(3)), []int{2, 3}, gt.Float32},
		{"Ones(0, dtype)", gt.Ones(0, gt.WithDtype(gt.Float64)), []int{0}, gt.Float64},
		{"Empty([]int{4}, dtype)", gt.Empty([]int{4}, gt.WithDtype(gt.Int32)), []int{4}, gt.Int32},
		{"Full(1, 2)", gt.Full(1, 2), []int{2}, gt.Int64},
		{"Full(true, 2)", gt.Full(true, 2), []int{2}, gt.Bool},
		{"Full(0.5, 2, 2)", gt.Full(0.5, 2, 2), []int{2, 2}, gt.Float32},
		{"Rand(3, dtype)", gt.Rand(3, gt.WithDtype(gt.Float64)), []int{3}, gt.Float64},
		{"Randn(1, 2, 3)", gt.Randn(1, 2, 3), []int{1, 2, 3}, gt.Float32},
		{"Zeros(2, device)", gt.Zeros(2, gt.WithDevice(gt.Meta)), []int{2}, gt.Float32},
	} {
		if got := c.x.Sizes(); !slices.Equal(got, c.want) || c.x.DType() != c.d {
			t.Errorf("%s: sizes %v dtype %v, want %v %v", c.name, got, c.x.DType(), c.want, c.d)
		}
	}
	if gt.Zeros(2, gt.WithDevice(gt.Meta)).Device() != gt.Meta {
		t.Errorf("WithDevice(Meta) ignored")
	}
	if x := gt.Randn(2, gt.WithRequiresGrad(true)); !x.RequiresGrad() || !x.IsLeaf() {
		t.Errorf("WithRequiresGrad(true): requires grad %v, leaf %v", x.RequiresGrad(), x.IsLeaf())
	}
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"float size", func() { gt.Ones(2, 2.5) }, "ones(): argument 'size' must be tuple of ints, but found element of type float at pos 2"},
		{"size after option", func() { gt.Zeros(2, gt.WithDtype(gt.Float64), 3) }, "zeros(): the size comes before the options"},
		{"list and int", func() { gt.Zeros([]int{2}, 3) }, "argument 'size' must be tuple of ints, but found element of type list at pos 1"},
		{"requires_grad not bool", func() { gt.Rand(2, gt.Kw("requires_grad", 1)) }, "rand(): argument 'requires_grad' must be bool, not int"},
		{"unknown option", func() { gt.Randn(2, gt.WithAlpha(2)) }, "Unknown keyword argument 'alpha' for operator 'aten::randn'"},
		{"negative size", func() { gt.Zeros(-1) }, "negative dimension"},
	} {
		err := gt.Try(c.f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestFromNested(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  any
		sizes []int
		d     gt.DType
		vals  []float64
	}{
		{"float32 2-d", [][]float32{{1, 2}, {3, 4}}, []int{2, 2}, gt.Float32, []float64{1, 2, 3, 4}},
		{"float64 1-d", []float64{0.5}, []int{1}, gt.Float64, []float64{0.5}},
		{"int", []int{1, 2}, []int{2}, gt.Int64, []float64{1, 2}},
		{"int32", [][]int32{{1}, {2}}, []int{2, 1}, gt.Int32, []float64{1, 2}},
		{"uint8", []uint8{255}, []int{1}, gt.Uint8, []float64{255}},
		{"bool", []bool{true, false}, []int{2}, gt.Bool, []float64{1, 0}},
		{"array", [2][3]int8{{1, 2, 3}, {4, 5, 6}}, []int{2, 3}, gt.Int8, []float64{1, 2, 3, 4, 5, 6}},
		{"number", 2.5, []int{}, gt.Float64, []float64{2.5}},
		{"int number", 7, []int{}, gt.Int64, []float64{7}},
		{"any promotes", []any{1, int32(2), 2.5}, []int{3}, gt.Float64, []float64{1, 2, 2.5}},
		{"any ints", []any{true, int16(3)}, []int{2}, gt.Int16, []float64{1, 3}},
		{"nested any", []any{[]float32{1}, []any{float32(2)}}, []int{2, 1}, gt.Float32, []float64{1, 2}},
		{"empty any", []any{}, []int{0}, gt.Float32, nil},
		{"empty typed", [][]float64{}, []int{0}, gt.Float64, nil},
		{"empty rows", [][]int{{}, {}}, []int{2, 0}, gt.Int64, nil},
		{"nil slice", []float32(nil), []int{0}, gt.Float32, nil},
	} {
		x := gt.FromNested(c.data)
		if !slices.Equal(x.Sizes(), c.sizes) || x.DType() != c.d || len(c.vals) > 0 && !slices.Equal(x.Float64s(), c.vals) {
			t.Errorf("%s: got %v (sizes %v, %v), want sizes %v dtype %v values %v", c.name, x, x.Sizes(), x.DType(), c.sizes, c.d, c.vals)
		}
	}
	x := gt.FromNested([][]int{{1, 2}}, gt.WithDtype(gt.Float32), gt.WithDevice(gt.Meta))
	if x.DType() != gt.Float32 || x.Device() != gt.Meta || !slices.Equal(x.Sizes(), []int{1, 2}) {
		t.Errorf("options: %v %v %v", x.DType(), x.Device(), x.Sizes())
	}
	if !gt.FromNested([]float64{1}, gt.WithRequiresGrad(true)).RequiresGrad() {
		t.Errorf("WithRequiresGrad ignored")
	}
	for _, c := range []struct {
		name string
		data any
		opts []gt.Option
		want string
	}{
		{"ragged", [][]float32{{1, 2}, {3}}, nil, "expected sequence of length 2 at dim 1 (got 1)"},
		{"ragged after empty", [][]float32{{}, {3}}, nil, "expected sequence of length 0 at dim 1 (got 1)"},
		{"number where a row", []any{[]int{1}, 2}, nil, "tensor(): expected a sequence at dim 1 but found a int"},
		{"row where a number", []any{1, []int{2}}, nil, "tensor(): expected a number at dim 1 but found a sequence"},
		{"string", []any{"a"}, nil, "Could not infer dtype of str"},
		{"nil", nil, nil, "Could not infer dtype of NoneType"},
		{"tensor", []*gt.Tensor{gt.Zeros()}, nil, "tensor(): the data holds a Tensor; join tensors with Stack or Cat"},
		{"unknown option", []int{1}, []gt.Option{gt.WithAlpha(1)}, "tensor() got an unexpected keyword argument 'alpha'"},
	} {
		err := gt.Try(func() { gt.FromNested(c.data, c.opts...) })
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestFloat32s(t *testing.T) {
	x := gt.FromFloat64s([]float64{1.5, 2, 3, 4}, 2, 2).T()
	if got := x.Float32s(); !slices.Equal(got, []float32{1.5, 3, 2, 4}) {
		t.Errorf("Float32s of a transposed float64 tensor: %v", got)
	}
	if got := gt.FromNested([]float32{0.1, 0.2}).Float32s(); !slices.Equal(got, []float32{0.1, 0.2}) {
		t.Errorf("Float32s of float32: %v", got)
	}
	if got := gt.FromInt64s([]int64{1, -2}).Float32s(); !slices.Equal(got, []float32{1, -2}) {
		t.Errorf("Float32s of int64: %v", got)
	}
}
