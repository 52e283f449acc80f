package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/asm"
)

// TestDepthwiseS2OnePass checks that the one-pass input gradient of a 3×3
// depthwise convolution of stride 2 and padding 1 (asm's
// DepthwiseInputGradS2F32) gives the bits of the phase planes
// (inputGradPhases) it replaces: even sizes 2..32 by 2..40, 1 and 3
// planes, infinities and NaNs mixed into the output gradient and an
// infinite weight in some cases.
func TestDepthwiseS2OnePass(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	val := func() float32 {
		switch r.IntN(40) {
		case 0:
			return float32(math.Inf(1))
		case 1:
			return float32(math.NaN())
		case 2:
			return float32(math.Copysign(0, -1))
		}
		return float32(r.NormFloat64())
	}
	for range 200 {
		H, W, N := 2+2*r.IntN(16), 2+2*r.IntN(20), 1+2*r.IntN(2)
		rows := dwSide{n: H, out: H / 2, k: 3, s: 2, p: 1, d: 1}
		cols := dwSide{n: W, out: W / 2, k: 3, s: 2, p: 1, d: 1}
		if !dwS2(rows, cols) {
			t.Fatalf("%d×%d: not a one-pass case", H, W)
		}
		gPlane, gxPlane := rows.out*cols.out+r.IntN(3), H*W+r.IntN(3)
		gy := make([]float32, (N-1)*gPlane+rows.out*cols.out)
		for i := range gy {
			gy[i] = val()
		}
		w := make([]float32, 9)
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		if r.IntN(3) == 0 {
			w[r.IntN(9)] = float32(math.Inf(-1))
		}
		want, got := make([]float32, (N-1)*gxPlane+H*W), make([]float32, (N-1)*gxPlane+H*W)
		var s dwScratch
		s.inputGradPhases(dwInputGradPhases(rows, cols), rows, cols, gy, gPlane, N, w, want, gxPlane)
		asm.DepthwiseInputGradS2F32(got, gxPlane, gy, gPlane, N, rows.out, cols.out, w)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("%d planes of %d×%d, w %v: gx[%d] = %v, the phases' %v", N, H, W, w, i, got[i], want[i])
			}
		}
	}
}
