package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// The float32 fast paths run the asm kernels; these tests check that the
// wiring (contiguous runs, strided blocks, rows) gives what the element
// functions give.

func simdValues(n int) []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, n)
	for i := range v {
		if i%5 == 0 {
			v[i] = math.Float32frombits(r.Uint32())
		} else {
			v[i] = float32(r.NormFloat64() * 3)
		}
	}
	v[0], v[1], v[2] = float32(math.NaN()), float32(math.Inf(-1)), 65520
	return v
}

// TestCopyHalf compares the SIMD conversions with the scalar ones.
func TestCopyHalf(t *testing.T) {
	src := tensor.FromSlice(simdValues(1003))
	for _, d := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		dst := tensor.Empty(d, 1003)
		copyInto(dst, src)
		got := tensor.Elems[uint16](dst.Storage())
		back := tensor.Empty(tensor.Float32, 1003)
		copyInto(back, dst)
		for i, v := range tensor.Elems[float32](src.Storage()) {
			want := tensor.Float32ToHalf(v)
			wb := tensor.HalfToFloat32(got[i])
			if d == tensor.BFloat16 {
				want, wb = tensor.Float32ToBF16(v), tensor.BF16ToFloat32(got[i])
			}
			if got[i] != want {
				t.Fatalf("%s(%v) = %#x, want %#x", d, v, got[i], want)
			}
			if b := tensor.Elems[float32](back.Storage())[i]; math.Float32bits(b) != math.Float32bits(wb) {
				t.Fatalf("%s %#x to float32 = %v, want %v", d, got[i], b, wb)
			}
		}
	}
}

// TestSIMDStrided runs float32 unary and binary ops on a transposed view
// (the block path) and on its contiguous copy (the slice path).
func TestSIMDStrided(t *testing.T) {
	x := tensor.FromSlice(simdValues(37 * 29)).Reshape([]int{37, 29})
	xt := x.T()
	xc := xt.Contiguous()
	same := func(name string, a, b *tensor.Tensor) {
		t.Helper()
		av, bv := a.Contiguous().Float64s(), b.Contiguous().Float64s()
		for i := range av {
			if av[i] != bv[i] && !(av[i] != av[i] && bv[i] != bv[i]) {
				t.Fatalf("%s: [%d] strided %v, contiguous %v", name, i, av[i], bv[i])
			}
		}
	}
	same("exp", xt.Exp(), xc.Exp())
	same("tanh", xt.Tanh(), xc.Tanh())
	same("sin", xt.Sin(), xc.Sin())
	same("relu", xt.Relu(), xc.Relu())
	same("mul", xt.Mul(xt), xc.Mul(xc))
	same("maximum", xt.Maximum(xc), xc.Maximum(xc))
	same("sum", xt.Sum([]int{1}), xc.Sum([]int{1}))
}
