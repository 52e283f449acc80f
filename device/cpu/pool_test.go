package cpu_test

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

func poolArange(n int, shape ...int) *tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return tensor.FromSlice(v, shape...)
}

func TestPoolBadInputs(t *testing.T) {
	x4 := poolArange(16, 1, 1, 4, 4)
	x2 := poolArange(16, 4, 4)
	grid := tensor.FromSlice(make([]float32, 8), 1, 2, 2, 2)
	cases := []struct {
		op   string
		args []any
		want string
	}{
		{"aten::max_pool2d_with_indices.default", []any{x4, []int{2, 2}, []int{1, 1}, []int{2, 2}},
			"pad should be at most half of kernel size, but got pad=2 and kernel_size=2"},
		{"aten::max_pool2d_with_indices.default", []any{x4, []int{2, 2}, []int{0, 0}},
			"stride should not be zero"},
		{"aten::max_pool2d_with_indices.default", []any{x4, []int{2, 2}, []int{1, 1}, []int{0, 0}, []int{0, 1}},
			"dilation should be greater than zero, but got dilationH: 0 dilationW: 1"},
		{"aten::max_pool2d_with_indices.default", []any{x2, []int{2, 2}},
			"non-empty 3D or 4D (batch mode) tensor expected for input"},
		{"aten::max_pool2d_with_indices.default", []any{x4, []int{5, 5}},
			"Given input size: (1x4x4). Calculated output size: (1x0x0). Output size is too small"},
		{"aten::avg_pool2d.default", []any{x4, []int{2, 2}, []int{}, []int{0}, false, true, 0},
			"divisor must be not zero"},
		{"aten::avg_pool2d.default", []any{x4, []int{2, 2}, []int{1, 1}, []int{-1}},
			"pad must be non-negative, but got pad: -1"},
		{"aten::avg_pool2d.default", []any{x2, []int{2, 2}},
			"Dimension out of range (expected to be in range of [-2, 1], but got -3)"},
		{"aten::avg_pool2d.default", []any{tensor.FromSlice([]bool{true, false, true, false}, 1, 1, 2, 2), []int{2, 2}},
			`"avg_pool2d" not implemented for 'Bool'`},
		{"aten::avg_pool1d.default", []any{poolArange(8, 1, 2, 4), []int{2, 2}},
			"avg_pool1d() argument 'kernel_size' should contain one int (got 2)"},
		{"aten::avg_pool3d.default", []any{poolArange(8, 1, 2, 2, 2), []int{3, 3, 3}, []int{1}, []int{1}},
			"input image (T: 2 H: 2 W: 2) smaller than kernel size (kT: 3 kH: 3 kW: 3)"},
		{"aten::max_pool3d_with_indices.default", []any{poolArange(8, 1, 2, 2, 2), []int{2, 2}},
			"max_pool3d: kernel_size must either be a single int, or a tuple of three ints"},
		{"aten::_adaptive_avg_pool2d.default", []any{tensor.FromSlice(make([]float32, 0), 1, 1, 0, 4), []int{2, 2}},
			"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 1, 0, 4] with dimension 2 being empty"},
		{"aten::_adaptive_avg_pool3d.default", []any{x4, []int{2, 2}},
			"adaptive_avg_pool3d: output_size must be 3"},
		{"aten::adaptive_avg_pool1d.default", []any{tensor.FromSlice([]int64{1, 2, 3}, 1, 3), []int{1}},
			"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long"},
		{"aten::_adaptive_avg_pool2d_backward.default", []any{poolArange(4, 1, 2, 2), tensor.FromSlice(make([]float64, 16), 1, 4, 4)},
			"expected dtype double for `grad_output` but got dtype float"},
		{"aten::max_pool2d_with_indices_backward.default", []any{poolArange(4, 1, 1, 2, 2), x4, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1}, false,
			tensor.FromSlice([]int32{0, 0, 0, 0}, 1, 1, 2, 2)},
			"expected scalar type Long but found Int"},
		{"aten::max_pool2d_with_indices_backward.default", []any{poolArange(4, 1, 1, 2, 2), x4, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1}, false,
			tensor.FromSlice([]int64{0, 99, 0, 0}, 1, 1, 2, 2)},
			"index 99 is out of bounds"},
		{"aten::upsample_nearest2d.vec", []any{x4, []int{3, 3}, []float64{1, 1}},
			"Must specify exactly one of output_size and scale_factors"},
		{"aten::upsample_nearest2d.vec", []any{x4, nil, []float64{0.1, 0.1}},
			"Input and output sizes should be greater than 0, but got input (H: 4, W: 4) output (H: 0, W: 0)"},
		{"aten::upsample_bilinear2d.vec", []any{tensor.FromSlice([]int64{1, 2, 3, 4}, 1, 2, 1, 2), []int{2, 2}, false, nil},
			`"compute_indices_weights_linear" not implemented for 'Long'`},
		{"aten::grid_sampler_2d.default", []any{poolArange(9, 1, 3, 3), grid, 0, 0, false},
			"grid_sampler(): expected grid to have size 1 in last dimension, but got grid with sizes [1, 2, 2, 2]"},
		{"aten::grid_sampler_2d.default", []any{poolArange(9, 1, 1, 3, 3), tensor.FromSlice(make([]float64, 8), 1, 2, 2, 2), 0, 0, false},
			"expected scalar type Float but found Double"},
		{"aten::grid_sampler_2d.default", []any{poolArange(18, 2, 1, 3, 3), grid, 0, 0, false},
			"grid_sampler(): expected grid and input to have same batch size"},
	}
	for _, c := range cases {
		_, err := tensor.CallErr(c.op, c.args, nil)
		if err == nil {
			t.Errorf("%s%v: no error, want %q", c.op, c.args[1:], c.want)
			continue
		}
		if _, ok := tensor.AsError(err); !ok {
			t.Errorf("%s: error %v is not a *tensor.Error", c.op, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %q\n want %q", c.op, err.Error(), c.want)
		}
	}
}

