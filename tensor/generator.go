package tensor

import (
	"math"
	"sync"

	"github.com/goaten/goaten/internal/libm"
)

// Generator is a seedable source of random numbers with the semantics of
// PyTorch's CPU generator (torch.Generator, ATen's CPUGeneratorImpl): a
// 32-bit Mersenne Twister (mt19937) seeded as manual_seed seeds it, plus the
// second Box-Muller sample that normal_distribution keeps for the next call.
// The same seed gives the same numbers as PyTorch 1.13: ManualSeed(0) then
// Randn([]int{3}) is torch.manual_seed(0); torch.randn(3).
//
// A Generator is safe for concurrent use: a kernel holds it for all its
// draws (Draw), as ATen holds the generator's mutex for a whole kernel. For
// reproducible streams across goroutines give each goroutine its own.
//
// The zero Generator is seeded with PyTorch's default seed on first use, as
// torch.Generator() is.
type Generator struct {
	mu     sync.Mutex
	seeded bool
	seed   uint64
	e      Engine
}

// defaultSeed is c10's default_rng_seed_val, the seed PyTorch's default
// CPU generator starts from.
const defaultSeed = 67280421310721

// NewGenerator makes a generator with the given seed
// (torch.Generator().manual_seed(seed)).
func NewGenerator(seed uint64) *Generator {
	g := &Generator{}
	g.ManualSeed(seed)
	return g
}

// ManualSeed resets the generator's stream to the one seed starts
// (Generator.manual_seed): the twister is seeded with the low 32 bits of
// seed and the cached normal samples are dropped.
func (g *Generator) ManualSeed(seed uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reseed(seed)
}

func (g *Generator) reseed(seed uint64) {
	g.seed, g.seeded = seed, true
	g.e = Engine{}
	g.e.mt.seed(uint32(seed))
}

// lock takes the generator, seeding a zero Generator first.
func (g *Generator) lock() {
	g.mu.Lock()
	if !g.seeded {
		g.reseed(defaultSeed)
	}
}

// Seed returns the seed last set (Generator.initial_seed).
func (g *Generator) Seed() uint64 {
	g.lock()
	defer g.mu.Unlock()
	return g.seed
}

// Draw runs f with the generator locked: every number f draws from e comes
// from one unbroken stretch of the stream. Kernels draw through it.
func (g *Generator) Draw(f func(e *Engine)) {
	g.lock()
	defer g.mu.Unlock()
	f(&g.e)
}

// Uint64s fills dst with random 64-bit words (CPUGeneratorImpl::random64).
func (g *Generator) Uint64s(dst []uint64) {
	g.Draw(func(e *Engine) {
		for i := range dst {
			dst[i] = e.Random64()
		}
	})
}

// Uniform fills dst with doubles uniform on [0, 1), 53 bits each
// (uniform_real_distribution<double>(0, 1)).
func (g *Generator) Uniform(dst []float64) {
	g.Draw(func(e *Engine) {
		for i := range dst {
			dst[i] = e.Uniform64(0, 1)
		}
	})
}

// Normal fills dst with standard normal doubles
// (normal_distribution<double>(0, 1), one Box-Muller pair per two draws).
func (g *Generator) Normal(dst []float64) {
	g.Draw(func(e *Engine) {
		for i := range dst {
			dst[i] = e.Normal64(0, 1)
		}
	})
}

// IntN returns a uniform integer in [0, n), n > 0, as random_(0, n) draws
// it: one 32-bit word modulo n, or a 64-bit word when n >= 2^32.
func (g *Generator) IntN(n uint64) uint64 {
	var r uint64
	g.Draw(func(e *Engine) { r = e.RandomBelow(n) })
	return r
}

var defaultGen = NewGenerator(defaultSeed)

// DefaultGenerator is the generator random ops use when none is given
// (torch.default_generator).
func DefaultGenerator() *Generator { return defaultGen }

// ManualSeed seeds the default generator (torch.manual_seed).
func ManualSeed(seed uint64) { defaultGen.ManualSeed(seed) }

// Engine is a generator's state while a kernel holds it: the twister and the
// cached normal samples. Its methods are ATen's CPUGeneratorImpl draws and
// the distributions of DistributionsHelper.h, rounding as PyTorch's x86-64
// build does (FMA where GCC contracts, glibc's log, sin and cos).
type Engine struct {
	mt mt19937
	// The second sample of the last Box-Muller pair, for the next
	// normal_distribution<double> call.
	nextDouble    float64
	hasNextDouble bool
}

