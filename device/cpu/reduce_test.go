package cpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/tensor"
)

func TestReduceBadInputs(t *testing.T) {
	x23 := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	i23 := tensor.FromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	b2 := tensor.FromSlice([]bool{true, false}, 2)
	empty03 := tensor.Empty(tensor.Float32, 0, 3)
	half2 := tensor.Empty(tensor.Float16, 2)
	scalar := tensor.FromSlice([]float32{3}, []int{}...)
	ones65 := make([]int, 65)
	for i := range ones65 {
		ones65[i] = 1
	}
	d65 := tensor.Empty(tensor.Float32, ones65...)
	cases := []struct {
		name   string
		op     string
		args   []any
		kwargs map[string]any
		kind   tensor.ErrorKind
		msg    string
	}{
		{"sum dim out of range", "aten::sum.dim_IntList", []any{x23, []int{2}}, nil,
			tensor.IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"},
		{"sum repeated dim", "aten::sum.dim_IntList", []any{x23, []int{1, -1}}, nil,
			tensor.RuntimeError, "dim 1 appears multiple times in the list of dims"},
		// dim_list_to_bitset: named dims of a tensor over 64-d (full
		// reductions, and amax's default [], are allowed).
		{"sum over a dim of 65-d", "aten::sum.dim_IntList", []any{d65, []int{0}}, nil,
			tensor.RuntimeError, "only tensors with up to 64 dims are supported"},
		{"amin over a dim of 65-d", "aten::amin.default", []any{d65, []int{3}}, nil,
			tensor.RuntimeError, "only tensors with up to 64 dims are supported"},
		{"max.dim of 65-d", "aten::max.dim", []any{d65, 0}, nil,
			tensor.RuntimeError, "only tensors with up to 64 dims are supported"},
		{"argmax over a dim of 65-d", "aten::argmax", []any{d65, 1}, nil,
			tensor.RuntimeError, "only tensors with up to 64 dims are supported"},
		{"flip of 65-d", "aten::flip", []any{d65, []int{}}, nil,
			tensor.RuntimeError, "only tensors with up to 64 dims are supported"},
		{"0-d repeated dim", "aten::amax.default", []any{scalar, []int{0, -1}}, nil,
			tensor.RuntimeError, "dim 0 appears multiple times in the list of dims"},
		{"mean of int", "aten::mean.dim", []any{i23, []int{0}}, nil,
			tensor.RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long"},
		{"mean to int", "aten::mean.default", []any{x23}, map[string]any{"dtype": tensor.Int32},
			tensor.RuntimeError, "Optional dtype must be either a floating point or complex dtype. Got: Int"},
		{"amax of empty, no dims", "aten::amax.default", []any{empty03}, nil,
			tensor.RuntimeError, "amax(): Expected reduction dim to be specified for input.numel() == 0."},
		{"amin over empty dim", "aten::amin.default", []any{empty03, []int{-2}}, nil,
			tensor.IndexError, "amin(): Expected reduction dim -2 to have non-zero size."},
		{"argmax of empty", "aten::argmax.default", []any{empty03}, nil,
			tensor.IndexError, "argmax(): Expected reduction dim to be specified for input.numel() == 0."},
		{"argmax of bool", "aten::argmax.default", []any{b2}, nil,
			tensor.RuntimeError, `"argmax_cpu" not implemented for 'Bool'`},
		{"max over empty dim", "aten::max.dim", []any{empty03, -2}, nil,
			tensor.IndexError, "max(): Expected reduction dim 0 to have non-zero size."},
		{"var of int", "aten::var.correction", []any{i23, []int{0}}, nil,
			tensor.RuntimeError, "std and var only support floating point and complex dtypes"},
		{"cumsum of half", "aten::cumsum.default", []any{half2, 0}, nil,
			tensor.RuntimeError, `"cumsum_out_cpu" not implemented for 'Half'`},
		{"prod of half", "aten::prod.default", []any{half2}, nil,
			tensor.RuntimeError, `"prod_cpu" not implemented for 'Half'`},
		{"softmax half_to_float", "aten::_softmax.default", []any{half2, 0, true}, nil,
			tensor.RuntimeError, "softmax with half to float conversion is not supported on CPU"},
		{"softmax of int", "aten::_softmax.default", []any{i23, 1, false}, nil,
			tensor.RuntimeError, `"softmax_lastdim_kernel_impl" not implemented for 'Long'`},
		{"log_softmax of int, inner dim", "aten::_log_softmax.default", []any{i23, 0, false}, nil,
			tensor.RuntimeError, `"softmax_kernel_impl" not implemented for 'Long'`},
		{"topk k too large", "aten::topk.default", []any{x23, 4}, nil,
			tensor.RuntimeError, "selected index k out of range"},
		{"topk negative k", "aten::topk.default", []any{x23, -1}, nil,
			tensor.RuntimeError, "selected index k out of range"},
		{"topk of bool", "aten::topk.default", []any{b2, 1}, nil,
			tensor.RuntimeError, `"topk_cpu" not implemented for 'Bool'`},
		{"sort dim out of range", "aten::sort.default", []any{x23, -3}, nil,
			tensor.IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"},
		{"item of many", "aten::_local_scalar_dense.default", []any{x23}, nil,
			tensor.RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tensor.CallErr(c.op, c.args, c.kwargs)
			e, ok := tensor.AsError(err)
			if !ok {
				t.Fatalf("want a *tensor.Error, got %v", err)
			}
			if e.Kind != c.kind || !strings.Contains(e.Msg, c.msg) {
				t.Fatalf("want %v %q, got %v %q", c.kind, c.msg, e.Kind, e.Msg)
			}
		})
	}
}

func redCall(t *testing.T, op string, args []any, kwargs map[string]any) any {
	t.Helper()
	res, err := tensor.CallErr(op, args, kwargs)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return res
}

func sameF64(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func TestReduceValues(t *testing.T) {
	nan := math.NaN()
	x := tensor.FromSlice([]float64{1, 5, 5, 2, nan, 7, 3, 3, 0}, 3, 3)
	cases := []struct {
		name string
		op   string
		args []any
		kw   map[string]any
		out  int // which result (tuples)
		want []float64
	}{
		{"sum over rows", "aten::sum.dim_IntList", []any{tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3), []int{0}}, nil, 0, []float64{5, 7, 9}},
		{"sum of bool is int64", "aten::sum.dim_IntList", []any{tensor.FromSlice([]bool{true, true, false}, 3), []int(nil)}, nil, 0, []float64{2}},
		{"sum int8 to int8 wraps", "aten::sum.dim_IntList", []any{tensor.FromSlice([]int8{100, 100}, 2), []int{0}}, map[string]any{"dtype": tensor.Int8}, 0, []float64{-56}},
		{"amax NaN wins", "aten::amax.default", []any{x, []int{1}}, nil, 0, []float64{5, nan, 3}},
		{"argmax first tie", "aten::argmax.default", []any{x, 1}, nil, 0, []float64{1, 1, 0}},
		{"max.dim indices", "aten::max.dim", []any{x, 0}, nil, 1, []float64{2, 1, 1}},
		{"min.dim values", "aten::min.dim", []any{x, 0}, nil, 0, []float64{1, nan, 0}},
		{"var N<=correction", "aten::var.correction", []any{tensor.FromSlice([]float64{1, 2, 3}, 3), []int{0}}, map[string]any{"correction": 3}, 0, []float64{math.Inf(1)}},
		{"var one element", "aten::var.dim", []any{tensor.FromSlice([]float64{4}, 1), []int{0}}, nil, 0, []float64{nan}},
		{"cumsum bool to int64", "aten::cumsum.default", []any{tensor.FromSlice([]bool{true, false, true}, 3), 0}, nil, 0, []float64{1, 1, 2}},
		{"sort stable, NaN last", "aten::sort.default", []any{tensor.FromSlice([]float64{3, nan, 1, 3, -1}, 5)}, nil, 1, []float64{4, 2, 0, 3, 1}},
		{"sort descending, NaN first", "aten::sort.default", []any{tensor.FromSlice([]float64{3, nan, 1, 3, -1}, 5), 0, true}, nil, 1, []float64{1, 0, 3, 2, 4}},
		{"softmax of -inf row", "aten::_softmax.default", []any{tensor.FromSlice([]float64{math.Inf(-1), math.Inf(-1), 0}, 3), 0, false}, nil, 0, []float64{0, 0, 1}},
		{"any of uint8 stays uint8", "aten::any.default", []any{tensor.FromSlice([]uint8{0, 7}, 2)}, nil, 0, []float64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := redCall(t, c.op, c.args, c.kw)
			var got *tensor.Tensor
			switch r := res.(type) {
			case *tensor.Tensor:
				got = r
			case []*tensor.Tensor:
				got = r[c.out]
			}
			if g := got.Float64s(); !sameF64(g, c.want) {
				t.Fatalf("got %v, want %v", g, c.want)
			}
		})
	}
}

// TestTopkPaths checks that topk's heap paths (small k) agree with a full
// sort, on transposed inputs so the lanes are strided, for the pair path
// (float64, int64) and the 32-bit key path (float32, int32).
func TestTopkPaths(t *testing.T) {
	const rows, n = 3, 200
	f64 := make([]float64, rows*n)
	f32 := make([]float32, rows*n)
	i64 := make([]int64, rows*n)
	i32 := make([]int32, rows*n)
	for i := range f64 {
		v := (i*7919)%101 - 50
		f64[i], f32[i], i64[i], i32[i] = float64(v), float32(v), int64(v), int32(v)
	}
	f64[17], f32[17] = math.NaN(), float32(math.NaN())
	f64[40], f32[40] = math.Copysign(0, -1), float32(math.Copysign(0, -1))
	f64[250], f32[250] = math.NaN(), float32(math.NaN())
	f64[260], f32[260] = math.Copysign(0, -1), float32(math.Copysign(0, -1))
	f64[261], f32[261] = 0, 0
	var inputs []*tensor.Tensor
	for _, base := range []*tensor.Tensor{
		tensor.FromSlice(f64, n, rows), tensor.FromSlice(f32, n, rows),
		tensor.FromSlice(i64, n, rows), tensor.FromSlice(i32, n, rows),
	} {
		xt := tensor.NewMeta([]int{rows, n}, []int{1, rows}, 0, base.DType(), tensor.CPU).WithRaw(base.Raw())
		inputs = append(inputs, xt)
	}
	// Contiguous float32 lanes take the bound-filtered scan of smallestKeysF32.
	inputs = append(inputs, tensor.FromSlice(f32, rows, n))
	for _, xt := range inputs {
		base := xt
		for _, desc := range []bool{true, false} {
			sorted := redCall(t, "aten::sort.default", []any{xt, 1, desc}, nil).([]*tensor.Tensor)
			sv, si := sorted[0].Float64s(), sorted[1].Int64s()
			for r := 0; r < rows; r++ {
				for j := 1; j < n; j++ {
					a, b := sv[r*n+j-1], sv[r*n+j]
					if desc {
						a, b = b, a
					}
					if a > b || (math.IsNaN(a) && !math.IsNaN(b)) || (a == b && si[r*n+j-1] > si[r*n+j]) {
						t.Fatalf("%s desc=%v row %d not sorted at %d: %v", base.DType(), desc, r, j, sv[r*n:(r+1)*n])
					}
				}
			}
			for _, k := range []int{1, 5, 50, 200} {
				top := redCall(t, "aten::topk.default", []any{xt, k, 1, desc}, nil).([]*tensor.Tensor)
				tv, ti := top[0].Float64s(), top[1].Int64s()
				for r := 0; r < rows; r++ {
					if !sameF64(tv[r*k:(r+1)*k], sv[r*n:r*n+k]) || !slices.Equal(ti[r*k:(r+1)*k], si[r*n:r*n+k]) {
						t.Fatalf("%s k=%d row %d: topk %v/%v, sort %v/%v", base.DType(), k, r,
							tv[r*k:(r+1)*k], ti[r*k:(r+1)*k], sv[r*n:r*n+k], si[r*n:r*n+k])
					}
				}
			}
		}
	}
}

// BenchmarkReduce times the family on a 1024x1024 float32 tensor, reducing
// over the inner (dim 1) or the outer (dim 0) dim.
func BenchmarkReduce(b *testing.B) {
	data := make([]float32, 1<<20)
	for i := range data {
		data[i] = float32(i%1000) * 0.001
	}
	x := tensor.FromSlice(data, 1024, 1024)
	for _, c := range []struct {
		name string
		op   string
		args []any
	}{
		{"sum_all", "aten::sum.dim_IntList", []any{x, []int(nil)}},
		{"sum_dim1", "aten::sum.dim_IntList", []any{x, []int{1}}},
		{"sum_dim0", "aten::sum.dim_IntList", []any{x, []int{0}}},
		{"amax_dim1", "aten::amax.default", []any{x, []int{1}}},
		{"argmax_dim1", "aten::argmax.default", []any{x, 1}},
		{"max_dim0", "aten::max.dim", []any{x, 0}},
		{"var_dim1", "aten::var.correction", []any{x, []int{1}}},
		{"cumsum_dim1", "aten::cumsum.default", []any{x, 1}},
		{"softmax_dim1", "aten::_softmax.default", []any{x, 1, false}},
		{"log_softmax_dim0", "aten::_log_softmax.default", []any{x, 0, false}},
		{"sort_dim1", "aten::sort.default", []any{x, 1}},
		{"topk5_dim1", "aten::topk.default", []any{x, 5, 1}},
	} {
		b.Run("cpu/"+c.name+"/1024x1024", func(b *testing.B) {
			b.SetBytes(4 << 20)
			b.ReportAllocs()
			for b.Loop() {
				tensor.Call(c.op, c.args...)
			}
		})
	}
}

// amax/amin of float32 over the last dim (long rows: the SIMD max/min
// without indices) and over leading dims (rows folded into per-column
// maxima by the SIMD maximum/minimum) against the definition, NaN winning;
// and which zero a ±0 tie gives, as PyTorch 1.13 does: over rows shorter
// than 32 elements the first (longer rows leave it to asm.AmaxF32, which
// does not specify it); over columns, the later row's in whole groups of
// 32 columns and the earlier row's in the columns after them.
func TestAmaxAminFloat32(t *testing.T) {
	for _, sh := range [][2]int{{3, 5}, {7, 31}, {9, 32}, {5, 70}, {130, 1000}, {2000, 33}} {
		r, c := sh[0], sh[1]
		v := make([]float32, r*c)
		for i := range v {
			v[i] = float32(math.Sin(float64(i)*1.7)) * 100
		}
		v[(r/2)*c+c/3] = float32(math.NaN())
		x := tensor.FromSlice(v, r, c)
		for _, op := range []string{"aten::amax", "aten::amin"} {
			isMax := op == "aten::amax"
			better := func(a, b float32) bool { return a != a || (isMax && a > b) || (!isMax && a < b) }
			for _, dim := range []int{0, 1} {
				got := tensor.Call(op, x, []int{dim}, false).(*tensor.Tensor).Float64s()
				n, m := r, c // reduce n values for each of m outputs
				if dim == 1 {
					n, m = c, r
				}
				for o := 0; o < m; o++ {
					at := func(k int) float32 {
						if dim == 0 {
							return v[k*c+o]
						}
						return v[o*c+k]
					}
					w := at(0)
					for k := 1; k < n; k++ {
						if w == w && better(at(k), w) {
							w = at(k)
						}
					}
					if !sameF64([]float64{got[o]}, []float64{float64(w)}) {
						t.Fatalf("%s %dx%d dim %d: out[%d] = %v, want %v", op, r, c, dim, o, got[o], w)
					}
				}
			}
		}
	}
	negz := float32(math.Copysign(0, -1))
	signs := func(op string, x *tensor.Tensor, dim int) string {
		s := ""
		for _, f := range tensor.Call(op, x, []int{dim}, false).(*tensor.Tensor).Float64s() {
			if math.Signbit(f) {
				s += "-"
			} else {
				s += "+"
			}
		}
		return s
	}
	// Rows: [-0 ×k, +0 ×k] and [+0 ×k, -0 ×k].
	for _, c := range []struct {
		k         int
		negFirst  string // amax of the row starting with -0
		plusFirst string
	}{{1, "-", "+"}, {5, "-", "+"}, {15, "-", "+"}} {
		a, b := make([]float32, 2*c.k), make([]float32, 2*c.k)
		for i := range c.k {
			a[i], b[c.k+i] = negz, negz
		}
		if got := signs("aten::amax", tensor.FromSlice(a, 1, 2*c.k), 1); got != c.negFirst {
			t.Errorf("amax of -0 ×%d then +0 ×%d: %s0, want %s0", c.k, c.k, got, c.negFirst)
		}
		if got := signs("aten::amax", tensor.FromSlice(b, 1, 2*c.k), 1); got != c.plusFirst {
			t.Errorf("amax of +0 ×%d then -0 ×%d: %s0, want %s0", c.k, c.k, got, c.plusFirst)
		}
	}
	// Columns: row 0 all -0, rows 1 and 2 all +0.
	for _, c := range []struct {
		cols int
		want string // per column: + where the later row wins
	}{{16, strings.Repeat("-", 16)}, {33, strings.Repeat("+", 32) + "-"}, {70, strings.Repeat("+", 64) + strings.Repeat("-", 6)}} {
		v := make([]float32, 3*c.cols)
		for j := range c.cols {
			v[j] = negz
		}
		if got := signs("aten::amax", tensor.FromSlice(v, 3, c.cols), 0); got != c.want {
			t.Errorf("amax over rows (-0, +0, +0) of %d columns: %s, want %s", c.cols, got, c.want)
		}
	}
}

// TestReduceMiddleDims: sum and amax over a middle dim of a contiguous
// float32 tensor (outer blocks of rows into column sums) give each
// column's rows added in order in float64, and the column's maximum.
func TestReduceMiddleDims(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, sh := range [][3]int{{3, 50, 70}, {4, 7, 9}, {2, 1, 33}, {5, 130, 1}} {
		b, m, c := sh[0], sh[1], sh[2]
		v := make([]float32, b*m*c)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		x := tensor.FromSlice(v, b, m, c)
		sum := tensor.Call("aten::sum.dim_IntList", x, []int{1}).(*tensor.Tensor).Float64s()
		amax := tensor.Call("aten::amax.default", x, []int{1}).(*tensor.Tensor).Float64s()
		for o := range b {
			for j := range c {
				var s float64
				mx := float32(math.Inf(-1))
				for i := range m {
					e := v[(o*m+i)*c+j]
					s += float64(e)
					mx = max(mx, e)
				}
				if got := sum[o*c+j]; float32(got) != float32(s) {
					t.Fatalf("%v: sum[%d,%d] = %v, want %v", sh, o, j, got, float32(s))
				}
				if got := amax[o*c+j]; float32(got) != mx {
					t.Fatalf("%v: amax[%d,%d] = %v, want %v", sh, o, j, got, mx)
				}
			}
		}
	}
}

// TestSoftmaxColumns: softmax and log_softmax over a dim that is not the
// last of a contiguous float32 tensor (float32 SIMD columns) agree with the
// float64 strided path within float32 rounding, and give its NaN for a
// column with a NaN or all -Inf.
func TestSoftmaxColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	v := make([]float32, 3*5*40)
	for i := range v {
		v[i] = float32(r.NormFloat64() * 4)
	}
	v[7] = float32(math.NaN()) // column 7 of block 0
	for row := range 5 {
		v[row*40+9] = float32(math.Inf(-1)) // column 9 of block 0: all -Inf
	}
	v[40*5+3] = float32(math.Inf(-1)) // one -Inf in a column of block 1
	x := tensor.FromSlice(v, 3, 5, 40)
	strided := x.Transpose(0, 2).Contiguous().Transpose(0, 2)
	for _, op := range []string{"aten::_softmax.default", "aten::_log_softmax.default"} {
		got := tensor.Call(op, x, 1, false).(*tensor.Tensor).Float64s()
		want := tensor.Call(op, strided, 1, false).(*tensor.Tensor).Float64s()
		for i := range got {
			g, w := got[i], want[i]
			if w != w || g != g {
				if !(w != w && g != g) {
					t.Fatalf("%s [%d] = %v, strided path %v", op, i, g, w)
				}
				continue
			}
			if math.Abs(g-w) > 2e-6*(1+math.Abs(w)) && !(math.IsInf(g, -1) && math.IsInf(w, -1)) {
				t.Fatalf("%s [%d] = %v, strided path %v", op, i, g, w)
			}
		}
	}
}

