package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// randF32 is a float32 tensor of normal values.
func randF32(r *rand.Rand, shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Numel(shape))
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return tensor.FromSlice(v, shape...)
}

// checkFewRows compares got (m×n) with alpha·a·b + beta·self in float64,
// within float32 rounding of Σ|a||b| (k terms).
func checkFewRows(t *testing.T, name string, got, self *tensor.Tensor, alpha, beta float64, a, b *tensor.Tensor) {
	t.Helper()
	m, k, n := a.Size(0), a.Size(1), b.Size(1)
	if got.Size(0) != m || got.Size(1) != n {
		t.Fatalf("%s: shape %v, want [%d %d]", name, got.Sizes(), m, n)
	}
	for i := range m {
		for j := range n {
			var s, mag float64
			for l := range k {
				p := a.At(i, l).Float64() * b.At(l, j).Float64()
				s += p
				mag += math.Abs(p)
			}
			want := alpha * s
			if self != nil {
				sv := self.At(j).Float64()
				want += beta * sv
				mag = math.Abs(alpha)*mag + math.Abs(beta*sv)
			}
			g := got.At(i, j).Float64()
			if math.Abs(g-want) > float64(k+2)*0x1p-24*mag+1e-30 {
				t.Fatalf("%s: [%d][%d] = %v, want %v (±%g)", name, i, j, g, want, float64(k+2)*0x1p-24*mag)
			}
		}
	}
}

// TestFewRowProducts runs float32 products of 1 to 4 rows (the asm.Sgemv
// path: one decoder step's x·W) through mm, addmm, linear and bmm, with B
// row-major, transposed as nn.Linear stores it, and A transposed, against
// a float64 product.
func TestFewRowProducts(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 24))
	for _, m := range []int{1, 2, 3, 4} {
		for _, s := range [][2]int{{8, 8}, {33, 67}, {768, 300}, {100, 2051}} {
			k, n := s[0], s[1]
			name := fmt.Sprintf("m=%d k=%d n=%d", m, k, n)
			x := randF32(r, m, k)
			w := randF32(r, k, n)
			wt := randF32(r, n, k) // nn.Linear's layout
			bias := randF32(r, n)
			checkFewRows(t, name+" mm", tensor.Call("aten::mm.default", x, w).(*tensor.Tensor), nil, 1, 0, x, w)
			checkFewRows(t, name+" mm Bᵀ", tensor.Call("aten::mm.default", x, transpose(wt)).(*tensor.Tensor), nil, 1, 0, x, transpose(wt))
			xt := randF32(r, k, m)
			checkFewRows(t, name+" mm Aᵀ", tensor.Call("aten::mm.default", transpose(xt), w).(*tensor.Tensor), nil, 1, 0, transpose(xt), w)
			checkFewRows(t, name+" addmm", bias.Addmm(x, w, tensor.WithAlpha(0.5), tensor.WithBeta(2)), bias, 0.5, 2, x, w)
			checkFewRows(t, name+" linear", tensor.Linear(x, wt, tensor.WithBias(bias)), bias, 1, 1, x, transpose(wt))
			xb := randF32(r, 3, m, k)
			wb := randF32(r, 3, k, n)
			got := xb.Bmm(wb)
			for i := range 3 {
				checkFewRows(t, fmt.Sprintf("%s bmm batch %d", name, i), got.Select(0, i), nil, 1, 0, xb.Select(0, i), wb.Select(0, i))
			}
		}
	}
}
