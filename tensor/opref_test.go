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

// Arguments with defaults are options named after the schema argument; they
// reach Bind as keyword arguments and fail as PyTorch's keyword arguments do.
func TestWrapperOptions(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	y := tensor.FromSlice([]float64{10, 20, 30, 40}, 2, 2)
	vals := func(r *tensor.Tensor) []float64 { return r.Contiguous().Float64s() }
	eq := func(name string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s = %v, want %v", name, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s = %v, want %v", name, got, want)
			}
		}
	}
	eq("Add", vals(x.Add(y)), []float64{11, 22, 33, 44})
	eq("Add alpha=2", vals(x.Add(y, tensor.WithAlpha(2))), []float64{21, 42, 63, 84})
	eq("Kw alpha=2", vals(x.Add(y, tensor.Kw("alpha", 2))), []float64{21, 42, 63, 84})
	eq("last wins", vals(x.Add(y, tensor.WithAlpha(2), tensor.WithAlpha(3))), []float64{31, 62, 93, 124})
	eq("AddScalar", vals(x.AddScalar(1)), []float64{2, 3, 4, 5})
	eq("AddScalar alpha", vals(x.AddScalar(1, tensor.WithAlpha(-1))), []float64{0, 1, 2, 3})
	if s := x.Sum([]int{1}, tensor.WithKeepdim(true)); len(s.Sizes()) != 2 || s.Sizes()[1] != 1 {
		t.Fatalf("Sum keepdim: sizes %v", s.Sizes())
	}
	if s := x.Sum([]int{1}); len(s.Sizes()) != 1 {
		t.Fatalf("Sum: sizes %v", s.Sizes())
	}
	if r := tensor.Randn([]int{3}, tensor.WithDtype(tensor.Float64)); r.DType() != tensor.Float64 {
		t.Fatalf("Randn dtype %v", r.DType())
	}
	if r := x.Softmax(1, tensor.WithDtype(tensor.Float32)); r.DType() != tensor.Float32 {
		t.Fatalf("Softmax dtype %v", r.DType())
	}
	if o := tensor.WithIgnoreIndex(-1); o.Name() != "ignore_index" || o.Value() != -1 {
		t.Fatalf("WithIgnoreIndex: %q %v", o.Name(), o.Value())
	}
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { x.Gelu(tensor.WithKeepdim(true)) }, "Unknown keyword argument 'keepdim' for operator 'aten::gelu'"},
		{func() { x.Add(y, tensor.Kw("nope", 1)) }, "Unknown keyword argument 'nope' for operator 'aten::add.Tensor'"},
		{func() { x.Gelu(tensor.Kw("approximate", 1)) }, "aten::gelu() Expected a value of type 'str' for argument 'approximate' but instead found type 'int'."},
		{func() { x.Softmax(1, tensor.WithDim(0)) }, "Argument 'dim' specified both as positional and keyword argument for operator 'aten::softmax.int'"},
	} {
		err := tensor.Try(c.f)
		if err == nil || err.Error() != c.want {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

// A call without options allocates no keyword map.
func TestWrapperNoOptionsAllocs(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2})
	y := tensor.FromSlice([]float64{3, 4})
	plain := testing.AllocsPerRun(100, func() { tensor.Call("aten::add.Tensor", x, y) })
	typed := testing.AllocsPerRun(100, func() { x.Add(y) })
	if typed > plain {
		t.Fatalf("x.Add(y) allocates %v times, tensor.Call %v", typed, plain)
	}
}