// TestCumsumRows: a float32 cumsum over the last dim (four rows at a time,
// then the rest) is each row's running float64 sum rounded at every
// element, and over another dim the same along that dim.
func TestCumsumRows(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	v := make([]float32, 7*33)
	for i := range v {
		v[i] = float32(r.NormFloat64() * 1e3)
	}
	x := tensor.FromSlice(v, 7, 33)
	for _, dim := range []int{1, 0, -1} {
		got := tensor.Call("aten::cumsum.default", x, dim).(*tensor.Tensor).Float64s()
		d := (dim + 2) % 2
		for i := range 7 {
			for j := range 33 {
				var s float64
				if d == 1 {
					for k := 0; k <= j; k++ {
						s += float64(v[i*33+k])
					}
				} else {
					for k := 0; k <= i; k++ {
						s += float64(v[k*33+j])
					}
				}
				if g := got[i*33+j]; float32(g) != float32(s) {
					t.Fatalf("dim %d: [%d,%d] = %v, want %v", dim, i, j, g, float32(s))
				}
			}
		}
	}
}

// A float16/bfloat16 sum whose reduced elements do not coalesce into one
// row of TensorIterator's loop rounds each row's sum and the running
// result to the dtype, as 1.13's cascade_sum (values from torch 1.13; the
// exactly rounded sums are -0.408203125 and -20.0).
func TestSumReducedRowRounding(t *testing.T) {
	x := tensor.FromSlice([]float64{4.03125, -3.8515625, 3.671875, -6.5546875, 1.373046875, -2.328125,
		-3.560546875, 7.76171875, 4.0625, -3.8046875, 5.0703125, -6.796875}, 3, 2, 1, 2).To(tensor.Float16)
	y := tensor.Call("aten::sum.dim_IntList", x, []int{0, -1}, true).(*tensor.Tensor)
	if got := y.Float64s(); !slices.Equal(got, []float64{-0.517578125, -0.40625}) || !slices.Equal(y.Sizes(), []int{1, 2, 1, 1}) {
		t.Errorf("float16 sum over dims 0, 3 = %v %v, want [-0.517578125 -0.40625] [1 2 1 1]", got, y.Sizes())
	}
	b := tensor.FromSlice([]float64{-2.359375, -8.9375, -4.21875, 0.1728515625, 1.484375, -1.2890625,
		-1.0234375, -5.84375, 4.625, -2.171875, -6.15625, -2.171875}, 3, 4).To(tensor.BFloat16)
	b = tensor.Call("aten::slice.Tensor", b, 1, 0, 3).(*tensor.Tensor)
	s := tensor.Call("aten::sum.dim_IntList", b, []int{0, 1}).(*tensor.Tensor)
	if got := s.Float64s(); !slices.Equal(got, []float64{-20.125}) {
		t.Errorf("bfloat16 sum of a [3,3] slice = %v, want [-20.125]", got)
	}
}

