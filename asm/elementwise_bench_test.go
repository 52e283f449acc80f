package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Benchmarks of the elementwise kernels on 16M float32 (64 MiB per
// operand, so memory bandwidth counts), the kernel in use against its
// twin: names are impl/op/size.

const benchLen = 1 << 24

func benchInput(n int) []float32 {
	r := rand.New(rand.NewPCG(7, 8))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64() * 2)
	}
	return x
}

func reportElems(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
}

func BenchmarkUnary(b *testing.B) {
	x := benchInput(benchLen)
	d := make([]float32, benchLen)
	for _, impl := range []struct {
		name string
		tab  *[numUnaryOps]func(d, x []float32)
	}{{Path(), un32}, {"go", &unaryGo}} {
		for op := range numUnaryOps {
			b.Run(fmt.Sprintf("%s/%s/16M", impl.name, unaryNames[op]), func(b *testing.B) {
				b.SetBytes(8 * benchLen)
				for b.Loop() {
					impl.tab[op](d, x)
				}
				reportElems(b, benchLen)
			})
		}
	}
}

func BenchmarkBinary(b *testing.B) {
	x, y := benchInput(benchLen), benchInput(benchLen)
	d := make([]float32, benchLen)
	for _, impl := range []struct {
		name string
		tab  *binTable[float32]
	}{{Path(), bin32}, {"go", &binGo32}} {
		for _, op := range []binOp{opAdd, opMul, opMax} {
			b.Run(fmt.Sprintf("%s/%s/16M", impl.name, binOpNames[op]), func(b *testing.B) {
				b.SetBytes(12 * benchLen)
				for b.Loop() {
					impl.tab.vv[op](d, x, y)
				}
				reportElems(b, benchLen)
			})
		}
		b.Run(fmt.Sprintf("%s/axpy/16M", impl.name), func(b *testing.B) {
			b.SetBytes(12 * benchLen)
			for b.Loop() {
				impl.tab.axpy(d, 0.5, x, y)
			}
			reportElems(b, benchLen)
		})
	}
}

// BenchmarkCompare runs lt (float32 to bool) and where (Select32) on 16M,
// the kernel in use against its twin.
func BenchmarkCompare(b *testing.B) {
	x, y := benchInput(benchLen), benchInput(benchLen)
	d := make([]bool, benchLen)
	xs, ys := unsafe.Slice((*uint32)(unsafe.Pointer(&x[0])), benchLen), unsafe.Slice((*uint32)(unsafe.Pointer(&y[0])), benchLen)
	c := unsafe.Slice((*uint8)(unsafe.Pointer(&d[0])), benchLen)
	ds := make([]uint32, benchLen)
	for _, impl := range []struct {
		name string
		lt   func(d []bool, x, y []float32)
		sel  func(d []uint32, c []uint8, x, y []uint32)
	}{{Path(), cmp32[cmpLt], selectU32}, {"go", ltGo[float32], selectGo[uint32]}} {
		b.Run(fmt.Sprintf("%s/lt/16M", impl.name), func(b *testing.B) {
			b.SetBytes(9 * benchLen)
			for b.Loop() {
				impl.lt(d, x, y)
			}
			reportElems(b, benchLen)
		})
		b.Run(fmt.Sprintf("%s/where/16M", impl.name), func(b *testing.B) {
			b.SetBytes(13 * benchLen)
			for b.Loop() {
				impl.sel(ds, c, xs, ys)
			}
			reportElems(b, benchLen)
		})
	}
}

// BenchmarkRows runs the row kernels over 4096 rows of 1024 (dst reused).
func BenchmarkRows(b *testing.B) {
	const rows, cols = 4096, 1024
	x := benchInput(rows * cols)
	d := make([]float32, rows*cols)
	w, bias := benchInput(cols), benchInput(cols)
	for _, k := range []struct {
		name string
		f    func(d, x []float32)
	}{
		{"softmax", SoftmaxF32}, {"log_softmax", LogSoftmaxF32},
		{"layer_norm", func(d, x []float32) { LayerNormF32(d, x, w, bias, 1e-5) }},
		{"amax", func(d, x []float32) { AmaxF32(x) }},
		{"exp_shift", func(d, x []float32) { red32.expShift(d, x, 1) }},
	} {
		b.Run(Path()+"/"+k.name+"/4096x1024", func(b *testing.B) {
			b.SetBytes(8 * rows * cols)
			for b.Loop() {
				for r := 0; r < rows*cols; r += cols {
					k.f(d[r:r+cols], x[r:r+cols])
				}
			}
			reportElems(b, rows*cols)
		})
	}
}

// BenchmarkAddcmul runs addcmul in place (x = fma(v·t1, t2, x), Adam's
// exp_avg_sq update with t1 = t2) on 1M and 16M float32 and 1M float64,
// the kernel in use against its twin.
func BenchmarkAddcmul(b *testing.B) {
	for _, n := range []int{1 << 20, benchLen} {
		x, g := benchInput(n), benchInput(n)
		size := map[int]string{1 << 20: "1M", benchLen: "16M"}[n]
		for _, impl := range []struct {
			name string
			tab  *addcmulTable
		}{{Path(), acm}, {"go", &addcmulGo}} {
			b.Run(impl.name+"/addcmul_f32/"+size, func(b *testing.B) {
				b.SetBytes(12 * int64(n))
				for b.Loop() {
					impl.tab.f32(x, x, g, g, 0.001)
				}
				reportElems(b, n)
			})
		}
	}
	const n = 1 << 20
	x, g := make([]float64, n), make([]float64, n)
	for i, v := range benchInput(n) {
		x[i], g[i] = float64(v), float64(v)*0.5
	}
	for _, impl := range []struct {
		name string
		tab  *addcmulTable
	}{{Path(), acm}, {"go", &addcmulGo}} {
		b.Run(impl.name+"/addcmul_f64/1M", func(b *testing.B) {
			b.SetBytes(24 * n)
			for b.Loop() {
				impl.tab.f64(x, x, g, g, 0.001)
			}
			reportElems(b, n)
		})
	}
}