func poolFloats(t *testing.T, v any) []float64 {
	t.Helper()
	return v.(*tensor.Tensor).Float64s()
}

func TestMaxPoolValues(t *testing.T) {
	nan := float32(math.NaN())
	// NaN is the maximum (the last one of a window wins); among ties the first wins.
	x := tensor.FromSlice([]float32{1, nan, 3, nan, 5, 5, 2, 1}, 1, 1, 2, 4)
	res := tensor.Call("aten::max_pool2d_with_indices.default", x, []int{1, 4}).([]*tensor.Tensor)
	if got := res[0].Float64s(); !math.IsNaN(got[0]) || got[1] != 5 {
		t.Errorf("values %v, want [NaN 5]", got)
	}
	if got := res[1].Int64s(); got[0] != 3 || got[1] != 4 {
		t.Errorf("indices %v, want [3 4]", got)
	}
	// Dilation and padding: indices are flat offsets in each input plane.
	y := poolArange(32, 2, 1, 4, 4)
	res = tensor.Call("aten::max_pool2d_with_indices.default", y, []int{2, 2}, []int{2, 2}, []int{1, 1}, []int{2, 2}, true).([]*tensor.Tensor)
	if got, want := res[1].Int64s(), []int64{5, 7, 7, 13, 15, 15, 13, 15, 15, 5, 7, 7, 13, 15, 15, 13, 15, 15}; !slices.Equal(got, want) {
		t.Errorf("dilated indices %v, want %v", got, want)
	}
}