// TestReduceOuterAndInnerDims: a float32 sum over leading and trailing dims
// around kept ones (NCHW over 0, 2, 3: bias gradients and batch norm's
// sums) agrees with a float64 sum rounded to float32, for shapes that take
// the row-sum path, fall back from it (short rows, a kept dim after the
// rows) or split the kept elements among goroutines.
func TestReduceOuterAndInnerDims(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 27))
	cases := []struct {
		shape []int
		dims  []int
	}{
		{[]int{8, 16, 28, 28}, []int{0, 2, 3}},
		{[]int{2, 3, 4, 17}, []int{0, 2, 3}},
		{[]int{3, 1, 5, 1, 40}, []int{0, 4}},
		{[]int{4, 6, 3}, []int{0, 2}},              // rows too short
		{[]int{2, 3, 40, 5}, []int{0, 2}},          // a kept dim after the rows
		{[]int{2, 300, 2, 64}, []int{0, 2, 3}},     // enough kept rows to split
		{[]int{3, 2, 5, 7, 33}, []int{0, 1, 3, 4}}, // two outer, two inner dims
	}
	for _, c := range cases {
		n := 1
		for _, s := range c.shape {
			n *= s
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		x := tensor.FromSlice(v, c.shape...)
		got := tensor.Call("aten::sum.dim_IntList", x, c.dims).(*tensor.Tensor).Float64s()
		red := make([]bool, len(c.shape))
		for _, d := range c.dims {
			red[d] = true
		}
		want := make([]float64, len(got))
		idx := make([]int, len(c.shape))
		for i := range v {
			k := 0
			for d, s := range c.shape {
				if !red[d] {
					k = k*s + idx[d]
				}
			}
			want[k] += float64(v[i])
			for d := len(idx) - 1; d >= 0; d-- {
				if idx[d]++; idx[d] < c.shape[d] {
					break
				}
				idx[d] = 0
			}
		}
		for k := range want {
			if float32(got[k]) != float32(want[k]) {
				t.Fatalf("%v over %v: sum[%d] = %v, want %v", c.shape, c.dims, k, got[k], float32(want[k]))
			}
		}
	}
}
