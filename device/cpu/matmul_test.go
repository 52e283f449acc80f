package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.FromSlice(v, shape...) }

func randF64(r *rand.Rand, shape ...int) *tensor.Tensor {
	v := make([]float64, tensor.Numel(shape))
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return tensor.FromSlice(v, shape...)
}

// TestLinalgBadInputs checks PyTorch's messages for misuse of the linalg ops.
func TestLinalgBadInputs(t *testing.T) {
	a23 := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	a45 := tensor.Empty(tensor.Float32, 4, 5)
	x := tensor.Empty(tensor.Float32, 1, 2, 5, 5)
	w := tensor.Empty(tensor.Float32, 3, 2, 3, 3)
	cases := []struct {
		op     string
		args   []any
		kwargs map[string]any
		kind   tensor.ErrorKind
		want   string
	}{
		{"aten::mm.default", []any{a23, a45}, nil, tensor.RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"},
		{"aten::mm.default", []any{tensor.Empty(tensor.Float32, 3), a45}, nil, tensor.RuntimeError, "self must be a matrix"},
		{"aten::mm.default", []any{a23, tensor.Empty(tensor.Float64, 3, 4)}, nil, tensor.RuntimeError, "expected scalar type Float but found Double"},
		{"aten::mm.default", []any{tensor.Empty(tensor.Bool, 2, 3), tensor.Empty(tensor.Bool, 3, 2)}, nil, tensor.RuntimeError, `"addmm_impl_cpu_" not implemented for 'Bool'`},
		{"aten::bmm.default", []any{tensor.Empty(tensor.Float32, 2, 3, 4), tensor.Empty(tensor.Float32, 3, 4, 5)}, nil, tensor.RuntimeError,
			"Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4]."},
		{"aten::bmm.default", []any{a23, a45}, nil, tensor.RuntimeError, "batch1 must be a 3D tensor"},
		{"aten::addmm.default", []any{tensor.Empty(tensor.Float32, 5), a23, tensor.Empty(tensor.Float32, 3, 4)}, nil, tensor.RuntimeError,
			"The expanded size of the tensor (4) must match the existing size (5) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]"},
		{"aten::addmm.default", []any{tensor.Empty(tensor.Float64, 2, 4), a23, tensor.Empty(tensor.Float32, 3, 4)}, nil, tensor.RuntimeError, "self and mat2 must have the same dtype"},
		{"aten::addmm.default", []any{tensor.Empty(tensor.Int64, 2, 4), tensor.Empty(tensor.Int64, 2, 3), tensor.Empty(tensor.Int64, 3, 4)},
			map[string]any{"beta": math.NaN()}, tensor.RuntimeError, "value cannot be converted to type int64_t without overflow"},
		{"aten::convolution.default", []any{x, tensor.Empty(tensor.Float32, 3, 2, 2, 3, 3), nil, []int{1, 1}, []int{0}, []int{1}, false, []int{0}, 1}, nil, tensor.RuntimeError,
			"expected stride to be a single integer value or a list of 3 values to match the convolution dimensions, but got stride=[1, 1]"},
		{"aten::convolution.default", []any{x, w, nil, []int{1}, []int{0}, []int{1}, false, []int{0}, 2}, nil, tensor.RuntimeError,
			"Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 3, 3]] instead"},
		{"aten::convolution.default", []any{tensor.Empty(tensor.Float32, 1, 3, 5, 5), w, nil, []int{1}, []int{0}, []int{1}, false, []int{0}, 1}, nil, tensor.RuntimeError,
			"Given groups=1, weight of size [3, 2, 3, 3], expected input[1, 3, 5, 5] to have 2 channels, but got 3 channels instead"},
		{"aten::convolution.default", []any{tensor.Empty(tensor.Float32, 1, 2, 2, 2), w, nil, []int{1}, []int{0}, []int{1}, false, []int{0}, 1}, nil, tensor.RuntimeError,
			"Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual input size"},
		{"aten::convolution.default", []any{x, tensor.Empty(tensor.Float32, 2, 3, 3, 3), nil, []int{1}, []int{0}, []int{1}, true, []int{1}, 1}, nil, tensor.RuntimeError,
			"output padding must be smaller than either stride or dilation, but got output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1"},
		{"aten::convolution.default", []any{x, tensor.Empty(tensor.Float64, 3, 2, 3, 3), nil, []int{1}, []int{0}, []int{1}, false, []int{0}, 1}, nil, tensor.RuntimeError,
			"expected scalar type Float but found Double"},
		// A transposed convolution reads its bias as the input's type.
		{"aten::convolution.default", []any{x, tensor.Empty(tensor.Float32, 2, 3, 3, 3), tensor.Empty(tensor.Float64, 3), []int{1}, []int{0}, []int{1}, true, []int{0}, 1}, nil, tensor.RuntimeError,
			"expected scalar type Float but found Double"},
		{"aten::convolution_backward.default", []any{tensor.Empty(tensor.Float32, 1, 3, 2, 3), x, w, []int{3}, []int{1}, []int{0}, []int{1}, false, []int{0}, 1, []bool{true, true, true}}, nil,
			tensor.RuntimeError, "Expected a tensor of dimension 4 and tensor.size[2] == 3 but got: dimension 4 and tensor.size[2] = 2"},
		{"aten::_cdist_forward.default", []any{tensor.Empty(tensor.Float32, 3, 2), tensor.Empty(tensor.Float32, 4, 3), 2.0, nil}, nil, tensor.RuntimeError,
			"X1 and X2 must have the same number of columns. X1: 2 X2: 3"},
		{"aten::_cdist_forward.default", []any{tensor.Empty(tensor.Float32, 3, 2), tensor.Empty(tensor.Float32, 4, 2), -1.0, nil}, nil, tensor.RuntimeError,
			"cdist only supports non-negative p values"},
		{"aten::_cdist_forward.default", []any{tensor.Empty(tensor.Int64, 3, 2), tensor.Empty(tensor.Float32, 4, 2), 2.0, nil}, nil, tensor.RuntimeError,
			"cdist only supports floating-point dtypes, X1 got: Long"},
		{"aten::_pdist_forward.default", []any{tensor.Empty(tensor.Float32, 4), 2.0}, nil, tensor.IndexError,
			"Dimension out of range (expected to be in range of [-1, 0], but got 1)"},
		{"aten::col2im.default", []any{tensor.Empty(tensor.Float32, 1, 5, 4), []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{0, 0}, []int{1, 1}}, nil, tensor.RuntimeError,
			"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=5 and kernel_size=(2, 2)."},
		{"aten::col2im.default", []any{tensor.Empty(tensor.Int64, 1, 4, 4), []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{0, 0}, []int{1, 1}}, nil, tensor.RuntimeError,
			`"col2im_out_cpu" not implemented for 'Long'`},
		{"aten::_fft_r2c.default", []any{tensor.Empty(tensor.Float32, 8), []int{0}, 0, true}, nil, tensor.NotImplementedError, `aten::_fft_r2c has no lowering on device "cpu" and no decomposition`},
	}
	for _, c := range cases {
		_, err := tensor.CallErr(c.op, c.args, c.kwargs)
		e, ok := tensor.AsError(err)
		if !ok {
			t.Errorf("%s: want error %q, got %v", c.op, c.want, err)
			continue
		}
		if e.Kind != c.kind || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%s: want %s %q, got %s %q", c.op, c.kind, c.want, e.Kind, e.Msg)
		}
	}
}