// TestMaxPool2x2 checks the 2×2, stride-2 kernel (maxPool2x2) against a
// scan of each window in order (NaN wins, the last NaN of a window; among
// ties the first), over planes with NaN, −Inf, ±0 and ties, even and odd
// sizes (floor mode drops the last row or column), float32 and float64,
// and the same pools in ceil mode, which take the general kernel.
func TestMaxPool2x2(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	vals := []float64{math.NaN(), math.Inf(-1), 0, math.Copysign(0, -1), 1, 1, 2, -3}
	for _, sh := range [][2]int{{4, 6}, {5, 7}, {2, 2}, {3, 9}} {
		for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} {
			for _, ceil := range []bool{false, true} {
				H, W := sh[0], sh[1]
				planes := 3
				v := make([]float64, planes*H*W)
				for i := range v {
					v[i] = vals[r.Intn(len(vals))]
				}
				x := tensor.FromSlice(v, 1, planes, H, W).To(d)
				res := tensor.Call("aten::max_pool2d_with_indices.default", x, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1}, ceil).([]*tensor.Tensor)
				OH, OW := H/2, W/2
				if ceil {
					OH, OW = (H+1)/2, (W+1)/2
				}
				if got := res[0].Sizes(); !slices.Equal(got, []int{1, planes, OH, OW}) {
					t.Fatalf("%v %s ceil=%v: shape %v", sh, d, ceil, got)
				}
				gv, gi := res[0].Float64s(), res[1].Int64s()
				for p := range planes {
					for oh := range OH {
						for ow := range OW {
							best, bi := math.Inf(-1), int64((2*oh)*W+2*ow)
							for h := 2 * oh; h < min(2*oh+2, H); h++ {
								for w := 2 * ow; w < min(2*ow+2, W); w++ {
									if x := v[(p*H+h)*W+w]; x > best || x != x {
										best, bi = x, int64(h*W+w)
									}
								}
							}
							k := (p*OH+oh)*OW + ow
							same := gv[k] == best && math.Signbit(gv[k]) == math.Signbit(best) || math.IsNaN(gv[k]) && math.IsNaN(best)
							if !same || gi[k] != bi {
								t.Fatalf("%v %s ceil=%v: plane %d (%d,%d): %v at %d, want %v at %d", sh, d, ceil, p, oh, ow, gv[k], gi[k], best, bi)
							}
						}
					}
				}
			}
		}
	}
}

