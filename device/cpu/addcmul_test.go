package cpu_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// TestAddcmulGolden replays the public addcmul and addcdiv records and
// holds every float32 and float64 output bit for bit (the conformance
// replay allows these ops the accumulating ops' tolerance): addcmul is
// fma(value·t1, t2, self) as 1.13's FMA-contracted CPU kernel computes it,
// addcdiv self + value·t1/t2 in three roundings.
func TestAddcmulGolden(t *testing.T) {
	recs, err := golden.Load(filepath.Join("..", "..", "testdata", "golden", "noncore.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	n, elems := 0, 0
	for _, r := range recs {
		if r.Op != "aten::addcmul.default" && r.Op != "aten::addcdiv.default" {
			continue
		}
		want, ok := r.Out.(map[string]any)
		if !ok {
			continue
		}
		w, err := golden.Tensor(want, tensor.CPU)
		if err != nil {
			t.Fatalf("%s: %v", r.Source, err)
		}
		if w.DType() != tensor.Float32 && w.DType() != tensor.Float64 {
			continue
		}
		n++
		op := tensor.MustOp(r.Op)
		args, kw, err := golden.Args(op, r, tensor.CPU)
		if err != nil {
			t.Fatalf("%s: %v", r.Source, err)
		}
		res, err := tensor.CallErr(r.Op, args, kw)
		if err != nil {
			t.Errorf("%s %s: %v", r.Op, r.Source, err)
			continue
		}
		got := res.(*tensor.Tensor)
		if got.DType() != w.DType() {
			t.Errorf("%s %s: dtype %s, want %s", r.Op, r.Source, got.DType(), w.DType())
			continue
		}
		g, wv := got.Float64s(), w.Float64s()
		for i := range wv {
			if math.Float64bits(g[i]) != math.Float64bits(wv[i]) && !(g[i] != g[i] && wv[i] != wv[i]) {
				t.Errorf("%s %s: element %d = %v, torch 1.13 %v", r.Op, r.Source, i, g[i], wv[i])
				break
			}
			elems++
		}
	}
	if n < 30 {
		t.Fatalf("only %d float addcmul/addcdiv records found", n)
	}
	t.Logf("%d records, %d elements bit for bit", n, elems)
}

// TestAddcmulFused checks addcmul against fma(value·t1, t2, self) over
// lengths 0..67 (past the parallel and unrolled block sizes), broadcast,
// mixed-dtype and in-place calls, and holds one value of torch 1.13 where
// the unfused form differs.
func TestAddcmulFused(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 67; n++ {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			s, a, b := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range s {
				s[i], a[i], b[i] = r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
			}
			ts := tensor.FromSlice(s, n).To(dt)
			ta := tensor.FromSlice(a, n).To(dt)
			tb := tensor.FromSlice(b, n).To(dt)
			const v = 1e-3
			got := binCall(t, "aten::addcmul", map[string]any{"value": v}, ts, ta, tb).Float64s()
			inPlace := ts.Clone()
			binCall(t, "aten::addcmul_", map[string]any{"value": v}, inPlace, ta, tb)
			sv, av, bv := ts.Float64s(), ta.Float64s(), tb.Float64s()
			for i := range got {
				var want float64
				if dt == tensor.Float32 {
					want = float64(fmaF32(float32(v)*float32(av[i]), float32(bv[i]), float32(sv[i])))
				} else {
					want = math.FMA(v*av[i], bv[i], sv[i])
				}
				if got[i] != want || inPlace.Float64s()[i] != want {
					t.Fatalf("%s n=%d [%d]: addcmul %v, in place %v, want %v", dt, n, i, got[i], inPlace.Float64s()[i], want)
				}
			}
		}
	}
	// torch.tensor([0.5359]).addcmul(torch.tensor([1.1]), torch.tensor([-0.4872]))
	// is the fused value in 1.13.
	s, a, b := float32(0.5359), float32(1.1), float32(-0.4872)
	got := float32(binCall(t, "aten::addcmul", nil, binF32(s), binF32(a), binF32(b)).Float64s()[0])
	const torch113 = float32(-2.0005993064842187e-05) // unfused: -2.002716064453125e-05
	if got != torch113 || fmaF32(a, b, s) != torch113 {
		t.Errorf("addcmul(%v, %v, %v) = %v (fma %v), torch 1.13 %v", s, a, b, got, fmaF32(a, b, s), torch113)
	}
	// Broadcasting and a float64 0-d self with float32 factors: float32.
	self := tensor.FromScalar(tensor.Float(0.25), tensor.Float64)
	x := binF32(1.5, -2, 3)
	y := tensor.FromSlice([]float32{0.1, 0.2}, 2, 1)
	out := binCall(t, "aten::addcmul", map[string]any{"value": 2}, self, x, y)
	if out.DType() != tensor.Float32 || out.Dim() != 2 || out.Size(0) != 2 || out.Size(1) != 3 {
		t.Fatalf("addcmul broadcast: %s %v", out.DType(), out.Sizes())
	}
	for i, g := range out.Float64s() {
		want := fmaF32(2*float32([]float32{1.5, -2, 3}[i%3]), []float32{0.1, 0.2}[i/3], 0.25)
		if float32(g) != want {
			t.Errorf("addcmul broadcast [%d] = %v, want %v", i, g, want)
		}
	}
	// Integer operands keep the decomposition's integer arithmetic.
	ints := binCall(t, "aten::addcmul", map[string]any{"value": 3}, binI64(1, 2), binI64(3, 4), binI64(5, 6)).Int64s()
	if ints[0] != 46 || ints[1] != 74 {
		t.Errorf("int64 addcmul = %v, want [46 74]", ints)
	}
}

// fmaF32 is a·b + c rounded once to float32, computed exactly with
// math/big (an independent reference for asm.FMAF32).
func fmaF32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

// TestAddcmulRounding holds float32 addcmul to a·b + c rounded once where
// rounding the float64 sum to float32 would round twice: sums that land on
// a float32 midpoint, subnormal and overflowing results, signed zeros.
func TestAddcmulRounding(t *testing.T) {
	type triple struct{ c, a, b float32 }
	cases := []triple{
		// 1+2⁻²³ + 2⁻²⁴(1-2⁻³⁶): the float64 sum is the midpoint
		// 1+2⁻²³+2⁻²⁴, the exact value below it: 1+2⁻²³, not 1+2⁻²².
		{1 + 0x1p-23, 0x1p-12 * (1 + 0x1p-18), 0x1p-12 * (1 - 0x1p-18)},
		{1 + 0x1p-23, -0x1p-12 * (1 + 0x1p-18), -0x1p-12 * (1 - 0x1p-18)},
		{-(1 + 0x1p-23), 0x1p-12 * (1 + 0x1p-18), -0x1p-12 * (1 - 0x1p-18)},
		{1, 0x1p-12 * (1 + 0x1p-18), 0x1p-12 * (1 + 0x1p-18)},
		{0, 0x1p-70, 0x1p-70 * 1.75},                                      // subnormal
		{0x1p-149, -0x1p-75 * 1.5, 0x1p-75},                               // subnormal, cancelling
		{float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1)), 1}, // -0 + -0
		{math.MaxFloat32, 0x1p104, 1},                                     // max + half an ulp: overflows
		{math.MaxFloat32, 0x1p104 * (1 - 0x1p-20), 1},                     // just below: stays finite
	}
	r := rand.New(rand.NewPCG(11, 12))
	for range 3000 {
		e := r.IntN(80) - 90 // products and sums near float32's subnormal range
		cases = append(cases, triple{
			float32(math.Ldexp(r.NormFloat64(), 2*e+r.IntN(8))),
			float32(math.Ldexp(r.NormFloat64(), e)),
			float32(math.Ldexp(r.NormFloat64(), e)),
		})
		// A midpoint on purpose: c with its last bit set, a·b half an ulp of
		// c plus or minus a little.
		c := float32(1+r.Float64()) * float32(math.Ldexp(1, r.IntN(20)-10))
		c = math.Float32frombits(math.Float32bits(c) | 1)
		_, exp := math.Frexp(float64(c))
		half := math.Ldexp(1, exp-25) // half an ulp of c
		a := float32(math.Sqrt(half)) * (1 + float32(r.IntN(16))*0x1p-20)
		b := float32(half / float64(a))
		cases = append(cases, triple{c, a, b})
	}
	n := len(cases)
	s, a, b := make([]float32, n), make([]float32, n), make([]float32, n)
	for i, c := range cases {
		s[i], a[i], b[i] = c.c, c.a, c.b
	}
	got := binCall(t, "aten::addcmul", nil, tensor.FromSlice(s, n), tensor.FromSlice(a, n), tensor.FromSlice(b, n)).Float64s()
	for i, c := range cases {
		want := fmaF32(c.a, c.b, c.c)
		g := float32(got[i])
		if math.Float32bits(g) != math.Float32bits(want) {
			t.Errorf("addcmul(%g, %g, %g) = %g, want %g", c.c, c.a, c.b, g, want)
		}
	}
	if g := float32(got[0]); g != 1+0x1p-23 {
		t.Errorf("the midpoint case gave %g", g)
	}
}

