package cpu_test

import (
	"math"
	"strings"
	"testing"

	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/tensor"
)

func TestUnaryErrors(t *testing.T) {
	f32 := tensor.FromSlice([]float32{1, -2, 3}, 3)
	i64 := tensor.FromSlice([]int64{1, -2, 3}, 3)
	u8 := tensor.FromSlice([]uint8{1, 2, 3}, 3)
	i8 := tensor.FromSlice([]int8{1, 2, 3}, 3)
	b := tensor.FromSlice([]bool{true, false, true}, 3)
	h := tensor.Empty(tensor.Float16, 3)
	cases := []struct {
		op     string
		args   []any
		kwargs map[string]any
		want   string
	}{
		{"aten::abs", []any{b}, nil, `"abs_cpu" not implemented for 'Bool'`},
		{"aten::neg", []any{b}, nil, "Negation, the `-` operator, on a bool tensor is not supported."},
		{"aten::bitwise_not", []any{f32}, nil, `"bitwise_not_cpu" not implemented for 'Float'`},
		{"aten::floor", []any{b}, nil, `"floor_vml_cpu" not implemented for 'Bool'`},
		{"aten::trunc", []any{b}, nil, `"trunc_vml_cpu" not implemented for 'Bool'`},
		{"aten::relu", []any{b}, nil, "Boolean inputs not supported for relu"},
		{"aten::gelu", []any{f32}, map[string]any{"approximate": "fast"}, "approximate argument must be either none or tanh."},
		{"aten::gelu", []any{i64}, nil, `"GeluKernelImpl" not implemented for 'Long'`},
		{"aten::elu", []any{i64}, nil, `"elu_cpu" not implemented for 'Long'`},
		{"aten::leaky_relu", []any{i64}, nil, `"leaky_relu_cpu" not implemented for 'Long'`},
		{"aten::hardtanh", []any{b}, nil, "Bool inputs not supported for hardtanh"},
		{"aten::hardtanh", []any{u8}, nil, "cannot do hardtanh on an unsigned type with negative limits"},
		{"aten::clamp", []any{f32}, nil, "torch.clamp: At least one of 'min' or 'max' must not be None"},
		{"aten::clamp.Tensor", []any{f32}, nil, "torch.clamp: At least one of 'min' or 'max' must not be None"},
		{"aten::clamp.Tensor", []any{tensor.Empty(tensor.Float32, 2, 3), tensor.Empty(tensor.Float32, 4)}, nil,
			"The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"},
		{"aten::clamp.Tensor", []any{b, b, b}, nil, `"clamp_cpu" not implemented for 'Bool'`},
		{"aten::clamp", []any{i8, 1000}, nil, "value cannot be converted to type int8_t without overflow"},
		{"aten::clamp", []any{f32, 1e39, nil}, nil, "value cannot be converted to type float without overflow"},
		{"aten::fill.Scalar", []any{i8, 300}, nil, "value cannot be converted to type int8_t without overflow"},
		{"aten::fill.Scalar", []any{i64, math.NaN()}, nil, "value cannot be converted to type int64_t without overflow"},
		{"aten::fill.Scalar", []any{h, 65505.0}, nil, "value cannot be converted to type at::Half without overflow"},
		{"aten::exp", []any{h}, nil, `"exp_vml_cpu" not implemented for 'Half'`},
		{"aten::relu", []any{h}, nil, `"clamp_min_cpu" not implemented for 'Half'`},
	}
	for _, c := range cases {
		_, err := tensor.CallErr(c.op, c.args, c.kwargs)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.op, c.want)
			continue
		}
		e, ok := tensor.AsError(err)
		if !ok {
			t.Errorf("%s: error %T is not a *tensor.Error", c.op, err)
			continue
		}
		if !strings.Contains(e.Msg, c.want) {
			t.Errorf("%s: error %q does not contain %q", c.op, e.Msg, c.want)
		}
	}
}

func callKw(t *testing.T, op string, args []any, kwargs map[string]any) *tensor.Tensor {
	t.Helper()
	res, err := tensor.CallErr(op, args, kwargs)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return res.(*tensor.Tensor)
}

