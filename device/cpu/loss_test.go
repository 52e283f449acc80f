package cpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// The nll_loss kernels give 1.13's bits: the forward's cascade of partial
// sums in the input's dtype over 1000 samples (every seventh ignored),
// with and without class weights, mean and sum (torch 1.13's values on the
// same inputs, k/1000 for integers k, exact in both languages).
func TestNLLLossKernels(t *testing.T) {
	const n, c = 1000, 5
	xv := make([]float64, n*c)
	for i := range n {
		for j := range c {
			xv[i*c+j] = float64((i*7919+j*104729)%20000-10000) / 1000
		}
	}
	tv := make([]int64, n)
	for i := range tv {
		tv[i] = int64(i * 3 % c)
		if i%7 == 0 {
			tv[i] = -100
		}
	}
	wv := make([]float64, c)
	for j := range wv {
		wv[j] = float64(j*37%11+1) / 7
	}
	x := tensor.FromSlice(xv, n, c).To(tensor.Float32)
	tg := tensor.FromSlice(tv, n)
	w := tensor.FromSlice(wv, c).To(tensor.Float32)
	for _, cs := range []struct {
		w              *tensor.Tensor
		red            int
		loss, totalBit uint32
		total          float64
	}{
		{w, 1, 3184985010, 1141686272, 0},
		{nil, 1, 3186389790, 0, 857},
		{w, 2, 3261886096, 1141686272, 0},
		{nil, 2, 3267748696, 0, 857},
	} {
		outs := tensor.Call("aten::nll_loss_forward", x, tg, cs.w, cs.red, -100).([]*tensor.Tensor)
		loss, total := float32(outs[0].Item().Float64()), outs[1].Item().Float64()
		if math.Float32bits(loss) != cs.loss {
			t.Errorf("weighted %v reduction %d: loss %v, want %v", cs.w != nil, cs.red, loss, math.Float32frombits(cs.loss))
		}
		want := cs.total
		if cs.w != nil {
			want = float64(math.Float32frombits(cs.totalBit))
		}
		if total != want {
			t.Errorf("weighted %v reduction %d: total weight %v, want %v", cs.w != nil, cs.red, total, want)
		}
	}
	// The backward: one element per sample that is not ignored, at its
	// target; torch 1.13's bits of rows 1 and 2 (mean with grad 1.5, and no
	// reduction with per-sample grads ((31i mod 17) - 8)/3).
	fwd := tensor.Call("aten::nll_loss_forward", x, tg, w, 1, -100).([]*tensor.Tensor)
	gi := tensor.Call("aten::nll_loss_backward", tensor.FromSlice([]float32{1.5}, []int{}...), x, tg, w, 1, -100, fwd[1]).(*tensor.Tensor)
	nllCheckGrad(t, "mean", gi, 857, map[int]uint32{1*c + 3: 3125251369})
	gv := make([]float64, n)
	for i := range gv {
		gv[i] = float64(i*31%17-8) / 3
	}
	gi = tensor.Call("aten::nll_loss_backward", tensor.FromSlice(gv, n).To(tensor.Float32), x, tg, w, 0, -100, tensor.FromSlice([]float32{0}, []int{}...)).(*tensor.Tensor)
	nllCheckGrad(t, "none", gi, 806, map[int]uint32{1*c + 3: 3205646629, 2*c + 1: 3208043374})
	// float64, mean with weights: 1.13's -0x1.ae07720408dcap-4 and total 0x1.19800027e0000p+9.
	outs := tensor.Call("aten::nll_loss_forward", x.To(tensor.Float64), tg, w.To(tensor.Float64), 1, -100).([]*tensor.Tensor)
	if got, want := outs[0].Item().Float64(), -0x1.ae07720408dcap-4; got != want {
		t.Errorf("float64 mean loss %x, want %x", got, want)
	}
	if got, want := outs[1].Item().Float64(), 0x1.19800027e0000p+9; got != want {
		t.Errorf("float64 total weight %x, want %x", got, want)
	}
}

// nllCheckGrad checks a float32 gradient's count of nonzero elements and
// the bits of the given ones.
func nllCheckGrad(t *testing.T, what string, gi *tensor.Tensor, nonzero int, bits map[int]uint32) {
	t.Helper()
	v := gi.Float64s()
	count := 0
	for _, x := range v {
		if x != 0 {
			count++
		}
	}
	if count != nonzero {
		t.Errorf("%s: %d nonzero gradient elements, want %d", what, count, nonzero)
	}
	for i, b := range bits {
		if got := math.Float32bits(float32(v[i])); got != b {
			t.Errorf("%s: grad[%d] = %v, want %v", what, i, v[i], math.Float32frombits(b))
		}
	}
}