func TestAvgPoolValues(t *testing.T) {
	x := poolArange(16, 1, 1, 4, 4)
	cases := []struct {
		name string
		args []any
		want []float64
	}{
		{"count_include_pad", []any{x, []int{2, 2}, []int{2, 2}, []int{1, 1}, false, true, nil},
			[]float64{0, 0.75, 0.75, 3, 7.5, 4.5, 3, 6.75, 3.75}},
		{"exclude_pad", []any{x, []int{2, 2}, []int{2, 2}, []int{1, 1}, false, false, nil},
			[]float64{0, 1.5, 3, 6, 7.5, 9, 12, 13.5, 15}},
		{"divisor", []any{x, []int{2, 2}, []int{}, []int{0}, false, true, -2},
			[]float64{-5, -9, -21, -25}},
		{"ceil_mode", []any{x, []int{3, 3}, []int{2, 2}, []int{0}, true, true, nil},
			[]float64{5, 6.5, 11, 12.5}},
	}
	for _, c := range cases {
		got := poolFloats(t, tensor.Call("aten::avg_pool2d.default", c.args...))
		if !sameF64(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// int64 divides with truncation.
	xi := tensor.FromSlice([]int64{-3, 0, 4, 0}, 1, 1, 1, 4)
	got := tensor.Call("aten::avg_pool2d.default", xi, []int{1, 2}).(*tensor.Tensor).Int64s()
	if !slices.Equal(got, []int64{-1, 2}) {
		t.Errorf("int64 avg_pool2d: got %v, want [-1 2]", got)
	}
}

func TestUpsampleNearestIndexRule(t *testing.T) {
	// 4 -> 6 reads floor(i * 4/6): 0 0 1 2 2 3.
	x := tensor.FromSlice([]float32{0, 1, 2, 3, 0, 1, 2, 3}, 1, 2, 1, 4)
	got := poolFloats(t, tensor.Call("aten::upsample_nearest2d.vec", x, []int{1, 6}, nil))
	want := []float64{0, 0, 1, 2, 2, 3, 0, 0, 1, 2, 2, 3}
	if !sameF64(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestGridSamplerModes(t *testing.T) {
	x := poolArange(12, 1, 1, 3, 4)
	g := tensor.FromSlice([]float32{0, 0, 5, 0, -0.5, 0.5}, 1, 1, 3, 2)
	cases := []struct {
		mode, pad int
		align     bool
		want      []float64
	}{
		{0, 0, false, []float64{5.5, 0, 7.5}},
		{0, 1, false, []float64{5.5, 7, 7.5}},
		{1, 1, true, []float64{6, 7, 9}},
		{2, 2, false, []float64{5.5, 7.1875, 7.640625}},
	}
	for _, c := range cases {
		got := poolFloats(t, tensor.Call("aten::grid_sampler_2d.default", x, g, c.mode, c.pad, c.align))
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-5 {
				t.Errorf("mode %d pad %d align %v: got %v, want %v", c.mode, c.pad, c.align, got, c.want)
				break
			}
		}
	}
}

// TestPoolErrorRecords replays the golden error records of this family:
// every call must fail with a *tensor.Error carrying PyTorch's message.
func TestPoolErrorRecords(t *testing.T) {
	recs, err := golden.Load(filepath.Join("..", "..", "testdata", "golden", "errors.jsonl.gz"))
	if err != nil {
		t.Fatal(err) // the records are part of the repository
	}
	family := regexp.MustCompile(`^aten::(_?adaptive_avg_pool\dd|avg_pool\dd|max_pool\dd_with_indices|upsample_\w+2d|grid_sampler_2d)`)
	n := 0
	for _, r := range recs {
		if !family.MatchString(r.Op) {
			continue
		}
		n++
		op, ok := tensor.LookupOp(r.Op)
		if !ok {
			t.Errorf("%s: not registered", r.Op)
			continue
		}
		args, kw, err := golden.Args(op, r, tensor.CPU)
		if err != nil {
			t.Errorf("line %d: %v", r.Line, err)
			continue
		}
		_, err = tensor.CallErr(r.Op, args, kw)
		if err == nil {
			t.Errorf("line %d %s (%s): no error, want %q", r.Line, r.Op, r.Source, r.ErrorMessage)
			continue
		}
		if e, ok := tensor.AsError(err); !ok || e.Msg != r.ErrorMessage {
			t.Errorf("line %d %s (%s):\n got  %q\n want %q", r.Line, r.Op, r.Source, err, r.ErrorMessage)
		}
	}
	if n == 0 {
		t.Error("no error records for the pool family")
	}
}

// TestPoolRandomArgs calls the family's ops with random, mostly invalid
// arguments: each call must return or fail with a *tensor.Error, never
// panic otherwise.
func TestPoolRandomArgs(t *testing.T) {
	defer func(m int) { tensor.MaxElements = m }(tensor.MaxElements)
	tensor.MaxElements = 1 << 22
	r := rand.New(rand.NewSource(1))
	dts := []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.BFloat16, tensor.Float16, tensor.Bool, tensor.Uint8, tensor.Int32}
	ri := func() int {
		switch r.Intn(30) {
		case 0:
			return -r.Intn(3)
		case 1:
			return 1 << (30 + r.Intn(33))
		case 2:
			return -(1 << (30 + r.Intn(33)))
		}
		return r.Intn(5)
	}
	rl := func() []int {
		n := r.Intn(5)
		v := make([]int, n)
		for i := range v {
			v[i] = ri()
		}
		return v
	}
	mk := func() *tensor.Tensor {
		rank := r.Intn(7)
		if r.Intn(3) > 0 {
			rank = 3 + r.Intn(3)
		}
		sh := make([]int, rank)
		for i := range sh {
			sh[i] = r.Intn(5)
		}
		d := dts[r.Intn(len(dts))]
		x := tensor.Empty(d, sh...)
		return x
	}
	ops := []string{"aten::avg_pool1d.default", "aten::avg_pool2d.default", "aten::avg_pool3d.default",
		"aten::max_pool2d_with_indices.default", "aten::max_pool3d_with_indices.default", "aten::adaptive_avg_pool1d.default",
		"aten::_adaptive_avg_pool2d.default", "aten::_adaptive_avg_pool3d.default", "aten::_adaptive_avg_pool2d_backward.default",
		"aten::avg_pool2d_backward.default", "aten::max_pool2d_with_indices_backward.default", "aten::upsample_nearest2d.vec",
		"aten::upsample_bilinear2d.vec", "aten::grid_sampler_2d.default"}
	for it := 0; it < 30000; it++ {
		op := tensor.MustOp(ops[r.Intn(len(ops))])
		args := []any{}
		for _, a := range op.Schema.Args {
			var v any
			switch a.Type.String() {
			case "Tensor":
				v = mk()
			case "bool":
				v = r.Intn(2) == 0
			case "int":
				v = ri() % 4
			case "int?":
				if r.Intn(2) == 0 {
					v = nil
				} else {
					v = ri()
				}
			case "float[]?":
				if r.Intn(3) == 0 {
					v = nil
				} else {
					n := r.Intn(4)
					f := make([]float64, n)
					for i := range f {
						f[i] = []float64{0, -1, 0.5, 1.5, 2, 1e30, 1e-30}[r.Intn(7)]
					}
					v = f
				}
			default:
				if a.Type.Kind == tensor.TOptional && r.Intn(3) == 0 {
					v = nil
				} else {
					v = rl()
				}
			}
			args = append(args, v)
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%s %v: panic %v", op.Name, args, p)
				}
			}()
			tensor.CallErr(op.Name, args, nil)
		}()
	}
}

