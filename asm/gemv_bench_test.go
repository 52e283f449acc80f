package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
