package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloat32Key: the keys topk takes from a float32's bits are floatKey's
// of the value as float64, for the special values and random bit patterns.
func TestFloat32Key(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), -float32(math.NaN()), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32}
	r := rand.New(rand.NewPCG(31, 32))
	for range 100000 {
		vals = append(vals, math.Float32frombits(r.Uint32()))
	}
	for _, v := range vals {
		if got, want := float32Key(v), floatKey(float64(v)); got != want {
			t.Fatalf("float32Key(%v) = %#x, floatKey %#x", v, got, want)
		}
	}
}