// TestGlobalAdaptiveAvgPool: _adaptive_avg_pool2d to one element per plane
// (planes eight at a time, then the rest) adds each plane's elements in
// order in the dtype and divides by the height, then the width, as 1.13's
// kernel does, for float32 and float64 and a plane count that is not a
// multiple of 8.
func TestGlobalAdaptiveAvgPool(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const planes, h, w = 19, 5, 7
	v := make([]float64, planes*h*w)
	for i := range v {
		v[i] = r.NormFloat64() * math.Pow(10, float64(r.Intn(7)-3))
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		x := tensor.FromSlice(v, 1, planes, h, w).To(dt)
		xv := x.Float64s()
		got := tensor.Call("aten::_adaptive_avg_pool2d.default", x, []int{1, 1}).(*tensor.Tensor).Float64s()
		for p := range planes {
			var want float64
			if dt == tensor.Float32 {
				var s float32
				for _, e := range xv[p*h*w : (p+1)*h*w] {
					s += float32(e)
				}
				want = float64(s / 1 / h / w)
			} else {
				var s float64
				for _, e := range xv[p*h*w : (p+1)*h*w] {
					s += e
				}
				want = s / 1 / h / w
			}
			if got[p] != want {
				t.Fatalf("%v plane %d: %v, want %v", dt, p, got[p], want)
			}
		}
	}
}

