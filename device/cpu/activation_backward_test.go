package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// The CPU's fused activation backward ops (gelu in both forms, sigmoid,
// tanh, silu, threshold) give their decompositions' float32 results bit for
// bit (NaN/Inf/±0/tails, lengths across the chunks and the parallel split),
// and decompose what they do not take (float64, a transposed input).
func TestActivationBackwardMatchesDecomposition(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		-20, 20, -6, 6, 1e-30, -1e-30, 3.4e38, 0.5}
	cases := []struct {
		op string
		kw map[string]any
		at []any // arguments after the two tensors
	}{
		{"aten::gelu_backward", map[string]any{"approximate": "none"}, nil},
		{"aten::gelu_backward", map[string]any{"approximate": "tanh"}, nil},
		{"aten::sigmoid_backward", nil, nil},
		{"aten::tanh_backward", nil, nil},
		{"aten::silu_backward", nil, nil},
		{"aten::threshold_backward", nil, []any{tensor.Float(0)}},
		{"aten::threshold_backward", nil, []any{tensor.Float(0.5)}},
	}
	for _, c := range cases {
		op := core.Op(c.op)
		dec := op.Composite()
		for _, n := range []int{1, 7, 511, 512, 513, 3000, 1 << 17} {
			t.Run(fmt.Sprintf("%s%v%v/%d", c.op, c.kw, c.at, n), func(t *testing.T) {
				gv, xv := make([]float32, n), make([]float32, n)
				for i := range xv {
					xv[i] = float32(r.NormFloat64() * 3)
					gv[i] = float32(r.NormFloat64())
					if i < len(specials) && n > 100 {
						xv[i] = specials[i]
					}
				}
				g, x := tensor.FromSlice(gv), tensor.FromSlice(xv)
				bound := op.Bind(append([]any{g, x}, c.at...), c.kw)
				got := op.Invoke(bound).(*tensor.Tensor)
				want := dec(op, bound).(*tensor.Tensor)
				gb, wb := got.Float64s(), want.Float64s()
				for i := range gb {
					if math.Float32bits(float32(gb[i])) != math.Float32bits(float32(wb[i])) && !(gb[i] != gb[i] && wb[i] != wb[i]) {
						t.Fatalf("x=%v g=%v: %v, decomposition %v", xv[i], gv[i], gb[i], wb[i])
					}
				}
			})
		}
		// Not taken: float64, and an input that is not contiguous.
		for _, in := range [][2]*tensor.Tensor{
			{tensor.FromSlice([]float64{1, 2, 3}), tensor.FromSlice([]float64{-1, 0.5, 2})},
			{tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3), tensor.FromSlice([]float32{-1, 0, 1, 2, 3, 4}, 3, 2).T()},
		} {
			bound := op.Bind(append([]any{in[0], in[1]}, c.at...), c.kw)
			a, b := op.Invoke(bound).(*tensor.Tensor).Float64s(), dec(op, bound).(*tensor.Tensor).Float64s()
			if !sameF64(a, b) {
				t.Fatalf("%s on %s %v: %v, decomposition %v", c.op, in[1].DType(), in[1].Strides(), a, b)
			}
		}
	}
}

