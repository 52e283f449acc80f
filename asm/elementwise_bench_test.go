package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