// TestMaxPoolGeometries checks max_pool2d_with_indices against the
// definition — the taps inside the input scanned row by row, a tap taken
// when greater or NaN, the index starting at the first one — over random
// kernels, strides, paddings, dilations and ceil modes, with ties, NaN and
// −Inf among the values, for float32 (the kernel that folds whole planes
// a tap at a time, asm.MaxIndexRowsF32) and float64 (the scalar loops).
func TestMaxPoolGeometries(t *testing.T) {
	r := rand.New(rand.NewSource(37))
	vals := []float64{math.NaN(), math.Inf(-1), 0, math.Copysign(0, -1), 1, 1, 2, -3, 0.5}
	for range 300 {
		var k, s, p, d [2]int
		for i := range 2 {
			k[i], s[i], d[i] = 1+r.Intn(4), 1+r.Intn(3), 1+r.Intn(2)
			p[i] = r.Intn(k[i]/2 + 1)
		}
		H, W := d[0]*(k[0]-1)+1+r.Intn(20), d[1]*(k[1]-1)+1+r.Intn(30)
		ceil := r.Intn(2) == 0
		planes := 1 + r.Intn(3)
		v := make([]float64, planes*H*W)
		for i := range v {
			v[i] = vals[r.Intn(len(vals))]
		}
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			x := tensor.FromSlice(v, planes, H, W).To(dt)
			res := tensor.Call("aten::max_pool2d_with_indices.default", x, k[:], s[:], p[:], d[:], ceil).([]*tensor.Tensor)
			OH, OW := res[0].Size(1), res[0].Size(2)
			gv, gi := res[0].Float64s(), res[1].Int64s()
			for pl := range planes {
				for oh := range OH {
					for ow := range OW {
						best, bi := math.Inf(-1), int64(-1)
						for a := range k[0] {
							h := oh*s[0] - p[0] + a*d[0]
							for b := range k[1] {
								w := ow*s[1] - p[1] + b*d[1]
								if h < 0 || h >= H || w < 0 || w >= W {
									continue
								}
								if bi < 0 {
									bi = int64(h*W + w)
								}
								if x := v[(pl*H+h)*W+w]; x > best || x != x {
									best, bi = x, int64(h*W+w)
								}
							}
						}
						i := (pl*OH+oh)*OW + ow
						same := gv[i] == best && math.Signbit(gv[i]) == math.Signbit(best) || math.IsNaN(gv[i]) && math.IsNaN(best)
						if !same || gi[i] != bi {
							t.Fatalf("%s %dx%d kernel %v stride %v pad %v dilation %v ceil %v: plane %d (%d,%d) is %v at %d, want %v at %d",
								dt, H, W, k, s, p, d, ceil, pl, oh, ow, gv[i], gi[i], best, bi)
						}
					}
				}
			}
		}
	}
}

// avgCase is a random 2-d average pool: kernel, stride, padding (at most
// half the kernel), ceil mode, count_include_pad and divisor_override
// (nil: none) on planes of H×W.
type avgCase struct {
	k, s, p      [2]int
	H, W, planes int
	ceil, incl   bool
	override     any
}

func randAvgCase(r *rand.Rand) avgCase {
	var c avgCase
	for i := range 2 {
		c.k[i], c.s[i] = 1+r.Intn(4), 1+r.Intn(3)
		c.p[i] = r.Intn(c.k[i]/2 + 1)
	}
	c.H, c.W = c.k[0]+r.Intn(20), c.k[1]+r.Intn(30)
	c.ceil, c.incl = r.Intn(2) == 0, r.Intn(2) == 0
	if r.Intn(3) == 0 {
		c.override = 1 + r.Intn(7)
	}
	c.planes = 1 + r.Intn(3)
	return c
}

func (c *avgCase) call(op string, a ...any) *tensor.Tensor {
	return tensor.Call(op, append(a, c.k[:], c.s[:], c.p[:], c.ceil, c.incl, c.override)...).(*tensor.Tensor)
}

// window is output (oh, ow)'s window, by definition: its rows [h0, h1) and
// columns [w0, w1) inside the input, and its divisor — divisor_override,
// the padded window's size (count_include_pad) or the count inside.
func (c *avgCase) window(oh, ow int) (h0, h1, w0, w1, div int) {
	h0, w0 = oh*c.s[0]-c.p[0], ow*c.s[1]-c.p[1]
	h1, w1 = min(h0+c.k[0], c.H+c.p[0]), min(w0+c.k[1], c.W+c.p[1])
	pool := (h1 - h0) * (w1 - w0)
	h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, c.H), min(w1, c.W)
	div = (h1 - h0) * (w1 - w0)
	if c.override != nil {
		div = c.override.(int)
	} else if c.incl {
		div = pool
	}
	return h0, h1, w0, w1, div
}