var linalgOps = map[string]bool{
	"aten::mm.default": true, "aten::bmm.default": true, "aten::addmm.default": true,
	"aten::convolution.default": true, "aten::convolution_backward.default": true,
	"aten::_cdist_forward.default": true, "aten::_pdist_forward.default": true, "aten::col2im.default": true,
}

// TestLinalgGoldenErrors replays the recorded PyTorch errors of the linalg
// ops and expects the same exception kind and message.
func TestLinalgGoldenErrors(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "golden", "errors.jsonl.gz")
	if d := os.Getenv("GOLDEN_DIR"); d != "" {
		path = filepath.Join(d, "errors.jsonl")
	}
	recs, err := golden.Load(path)
	if err != nil {
		if os.Getenv("GOLDEN_DIR") != "" && os.IsNotExist(err) {
			t.Skipf("GOLDEN_DIR has no errors.jsonl: %v", err)
		}
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if !linalgOps[r.Op] {
			continue
		}
		n++
		op := tensor.MustOp(r.Op)
		args, kw, err := golden.Args(op, r, tensor.CPU)
		if err != nil {
			t.Errorf("%s (%s): decoding: %v", r.Op, r.Source, err)
			continue
		}
		_, err = tensor.CallErr(r.Op, args, kw)
		e, ok := tensor.AsError(err)
		switch {
		case !ok:
			t.Errorf("%s (%s): want %s %q, got %v", r.Op, r.Source, r.ErrorType, r.ErrorMessage, err)
		case e.Kind.String() != r.ErrorType || e.Msg != r.ErrorMessage:
			t.Errorf("%s (%s): want %s %q,\n\tgot %s %q", r.Op, r.Source, r.ErrorType, r.ErrorMessage, e.Kind, e.Msg)
		}
	}
	t.Logf("%d linalg error records replayed", n)
}

