package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/asm"
)

// TestConvWideWeightGradDirect: the weight gradient with its rows packed
// straight from the padded images (wideColsPacker, columns tap by tap) is
// bit for bit the one with the rows copied first (wideRows), float32 and
// float64, one image a chunk and several (6×6 images), groups, padding on
// one side only, a zero output gradient (signed zeros) and GOMAXPROCS's
// parallel split.
func TestConvWideWeightGradDirect(t *testing.T) {
	for _, c := range []struct {
		N, inG, outG, G int
		img, k, pad     []int
		zero            bool
	}{
		{3, 32, 32, 1, []int{32, 32}, []int{3, 3}, []int{1, 1}, false}, // the CNN's 32→32
		{5, 32, 16, 2, []int{6, 6}, []int{3, 3}, []int{1, 1}, false},
		{7, 64, 24, 1, []int{9, 5}, []int{3, 2}, []int{1, 0}, false},
		{2, 32, 12, 1, []int{11}, []int{5}, []int{2}, false},
		{2, 32, 32, 1, []int{8, 8}, []int{3, 3}, []int{1, 1}, true},
	} {
		testWideDirect[float32](t, c.N, c.inG, c.outG, c.G, c.img, c.k, c.pad, c.zero)
		testWideDirect[float64](t, c.N, c.inG, c.outG, c.G, c.img, c.k, c.pad, c.zero)
	}
}

func testWideDirect[T float32 | float64](t *testing.T, N, inG, outG, G int, img, k, pad []int, zero bool) {
	t.Helper()
	what := fmt.Sprintf("%T N=%d inG=%d outG=%d G=%d img=%v k=%v pad=%v zero=%v", T(0), N, inG, outG, G, img, k, pad, zero)
	if inG%asm.GemmTileCols[T]() != 0 {
		t.Fatalf("%s: inG not a multiple of the sliver width %d: the case does not reach wideColsPacker", what, asm.GemmTileCols[T]())
	}
	dil := make([]int, len(img))
	for i := range dil {
		dil[i] = 1
	}
	g := newWideGeom(G*inG, img, k, pad, dil)
	rng := rand.New(rand.NewPCG(uint64(N), uint64(inG)))
	x := make([]T, N*G*inG*g.imgLen)
	gy := make([]T, N*G*outG*g.outLen)
	for i := range x {
		x[i] = T(rng.NormFloat64())
	}
	for i := range gy {
		if zero {
			gy[i] = T(math.Copysign(0, -1)) // -0 · x: signed zeros everywhere
			continue
		}
		gy[i] = T(rng.NormFloat64())
	}
	size := G * outG * inG * len(g.off)
	direct, copied := make([]T, size), make([]T, size)
	if !convWideWeightGrad(g, N, G, outG, x, gy, direct) {
		t.Fatalf("%s: direct weight gradient not finite", what)
	}
	wideColsDirect = false
	ok := convWideWeightGrad(g, N, G, outG, x, gy, copied)
	wideColsDirect = true
	if !ok {
		t.Fatalf("%s: copied weight gradient not finite", what)
	}
	for i := range direct {
		a, b := float64(direct[i]), float64(copied[i])
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("%s: dw[%d] = %v packed straight, %v with the rows copied", what, i, a, b)
		}
	}
}