func (c *avgCase) String() string {
	return fmt.Sprintf("%dx%d kernel %v stride %v pad %v ceil %v include_pad %v divisor %v", c.H, c.W, c.k, c.s, c.p, c.ceil, c.incl, c.override)
}

// TestAvgPoolGeometries checks float32 avg_pool2d against the definition
// computed in float32 — the window's values inside the input added row by
// row from +0, then divided by the window's divisor — over random avgCases,
// the specials among the values.
func TestAvgPoolGeometries(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	vals := []float32{float32(math.NaN()), float32(math.Inf(-1)), float32(math.Inf(1)), 0, float32(math.Copysign(0, -1)), 1, 2.5, -3, 0.1}
	for range 300 {
		c := randAvgCase(r)
		v := make([]float32, c.planes*c.H*c.W)
		for i := range v {
			if r.Intn(8) == 0 {
				v[i] = vals[r.Intn(len(vals))]
			} else {
				v[i] = float32(r.NormFloat64())
			}
		}
		res := c.call("aten::avg_pool2d.default", tensor.FromSlice(v, c.planes, c.H, c.W))
		OH, OW := res.Size(1), res.Size(2)
		got := res.Float32s()
		for pl := range c.planes {
			for oh := range OH {
				for ow := range OW {
					h0, h1, w0, w1, div := c.window(oh, ow)
					var sum float32
					for h := h0; h < h1; h++ {
						for w := w0; w < w1; w++ {
							sum += v[(pl*c.H+h)*c.W+w]
						}
					}
					want := sum / float32(div)
					i := (pl*OH+oh)*OW + ow
					if math.Float32bits(got[i]) != math.Float32bits(want) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want))) {
						t.Fatalf("%v: plane %d (%d,%d) is %v, want %v", &c, pl, oh, ow, got[i], want)
					}
				}
			}
		}
	}
}

// TestMaxPoolBackwardBadIndex: an index outside its input plane is an
// IndexError naming it (1.13's check), whichever goroutine meets it.
func TestMaxPoolBackwardBadIndex(t *testing.T) {
	x := tensor.ZerosOf([]int{1, 2, 4, 4})
	g := tensor.OnesOf([]int{1, 2, 2, 2})
	idx := tensor.FromSlice([]int64{0, 1, 4, 5, 0, 99, 2, 3}, 1, 2, 2, 2)
	err := tensor.Try(func() {
		tensor.Call("aten::max_pool2d_with_indices_backward.default", g, x, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1}, false, idx)
	})
	if err == nil || !strings.Contains(err.Error(), "index 99 is out of bounds for an input plane of 16 elements") {
		t.Fatalf("err = %v", err)
	}
}

// TestAvgPoolBackwardGeometries checks float32 avg_pool2d_backward against
// the definition computed in float32 — each output's gradient over its
// divisor added to its window's inputs, outputs in order, from +0 — over
// random avgCases.
func TestAvgPoolBackwardGeometries(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	for range 300 {
		c := randAvgCase(r)
		x := tensor.ZerosOf([]int{c.planes, c.H, c.W})
		y := c.call("aten::avg_pool2d.default", x)
		OH, OW := y.Size(1), y.Size(2)
		gv := make([]float32, c.planes*OH*OW)
		for i := range gv {
			gv[i] = float32(r.NormFloat64())
		}
		got := c.call("aten::avg_pool2d_backward.default", tensor.FromSlice(gv, c.planes, OH, OW), x).Float32s()
		want := make([]float32, c.planes*c.H*c.W)
		for pl := range c.planes {
			for oh := range OH {
				for ow := range OW {
					h0, h1, w0, w1, div := c.window(oh, ow)
					delta := gv[(pl*OH+oh)*OW+ow] / float32(div)
					for h := h0; h < h1; h++ {
						for w := w0; w < w1; w++ {
							want[(pl*c.H+h)*c.W+w] += delta
						}
					}
				}
			}
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: element %d is %v, want %v", &c, i, got[i], want[i])
			}
		}
	}
}
