package asm

import (
	"math/rand/v2"
	"testing"
)

// TestLerp checks LerpF32 against the formula, each product rounded before
// the sum, over lengths 0…67 with the specials among the values and the
// weights.
func TestLerp(t *testing.T) {
	r := rand.New(rand.NewPCG(67, 68))
	for n := range 68 {
		x, y, d := ewValues32(r, n), ewValues32(r, n), make([]float32, n)
		w := ewValues32(r, 2)
		LerpF32(d, x, w[0], y, w[1])
		for i := range d {
			p, q := float32(x[i]*w[0]), float32(y[i]*w[1]) // rounded: no fused add
			if want := p + q; !ewSame(d[i], want) {
				t.Fatalf("%d elements, weights %v and %v: element %d = %v, want %v", n, w[0], w[1], i, d[i], want)
			}
		}
	}
}