// The CPU's fused _softmax_backward_data and _log_softmax_backward_data give
// their decompositions' float32 results bit for bit (rows of several
// widths, a split over the pool, specials), and decompose what they do not
// take (a non-last dim, float64).
func TestSoftmaxBackwardMatchesDecomposition(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, name := range []string{"aten::_softmax_backward_data", "aten::_log_softmax_backward_data"} {
		op := core.Op(name)
		dec := op.Composite()
		for _, sh := range [][]int{{1}, {3, 7}, {2, 4, 128}, {300, 513}, {2, 1000}} {
			for _, dim := range []int{-1, 0} {
				n := 1
				for _, s := range sh {
					n *= s
				}
				gv, yv := make([]float32, n), make([]float32, n)
				for i := range gv {
					gv[i], yv[i] = float32(r.NormFloat64()), float32(r.Float64())
					if name == "aten::_log_softmax_backward_data" {
						yv[i] = -float32(r.ExpFloat64())
					}
				}
				if n > 20 {
					gv[5], yv[7] = float32(math.Inf(1)), float32(math.NaN())
				}
				g, y := tensor.FromSlice(gv, sh...), tensor.FromSlice(yv, sh...)
				args := []any{g, y, dim, tensor.Float32}
				got := tensor.Call(name, g, y, dim, tensor.Float32).(*tensor.Tensor).Float64s()
				want := dec(op, args).(*tensor.Tensor).Float64s()
				for i := range got {
					if math.Float32bits(float32(got[i])) != math.Float32bits(float32(want[i])) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s %v dim %d: [%d] = %v, decomposition %v", name, sh, dim, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// The CPU's fused silu gives its decomposition's float32 result bit for
// bit, and decomposes other inputs.
func TestSiluMatchesDecomposition(t *testing.T) {
	op := core.Op("aten::silu")
	dec := op.Composite()
	r := rand.New(rand.NewPCG(5, 1))
	for _, n := range []int{1, 513, 1 << 17} {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 10)
		}
		if n > 100 {
			copy(v, []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), -100, 100, -88.8, 1e-30})
		}
		x := tensor.FromSlice(v)
		got, want := tensor.Call("aten::silu", x).(*tensor.Tensor).Float64s(), dec(op, []any{x}).(*tensor.Tensor).Float64s()
		for i := range got {
			if math.Float32bits(float32(got[i])) != math.Float32bits(float32(want[i])) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("silu(%v) = %v, decomposition %v", v[i], got[i], want[i])
			}
		}
	}
	x64 := tensor.FromSlice([]float64{-1, 0.5, 2})
	if a, b := tensor.Call("aten::silu", x64).(*tensor.Tensor).Float64s(), dec(op, []any{x64}).(*tensor.Tensor).Float64s(); !sameF64(a, b) {
		t.Fatalf("float64 silu: %v, decomposition %v", a, b)
	}
}