func sameF(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestUnaryValues(t *testing.T) {
	nan := math.NaN()
	f32 := func(v ...float32) *tensor.Tensor { return tensor.FromSlice(v) }
	cases := []struct {
		name   string
		op     string
		args   []any
		kwargs map[string]any
		dtype  tensor.DType
		want   []float64
	}{
		{"round half to even", "aten::round", []any{f32(0.5, 1.5, 2.5, -0.5, -2.5, 2.4)}, nil, tensor.Float32,
			[]float64{0, 2, 2, 0, -2, 2}},
		{"sign of nan and zeros", "aten::sign", []any{f32(float32(nan), 0, -3, 4)}, nil, tensor.Float32, []float64{0, 0, -1, 1}},
		{"exp of int64 is float32", "aten::exp", []any{tensor.FromSlice([]int64{0})}, nil, tensor.Float32, []float64{1}},
		{"abs wraps int8", "aten::abs", []any{tensor.FromSlice([]int8{-128, -3})}, nil, tensor.Int8, []float64{-128, 3}},
		{"floor keeps int", "aten::floor", []any{tensor.FromSlice([]int32{-3, 7})}, nil, tensor.Int32, []float64{-3, 7}},
		{"neg wraps uint8", "aten::neg", []any{tensor.FromSlice([]uint8{0, 1})}, nil, tensor.Uint8, []float64{0, 255}},
		{"bitwise_not bool", "aten::bitwise_not", []any{tensor.FromSlice([]bool{true, false})}, nil, tensor.Bool, []float64{0, 1}},
		{"isnan", "aten::isnan", []any{f32(float32(nan), 1)}, nil, tensor.Bool, []float64{1, 0}},
		{"logical_not", "aten::logical_not", []any{f32(float32(nan), 0)}, nil, tensor.Bool, []float64{0, 1}},
		{"clamp min>max gives max", "aten::clamp", []any{f32(1, 5), 3.0, 2.0}, nil, tensor.Float32, []float64{2, 2}},
		{"clamp NaN limit pair gives NaN", "aten::clamp", []any{f32(1, 5), nan, 2.0}, nil, tensor.Float32, []float64{nan, nan}},
		{"clamp lone NaN min is ignored", "aten::clamp", []any{f32(1, float32(nan)), nan}, nil, tensor.Float32, []float64{1, nan}},
		{"clamp int with float limit promotes", "aten::clamp", []any{tensor.FromSlice([]int64{1, 3}), 1.5}, nil, tensor.Float32,
			[]float64{1.5, 3}},
		{"clamp.Tensor min propagates NaN", "aten::clamp.Tensor", []any{f32(1, 2), f32(float32(nan), 0)}, nil, tensor.Float32,
			[]float64{nan, 2}},
		{"hardtanh truncates int limits", "aten::hardtanh", []any{tensor.FromSlice([]int64{1, -2}), 0.5, 1.5}, nil, tensor.Int64,
			[]float64{1, 0}},
		{"relu int", "aten::relu", []any{tensor.FromSlice([]int8{-1, 2})}, nil, tensor.Int8, []float64{0, 2}},
		{"fill uint8 wraps -1", "aten::fill.Scalar", []any{tensor.FromSlice([]uint8{1, 2}), -1}, nil, tensor.Uint8, []float64{255, 255}},
		{"gelu tanh", "aten::gelu", []any{tensor.FromSlice([]float64{1})}, map[string]any{"approximate": "tanh"}, tensor.Float64,
			[]float64{0.8411919906082768}},
	}
	for _, c := range cases {
		got := callKw(t, c.op, c.args, c.kwargs)
		if got.DType() != c.dtype {
			t.Errorf("%s: dtype %s, want %s", c.name, got.DType(), c.dtype)
			continue
		}
		vals := got.Float64s()
		if len(vals) != len(c.want) {
			t.Errorf("%s: %d values, want %d", c.name, len(vals), len(c.want))
			continue
		}
		for i := range vals {
			if !sameF(vals[i], c.want[i]) && math.Abs(vals[i]-c.want[i]) > 1e-12 {
				t.Errorf("%s: got %v, want %v", c.name, vals, c.want)
				break
			}
		}
	}
}

func TestUnaryStrided(t *testing.T) {
	// A transposed input takes the strided path; compare with the contiguous one.
	x := tensor.FromSlice([]float32{1, -2, 3, -4, 5, -6}, 2, 3)
	xt := tensor.NewMeta([]int{3, 2}, []int{1, 3}, 0, tensor.Float32, tensor.CPU).WithRaw(x.Raw())
	got := callKw(t, "aten::exp", []any{xt}, nil)
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			want := math.Exp(x.At(j, i).Float64())
			if g := got.At(i, j).Float64(); math.Abs(g-want) > 1e-5*want {
				t.Errorf("exp at (%d,%d): got %v, want %v", i, j, g, want)
			}
		}
	}
}

// TestClampFastPath: clamp of a contiguous float tensor (SIMD maximum and
// minimum against the limits) gives what the strided loop gives for the
// same values, NaN, infinities and both zeros included, with either limit
// or both, also in place.
func TestClampFastPath(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -1.5, -0.5, 0.25, 0.5, 2, 1e30}
	limits := []any{nil, 0.0, math.Copysign(0, -1), -0.5, 0.5, math.NaN()}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		var xs []float64
		for range 7 { // long enough for whole vectors and a tail
			xs = append(xs, vals...)
		}
		x := tensor.FromSlice(xs, len(xs)).To(dt)
		// The same values as a strided view: every other element of a
		// buffer twice as long.
		wide := tensor.Empty(dt, 2*len(xs))
		strided := wide.AsStrided([]int{len(xs)}, []int{2}, tensor.WithStorageOffset(0))
		strided.Copy_(x)
		for _, lo := range limits {
			for _, hi := range limits {
				if lo == nil && hi == nil {
					continue
				}
				fast := tensor.Call("aten::clamp.default", x, lo, hi).(*tensor.Tensor).Float64s()
				slow := tensor.Call("aten::clamp.default", strided, lo, hi).(*tensor.Tensor).Float64s()
				inPlace := x.Clone()
				tensor.Call("aten::clamp_.default", inPlace, lo, hi)
				for i := range fast {
					for _, got := range []float64{fast[i], inPlace.Float64s()[i]} {
						if !(got == slow[i] && math.Signbit(got) == math.Signbit(slow[i])) && !(got != got && slow[i] != slow[i]) {
							t.Fatalf("%v clamp(%v, %v, %v) = %v, strided loop %v", dt, xs[i], lo, hi, got, slow[i])
						}
					}
				}
			}
		}
	}
}
