package cpu_test

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/asm"
	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/tensor"
)

func arange(n int, shape ...int) *tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return tensor.FromSlice(v, shape...)
}

func call(t *testing.T, name string, args ...any) any {
	t.Helper()
	res, err := tensor.CallErr(name, args, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func callT(t *testing.T, name string, args ...any) *tensor.Tensor {
	t.Helper()
	return call(t, name, args...).(*tensor.Tensor)
}

func TestMovementBadInputs(t *testing.T) {
	x23 := func() *tensor.Tensor { return arange(6, 2, 3) }
	transposed := func() *tensor.Tensor {
		return tensor.Call("aten::permute.default", x23(), []int{1, 0}).(*tensor.Tensor)
	}
	scalar := func() *tensor.Tensor { return tensor.FromScalar(tensor.Float(1), tensor.Float32) }
	cases := []struct {
		name   string
		op     string
		args   func() []any
		kwargs map[string]any
		kind   tensor.ErrorKind
		want   string
	}{
		{"view numel mismatch", "aten::view.default", func() []any { return []any{x23(), []int{4, 2}} }, nil,
			tensor.RuntimeError, "shape '[4, 2]' is invalid for input of size 6"},
		{"view two -1", "aten::view.default", func() []any { return []any{x23(), []int{-1, -1}} }, nil,
			tensor.RuntimeError, "only one dimension can be inferred"},
		{"view of transposed", "aten::view.default", func() []any { return []any{transposed(), []int{6}} }, nil,
			tensor.RuntimeError, "view size is not compatible with input tensor's size and stride"},
		{"view ambiguous -1", "aten::view.default", func() []any { return []any{tensor.Empty(tensor.Float32, 0, 5), []int{0, -1}} }, nil,
			tensor.RuntimeError, "unspecified dimension size -1 can be any value and is ambiguous"},
		{"expand smaller", "aten::expand.default", func() []any { return []any{arange(3, 3), []int{2}} }, nil,
			tensor.RuntimeError, "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [2].  Tensor sizes: [3]"},
		{"expand too few sizes", "aten::expand.default", func() []any { return []any{x23(), []int{3}} }, nil,
			tensor.RuntimeError, "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal"},
		{"expand -1 leading", "aten::expand.default", func() []any { return []any{arange(3, 3), []int{-1, 3}} }, nil,
			tensor.RuntimeError, "isn't allowed in a leading, non-existing dimension 0"},
		{"select index", "aten::select.int", func() []any { return []any{x23(), -1, 3} }, nil,
			tensor.IndexError, "select(): index 3 out of range for tensor of size [2, 3] at dimension 1"},
		{"select 0-d", "aten::select.int", func() []any { return []any{scalar(), 0, 0} }, nil,
			tensor.IndexError, "select() cannot be applied to a 0-dim tensor."},
		{"slice step", "aten::slice.Tensor", func() []any { return []any{x23(), 1, 0, 3, 0} }, nil,
			tensor.RuntimeError, "slice step must be positive"},
		{"unsqueeze dim", "aten::unsqueeze.default", func() []any { return []any{x23(), 3} }, nil,
			tensor.IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"},
		{"permute duplicate", "aten::permute.default", func() []any { return []any{arange(24, 2, 3, 4), []int{0, 2, -1}} }, nil,
			tensor.RuntimeError, "permute(): duplicate dims are not allowed."},
		{"diagonal same dims", "aten::diagonal.default", func() []any { return []any{x23(), 0, 1, -1} }, nil,
			tensor.RuntimeError, "diagonal dimensions cannot be identical 1, -1"},
		{"as_strided out of storage", "aten::as_strided.default", func() []any { return []any{arange(6, 6), []int{10}, []int{1}} }, nil,
			tensor.RuntimeError, "setStorage: sizes [10], strides [1], storage offset 0, and itemsize 4 requiring a storage size of 40 are out of bounds for storage of size 24"},
		{"as_strided negative offset", "aten::as_strided.default", func() []any { return []any{arange(6, 6), []int{2}, []int{1}, -1} }, nil,
			tensor.RuntimeError, "Tensor: invalid storage offset -1"},
		{"split sizes sum", "aten::split_with_sizes.default", func() []any { return []any{arange(10, 5, 2), []int{2, 2}} }, nil,
			tensor.RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at dimension 0), but got split_sizes=[2, 2]"},
		{"cat dims", "aten::cat.default", func() []any { return []any{[]*tensor.Tensor{x23(), arange(9, 3, 3)}, 1} }, nil,
			tensor.RuntimeError, "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list."},
		{"cat 0-d", "aten::cat.default", func() []any { return []any{[]*tensor.Tensor{scalar(), scalar()}, 0} }, nil,
			tensor.RuntimeError, "zero-dimensional tensor (at position 0) cannot be concatenated"},
		{"cat empty list", "aten::cat.default", func() []any { return []any{[]*tensor.Tensor{}, 0} }, nil,
			tensor.RuntimeError, "torch.cat(): expected a non-empty list of Tensors"},
		{"flip repeated dim", "aten::flip.default", func() []any { return []any{x23(), []int{0, -2}} }, nil,
			tensor.RuntimeError, "dim 0 appears multiple times in the list of dims"},
		{"repeat too few", "aten::repeat.default", func() []any { return []any{x23(), []int{2}} }, nil,
			tensor.RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"},
		{"repeat negative", "aten::repeat.default", func() []any { return []any{x23(), []int{1, -1}} }, nil,
			tensor.RuntimeError, "Trying to create tensor with negative dimension -3: [2, -3]"},
		{"pad odd", "aten::constant_pad_nd.default", func() []any { return []any{x23(), []int{1}} }, nil,
			tensor.RuntimeError, "Length of pad must be even but instead it equals 1"},
		{"reflection pad too big", "aten::reflection_pad1d.default", func() []any { return []any{x23(), []int{3, 0}} }, nil,
			tensor.RuntimeError, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 0) at dimension 1 of input [2, 3]"},
		{"reflection pad int", "aten::reflection_pad1d.default", func() []any {
			return []any{tensor.FromSlice([]int64{1, 2, 3, 4}, 2, 2), []int{1, 1}}
		}, nil, tensor.RuntimeError, "\"reflection_pad1d\" not implemented for 'Long'"},
		{"replication pad length", "aten::replication_pad2d.default", func() []any { return []any{arange(9, 1, 3, 3), []int{1, 1}} }, nil,
			tensor.RuntimeError, "padding size is expected to be 4"},
		{"scatter shape", "aten::select_scatter.default", func() []any { return []any{x23(), arange(2, 2), 0, 0} }, nil,
			tensor.RuntimeError, "expected src to have a size equal to the slice of self. src size = [2], slice size = [3]"},
		{"copy not broadcastable", "aten::copy.default", func() []any { return []any{x23(), arange(4, 4)} }, nil,
			tensor.RuntimeError, "The expanded size of the tensor (3) must match the existing size (4) at non-singleton dimension 1"},
		{"arange zero step", "aten::arange.start_step", func() []any { return []any{0, 10, 0} }, nil,
			tensor.RuntimeError, "step must be nonzero"},
		{"arange sign", "aten::arange.start_step", func() []any { return []any{10, 0, 2} }, nil,
			tensor.RuntimeError, "upper bound and larger bound inconsistent with step sign"},
		{"arange int step truncates to 0", "aten::arange.start_step", func() []any { return []any{0, 1, 0.3} },
			map[string]any{"dtype": tensor.Int64}, tensor.RuntimeError, "step must be nonzero"},
		{"full negative size", "aten::full.default", func() []any { return []any{[]int{-1, 2}, 1.0} }, nil,
			tensor.RuntimeError, "Trying to create tensor with negative dimension -1: [-1, 2]"},
		{"full overflow", "aten::full.default", func() []any { return []any{[]int{2}, 300} },
			map[string]any{"dtype": tensor.Int8}, tensor.RuntimeError, "value cannot be converted to type int8_t without overflow"},
		{"empty_strided dims", "aten::empty_strided.default", func() []any { return []any{[]int{2, 3}, []int{1}} }, nil,
			tensor.RuntimeError, "dimensionality of sizes (2) must match dimensionality of strides (1)"},
		{"resize negative", "aten::resize_.default", func() []any { return []any{x23(), []int{-1}} }, nil,
			tensor.RuntimeError, "numel: integer multiplication overflow"},
		{"clone channels_last rank", "aten::clone.default", func() []any { return []any{x23()} },
			map[string]any{"memory_format": tensor.ChannelsLast}, tensor.RuntimeError, "required rank 4 tensor to use channels_last format"},
		{"sym_size 0-d", "aten::sym_size.int", func() []any { return []any{tensor.FromScalar(tensor.Float(1), tensor.Float32), 0} }, nil,
			tensor.IndexError, "dimension specified as 0 but tensor has no dimensions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tensor.CallErr(c.op, c.args(), c.kwargs)
			if err == nil {
				t.Fatalf("%s: no error, want %q", c.op, c.want)
			}
			e, ok := tensor.AsError(err)
			if !ok {
				t.Fatalf("%s: error %T is not a *tensor.Error", c.op, err)
			}
			if !strings.Contains(e.Msg, c.want) {
				t.Errorf("%s: message %q does not contain %q", c.op, e.Msg, c.want)
			}
			if e.Kind != c.kind {
				t.Errorf("%s: kind %v, want %v", c.op, e.Kind, c.kind)
			}
		})
	}
}

func TestViewsAliasAndStrides(t *testing.T) {
	x := arange(24, 2, 3, 4)
	cases := []struct {
		name    string
		got     *tensor.Tensor
		sizes   []int
		strides []int
		offset  int
	}{
		{"permute", callT(t, "aten::permute.default", x, []int{2, 0, 1}), []int{4, 2, 3}, []int{1, 12, 4}, 0},
		{"view -1", callT(t, "aten::view.default", x, []int{6, -1}), []int{6, 4}, []int{4, 1}, 0},
		{"expand new dims", callT(t, "aten::expand.default", arange(3, 3, 1), []int{2, -1, 5}), []int{2, 3, 5}, []int{0, 1, 0}, 0},
		{"slice step", callT(t, "aten::slice.Tensor", x, 2, 1, nil, 2), []int{2, 3, 2}, []int{12, 4, 2}, 1},
		{"slice negative", callT(t, "aten::slice.Tensor", x, 1, -2, 100, 1), []int{2, 2, 4}, []int{12, 4, 1}, 4},
		{"select negative", callT(t, "aten::select.int", x, -2, -1), []int{2, 4}, []int{12, 1}, 8},
		{"diagonal offset", callT(t, "aten::diagonal.default", x, 1, 1, 2), []int{2, 3}, []int{12, 5}, 1},
		{"diagonal negative", callT(t, "aten::diagonal.default", x, -1, 2, 1), []int{2, 3}, []int{12, 5}, 1},
		{"unsqueeze", callT(t, "aten::unsqueeze.default", x, 1), []int{2, 1, 3, 4}, []int{12, 12, 4, 1}, 0},
		{"squeeze non-1", callT(t, "aten::squeeze.dim", x, 1), []int{2, 3, 4}, []int{12, 4, 1}, 0},
		{"squeeze dims", callT(t, "aten::squeeze.dims", arange(3, 1, 3, 1), []int{0, 2}), []int{3}, []int{1}, 0},
		{"as_strided", callT(t, "aten::as_strided.default", x, []int{2, 2}, []int{1, 2}, 3), []int{2, 2}, []int{1, 2}, 3},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got.Sizes(), c.sizes) || !reflect.DeepEqual(c.got.Strides(), c.strides) || c.got.StorageOffset() != c.offset {
			t.Errorf("%s: got %v %v +%d, want %v %v +%d", c.name, c.got.Sizes(), c.got.Strides(), c.got.StorageOffset(), c.sizes, c.strides, c.offset)
		}
		if c.name != "expand new dims" && c.name != "squeeze dims" && c.got.Storage() != x.Storage() {
			t.Errorf("%s: does not alias its input", c.name)
		}
	}
	// A write through a view is seen by the base.
	v := callT(t, "aten::select.int", x, 0, 1)
	v.SetAt(tensor.Float(-7), 0, 0)
	if got := x.At(1, 0, 0).Float64(); got != -7 {
		t.Errorf("write through select: base sees %v", got)
	}
	parts := call(t, "aten::split_with_sizes.default", x, []int{1, 3, 0}, -1).([]*tensor.Tensor)
	if len(parts) != 3 || parts[1].StorageOffset() != 1 || parts[2].StorageOffset() != 4 || parts[1].Storage() != x.Storage() {
		t.Errorf("split_with_sizes: bad views")
	}
	// view of a non-contiguous but compatible layout.
	tr := callT(t, "aten::permute.default", arange(24, 4, 6), []int{1, 0})
	w := callT(t, "aten::view.default", tr, []int{2, 3, 4})
	if !reflect.DeepEqual(w.Strides(), []int{3, 1, 6}) {
		t.Errorf("view of transposed: strides %v, want [3 1 6]", w.Strides())
	}
}

func floats(t *tensor.Tensor) []float64 { return t.Float64s() }

func TestMovementValues(t *testing.T) {
	x := arange(6, 2, 3)
	check := func(name string, got *tensor.Tensor, shape []int, dt tensor.DType, want []float64) {
		t.Helper()
		if !reflect.DeepEqual(got.Sizes(), shape) || got.DType() != dt || !reflect.DeepEqual(floats(got), want) {
			t.Errorf("%s: got %v %v %v, want %v %v %v", name, got.Sizes(), got.DType(), floats(got), shape, dt, want)
		}
	}
	check("flip", callT(t, "aten::flip.default", x, []int{0, 1}), []int{2, 3}, tensor.Float32, []float64{5, 4, 3, 2, 1, 0})
	check("repeat", callT(t, "aten::repeat.default", arange(2, 2), []int{2, 2}), []int{2, 4}, tensor.Float32, []float64{0, 1, 0, 1, 0, 1, 0, 1})
	check("cat promotes", callT(t, "aten::cat.default", []*tensor.Tensor{x, tensor.FromSlice([]int64{7, 8, 9}, 1, 3), tensor.Empty(tensor.Float64, 0)}, 0),
		[]int{3, 3}, tensor.Float64, []float64{0, 1, 2, 3, 4, 5, 7, 8, 9})
	check("constant_pad_nd crop+pad", callT(t, "aten::constant_pad_nd.default", x, []int{-1, 1}, 9.0), []int{2, 3}, tensor.Float32, []float64{1, 2, 9, 4, 5, 9})
	check("reflection_pad1d", callT(t, "aten::reflection_pad1d.default", x, []int{2, 1}), []int{2, 6}, tensor.Float32, []float64{2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4})
	check("replication_pad2d", callT(t, "aten::replication_pad2d.default", arange(4, 1, 2, 2), []int{1, 0, 0, 1}), []int{1, 3, 3}, tensor.Float32,
		[]float64{0, 0, 1, 2, 2, 3, 2, 2, 3})
	check("slice_scatter", callT(t, "aten::slice_scatter.default", x, tensor.FromSlice([]float32{-1, -2}, 2, 1), 1, 1, nil, 5), []int{2, 3}, tensor.Float32,
		[]float64{0, -1, 2, 3, -2, 5})
	check("copy broadcasts", callT(t, "aten::copy.default", x, tensor.FromSlice([]float64{1.5, 2.5, 3.5})), []int{2, 3}, tensor.Float32,
		[]float64{1.5, 2.5, 3.5, 1.5, 2.5, 3.5})
	res, err := tensor.CallErr("aten::_to_copy.default", []any{tensor.FromSlice([]float32{-1.7, 2.9})}, map[string]any{"dtype": tensor.Int32})
	if err != nil {
		t.Fatal(err)
	}
	check("_to_copy truncates", res.(*tensor.Tensor), []int{2}, tensor.Int32, []float64{-1, 2})
	check("arange float step", callT(t, "aten::arange.start_step", 0, 1, 0.3), []int{4}, tensor.Float32,
		[]float64{0, float64(float32(0.3)), float64(float32(0.6)), float64(float32(0.9))})
	check("arange int", callT(t, "aten::arange.start_step", 10, 0, -3), []int{4}, tensor.Int64, []float64{10, 7, 4, 1})
	check("full int", callT(t, "aten::full.default", []int{2}, 3), []int{2}, tensor.Int64, []float64{3, 3})
	check("full float", callT(t, "aten::full.default", []int{1}, 0.5), []int{1}, tensor.Float32, []float64{0.5})
	check("scalar_tensor", callT(t, "aten::scalar_tensor.default", 2), []int{}, tensor.Float32, []float64{2})

	// resize_ changes self in place and grows its storage.
	y := arange(4, 4)
	r := callT(t, "aten::resize_.default", y, []int{3, 3})
	if r != y || !reflect.DeepEqual(y.Sizes(), []int{3, 3}) || y.Storage().NBytes() < 36 {
		t.Errorf("resize_: got %v (same=%v), storage %d bytes", y.Sizes(), r == y, y.Storage().NBytes())
	}
	if got := call(t, "aten::sym_is_contiguous.default", callT(t, "aten::permute.default", x, []int{1, 0})); got != false {
		t.Errorf("sym_is_contiguous of transposed: %v", got)
	}
	if got := call(t, "aten::sym_stride.int", x, -2); got != 3 {
		t.Errorf("sym_stride: %v", got)
	}
}

// A flip of a transposed matrix copies with a unit source stride down the
// rows and a negative one along them: the tiled transpose copy must leave it
// to the general loop (it indexed before the source's start).
func TestFlipTransposed(t *testing.T) {
	for _, sz := range [][2]int{{40, 50}, {300, 400}} { // the second splits over the pool
		r, c := sz[0], sz[1]
		v := make([]float32, r*c)
		for i := range v {
			v[i] = float32(i)
		}
		x := tensor.FromSlice(v, r, c).T() // x[i][j] = v[j*c+i], c×r
		y := tensor.Call("aten::fliplr", x).(*tensor.Tensor)
		got := y.Float64s()
		for i := 0; i < c; i++ {
			for j := 0; j < r; j++ {
				if want := float64(v[(r-1-j)*c+i]); got[i*r+j] != want {
					t.Fatalf("%dx%d: fliplr(x.T)[%d][%d] = %v, want %v", r, c, i, j, got[i*r+j], want)
				}
			}
		}
	}
}

// TestConstantPadValues: the padding holds the value with its sign (+0 from
// the zeroed storage, -0 and NaN filled), the interior the input.
func TestConstantPadValues(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	for _, v := range []float64{0, math.Copysign(0, -1), math.NaN(), 2.5} {
		got := tensor.Call("aten::constant_pad_nd.default", x, []int{1, 1, 0, 1}, v).(*tensor.Tensor).Float64s()
		for i, g := range got {
			r, c := i/4, i%4
			want := v
			if r < 2 && c >= 1 && c <= 2 {
				want = float64(r*2 + c)
			}
			if !(g == want && math.Signbit(g) == math.Signbit(want)) && !(g != g && want != want) {
				t.Fatalf("pad %v: element (%d,%d) = %v, want %v", v, r, c, g, want)
			}
		}
	}
}

// TestConstantPadRows: constant_pad_nd of contiguous inputs (written row
// by row) against the definition, with pads and crops on every dim, in
// dtypes of 1, 2, 4 and 8 bytes, zero, negative-zero and other values,
// and enough rows to share among the cores.
func TestConstantPadRows(t *testing.T) {
	cases := []struct {
		shape, pad []int
	}{
		{[]int{5}, []int{2, 3}},
		{[]int{3, 4}, []int{1, 1, 1, 1}},
		{[]int{2, 3, 4}, []int{-1, 2, 0, -1, 1, 1}},
		{[]int{64, 40, 33}, []int{1, 0, 2, 1}},
		{[]int{2, 2, 3, 5}, []int{0, 0, 0, 0, 1, -1, 0, 2}},
	}
	for _, c := range cases {
		n := tensor.Numel(c.shape)
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i%23) - 11
		}
		rank := len(c.shape)
		oshape := append([]int(nil), c.shape...)
		for k := 0; k < len(c.pad)/2; k++ {
			oshape[rank-1-k] += c.pad[2*k] + c.pad[2*k+1]
		}
		for _, d := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Float16, tensor.Int8, tensor.Int64} {
			for _, val := range []float64{0, math.Copysign(0, -1), 3} {
				x := tensor.FromSlice(v, c.shape...).To(d)
				got := tensor.Call("aten::constant_pad_nd.default", x, c.pad, val).(*tensor.Tensor)
				if !slices.Equal(got.Sizes(), oshape) {
					t.Fatalf("%v pad %v: shape %v, want %v", c.shape, c.pad, got.Sizes(), oshape)
				}
				g := got.Float64s()
				idx := make([]int, rank)
				for i := range g {
					// The definition: input index = output index − low pad.
					want, src := val, 0
					for dd := range rank {
						lo := 0
						if k := rank - 1 - dd; 2*k < len(c.pad) {
							lo = c.pad[2*k]
						}
						j := idx[dd] - lo
						if j < 0 || j >= c.shape[dd] {
							src = -1
							break
						}
						src = src*c.shape[dd] + j
					}
					if src >= 0 {
						want = v[src]
					}
					if d.IsIntegral(false) && val != 0 {
						want = math.Trunc(want)
					}
					if g[i] != want || (want == 0 && math.Signbit(g[i]) != math.Signbit(want) && d.IsFloat()) {
						t.Fatalf("%v pad %v %s value %v: out%v = %v, want %v", c.shape, c.pad, d, val, idx, g[i], want)
					}
					for dd := rank - 1; dd >= 0; dd-- {
						if idx[dd]++; idx[dd] < oshape[dd] {
							break
						}
						idx[dd] = 0
					}
				}
			}
		}
	}
}