// TestFusedEmptyPastStorage: an empty view whose offset lies past its
// storage's end (as_strided allows it) gives an empty result (a sweep of
// the dispatcher fuzzer sliced past the end in silu).
func TestFusedEmptyPastStorage(t *testing.T) {
	x := tensor.Empty(tensor.Float32, 0).AsStrided([]int{0}, []int{1}, tensor.WithStorageOffset(4))
	for _, c := range []struct {
		op   string
		args []any
	}{
		{"aten::silu", []any{x}},
		{"aten::silu_backward", []any{x, x}},
		{"aten::sigmoid_backward", []any{x, x}},
	} {
		r, err := tensor.CallErr(c.op, c.args, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		if got := r.(*tensor.Tensor); got.Numel() != 0 || got.Dim() != 1 {
			t.Fatalf("%s: got shape %v", c.op, got.Sizes())
		}
	}
}

// gelu_backward's erf form fails as 1.13's oneDNN kernel does when a
// contiguous float32 self of more than one element meets a grad of another
// shape; the tanh form, float64, a one-element self and a strided self
// broadcast (shapes from torch 1.13).
func TestGeluBackwardBroadcast(t *testing.T) {
	f32 := func(s ...int) *tensor.Tensor { return tensor.FullOf(tensor.Float32, 0.5, s...) }
	call := func(g, x *tensor.Tensor, approx string) (*tensor.Tensor, error) {
		var out *tensor.Tensor
		err := tensor.Try(func() {
			out = tensor.GeluBackward(g, x, tensor.WithApproximate(approx))
		})
		return out, err
	}
	for _, c := range []struct{ g, x []int }{{[]int{10}, []int{10, 10}}, {[]int{10, 10}, []int{10}}, {[]int{1}, []int{3}}} {
		if _, err := call(f32(c.g...), f32(c.x...), "none"); err == nil || !strings.Contains(err.Error(), "reorder primitive") {
			t.Errorf("grad %v, self %v: error %v, want the oneDNN reorder error", c.g, c.x, err)
		}
	}
	strided := tensor.Call("aten::t", f32(10, 10)).(*tensor.Tensor)
	for _, c := range []struct {
		g, x   *tensor.Tensor
		approx string
		want   []int
	}{
		{f32(10), f32(10, 10), "tanh", []int{10, 10}},
		{f32(10).To(tensor.Float64), f32(10, 10).To(tensor.Float64), "none", []int{10, 10}},
		{f32(3), f32(1), "none", []int{3}},
		{f32(10), strided, "none", []int{10, 10}},
	} {
		out, err := call(c.g, c.x, c.approx)
		if err != nil || !slices.Equal(out.Sizes(), c.want) {
			t.Errorf("grad %v, self %v (%s): %v, %v; want shape %v", c.g.Sizes(), c.x.Sizes(), c.approx, out, err, c.want)
		}
	}
}

// TestLoopRuleKernels pins hardtanh_backward, elu_backward and
// hardswish_backward at the inputs where 1.13's vectorized loop (two AVX2
// vectors, 8 float64 elements, an iteration) and its scalar remainder
// loop disagree: hardswish at x = 3 gives the grad or 1.5·grad, at NaN NaN
// or the grad; hardtanh at NaN 0 or the grad; elu at NaN NaN or
// grad·scale. Inputs x = [nan, 3, -3, 1, -4] (5 elements: all scalar) and
// that pattern four times (16 vectorized, 4 scalar); hardswish's values are
// torch 1.13's, hardtanh's and elu's follow its kernels as the golden
// gradient records of hardtanh and selu do (float64, NaN at 6, 7 and 8 of 9
// elements). The decomposition, called directly, is the scalar loop's rule
// on every element.
func TestLoopRuleKernels(t *testing.T) {
	nan := math.NaN()
	pattern := []float64{nan, 3, -3, 1, -4}
	cases := []struct {
		op          string
		call        func(g, x *tensor.Tensor) []any
		vec, scalar []float64
	}{
		{"aten::hardswish_backward", func(g, x *tensor.Tensor) []any { return []any{g, x} },
			[]float64{nan, 1, -0.5, 0.8333333333333333, 0}, []float64{1, 1.5, -0.5, 0.8333333333333333, 0}},
		{"aten::hardtanh_backward", func(g, x *tensor.Tensor) []any { return []any{g, x, tensor.Float(-1), tensor.Float(1)} },
			[]float64{0, 0, 0, 0, 0}, []float64{1, 0, 0, 0, 0}},
		{"aten::elu_backward", func(g, x *tensor.Tensor) []any {
			return []any{g, tensor.Float(1), tensor.Float(2), tensor.Float(1), false, x}
		}, []float64{nan, 2, 2 * math.Exp(-3), 2, 2 * math.Exp(-4)}, []float64{2, 2, 2 * math.Exp(-3), 2, 2 * math.Exp(-4)}},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-15 }
	for _, c := range cases {
		op := core.Op(c.op)
		long := slices.Concat(pattern, pattern, pattern, pattern)
		scalarLong := slices.Concat(c.scalar, c.scalar, c.scalar, c.scalar)
		wantLong := slices.Concat(c.vec, c.vec, c.vec, c.vec[:1], c.scalar[1:]) // the first 16 vectorized
		for _, in := range []struct{ x, want, scalar []float64 }{{pattern, c.scalar, c.scalar}, {long, wantLong, scalarLong}} {
			x := tensor.FromSlice(in.x, len(in.x))
			args := c.call(x.OnesLike(), x)
			got := tensor.Call(c.op, args...).(*tensor.Tensor).Float64s()
			dec := op.Composite()(op, op.Bind(args, nil)).(*tensor.Tensor).Float64s()
			for i := range in.want {
				if !same(got[i], in.want[i]) {
					t.Errorf("%s of %d elements at %d (x=%v): got %v, want %v", c.op, len(in.x), i, in.x[i], got[i], in.want[i])
				}
				if !same(dec[i], in.scalar[i]) {
					t.Errorf("%s's decomposition of %d elements at %d (x=%v): got %v, want %v", c.op, len(in.x), i, in.x[i], dec[i], in.scalar[i])
				}
			}
		}
	}
}
