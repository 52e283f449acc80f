package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/asm"
	"gonum.org/v1/gonum/floats"
)

// Elementwise benchmarks (issue 4): add/mul and each unary op on 16M
// float32, sum of 16M, softmax and layer_norm (and layer_norm's backward)
// over the rows of 4096×1024,
// through the public API (each op allocates its result, as in PyTorch's
// functional calls). bench/peers/elementwise_peers.py runs the same shapes
// in PyTorch and numpy, and bench/compare.sh prints the ratios. Gelem/s
// counts input elements.

const (
	n16M = 1 << 24
	rows = 4096
	cols = 1024
)

func randFloat32s(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// run times f, reporting bytes moved and elements per second.
func run(b *testing.B, elems, bytes int, f func()) {
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for range 3 { // warm up: first-touch page faults and heap growth are not the kernel's
		f()
	}
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(elems)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
}

func BenchmarkElementwise(b *testing.B) {
	for _, c := range elementwiseCases() {
		b.Run("goaten/"+c.name, func(b *testing.B) { run(b, c.elems, c.bytes, c.f) })
	}
}

// apiCase is an op called through the public API: its name (op/size),
// the elements it counts and the bytes it moves per call.
type apiCase struct {
	name         string
	elems, bytes int
	f            func()
}

// elementwiseCases are BenchmarkElementwise's ops, with their operands.
func elementwiseCases() []apiCase {
	x := gt.FromFloat32s(randFloat32s(n16M, 1), n16M)
	y := gt.FromFloat32s(randFloat32s(n16M, 2), n16M)
	pos := x.Abs() // log, sqrt, rsqrt of positive numbers
	cases := []apiCase{
		{"add/16M", n16M, 12 * n16M, func() { x.Add(y) }},
		{"mul/16M", n16M, 12 * n16M, func() { x.Mul(y) }},
	}
	unary := []struct {
		name string
		f    func() *gt.Tensor
	}{
		{"exp", x.Exp}, {"log", pos.Log}, {"tanh", x.Tanh}, {"sigmoid", x.Sigmoid}, {"silu", x.Silu},
		{"gelu", func() *gt.Tensor { return x.Gelu() }},
		{"gelu_tanh", func() *gt.Tensor { return x.Gelu(gt.WithApproximate("tanh")) }},
		{"erf", x.Erf}, {"relu", x.Relu}, {"abs", x.Abs}, {"neg", x.Neg}, {"sqrt", pos.Sqrt},
		{"rsqrt", pos.Rsqrt}, {"reciprocal", x.Reciprocal}, {"sin", x.Sin}, {"cos", x.Cos},
	}
	for _, u := range unary {
		cases = append(cases, apiCase{u.name + "/16M", n16M, 8 * n16M, func() { u.f() }})
	}
	cases = append(cases, apiCase{"sum/16M", n16M, 4 * n16M, func() { x.SumAll() }})
	// The same sum over four 64 MB copies in turn, so the input comes
	// from DRAM: summing one tensor again and again, part of it is still
	// in the last-level cache (32 MB here), and how much depends on the
	// order the kernel reads in (bench/README.md: PyTorch's same-tensor
	// sum read 53 GB/s, its cold one 42).
	cold := []*gt.Tensor{x, x.Clone(), x.Clone(), x.Clone()}
	next := 0
	cases = append(cases, apiCase{"sum_cold/16M", n16M, 4 * n16M, func() {
		cold[next].SumAll()
		next = (next + 1) % len(cold)
	}})

	m := gt.FromFloat32s(randFloat32s(rows*cols, 5), rows, cols)
	w := gt.FromFloat32s(randFloat32s(cols, 3), cols)
	bias := gt.FromFloat32s(randFloat32s(cols, 4), cols)
	// The gradient of all three inputs, as a training step asks for it.
	_, mean, rstd := gt.NativeLayerNorm(m, []int{cols}, w, bias, 1e-5)
	dy := gt.FromFloat32s(randFloat32s(rows*cols, 6), rows, cols)
	return append(cases,
		apiCase{"softmax/4096x1024", rows * cols, 8 * rows * cols, func() { m.Softmax(-1) }},
		apiCase{"log_softmax/4096x1024", rows * cols, 8 * rows * cols, func() { m.LogSoftmax(-1) }},
		apiCase{"layer_norm/4096x1024", rows * cols, 8 * rows * cols, func() {
			gt.LayerNorm(m, []int{cols}, gt.WithWeight(w), gt.WithBias(bias), gt.WithCudnnEnable(false))
		}},
		apiCase{"layer_norm_backward/4096x1024", rows * cols, 12 * rows * cols, func() {
			gt.NativeLayerNormBackward(dy, m, []int{cols}, mean, rstd, w, bias, []bool{true, true, true})
		}},
	)
}

// BenchmarkElementwiseGonum runs the float64 routines of gonum/floats that
// have an elementwise counterpart above, on 16M float64 (twice the bytes).
func BenchmarkElementwiseGonum(b *testing.B) {
	x64 := make([]float64, n16M)
	y64 := make([]float64, n16M)
	for i, v := range randFloat32s(n16M, 1) {
		x64[i] = float64(v)
	}
	for i, v := range randFloat32s(n16M, 2) {
		y64[i] = float64(v)
	}
	b.Run("gonum/add/16M", func(b *testing.B) {
		run(b, n16M, 24*n16M, func() { floats.AddTo(make([]float64, n16M), x64, y64) })
	})
	b.Run("gonum/mul/16M", func(b *testing.B) {
		run(b, n16M, 24*n16M, func() { floats.MulTo(make([]float64, n16M), x64, y64) })
	})
	b.Run("gonum/sum/16M", func(b *testing.B) { run(b, n16M, 8*n16M, func() { floats.Sum(x64) }) })
}

// BenchmarkElementwiseKernel runs the SIMD kernels of package asm on
// preallocated slices (what torch's out= variants measure), and gonum's
// floats with a preallocated destination: names kernel/<op>/<size> and
// gonum-out/<op>/<size>.
func BenchmarkElementwiseKernel(b *testing.B) {
	x, y := randFloat32s(n16M, 1), randFloat32s(n16M, 2)
	d := make([]float32, n16M)
	pos := make([]float32, n16M)
	asm.AbsF32(pos, x)
	b.Run("kernel/add/16M", func(b *testing.B) { run(b, n16M, 12*n16M, func() { asm.AddF32(d, x, y) }) })
	b.Run("kernel/mul/16M", func(b *testing.B) { run(b, n16M, 12*n16M, func() { asm.MulF32(d, x, y) }) })
	unary := []struct {
		name string
		f    func(d, x []float32)
		in   []float32
	}{
		{"exp", asm.ExpF32, x}, {"log", asm.LogF32, pos}, {"tanh", asm.TanhF32, x}, {"sigmoid", asm.SigmoidF32, x},
		{"silu", asm.SiluF32, x}, {"gelu", asm.GeluF32, x}, {"gelu_tanh", asm.GeluTanhF32, x}, {"erf", asm.ErfF32, x},
		{"relu", asm.ReluF32, x}, {"abs", asm.AbsF32, x}, {"neg", asm.NegF32, x}, {"sqrt", asm.SqrtF32, pos},
		{"rsqrt", asm.RsqrtF32, pos}, {"reciprocal", asm.ReciprocalF32, x}, {"sin", asm.SinF32, x}, {"cos", asm.CosF32, x},
	}
	for _, u := range unary {
		b.Run("kernel/"+u.name+"/16M", func(b *testing.B) { run(b, n16M, 8*n16M, func() { u.f(d, u.in) }) })
	}
	b.Run("kernel/sum/16M", func(b *testing.B) { run(b, n16M, 4*n16M, func() { asm.SumF32(x) }) })

	x64, y64, d64 := make([]float64, n16M), make([]float64, n16M), make([]float64, n16M)
	for i := range x64 {
		x64[i], y64[i] = float64(x[i]), float64(y[i])
	}
	b.Run("gonum-out/add/16M", func(b *testing.B) { run(b, n16M, 24*n16M, func() { floats.AddTo(d64, x64, y64) }) })
	b.Run("gonum-out/mul/16M", func(b *testing.B) { run(b, n16M, 24*n16M, func() { floats.MulTo(d64, x64, y64) }) })
}

// BenchmarkReduceDims reduces 4096×1024 float32 over its rows' dim 0 (and
// scans along dim 0), the strided walks that the row kernels do not take,
// with GOMAXPROCS 1 and 2 (names goaten/<op>/4096x1024/procs=P): the walk
// is shared among goroutines along the kept dim.
func BenchmarkReduceDims(b *testing.B) {
	m := gt.FromFloat32s(randFloat32s(rows*cols, 5), rows, cols)
	ops := []struct {
		name string
		f    func()
	}{
		{"sum_dim0", func() { m.Sum([]int{0}) }},
		{"var_dim0", func() { m.VarDim([]int{0}) }},
		{"argmax_dim0", func() { m.Argmax(gt.WithDim(0)) }},
		{"cumsum_dim0", func() { m.Cumsum(0) }},
	}
	for _, op := range ops {
		for _, p := range []int{1, 2} {
			b.Run(fmt.Sprintf("goaten/%s/4096x1024/procs=%d", op.name, p), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
				run(b, rows*cols, 4*rows*cols, op.f)
			})
		}
	}
}