// The CPU's mse_loss (float32, mean and sum) gives its decomposition's
// result bit for bit: one piece and several, with and without specials; and
// the cases it leaves to the decomposition (none, float64, broadcast
// shapes, a transposed operand, empty) still give its results.
func TestMSELossMatchesDecomposition(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	op := core.Op("aten::mse_loss")
	dec := op.Composite()
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float32bits(float32(a[i])) != math.Float32bits(float32(b[i])) && !(a[i] != a[i] && b[i] != b[i]) {
				return false
			}
		}
		return true
	}
	for _, n := range []int{1, 15, 16, 17, 1000, 1 << 16, 1<<16 + 1, 3<<16 + 5} {
		for _, special := range []bool{false, true} {
			xv, yv := make([]float32, n), make([]float32, n)
			for i := range xv {
				xv[i], yv[i] = float32(r.NormFloat64()*3), float32(r.NormFloat64())
			}
			if special {
				xv[n/2] = float32(math.Inf(1))
				yv[n-1] = 3e38
			}
			for red := 1; red <= 2; red++ {
				bound := op.Bind([]any{tensor.FromSlice(xv), tensor.FromSlice(yv), red}, nil)
				got, want := op.Invoke(bound).(*tensor.Tensor), dec(op, bound).(*tensor.Tensor)
				if got.DType() != tensor.Float32 || got.Dim() != 0 || !same(got.Float64s(), want.Float64s()) {
					t.Fatalf("n=%d special=%v reduction %d: %v %v %v, decomposition %v", n, special, red, got.DType(), got.Sizes(), got.Float64s(), want.Float64s())
				}
			}
		}
	}
	a := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for _, c := range [][]any{
		{a, tensor.FromSlice([]float32{6, 5, 4, 3, 2, 1}, 2, 3), 0},
		{a.To(tensor.Float64), a.To(tensor.Float64).Neg(), 1},
		{a, tensor.FromSlice([]float32{1, -1, 2}, 3), 1},
		{a, tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2).T(), 2},
		{tensor.Empty(tensor.Float32, 0), tensor.Empty(tensor.Float32, 0), 1},
	} {
		bound := op.Bind(c, nil)
		got, want := op.Invoke(bound).(*tensor.Tensor), dec(op, bound).(*tensor.Tensor)
		if !slices.Equal(got.Sizes(), want.Sizes()) || !same(got.Float64s(), want.Float64s()) {
			t.Fatalf("%v: %v, decomposition %v", c, got.Float64s(), want.Float64s())
		}
	}
}

// The CPU's mse_loss_backward (float32) gives its decomposition's result
// bit for bit, for a 0-d and a full-size gradient and every reduction; the
// cases it leaves to the decomposition still give its results.
func TestMSELossBackwardMatchesDecomposition(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 50))
	op := core.Op("aten::mse_loss_backward")
	dec := op.Composite()
	rnd := func(shape ...int) *tensor.Tensor {
		v := make([]float32, tensor.Numel(shape))
		for i := range v {
			v[i] = float32(r.NormFloat64() * 3)
		}
		if len(v) > 10 {
			v[3], v[7] = float32(math.Inf(-1)), float32(math.NaN())
		}
		return tensor.FromSlice(v, shape...)
	}
	check := func(args []any) {
		t.Helper()
		bound := op.Bind(args, nil)
		got, want := op.Invoke(bound).(*tensor.Tensor), dec(op, bound).(*tensor.Tensor)
		a, b := got.Float64s(), want.Float64s()
		if !slices.Equal(got.Sizes(), want.Sizes()) || got.DType() != want.DType() || len(a) != len(b) {
			t.Fatalf("%v: %v %v, decomposition %v %v", args[1:], got.DType(), got.Sizes(), want.DType(), want.Sizes())
		}
		for i := range a {
			if math.Float32bits(float32(a[i])) != math.Float32bits(float32(b[i])) && !(a[i] != a[i] && b[i] != b[i]) {
				t.Fatalf("%v: [%d] = %v, decomposition %v", args[3], i, a[i], b[i])
			}
		}
	}
	for _, n := range []int{1, 7, 511, 512, 513, 5000, 1 << 17} {
		x, y := rnd(n), rnd(n)
		for red := range 3 {
			check([]any{rnd(), x, y, red})
			check([]any{rnd(n), x, y, red})
		}
	}
	x := rnd(2, 3)
	check([]any{rnd(3), x, rnd(2, 3), 0})                                                 // a broadcast gradient
	check([]any{rnd(), x, rnd(3, 2).T(), 1})                                              // a transposed target
	check([]any{rnd().To(tensor.Float64), x.To(tensor.Float64), x.To(tensor.Float64), 2}) // float64
}
