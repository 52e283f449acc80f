package tensor

import (
	"math"
	"math/rand/v2"
	"sync"
)

// Generator is a seedable source of random numbers (torch.Generator). It is
// safe for concurrent use; for reproducible streams give each goroutine its own.
type Generator struct {
	mu   sync.Mutex
	seed uint64
	src  *rand.PCG
}

// NewGenerator makes a generator with the given seed.
func NewGenerator(seed uint64) *Generator {
	return &Generator{seed: seed, src: rand.NewPCG(seed, 0x9e3779b97f4a7c15)}
}

// ManualSeed resets the generator's stream.
func (g *Generator) ManualSeed(seed uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seed = seed
	g.src.Seed(seed, 0x9e3779b97f4a7c15)
}

// Seed returns the seed last set.
func (g *Generator) Seed() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seed
}

// Uint64s fills dst with random words.
func (g *Generator) Uint64s(dst []uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range dst {
		dst[i] = g.src.Uint64()
	}
}

// Uniform fills dst with floats uniform in [0, 1) at 53 bits.
func (g *Generator) Uniform(dst []float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range dst {
		dst[i] = float64(g.src.Uint64()>>11) / (1 << 53)
	}
}

// Normal fills dst with standard normal floats (Box-Muller).
func (g *Generator) Normal(dst []float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := 0; i < len(dst); i += 2 {
		u1 := (float64(g.src.Uint64()>>11) + 1) / (1 << 53)
		u2 := float64(g.src.Uint64()>>11) / (1 << 53)
		r := math.Sqrt(-2 * math.Log(u1))
		dst[i] = r * math.Cos(2*math.Pi*u2)
		if i+1 < len(dst) {
			dst[i+1] = r * math.Sin(2*math.Pi*u2)
		}
	}
}

// IntN returns a uniform integer in [0, n).
func (g *Generator) IntN(n uint64) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	// Lemire's multiply-shift with rejection, exact for any n.
	for {
		hi, lo := mul64(g.src.Uint64(), n)
		if lo >= n || lo >= (-n)%n {
			return hi
		}
	}
}

func mul64(a, b uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	a0, a1 := a&mask32, a>>32
	b0, b1 := b&mask32, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&mask32 + a0*b1
	hi = a1*b1 + t>>32 + w1>>32
	lo = a * b
	return
}

var defaultGen = NewGenerator(67280421310721)

// DefaultGenerator is the generator random ops use when none is given.
func DefaultGenerator() *Generator { return defaultGen }

// ManualSeed seeds the default generator (torch.manual_seed).
func ManualSeed(seed uint64) { defaultGen.ManualSeed(seed) }