// Random returns the next 32-bit word (CPUGeneratorImpl::random).
func (e *Engine) Random() uint32 { return e.mt.next() }

// Random64 returns two words as one, the first in the high half
// (CPUGeneratorImpl::random64).
func (e *Engine) Random64() uint64 {
	hi := e.mt.next()
	lo := e.mt.next()
	return uint64(hi)<<32 | uint64(lo)
}

// RandomBelow is a uniform integer in [0, n), n > 0: a 32-bit word modulo n
// for n < 2^32, else a 64-bit one (uniform_int_from_to_distribution).
func (e *Engine) RandomBelow(n uint64) uint64 {
	if n >= 1<<32 {
		return e.Random64() % n
	}
	return uint64(e.Random()) % n
}

// Uniform32 is uniform_real_distribution<float>(from, to): the low 24 bits
// of a word scaled to [0, 1), then x·(to - from) + from in one rounding.
func (e *Engine) Uniform32(from, to float32) float32 {
	x := float32(e.Random()&(1<<24-1)) * 0x1p-24
	return libm.FMA32(x, to-from, from)
}

// UniformBits32 is uniform_real_distribution's x for a float type of the
// given significand width (24 for float32, 11 for float16, 8 for bfloat16):
// the low digits bits of a word scaled to [0, 1).
func (e *Engine) UniformBits32(digits uint) float32 {
	return float32(e.Random()&(1<<digits-1)) * float32(1/float64(uint64(1)<<digits))
}

// Uniform64 is uniform_real_distribution<double>(from, to): the low 53 bits
// of a 64-bit word scaled to [0, 1), then x·(to - from) + from in one rounding.
func (e *Engine) Uniform64(from, to float64) float64 {
	x := float64(e.Random64()&(1<<53-1)) * 0x1p-53
	return math.FMA(x, to-from, from)
}

// Normal64 is normal_distribution<double>(mean, std): Box-Muller on two
// uniform doubles u1, u2, r = √(-2·log(1-u2)), θ = 2π·u1, returning
// r·cos θ·std + mean and keeping r·sin θ for the next call.
func (e *Engine) Normal64(mean, std float64) float64 {
	if e.hasNextDouble {
		e.hasNextDouble = false
		return math.FMA(e.nextDouble, std, mean)
	}
	u1 := e.Uniform64(0, 1)
	u2 := e.Uniform64(0, 1)
	r := math.Sqrt(-2 * libm.Log(1-u2))
	theta := float64(2*math.Pi) * u1
	e.nextDouble, e.hasNextDouble = float64(r*libm.Sin(theta)), true
	return math.FMA(float64(r*libm.Cos(theta)), std, mean)
}

// Bernoulli64 is bernoulli_distribution<double>(p): a uniform double below p.
func (e *Engine) Bernoulli64(p float64) bool { return e.Uniform64(0, 1) < p }

// Bernoulli32 is bernoulli_distribution<float>(p): a uniform float below p.
func (e *Engine) Bernoulli32(p float32) bool { return e.Uniform32(0, 1) < p }

// Exponential64 is exponential_distribution<double>(lambda) on the CPU:
// -1/λ · log(1 - u).
func (e *Engine) Exponential64(lambda float64) float64 {
	u := e.Uniform64(0, 1)
	return float64(-1/lambda) * libm.Log(1-u)
}

// mt19937 is the 32-bit Mersenne Twister of ATen's MT19937RNGEngine.h
// (std::mt19937's algorithm and seeding).
type mt19937 struct {
	state [mtN]uint32
	pos   int
}

const (
	mtN      = 624
	mtM      = 397
	mtMatrix = 0x9908b0df
	mtUpper  = 0x80000000
	mtLower  = 0x7fffffff
)

// seed fills the state from seed with Knuth's linear recurrence
// (init_with_uint32); the first draw then regenerates the whole state.
func (m *mt19937) seed(seed uint32) {
	m.state[0] = seed
	for i := 1; i < mtN; i++ {
		p := m.state[i-1]
		m.state[i] = 1812433253*(p^p>>30) + uint32(i)
	}
	m.pos = mtN
}

func (m *mt19937) twist() {
	s := &m.state
	for i := range mtN {
		y := s[i]&mtUpper | s[(i+1)%mtN]&mtLower
		v := s[(i+mtM)%mtN] ^ y>>1
		if y&1 != 0 {
			v ^= mtMatrix
		}
		s[i] = v
	}
	m.pos = 0
}

// next returns the next tempered word.
func (m *mt19937) next() uint32 {
	if m.pos >= mtN {
		m.twist()
	}
	y := m.state[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}