func TestMMValues(t *testing.T) {
	a := tensor.FromSlice([]int8{100, 2, 3, 4}, 2, 2)
	b := tensor.FromSlice([]int8{2, 1, 1, 1}, 2, 2)
	got := tensor.Call("aten::mm.default", a, b).(*tensor.Tensor)
	// int8 arithmetic wraps: 100·2 + 2·1 = 202 → -54.
	if want := []int64{-54, 102, 10, 7}; fmt.Sprint(got.Int64s()) != fmt.Sprint(want) {
		t.Errorf("int8 mm: got %v, want %v", got.Int64s(), want)
	}
	// beta = 0 ignores NaN in self; self broadcasts.
	self := tensor.FromSlice([]float64{math.NaN()}, 1)
	x := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	got = self.Addmm(x, x, tensor.WithBeta(0))
	if want := []float64{7, 10, 15, 22}; fmt.Sprint(got.Float64s()) != fmt.Sprint(want) {
		t.Errorf("addmm beta=0: got %v, want %v", got.Float64s(), want)
	}
}

// naiveMM is the reference product in float64.
func naiveMM(a, b *tensor.Tensor) []float64 {
	n, k, p := a.Size(0), a.Size(1), b.Size(1)
	out := make([]float64, n*p)
	for i := range n {
		for j := range p {
			var s float64
			for l := range k {
				s += a.At(i, l).Float64() * b.At(l, j).Float64()
			}
			out[i*p+j] = s
		}
	}
	return out
}

// TestGEMMBlocked compares the blocked and parallel GEMM paths with a naive
// product over sizes around the block edges and transposed operands.
func TestGEMMBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{1, 1, 1}, {5, 7, 3}, {33, 65, 17}, {130, 300, 9}, {129, 257, 131}, {64, 1, 64}, {1, 513, 2050}} {
		n, k, p := s[0], s[1], s[2]
		a, b := randF64(r, n, k), randF64(r, p, k)
		bt := transpose(b)
		got := tensor.Call("aten::mm.default", a, bt).(*tensor.Tensor).Float64s()
		want := naiveMM(a, bt)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
				t.Fatalf("%v: element %d: got %v, want %v", s, i, got[i], want[i])
			}
		}
	}
}

func transpose(t *tensor.Tensor) *tensor.Tensor {
	return tensor.NewMeta([]int{t.Size(1), t.Size(0)}, []int{t.Stride(1), t.Stride(0)}, t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw())
}