// TestUpsampleNearestRows: upsample_nearest2d repeats source rows (output
// rows that read the row above's source row are copied from it) and
// picks floor(o·in/out) in each dim. Widths that are whole multiples of
// the input's (2×, 3×, 5× from one column, 1×) take the paths that repeat
// each source element k times; the others and inputs whose rows are not
// unit-stride (a transposed input) gather column by column. Every dtype
// width is covered.
func TestUpsampleNearestRows(t *testing.T) {
	for _, c := range [][4]int{{2, 2, 4, 4}, {3, 3, 7, 5}, {5, 4, 3, 9}, {3, 5, 6, 10}, {4, 3, 5, 9}, {3, 4, 3, 4}, {2, 1, 3, 5}, {3, 7, 2, 14}} {
		ih, iw, oh, ow := c[0], c[1], c[2], c[3]
		v := make([]float64, 2*ih*iw)
		for i := range v {
			v[i] = float64(i)
		}
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Uint8, tensor.BFloat16} {
			for _, transposed := range []bool{false, true} {
				x := tensor.FromSlice(v, 1, 2, ih, iw).To(dt)
				if transposed {
					x = tensor.FromSlice(v, 1, 2, iw, ih).To(dt).Transpose(2, 3)
				}
				xv := x.Contiguous().Float64s()
				got := tensor.Call("aten::upsample_nearest2d.vec", x, []int{oh, ow}, nil).(*tensor.Tensor).Float64s()
				for p := range 2 {
					for i := range oh {
						for j := range ow {
							want := xv[p*ih*iw+(i*ih/oh)*iw+j*iw/ow]
							if g := got[(p*oh+i)*ow+j]; g != want {
								t.Fatalf("%v %v transposed %v: [%d,%d,%d] = %v, want %v", c, dt, transposed, p, i, j, g, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestConstantPadNoPositivePad: with no positive pad, 1.13 returns a
// (narrowed) clone without converting the value, so a NaN value for an
// int64 tensor raises only when some pad is positive.
func TestConstantPadNoPositivePad(t *testing.T) {
	x := tensor.FromSlice([]int64{16, 25, 3}, 1, 3)
	nan := math.NaN()
	for _, c := range []struct {
		pad  []int
		want []float64
	}{{[]int{0, 0}, []float64{16, 25, 3}}, {[]int{-1, 0}, []float64{25, 3}}} {
		got := tensor.Call("aten::constant_pad_nd.default", x, c.pad, nan).(*tensor.Tensor).Float64s()
		if !slices.Equal(got, c.want) {
			t.Errorf("pad %v: %v, want %v", c.pad, got, c.want)
		}
	}
	if _, err := tensor.CallErr("aten::constant_pad_nd.default", []any{x, []int{1, 0}, nan}, nil); err == nil ||
		!strings.Contains(err.Error(), "value cannot be converted to type int64_t without overflow") {
		t.Errorf("a positive pad with NaN for int64: err %v", err)
	}
}

// TestCatRows: cat of contiguous inputs into row runs (catRows, streaming
// for results of asm.StreamBytes and more) equals cat of the same values
// through non-contiguous inputs (the strided walk), for every element
// width, negative dims, odd widths, empty inputs (a legacy 1-d empty one
// too) and a result large enough to stream with rows that do and do not
// start 32-byte aligned.
func TestCatRows(t *testing.T) {
	strided := func(x *tensor.Tensor) *tensor.Tensor {
		if x.Dim() < 2 {
			return x
		}
		return x.Transpose(0, x.Dim()-1).Contiguous().Transpose(0, x.Dim()-1)
	}
	check := func(name string, ts []*tensor.Tensor, dim int) {
		t.Helper()
		var ss []*tensor.Tensor
		for _, x := range ts {
			ss = append(ss, strided(x))
		}
		got := call(t, "aten::cat.default", ts, dim).(*tensor.Tensor)
		want := call(t, "aten::cat.default", ss, dim).(*tensor.Tensor)
		if got.DType() != want.DType() || !slices.Equal(got.Sizes(), want.Sizes()) || !slices.Equal(got.Float64s(), want.Float64s()) {
			t.Fatalf("%s: %v %v, strided path %v %v", name, got.DType(), got.Sizes(), want.DType(), want.Sizes())
		}
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Uint8, tensor.Bool, tensor.Int64, tensor.Float16} {
		a, b, e := arange(30, 3, 2, 5).To(dt), arange(60, 3, 4, 5).To(dt), arange(0, 3, 0, 5).To(dt)
		legacy := arange(0, 0).To(dt)
		check(dt.String()+" dim 1", []*tensor.Tensor{a, b, e, a}, 1)
		check(dt.String()+" dim -2", []*tensor.Tensor{b, legacy, a}, -2)
		check(dt.String()+" dim 2, odd widths", []*tensor.Tensor{arange(12, 4, 3, 1).To(dt), arange(84, 4, 3, 7).To(dt)}, 2)
		check(dt.String()+" dim 0", []*tensor.Tensor{a, a}, 0)
	}
	// Mixed dtypes take the converting walk.
	check("mixed", []*tensor.Tensor{arange(30, 3, 2, 5), arange(30, 3, 2, 5).To(tensor.Float64)}, 1)
	// Streaming: rows of 4096 and 2048 float32 (aligned), then of 4093 and
	// 3 (rows that start anywhere).
	n := asm.StreamBytes()/4/6144 + 2
	check("stream aligned", []*tensor.Tensor{arange(n*4096, n, 4096), arange(n*2048, n, 2048)}, -1)
	n = asm.StreamBytes()/4/4096 + 2
	check("stream unaligned", []*tensor.Tensor{arange(n*4093, n, 4093), arange(n*3, n, 3)}, 1)
}