// BenchmarkAddcmul runs Adam's exp_avg_sq update, addcmul_(g, g,
// value=1-β2) in place, on 1M float32 and float64.
func BenchmarkAddcmul(b *testing.B) {
	const n = 1 << 20
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		s, g := binRamp(n).To(dt), binRamp(n).To(dt)
		op := tensor.MustOp("aten::addcmul_")
		bound := op.Bind([]any{s, g, g}, map[string]any{"value": 0.001})
		b.Run("cpu/addcmul_/"+dt.String()+"/1M", func(b *testing.B) {
			b.SetBytes(3 * int64(n) * int64(dt.ItemSize()))
			b.ReportAllocs()
			for b.Loop() {
				op.Invoke(bound)
			}
		})
	}
}

// TestAddcmulInplace holds addcmul_ to addcmul's values wherever it runs:
// straight into a dense self (same storage, version bumped, self also a
// factor), and through the decomposition for a strided self, an integer
// self, a float32 self with float64 factors (the result type is float64:
// computed, then cast into self) and a broadcast that would grow self
// (PyTorch's error).
func TestAddcmulInplace(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	randn := func(dt tensor.DType, sizes ...int) *tensor.Tensor {
		n := 1
		for _, s := range sizes {
			n *= s
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return tensor.FromSlice(v, sizes...).To(dt)
	}
	check := func(name string, self, t1, t2 *tensor.Tensor) {
		t.Helper()
		want := binCall(t, "aten::addcmul", map[string]any{"value": 0.5}, self, t1, t2).To(self.DType())
		st, ver := self.Storage(), self.Version()
		got := binCall(t, "aten::addcmul_", map[string]any{"value": 0.5}, self, t1, t2)
		if got != self || self.Storage() != st || self.Version() == ver {
			t.Fatalf("%s: addcmul_ returned another tensor or did not write self (version %d → %d)", name, ver, self.Version())
		}
		if !slices.Equal(self.Float64s(), want.Float64s()) {
			t.Fatalf("%s: addcmul_ %v, addcmul %v", name, self.Float64s(), want.Float64s())
		}
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		check(dt.String()+" dense", randn(dt, 5, 7), randn(dt, 5, 7), randn(dt, 7))
		s := randn(dt, 4, 6)
		check(dt.String()+" self as factor", s, s, randn(dt, 4, 6))
		tr := randn(dt, 6, 4).T()
		check(dt.String()+" transposed self", tr, randn(dt, 4, 6), randn(dt, 4, 6))
		base := randn(dt, 4, 12)
		check(dt.String()+" strided self", base.AsStrided([]int{4, 6}, []int{12, 2}), randn(dt, 4, 6), randn(dt, 4, 6))
	}
	check("int64", tensor.FromSlice([]int64{1, 2, 3}, 3), tensor.FromSlice([]int64{4, 5, 6}, 3), tensor.FromSlice([]int64{7, 8, 9}, 3))
	check("float32 self, float64 factors", randn(tensor.Float32, 3), randn(tensor.Float64, 3), randn(tensor.Float64, 3))
	_, err := tensor.CallErr("aten::addcmul_", []any{randn(tensor.Float32, 3), randn(tensor.Float32, 2, 3), randn(tensor.Float32, 3)}, nil)
	if err == nil || !strings.Contains(err.Error(), "doesn't match the broadcast shape") {
		t.Fatalf("addcmul_ growing self: %v, want PyTorch's broadcast-shape error", err)
	}
}