func BenchmarkMM(b *testing.B) {
	for _, n := range []int{64, 256, 512} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			r := rand.New(rand.NewPCG(3, 4))
			x := randF64(r, n, n)
			if dt == tensor.Float32 {
				v := make([]float32, n*n)
				for i, f := range x.Float64s() {
					v[i] = float32(f)
				}
				x = tensor.FromSlice(v, n, n)
			}
			b.Run(fmt.Sprintf("cpu/mm/%s/%d", dt, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tensor.Call("aten::mm.default", x, x)
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestPdistNegativeInf: 1.13's _pdist_forward tests std::isinf(p), so p =
// -inf (which pdist rejects before calling it) is the Chebyshev distance too.
func TestPdistNegativeInf(t *testing.T) {
	x := f32([]int{3, 2}, 0, 0, 1, -3, 2, 2)
	want := []float64{3, 2, 5}
	for _, p := range []float64{math.Inf(1), math.Inf(-1)} {
		got := binCall(t, "aten::_pdist_forward.default", nil, x, p).Float64s()
		if !slices.Equal(got, want) {
			t.Errorf("p = %v: got %v, want %v", p, got, want)
		}
	}
}

// Distances of float32 inputs are computed in float32, as 1.13: a
// coordinate difference whose p-th power overflows gives +Inf where the
// float64 result would be finite (values from torch 1.13).
func TestDistFloat32Overflow(t *testing.T) {
	inf := math.Inf(1)
	a, b := f32([]int{2, 2}, 1e30, 0, 1, 2), f32([]int{2, 2}, 0, 0, 3, 1)
	if got := binCall(t, "aten::_cdist_forward.default", nil, a, b, 3.0, nil).Float64s(); got[0] != inf || got[1] != inf || math.Abs(got[2]-2.0800838470458984) > 1e-6 {
		t.Errorf("cdist p = 3: %v, want [+Inf +Inf 2.0800838 2.0800838]", got)
	}
	a = f32([]int{2, 2}, 1e20, 0, 1, 2)
	if got := binCall(t, "aten::_cdist_forward.default", nil, a, b, 2.0, nil).Float64s(); got[0] != inf || got[1] != inf {
		t.Errorf("cdist p = 2: %v, want +Inf first", got)
	}
	x := f32([]int{3, 2}, 1e27, 0, 0, 0, 1e-30, 1)
	if got := binCall(t, "aten::_pdist_forward.default", nil, x, 1.5).Float64s(); !slices.Equal(got, []float64{inf, inf, 1}) {
		t.Errorf("pdist p = 1.5: %v, want [+Inf +Inf 1]", got)
	}
}

// TestBMMOverwrites: bmm writes its uninitialized result whole on every
// path of the batched GEMM (serial, across the batch, one batch at a time
// in parallel; BLAS layouts through the assembly GEMM with beta = 0, other
// layouts and integers cleared first; an empty inner dim), as a naive
// product says (GOATEN_POISON=1 fills the result with 0xff first).
func TestBMMOverwrites(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][4]int{{3, 5, 7, 4}, {4, 40, 50, 60}, {1, 130, 140, 150}, {2, 3, 0, 4}, {5, 33, 17, 65}} {
		bs, n, k, p := s[0], s[1], s[2], s[3]
		for _, layout := range []string{"contiguous", "strided"} {
			for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32, tensor.Int64} {
				a := randF64(r, bs, n, k).MulScalar(4).Floor().To(dt)
				b := randF64(r, bs, k, p).MulScalar(4).Floor().To(dt)
				if layout == "strided" && k > 0 {
					// The same values as a view of every other element (no BLAS layout).
					a = tensor.Stack([]*tensor.Tensor{a, a}, tensor.WithDim(3)).Reshape([]int{bs, n, 2 * k}).Slice(tensor.WithDim(2), tensor.WithStart(0), tensor.WithEnd(2*k), tensor.WithStep(2))
				}
				got := tensor.Call("aten::bmm.default", a, b).(*tensor.Tensor)
				for i := range bs {
					want := naiveMM(a.Select(0, i), b.Select(0, i))
					g := got.Select(0, i).Float64s()
					for j := range want {
						if math.Abs(g[j]-want[j]) > 1e-3*(1+math.Abs(want[j])) {
							t.Fatalf("%v %s %v batch %d element %d: got %v, want %v", s, layout, dt, i, j, g[j], want[j])
						}
					}
				}
			}
		}
	}
}

// TestBMMBatchesAcrossCores: a batch of small products shared among
// goroutines one product at a time (below and above the threshold at which
// parked helpers are woken) gives each product the bits of mm on that
// product alone, with GOMAXPROCS 1 and 2.
func TestBMMBatchesAcrossCores(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, s := range [][4]int{{9, 64, 32, 64}, {64, 128, 32, 128}, {7, 100, 130, 90}} {
		bs, n, k, p := s[0], s[1], s[2], s[3]
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			a, b := randF64(r, bs, n, k).To(dt), randF64(r, bs, k, p).To(dt)
			for _, procs := range []int{1, 2} {
				prev := runtime.GOMAXPROCS(procs)
				got := tensor.Call("aten::bmm.default", a, b).(*tensor.Tensor)
				runtime.GOMAXPROCS(prev)
				for i := range bs {
					want := tensor.Call("aten::mm.default", a.Select(0, i), b.Select(0, i)).(*tensor.Tensor).Float64s()
					g := got.Select(0, i).Float64s()
					for j := range want {
						if math.Float64bits(g[j]) != math.Float64bits(want[j]) {
							t.Fatalf("%v %v procs=%d batch %d element %d: got %v, want %v (mm)", s, dt, procs, i, j, g[j], want[j])
						}
					}
				}
			}
		}
	}
}
