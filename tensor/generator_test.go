package tensor_test

import (
	"math"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// TestMT19937 checks the twister against std::mt19937's reference values:
// the 10000th output for the default seed 5489 is 4123659995.
func TestMT19937(t *testing.T) {
	g := tensor.NewGenerator(5489)
	var v uint32
	g.Draw(func(e *tensor.Engine) {
		for range 10000 {
			v = e.Random()
		}
	})
	if v != 4123659995 {
		t.Errorf("10000th word %d, want 4123659995", v)
	}
}

// TestGeneratorSeeding: a seed's low 32 bits seed the twister (as
// CPUGeneratorImpl does), Seed reports the whole seed, and a zero
// Generator starts from PyTorch's default seed.
func TestGeneratorSeeding(t *testing.T) {
	a, b := tensor.NewGenerator(7), tensor.NewGenerator(7+1<<32)
	var x, y uint64
	a.Draw(func(e *tensor.Engine) { x = e.Random64() })
	b.Draw(func(e *tensor.Engine) { y = e.Random64() })
	if x != y || b.Seed() != 7+1<<32 {
		t.Errorf("seeds 7 and 7+2^32: words %#x, %#x; Seed %d", x, y, b.Seed())
	}
	var z tensor.Generator
	d := tensor.NewGenerator(67280421310721)
	z.Draw(func(e *tensor.Engine) { x = e.Random64() })
	d.Draw(func(e *tensor.Engine) { y = e.Random64() })
	if x != y || z.Seed() != 67280421310721 {
		t.Errorf("zero Generator: word %#x, want %#x; Seed %d", x, y, z.Seed())
	}
}

// TestNormalCache: normal_distribution keeps the pair's second sample for
// the next call, and ManualSeed drops it.
func TestNormalCache(t *testing.T) {
	g := tensor.NewGenerator(3)
	pair := make([]float64, 2)
	g.Normal(pair)
	g.ManualSeed(3)
	var first, second float64
	g.Draw(func(e *tensor.Engine) {
		first = e.Normal64(0, 1)
		second = e.Normal64(0, 1)
	})
	if first != pair[0] || second != pair[1] {
		t.Errorf("normals %v %v, want %v", first, second, pair)
	}
	g.ManualSeed(3)
	g.Draw(func(e *tensor.Engine) { first = e.Normal64(2, 3) })
	if want := math.FMA(pair[0], 3, 2); first != want {
		t.Errorf("normal(2, 3) after reseeding %v, want %v", first, want)
	}
}
