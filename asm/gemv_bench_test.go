package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/internal/cputime"
)

// BenchmarkGemv compares Sgemm (packing B) with Sgemv (B in place) on
// one-row products x[1×k]·W for GPT-2-small's weights, W row-major (k×n,
// "N") or as nn.Linear stores it (n×k, "T"): impl/layout/k×n. SetBytes is
// W's size, the floor's traffic.
func BenchmarkGemv(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range [][2]int{{768, 768}, {768, 3072}, {3072, 768}, {768, 50257}} {
		k, n := s[0], s[1]
		w := gemvRand(r, k*n)
		x := gemvRand(r, k)
		c := make([]float32, n)
		for _, trans := range []bool{false, true} {
			ldb, lay := n, "N"
			if trans {
				ldb, lay = k, "T"
			}
			for _, impl := range []string{"sgemm", "sgemv"} {
				f := Sgemm
				if impl == "sgemv" {
					f = Sgemv
				}
				b.Run(fmt.Sprintf("%s/%s/%dx%d", impl, lay, k, n), func(b *testing.B) {
					b.SetBytes(int64(4 * k * n))
					b.ReportAllocs()
					for b.Loop() {
						f(false, trans, 1, n, k, 1, x, k, w, ldb, 0, c, n)
					}
				})
			}
		}
	}
}

// BenchmarkGemvCold is BenchmarkGemv's Sgemv with W coming from DRAM, as
// in a decoder step (GPT-2-small's weights are 0.5 GB): it cycles through
// copies of W that together are at least four times the last-level cache,
// so none is cached when its turn comes. Names are impl/layout/k×n.
// SetBytes is W's size; cpu-GB/s is W's size over the process's CPU time,
// which on the shared machine leaves out the time the benchmark waited for
// a CPU (with -cpu 1).
func BenchmarkGemvCold(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	llc := max(l3, 32<<20)
	x := gemvRand(r, 3072)
	c := make([]float32, 50257)
	for _, s := range [][2]int{{768, 768}, {768, 2304}, {768, 3072}, {3072, 768}, {768, 50257}} {
		k, n := s[0], s[1]
		copies := max(2, (4*llc+4*k*n-1)/(4*k*n))
		ws := make([][]float32, copies)
		for i := range ws {
			ws[i] = gemvRand(r, k*n)
		}
		for _, impl := range []string{"sgemv/N", "sgemv/T"} {
			b.Run(fmt.Sprintf("%s/%dx%d", impl, k, n), func(b *testing.B) {
				b.SetBytes(int64(4 * k * n))
				i := 0
				c0 := cputime.Process()
				for b.Loop() {
					w := ws[i%copies]
					i++
					if impl == "sgemv/N" {
						Sgemv(false, false, 1, n, k, 1, x, k, w, n, 0, c, n)
					} else {
						Sgemv(false, true, 1, n, k, 1, x, k, w, k, 0, c, n)
					}
				}
				if cpu := cputime.Process() - c0; cpu > 0 {
					b.ReportMetric(float64(4*k*n)*float64(b.N)/cpu.Seconds()/1e9, "cpu-GB/s")
				}
			})
		}
	}
}
