package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/asm"
)

// smallCases are stride-1 float32 convolutions convSmall and
// convSmallWeightGrad take: examples/mnist's two, 1-d, groups, dilation,
// uneven and no padding, odd batches and row counts, more than eight
// output channels per group, a kernel of fewer than nine taps.
var smallCases = []struct {
	N, C, M, G  int
	img, k, pad []int
	dil         []int
}{
	{32, 1, 8, 1, []int{28, 28}, []int{3, 3}, []int{1, 1}, []int{1, 1}},
	{32, 8, 16, 1, []int{14, 14}, []int{3, 3}, []int{1, 1}, []int{1, 1}},
	{3, 4, 6, 2, []int{7, 9}, []int{3, 3}, []int{1, 2}, []int{1, 2}},
	{2, 3, 11, 1, []int{5, 6}, []int{2, 3}, []int{0, 1}, []int{1, 1}},
	{5, 2, 3, 1, []int{40}, []int{5}, []int{2}, []int{1}},
	{1, 6, 20, 2, []int{1, 17}, []int{1, 3}, []int{0, 0}, []int{1, 1}},
	{4, 3, 9, 3, []int{9, 4}, []int{3, 2}, []int{2, 1}, []int{2, 1}},
}

// TestConvSmall checks the direct kernels against the wide GEMM they stand
// in for: the forward (with and without a bias) and the input gradient
// bit for bit where the GEMM is the AVX-512 one (the same sums in the same
// order; the pure-Go GEMM adds in another order: then within 1e-5 of the
// larger or 1), the weight gradient within float32 rounding of the
// sums of float64 products. Where the device does not take these kernels
// (no AVX-512: asm.ConvSmallFast) their pure-Go twins are checked the
// same way.
func TestConvSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, c := range smallCases {
		t.Run(fmt.Sprintf("%d×%d×%v→%d/k%v/p%v/d%v/g%d", c.N, c.C, c.img, c.M, c.k, c.pad, c.dil, c.G), func(t *testing.T) {
			inG, outG, taps := c.C/c.G, c.M/c.G, prod(c.k)
			g := newWideGeom(c.C, c.img, c.k, c.pad, c.dil)
			x, w, bias := rnd(c.N*c.C*g.imgLen), rnd(c.M*inG*taps), rnd(c.M)
			n := c.N * c.M * g.outLen
			for _, b := range [][]float32{bias, nil} {
				got, want := rnd(n), rnd(n)
				convSmall(g, c.N, c.G, outG, x, w, b, got)
				convWide(g, c.N, c.G, outG, x, w, b, want)
				same(t, "forward", got, want)
			}
			// The input gradient: the convolution of gy by the flipped,
			// transposed weight with the complementary padding.
			out := make([]int, len(c.img))
			adj := make([]int, len(c.img))
			for i := range out {
				out[i] = g.out[3-len(c.img)+i]
				adj[i] = c.dil[i]*(c.k[i]-1) - c.pad[i]
			}
			gy := rnd(n)
			if min(adj[0], adj[len(adj)-1]) >= 0 {
				ga := newWideGeom(c.M, out, c.k, adj, c.dil)
				wt := flipTransposeWeight(w, c.G, outG, inG, taps)
				got, want := rnd(len(x)), rnd(len(x))
				convSmall(ga, c.N, c.G, inG, gy, wt, nil, got)
				convWide(ga, c.N, c.G, inG, gy, wt, nil, want)
				same(t, "input gradient", got, want)
			}
			dw := rnd(len(w))
			convSmallWeightGrad(g, c.N, c.G, outG, x, gy, dw)
			xp := make([]float32, c.N*c.C*g.plane)
			xp = wideChunk(g, x, 0, c.N, xp)
			Wp := g.padded[2]
			for o := range c.M {
				gr := o / outG
				for ci := range inG {
					for tp := range taps {
						var s, mag float64
						for i := range c.N {
							for oh := range g.out[1] {
								for ow := range g.out[2] {
									v := float64(gy[((i*c.M+o)*g.out[1]+oh)*g.out[2]+ow]) *
										float64(xp[(i*c.C+gr*inG+ci)*g.plane+(oh*Wp+ow)+g.off[tp]])
									s += v
									mag += math.Abs(v)
								}
							}
						}
						got := float64(dw[(o*inG+ci)*taps+tp])
						if math.Abs(got-s) > 1e-6*mag+1e-30 {
							t.Fatalf("weight gradient (%d, %d, %d) = %v, want %v", o, ci, tp, got, s)
						}
					}
				}
			}
		})
	}
}

// same fails unless got and want hold the same bits (on AVX-512; else
// unless they are within 1e-5 of the larger or 1).
func same(t *testing.T, what string, got, want []float32) {
	t.Helper()
	exact := asm.Path() == "avx512"
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if exact && math.Float32bits(got[i]) != math.Float32bits(want[i]) || !exact && !(math.Abs(g-w) <= 1e-5*max(1, math.Abs(g), math.Abs(w))) {
			t.Fatalf("%s[%d] = %v, the wide GEMM's %v", what, i, got[i], want[i])
		}
	}
}
