package cpu_test

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/tensor"
)

func normRange(n int, scale float32) *tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%7)*scale - 1
	}
	return tensor.FromSlice(v)
}

func normOnes(shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Numel(shape))
	for i := range v {
		v[i] = 1
	}
	return tensor.FromSlice(v, shape...)
}

func normView(t *tensor.Tensor, shape ...int) *tensor.Tensor {
	return tensor.FromSlice(t.Float64s(), shape...)
}

func TestNormBadInputs(t *testing.T) {
	x23 := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	x123 := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 1, 2, 3)
	x244 := normOnes(2, 4, 4)
	x234 := normOnes(2, 3, 4)
	xi := tensor.FromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := []struct {
		name string
		op   string
		args []any
		kw   map[string]any
		kind tensor.ErrorKind
		msg  string
	}{
		{"bn 2-d running_var", "aten::native_batch_norm.default",
			[]any{x23, nil, nil, normOnes(3), normOnes(1, 3), false, 0.1, 1e-5}, nil, tensor.RuntimeError,
			"TensorAccessor expected 1 dims but tensor has 2"},
		{"gn transposed input", "aten::native_group_norm.default",
			[]any{x234.Transpose(1, 2).Contiguous().Transpose(1, 2), nil, nil, 2, 3, 4, 1, 1e-5}, nil, tensor.RuntimeError,
			"Expected X.is_contiguous(memory_format) to be true, but got false."},
		{"ln empty normalized_shape", "aten::native_layer_norm.default",
			[]any{x123, []int{}, nil, nil, 1e-5}, nil, tensor.RuntimeError,
			"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []"},
		{"ln weight shape", "aten::native_layer_norm.default",
			[]any{x123, []int{1, 2, 3}, normOnes(1, 2), nil, 1e-5}, nil, tensor.RuntimeError,
			"Expected weight to be of same shape as normalized_shape, but got weight of shape [1, 2] and normalized_shape = [1, 2, 3]"},
		{"ln bias shape", "aten::native_layer_norm.default",
			[]any{x23, []int{3}, normOnes(3), normOnes(2), 1e-5}, nil, tensor.RuntimeError,
			"Expected bias to be of same shape as normalized_shape, but got bias of shape [2] and normalized_shape = [3]"},
		{"ln input shape", "aten::native_layer_norm.default",
			[]any{x23, []int{4}, nil, nil, 1e-5}, nil, tensor.RuntimeError,
			"Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"},
		{"ln normalized longer than input", "aten::native_layer_norm.default",
			[]any{normOnes(3), []int{1, 3}, nil, nil, 1e-5}, nil, tensor.RuntimeError,
			"Given normalized_shape=[1, 3], expected input with shape [*, 1, 3], but got input of size[3]"},
		{"ln integer input", "aten::native_layer_norm.default",
			[]any{xi, []int{3}, nil, nil, 1e-5}, nil, tensor.RuntimeError,
			`"LayerNormKernelImpl" not implemented for 'Long'`},
		{"ln weight dtype", "aten::native_layer_norm.default",
			[]any{x23, []int{3}, tensor.FromSlice([]float64{1, 1, 1}), nil, 1e-5}, nil, tensor.RuntimeError,
			"expected scalar type Float but found Double"},
		{"ln backward weight grad without weight", "aten::native_layer_norm_backward.default",
			[]any{x23, x23, []int{3}, normOnes(2, 1), normOnes(2, 1), nil, nil, []bool{true, true, false}}, nil, tensor.RuntimeError,
			"tensor does not have a device"},
		{"ln backward mean size", "aten::native_layer_norm_backward.default",
			[]any{x23, x23, []int{3}, normOnes(5), normOnes(2, 1), nil, nil, []bool{true, false, false}}, nil, tensor.RuntimeError,
			"Expected mean.numel() == M"},
		{"gn weight size", "aten::native_group_norm.default",
			[]any{x244, normOnes(3), nil, 2, 4, 4, 2, 1e-5}, nil, tensor.RuntimeError,
			"Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [3] and input of shape [2, 4, 4]"},
		{"gn numel", "aten::native_group_norm.default",
			[]any{x244, nil, nil, 2, 4, 5, 2, 1e-5}, nil, tensor.RuntimeError,
			"Expected X.numel() == N * C * HxW to be true, but got false."},
		{"gn zero groups", "aten::native_group_norm.default",
			[]any{x234, nil, nil, 2, 3, 4, 0, 1e-5}, nil, tensor.RuntimeError,
			"Expected num groups to be greater than 0, got 0"},
		{"gn groups divide channels", "aten::native_group_norm.default",
			[]any{x234, nil, nil, 2, 3, 4, 2, 1e-5}, nil, tensor.RuntimeError,
			"Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 3, 4] and num_groups=2"},
		{"gn backward mean size", "aten::native_group_norm_backward.default",
			[]any{x234, x234, normOnes(3, 1), normOnes(2, 1), nil, 2, 3, 4, 1, []bool{true, false, false}}, nil, tensor.RuntimeError,
			"Expected mean.numel() == N * group to be true, but got false."},
		{"bn running_mean size", "aten::_native_batch_norm_legit.default",
			[]any{x234, nil, nil, normOnes(2), normOnes(3), true, 0.1, 1e-5}, nil, tensor.RuntimeError,
			"running_mean should contain 3 elements not 2"},
		{"bn weight size", "aten::_native_batch_norm_legit.no_stats",
			[]any{x234, normOnes(5), nil, true, 0.1, 1e-5}, nil, tensor.RuntimeError,
			"weight should contain 3 elements not 5"},
		{"bn eval without stats", "aten::_native_batch_norm_legit.no_stats",
			[]any{x234, nil, nil, false, 0.1, 1e-5}, nil, tensor.RuntimeError,
			"running_mean must be defined in evaluation mode"},
		{"bn integer input", "aten::_native_batch_norm_legit_no_training.default",
			[]any{xi, nil, nil, normOnes(3), normOnes(3), 0.1, 1e-5}, nil, tensor.RuntimeError,
			`"batch_norm" not implemented for 'Long'`},
		{"bn mixed dtypes", "aten::_native_batch_norm_legit.default",
			[]any{x234, nil, nil, tensor.FromSlice([]float64{0, 0, 0}), normOnes(3), true, 0.1, 1e-5}, nil, tensor.RuntimeError,
			"mixed dtype (CPU): expect parameter to have scalar type of Float"},
		{"bn 1-d input", "aten::_native_batch_norm_legit.no_stats",
			[]any{normOnes(3), nil, nil, true, 0.1, 1e-5}, nil, tensor.IndexError,
			"Dimension out of range (expected to be in range of [-1, 0], but got 1)"},
		{"dropout p > 1", "aten::native_dropout.default",
			[]any{normOnes(4), 1.5, true}, nil, tensor.RuntimeError,
			"bernoulli_ expects p to be in [0, 1], but got p=-0.5"},
		{"dropout integer training", "aten::native_dropout.default",
			[]any{xi, 0.5, true}, nil, tensor.RuntimeError,
			"result type Float can't be cast to the desired output type Long"},
		{"rand negative size", "aten::rand.default",
			[]any{[]int{-1}}, nil, tensor.RuntimeError,
			"Trying to create tensor with negative dimension -1: [-1]"},
		{"randn negative size", "aten::randn.default",
			[]any{[]int{2, -2}}, nil, tensor.RuntimeError,
			"Trying to create tensor with negative dimension -2: [2, -2]"},
		{"rand integer dtype", "aten::rand.default",
			[]any{[]int{2}}, map[string]any{"dtype": tensor.Int64}, tensor.RuntimeError,
			`"check_uniform_bounds" not implemented for 'Long'`},
		{"randn bool dtype", "aten::randn.default",
			[]any{[]int{2}}, map[string]any{"dtype": tensor.Bool}, tensor.RuntimeError,
			`"normal_kernel_cpu" not implemented for 'Bool'`},
		{"randperm negative n", "aten::randperm.default",
			[]any{-1}, nil, tensor.RuntimeError,
			"Trying to create tensor with negative dimension -1: [-1]"},
		{"randperm int8 overflow", "aten::randperm.default",
			[]any{129}, map[string]any{"dtype": tensor.Int8}, tensor.RuntimeError,
			"value cannot be converted to type int8_t without overflow"},
		{"randperm half precision", "aten::randperm.default",
			[]any{3000}, map[string]any{"dtype": tensor.Float16}, tensor.RuntimeError,
			"n cannot be greater than 2049 for Half type."},
		{"randperm bool", "aten::randperm.default",
			[]any{3}, map[string]any{"dtype": tensor.Bool}, tensor.RuntimeError,
			`"randperm" not implemented for 'Bool'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tensor.CallErr(c.op, c.args, c.kw)
			if err == nil {
				t.Fatalf("no error, want %q", c.msg)
			}
			e, ok := tensor.AsError(err)
			if !ok {
				t.Fatalf("error %v is not a *tensor.Error", err)
			}
			if e.Kind != c.kind {
				t.Errorf("kind %v, want %v", e.Kind, c.kind)
			}
			if !strings.Contains(e.Msg, c.msg) {
				t.Errorf("message %q does not contain %q", e.Msg, c.msg)
			}
		})
	}
}

func normClose(t *testing.T, what string, got []float64, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-5*(1+math.Abs(want[i])) {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

func TestLayerNormValues(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3, 10, 10, 10}, 2, 3)
	w := tensor.FromSlice([]float64{1, 2, 3})
	b := tensor.FromSlice([]float64{0, 1, 0})
	res := tensor.Call("aten::native_layer_norm.default", x, []int{3}, w, b, 0.0).([]*tensor.Tensor)
	r := 1 / math.Sqrt(2.0/3)
	normClose(t, "out", res[0].Float64s(), -r, 1, 3*r, 0, 1, 0)
	normClose(t, "mean", res[1].Float64s(), 2, 10)
	if s := res[1].Sizes(); len(s) != 2 || s[0] != 2 || s[1] != 1 {
		t.Fatalf("mean shape %v, want [2 1]", s)
	}
	if !math.IsInf(res[2].Float64s()[1], 1) {
		t.Fatalf("rstd of a constant row with eps 0 is %v, want +Inf", res[2].Float64s()[1])
	}
}

func TestBatchNormUpdatesRunningStats(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 3}, 2, 1)
	rm := tensor.FromSlice([]float32{0})
	rv := tensor.FromSlice([]float32{1})
	res := tensor.Call("aten::_native_batch_norm_legit.default", x, nil, nil, rm, rv, true, 0.5, 0.0).([]*tensor.Tensor)
	normClose(t, "out", res[0].Float64s(), -1, 1)
	normClose(t, "save_mean", res[1].Float64s(), 2)
	normClose(t, "save_invstd", res[2].Float64s(), 1)
	// running_mean = 0.5*2 + 0.5*0; running_var = 0.5*2 (unbiased) + 0.5*1.
	normClose(t, "running_mean", rm.Float64s(), 1)
	normClose(t, "running_var", rv.Float64s(), 1.5)
	if rm.Version() == 0 || rv.Version() == 0 {
		t.Errorf("running stats written in place without a version bump")
	}
	ev := tensor.Call("aten::_native_batch_norm_legit_no_training.default", x, nil, nil, rm, rv, 0.5, 0.0).([]*tensor.Tensor)
	normClose(t, "eval out", ev[0].Float64s(), 0, 2/math.Sqrt(1.5))
	if ev[1].Numel() != 0 || ev[1].Dim() != 1 {
		t.Errorf("eval save_mean has shape %v, want [0]", ev[1].Sizes())
	}
}

// TestGroupNormChannelsLast: native_group_norm takes a channels-last input
// (its suggested memory format) and gives the contiguous input's values.
func TestGroupNormChannelsLast(t *testing.T) {
	x := normRange(2*6*3*2, 0.5).View([]int{2, 6, 3, 2})
	cl := x.Permute([]int{0, 2, 3, 1}).Contiguous().Permute([]int{0, 3, 1, 2})
	args := func(x *tensor.Tensor) []any { return []any{x, nil, nil, 2, 6, 6, 3, 1e-5} }
	want := tensor.Call("aten::native_group_norm", args(x)...).([]*tensor.Tensor)[0].Float64s()
	got := tensor.Call("aten::native_group_norm", args(cl)...).([]*tensor.Tensor)[0].Float64s()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-5 {
			t.Fatalf("element %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestGroupNormMatchesLayerNormPerGroup(t *testing.T) {
	x := normRange(24, 0.7)
	x3 := normView(x, 2, 4, 3)
	gn := tensor.Call("aten::native_group_norm.default", x3, nil, nil, 2, 4, 3, 2, 1e-5).([]*tensor.Tensor)
	// Group norm with 2 groups of 2 channels × 3 is layer norm over rows of 6.
	ln := tensor.Call("aten::native_layer_norm.default", normView(x, 4, 6), []int{6}, nil, nil, 1e-5).([]*tensor.Tensor)
	normClose(t, "out", gn[0].Float64s(), ln[0].Float64s()...)
	normClose(t, "mean", gn[1].Float64s(), ln[1].Float64s()...)
	normClose(t, "rstd", gn[2].Float64s(), ln[2].Float64s()...)
}

func TestRandomOpsFollowTheSeed(t *testing.T) {
	draw := func() []float64 {
		tensor.ManualSeed(1234)
		a := tensor.Rand([]int{64}).Float64s()
		b := tensor.Randn([]int{8}, tensor.WithDtype(tensor.Float64)).Float64s()
		return append(a, b...)
	}
	first, second := draw(), draw()
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("value %d differs after reseeding: %v vs %v", i, first[i], second[i])
		}
	}
	for _, v := range first[:64] {
		if !(v >= 0 && v < 1) {
			t.Fatalf("rand value %v outside [0, 1)", v)
		}
	}
	p := tensor.Randperm(50, tensor.WithDtype(tensor.Int32))
	if p.DType() != tensor.Int32 {
		t.Fatalf("randperm dtype %v, want int32", p.DType())
	}
	seen := make([]bool, 50)
	for _, v := range p.Int64s() {
		if v < 0 || v >= 50 || seen[v] {
			t.Fatalf("not a permutation: %v", p.Int64s())
		}
		seen[v] = true
	}
}

func TestDropout(t *testing.T) {
	x := normRange(1000, 1)
	res := tensor.Call("aten::native_dropout.default", x, 0.25, true).([]*tensor.Tensor)
	in, out, mask := x.Float64s(), res[0].Float64s(), res[1].Float64s()
	if res[1].DType() != tensor.Bool {
		t.Fatalf("mask dtype %v, want bool", res[1].DType())
	}
	kept := 0
	for i := range in {
		want := 0.0
		if mask[i] != 0 {
			want = float64(float32(in[i]) * float32(1/0.75))
			kept++
		}
		if out[i] != want {
			t.Fatalf("out[%d] = %v, want %v (mask %v)", i, out[i], want, mask[i])
		}
	}
	if kept < 650 || kept > 850 {
		t.Errorf("kept %d of 1000 with p=0.25", kept)
	}
	ev := tensor.Call("aten::native_dropout.default", x, 0.25, false).([]*tensor.Tensor)
	normClose(t, "eval", ev[0].Float64s(), in...)
	for _, m := range ev[1].Float64s() {
		if m != 1 {
			t.Fatal("eval mask is not all true")
		}
	}
}

// native_layer_norm_backward shares its rows (dx) and columns (dw, db)
// among the cores above the grain, with the one-core loop's bits: 300 rows
// of 257 are two groups of rows (rowsAndColumns), 1100 of 64 two (1024
// and 76 rows), split only while a pool goroutine spins (normSerial);
// 2100 of 1024, 33 groups, are large enough to wake a parked goroutine
// (parallel.For rather than ForSmall) on two cores.
func TestLayerNormBackwardParallelBits(t *testing.T) {
	for _, sh := range [][2]int{{300, 257}, {1100, 64}, {2100, 1024}} {
		layerNormBackwardParallelBits(t, sh[0], sh[1])
	}
}

func layerNormBackwardParallelBits(t *testing.T, m, n int) {
	mk := func(seed int) *tensor.Tensor {
		v := make([]float32, m*n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i*seed))) * 3
		}
		return tensor.FromSlice(v, m, n)
	}
	for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} { // float64 shows any change in the sums' rounding
		layerNormBackwardBits(t, mk(7).To(d), mk(11).To(d), m, n)
	}
}

func layerNormBackwardBits(t *testing.T, x, g *tensor.Tensor, m, n int) {
	wv := make([]float32, n)
	for i := range wv {
		wv[i] = 1 + float32(i%5)/4
	}
	w, b := tensor.FromSlice(wv).To(x.DType()), tensor.FromSlice(make([]float32, n)).To(x.DType())
	mean := tensor.Call("aten::mean.dim", x, []int{1}, true).(*tensor.Tensor)
	rstd := x.Var(tensor.WithDim([]int{1}), tensor.WithCorrection(0), tensor.WithKeepdim(true)).AddScalar(1e-5).Rsqrt()
	run := func(procs int) [][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		outs := tensor.Call("aten::native_layer_norm_backward", g, x, []int{n}, mean, rstd, w, b, []bool{true, true, true}).([]*tensor.Tensor)
		return [][]float64{outs[0].Float64s(), outs[1].Float64s(), outs[2].Float64s()}
	}
	one := run(1)
	for _, procs := range []int{2, 3, 4} {
		other := run(procs)
		for k, name := range []string{"dx", "dw", "db"} {
			if !sameF64(one[k], other[k]) {
				t.Fatalf("%s %s differs between GOMAXPROCS 1 and %d", x.DType(), name, procs)
			}
		}
	}
}

// TestLayerNormBackwardWeightResidue checks the weight gradient of a layer
// norm over one element against the golden record
// nn.functional.layer_norm|float32|s2|grad: x − mean is 0, but 1.13 computes
// dy·fma(rstd, x, −rstd·mean) with rstd·mean rounded, which leaves
// 1.2573361e-05; the input gradient is exactly 0.
func TestLayerNormBackwardWeightResidue(t *testing.T) {
	f := func(v float32) *tensor.Tensor { return tensor.FromSlice([]float32{v}, 1) }
	x, w, b, dy := f(2.8578732), f(3.6868112), f(-1.3444464), f(0.8089214)
	fwd := tensor.Call("aten::native_layer_norm", x, []int{1}, w, b, 1e-5).([]*tensor.Tensor)
	g := tensor.Call("aten::native_layer_norm_backward", dy, x, []int{1}, fwd[1], fwd[2], w, b, []bool{true, true, true}).([]*tensor.Tensor)
	if got := float32(g[0].Item().Float64()); got != 0 {
		t.Errorf("input gradient %v, want 0", got)
	}
	if got := float32(g[1].Item().Float64()); got != 1.2573361e-05 {
		t.Errorf("weight gradient %v, want 1.2573361e-05", got)
	}
	if got := float32(g[2].Item().Float64()); got != 0.8089214 {
		t.Errorf("bias gradient %v, want 0.8089214", got)
	}
}

// TestGroupNormBackwardRoundings: with two elements per group the exact
// input gradient is nearly 0 and 1.13's is its float32 roundings; the
// kernel reproduces them bit for bit (a record from torch 1.13, where the
// exact float64 gradient gave -0.0030263849).
func TestGroupNormBackwardRoundings(t *testing.T) {
	f := func(v ...float32) *tensor.Tensor { return tensor.FromSlice(v) }
	dy, x := f(0.37120515, 0.5700048).View([]int{1, 2}), f(-5.4452343, -5.752741).View([]int{1, 2})
	mean, rstd := f(-5.5989876).View([]int{1, 1}), f(6.502551).View([]int{1, 1})
	w := f(6.199483, 7.8993897)
	r := tensor.Call("aten::native_group_norm_backward", dy, x, mean, rstd, w, 1, 2, 1, 1, []bool{true, true, true}).([]*tensor.Tensor)
	want := [][]float32{{-0.003036499, 0.0030517578}, {0.371126, -0.5698837}, {0.37120515, 0.5700048}}
	for i, wv := range want {
		got := r[i].Float64s()
		for j := range wv {
			if float32(got[j]) != wv[j] {
				t.Errorf("output %d: got %v, want %v", i, got, wv)
				break
			}
		}
	}
}

// TestLayerNormBackwardRoundings: with two elements per row the exact input
// gradient nearly cancels and 1.13's is its float32 roundings, which the
// kernel reproduces bit for bit (a record from torch 1.13; the float64
// formula gave 0.0021260620).
func TestLayerNormBackwardRoundings(t *testing.T) {
	f := func(v ...float32) *tensor.Tensor { return tensor.FromSlice(v) }
	dy, x := f(2.591825, 0.1860759).View([]int{1, 2}), f(-6.6333895, -7.105524).View([]int{1, 2})
	mean, rstd := f(-6.869457).View([]int{1, 1}), f(4.2357).View([]int{1, 1})
	w, b := f(2.2953024, 1.9063909), f(-5.7109346, -6.102709)
	r := tensor.Call("aten::native_layer_norm_backward", dy, x, []int{2}, mean, rstd, w, b, []bool{true, true, true}).([]*tensor.Tensor)
	got, want := r[0].Float64s(), []float32{0.0020751953, -0.002105713}
	for i := range want {
		if float32(got[i]) != want[i] {
			t.Fatalf("dx = %v, want %v", got, want)
		}
	}
}

// Training batch norm over empty planes (a batch of one [2, 0] sample)
// computes its statistics as 0/0, as 1.13: NaN means and inverse standard
// deviations, a NaN running mean, and the running variance scaled by
// 1 - momentum (values from torch 1.13).
func TestBatchNormEmptyPlanes(t *testing.T) {
	x := tensor.Empty(tensor.Float32, 1, 2, 0)
	rm := tensor.FromSlice([]float32{0, 0}, 2)
	rv := tensor.FromSlice([]float32{1, 1}, 2)
	outs := tensor.Call("aten::native_batch_norm", x, nil, nil, rm, rv, true, 0.1, 1e-5).([]*tensor.Tensor)
	nan := func(v []float64) bool { return len(v) == 2 && math.IsNaN(v[0]) && math.IsNaN(v[1]) }
	if !nan(outs[1].Float64s()) || !nan(outs[2].Float64s()) || !nan(rm.Float64s()) {
		t.Errorf("save_mean %v, save_invstd %v, running_mean %v; want NaN", outs[1].Float64s(), outs[2].Float64s(), rm.Float64s())
	}
	if got := rv.Float64s(); got[0] != float64(float32(0.9)) || got[1] != float64(float32(0.9)) {
		t.Errorf("running_var %v, want [0.9 0.9]", got)
	}
}

// native_group_norm and its backward check only numel == N·C·HxW, as
// 1.13: an empty input with a negative HxW is accepted (shapes and values
// from torch 1.13), and negative sizes with work to do are still rejected.
func TestGroupNormEmptyBatchNegativeHxW(t *testing.T) {
	e := func(s ...int) *tensor.Tensor { return tensor.Empty(tensor.Float32, s...) }
	o := tensor.Call("aten::native_group_norm", e(0, 2), normOnes(2), nil, 0, 2, -1, 1, 1e-5).([]*tensor.Tensor)
	if !slices.Equal(o[0].Sizes(), []int{0, 2}) || !slices.Equal(o[1].Sizes(), []int{0, 1}) {
		t.Errorf("native_group_norm sizes %v %v, want [0 2] [0 1]", o[0].Sizes(), o[1].Sizes())
	}
	b := tensor.Call("aten::native_group_norm_backward", e(0, 2), e(0, 2), e(0, 1), e(0, 1), normOnes(2), 0, 2, -1, 1, []bool{true, true, true}).([]*tensor.Tensor)
	if !slices.Equal(b[1].Float64s(), []float64{0, 0}) || !slices.Equal(b[2].Float64s(), []float64{0, 0}) {
		t.Errorf("grad_weight %v, grad_bias %v, want zeros", b[1].Float64s(), b[2].Float64s())
	}
	o = tensor.Call("aten::native_group_norm", e(2, 0), nil, nil, 2, 0, -1, 1, 1e-5).([]*tensor.Tensor)
	if m, r := o[1].Float64s(), o[2].Float64s(); !slices.Equal(m, []float64{0, 0}) || !math.IsNaN(r[0]) || !math.IsNaN(r[1]) {
		t.Errorf("native_group_norm of no channels: mean %v rstd %v, want [0 0] [NaN NaN]", m, r)
	}
	if err := tensor.Try(func() {
		tensor.Call("aten::native_group_norm", e(2, 2), nil, nil, 2, -2, -1, 1, 1e-5)
	}); err == nil {
		t.Error("native_group_norm with C = -2, HxW = -1 did not fail")
	}
}
