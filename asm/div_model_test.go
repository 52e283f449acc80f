package asm

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// divHard calls f with every dividend significand A = ai·2^-23 in [1, 2)
// whose quotient by B = bi·2^-23 (bi in (2^23, 2^24)) is near a rounding
// boundary: A/B within 7·2^-48/B of an odd multiple of 2^-25 (A < B) or
// within 3·2^-47/B of an odd multiple of 2^-24 (A ≥ B). Those are the
// quotients that Markstein's step in div_arm64.s could round wrong (its
// error is below 2^-46): ai·2^sh - (2k+1)·bi = n with 0 < |n| ≤ 7, sh = 25
// (resp. |n| ≤ 3, sh = 24). Some calls are for quotients near a float
// instead (even 2k+1); they do no harm.
func divHard(bi uint32, f func(ai uint32)) {
	v := uint(bits.TrailingZeros32(bi))
	bo := int64(bi >> v)
	for _, c := range []struct {
		sh     uint
		maxN   int64
		lo, hi int64 // ai's range
	}{{25, 7, 1 << 23, int64(bi)}, {24, 3, int64(bi), 1 << 24}} {
		for n := -c.maxN; n <= c.maxN; n++ {
			if n == 0 || n%(1<<v) != 0 {
				continue // n = 0 is no quotient of these; 2^v must divide n
			}
			// ai·2^(sh-v) ≡ n/2^v (mod bo): halve n/2^v (sh - v) times mod bo.
			x := (n>>v%bo + bo) % bo
			for range c.sh - v {
				if x&1 == 1 {
					x += bo
				}
				x >>= 1
			}
			for ai := c.lo + ((x-c.lo)%bo+bo)%bo; ai < c.hi; ai += bo {
				f(uint32(ai))
			}
		}
	}
}

// markstein32 is the kernels' quotient in Go (MARKSTEIN in div_arm64.s):
// y = RN(1/b), q0 = RN(a·y), r = RN(a - b·q0), RN(q0 + r·y).
func markstein32(a, b, y float32) float32 {
	q0 := float32(a * y) // the conversion forbids fusing
	r := fma32(-b, q0, a)
	return fma32(r, y, q0)
}

// TestDivMarkstein proves the division of div_arm64.s for a, b in [1, 2)
// (the kernels scale the rest): with y = RN(1/b), which RECIP gives
// (TestSigmoidRecip), Markstein's q0 + r·y is within 2^-46 of a/b (checked
// here exactly on a sample), so it rounds to RN(a/b) but where a/b is that
// near a rounding boundary; divHard lists those dividends for a divisor,
// and they are checked for every divisor (2^23 of them) with
// GOATEN_DIV_MODEL_STEP=1 (10 s natively, 41 million quotients), for every
// k-th with GOATEN_DIV_MODEL_STEP=k, every 61st by default.
func TestDivMarkstein(t *testing.T) {
	step := uint32(61)
	if s := os.Getenv("GOATEN_DIV_MODEL_STEP"); s != "" {
		n, _ := strconv.ParseUint(s, 10, 32)
		step = uint32(max(n, 1))
	}
	// divHard against a search of every dividend, for a few divisors.
	for _, bi := range []uint32{0xb504f3, 0xfffffe, 0xc0000c} {
		var want, got []uint32
		for ai := uint32(1 << 23); ai < 1<<24; ai++ {
			sh, maxN := 25, int64(7)
			if ai >= bi {
				sh, maxN = 24, 3
			}
			n := int64(uint64(ai) << sh % uint64(bi)) // ai·2^sh - (2k+1)·bi for the nearest multiple
			if n > int64(bi)/2 {
				n -= int64(bi)
			}
			if n != 0 && n >= -maxN && n <= maxN {
				want = append(want, ai)
			}
		}
		divHard(bi, func(ai uint32) { got = append(got, ai) })
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("divHard(%#x) = %x, want %x", bi, got, want)
		}
	}
	// The bound, exactly, on random pairs and on hard ones.
	r := rand.New(rand.NewPCG(9, 10))
	bound := new(big.Rat).SetFloat64(0x1p-46)
	checkBound := func(a, b float32) {
		y := 1 / b
		q0 := float32(a * y)
		rr := fma32(-b, q0, a)
		w := new(big.Rat).SetFloat64(float64(rr))
		w.Mul(w, new(big.Rat).SetFloat64(float64(y)))
		w.Add(w, new(big.Rat).SetFloat64(float64(q0)))
		w.Sub(w, new(big.Rat).Quo(new(big.Rat).SetFloat64(float64(a)), new(big.Rat).SetFloat64(float64(b))))
		if w.Abs(w).Cmp(bound) >= 0 {
			t.Fatalf("a = %#x, b = %#x: q0 + r·y is %s from a/b", math.Float32bits(a), math.Float32bits(b), w.FloatString(20))
		}
	}
	for range 20000 {
		checkBound(math.Float32frombits(0x3f800000|r.Uint32()>>9), math.Float32frombits(0x3f800000|r.Uint32()>>9))
	}
	for bi := uint32(1<<23 + 1); bi < 1<<24; bi += 4099 {
		b := float32(bi) * 0x1p-23
		divHard(bi, func(ai uint32) { checkBound(float32(ai)*0x1p-23, b) })
	}
	// The quotients near the boundaries, for every divisor.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fail string
	var count int
	workers := uint32(runtime.GOMAXPROCS(0))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for bi := 1<<23 + 1 + w*step; bi < 1<<24; bi += workers * step {
				b := float32(bi) * 0x1p-23
				y := 1 / b
				divHard(bi, func(ai uint32) {
					n++
					a := float32(ai) * 0x1p-23
					if got, want := markstein32(a, b, y), a/b; got != want {
						mu.Lock()
						fail = "a = " + strconv.FormatFloat(float64(a), 'x', -1, 32) + ", b = " + strconv.FormatFloat(float64(b), 'x', -1, 32)
						mu.Unlock()
					}
				})
			}
			mu.Lock()
			count += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if fail != "" {
		t.Fatalf("Markstein's quotient is not RN(a/b) for %s", fail)
	}
	t.Logf("%d quotients near a rounding boundary checked (divisor step %d)", count, step)
}

// recip64 is RECIPD (div_arm64.s) in Go, math.FMA standing for VFMLA and
// VFMLS: the seed 0x7fde5f73aabb2400 - bits(b), steps Newton steps, and
// (fix) one ulp more where b's mantissa is all ones.
func recip64(b float64, steps int, fix bool) float64 {
	y := math.Float64frombits(0x7fde5f73aabb2400 - math.Float64bits(b))
	for range steps {
		t := math.FMA(-b, y, 1)
		y = math.FMA(t, y, y)
	}
	if fix && math.Float64bits(b)&(1<<52-1) == 1<<52-1 {
		y = math.Float64frombits(math.Float64bits(y) + 1)
	}
	return y
}

// markstein64 is MARKSTEIND in Go: q0 = RN(a·y), q1 = RN(q0 + RN(a -
// b·q0)·y), RN(q1 + RN(a - b·q1)·y); also q1 and r1 = RN(a - b·q1).
func markstein64(a, b, y float64) (q, q1, r1 float64) {
	q0 := a * y
	q1 = math.FMA(math.FMA(-b, q0, a), y, q0)
	r1 = math.FMA(-b, q1, a)
	return math.FMA(r1, y, q1), q1, r1
}

// divHard64 calls f with dividend significands A (a = A·2^-52 in [1, 2))
// whose quotient by B (b = B·2^-52, B in (2^52, 2^53)) lies within
// maxN·2^-106/b of a midpoint of floats below 1, or maxN·2^-105/b from 1
// on: A·2^sh - M·B = n, 0 < |n| ≤ maxN, sh = 54 (A < B), 53 (A ≥ B); as
// divHard, some are near a float instead (M even).
func divHard64(bi uint64, maxN int64, f func(ai uint64)) {
	v := uint(bits.TrailingZeros64(bi))
	bo := bi >> v
	for _, c := range []struct {
		sh     uint
		lo, hi uint64
	}{{54, 1 << 52, bi}, {53, bi, 1 << 53}} {
		for n := -maxN; n <= maxN; n++ {
			if n == 0 || n%(1<<v) != 0 {
				continue
			}
			// A·2^(sh-v) ≡ n/2^v (mod bo): halve n/2^v (sh - v) times mod bo.
			x := uint64((n>>v%int64(bo) + int64(bo)) % int64(bo))
			for range c.sh - v {
				if x&1 == 1 {
					x += bo
				}
				x >>= 1
			}
			for ai := c.lo + (x+bo-c.lo%bo)%bo; ai < c.hi; ai += bo {
				f(ai)
			}
		}
	}
}

// TestDiv64Model checks the float64 division of div_arm64.s step by step
// against its proof (the comment above DIVCONSTSD's kernels):
//   - the seed's error |1 - b·y0| over [1, 2), exactly from its two
//     linear pieces, is below 0.0509, and the error bound carried through
//     four Newton steps puts y4 within 2^-53 (one ulp) of 1/b;
//   - the fifth step from y4 stalls at ½ for b = 2 - 2^-52 (the one
//     exception of the proof), which the fix corrects;
//   - the model (recip64, markstein64) gives RN(1/b) and RN(a/b), with q1
//     within one ulp of a/b and r1 exact, on random significands, on
//     the divisors nearest the all-ones and 1, and on the dividends whose
//     quotient is within 8·2^-106/b of a midpoint (divHard64) for random
//     divisors: GOATEN_DIV64_DIVISORS of them (default 20000).
func TestDiv64Model(t *testing.T) {
	// The seed: b = 1 + f, y0 = (1 + m0 - f)/2 for f ≤ m0, (2 + m0 - f)/4
	// above; b·y0's extremes are at the ends and the vertices.
	m0 := new(big.Rat).SetFrac(new(big.Int).SetUint64(0xe5f73aabb2400), new(big.Int).Lsh(big.NewInt(1), 52))
	one := big.NewRat(1, 1)
	rat := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
	e0 := new(big.Rat)
	for _, c := range []struct{ f, y *big.Rat }{
		{new(big.Rat), new(big.Rat).Quo(new(big.Rat).Add(one, m0), big.NewRat(2, 1))},                                                                                                             // f = 0 (and f = m0, f = 1: the same)
		{new(big.Rat).Quo(m0, big.NewRat(2, 1)), new(big.Rat).Quo(new(big.Rat).Add(one, new(big.Rat).Quo(m0, big.NewRat(2, 1))), big.NewRat(2, 1))},                                               // vertex 1
		{new(big.Rat).Quo(new(big.Rat).Add(one, m0), big.NewRat(2, 1)), new(big.Rat).Quo(new(big.Rat).Add(one, new(big.Rat).Quo(new(big.Rat).Add(one, m0), big.NewRat(2, 1))), big.NewRat(4, 1))}, // vertex 2
	} {
		e := new(big.Rat).Sub(one, new(big.Rat).Mul(new(big.Rat).Add(one, c.f), c.y))
		if e.Abs(e).Cmp(e0) > 0 {
			e0 = e
		}
	}
	if e0.Cmp(rat(0.0509)) >= 0 {
		t.Fatalf("seed error %s", e0.FloatString(6))
	}
	r := rand.New(rand.NewPCG(17, 18))
	for range 100000 { // the bound holds on samples
		b := math.Float64frombits(0x3ff0000000000000 | r.Uint64()>>12)
		e := new(big.Rat).Sub(one, new(big.Rat).Mul(rat(b), rat(recip64(b, 0, false))))
		if e.Abs(e).Cmp(e0) > 0 {
			t.Fatalf("seed error at %v above the bound", b)
		}
	}
	// The steps: E' = P + (1 + P)·u, P = E²(1 + u) + E·u.
	u := rat(0x1p-53)
	e, p := new(big.Rat).Set(e0), new(big.Rat)
	for range 4 {
		p = new(big.Rat).Add(new(big.Rat).Mul(new(big.Rat).Mul(e, e), new(big.Rat).Add(one, u)), new(big.Rat).Mul(e, u))
		e = new(big.Rat).Add(p, new(big.Rat).Mul(new(big.Rat).Add(one, p), u))
	}
	// p is now P3, the bound on |y3(1 + t3) - 1/b|·b; y4 is within 2^-54 + 2·P3.
	abs4 := new(big.Rat).Add(rat(0x1p-54), new(big.Rat).Mul(big.NewRat(2, 1), p))
	if abs4.Cmp(rat(0x1p-53)) >= 0 || p.Cmp(rat(0x1p-67)) >= 0 {
		t.Fatalf("y4 not within an ulp: P3 = %s", p.FloatString(30))
	}
	// The all-ones exception.
	b := math.Float64frombits(0x3fffffffffffffff)
	if recip64(b, 4, false) != 0.5 || recip64(b, 5, false) != 0.5 || recip64(b, 5, true) != 1/b {
		t.Fatalf("all ones: y4 %x, y5 %x", math.Float64bits(recip64(b, 4, false)), math.Float64bits(recip64(b, 5, false)))
	}
	// The model on divisors and dividends.
	count := 0
	check := func(a, b float64) {
		count++
		y := recip64(b, 5, true)
		if y != 1/b {
			t.Fatalf("1/%x: %x, want %x", math.Float64bits(b), math.Float64bits(y), math.Float64bits(1/b))
		}
		d := new(big.Rat).Sub(rat(recip64(b, 4, false)), new(big.Rat).Quo(one, rat(b)))
		if d.Abs(d).Cmp(rat(0x1p-53)) >= 0 {
			t.Fatalf("1/%x: y4 not within an ulp", math.Float64bits(b))
		}
		q, q1, r1 := markstein64(a, b, y)
		z := a / b
		if q != z {
			t.Fatalf("%x / %x: %x, want %x", math.Float64bits(a), math.Float64bits(b), math.Float64bits(q), math.Float64bits(z))
		}
		exact := new(big.Rat).Sub(rat(a), new(big.Rat).Mul(rat(b), rat(q1)))
		if exact.Cmp(rat(r1)) != 0 {
			t.Fatalf("%x / %x: r1 not exact", math.Float64bits(a), math.Float64bits(b))
		}
		ulp := 0x1p-53
		if z >= 1 {
			ulp = 0x1p-52
		}
		d = new(big.Rat).Sub(rat(q1), new(big.Rat).Quo(rat(a), rat(b)))
		if d.Abs(d).Cmp(rat(ulp)) >= 0 {
			t.Fatalf("%x / %x: q1 not within an ulp", math.Float64bits(a), math.Float64bits(b))
		}
	}
	sig := func(i uint64) float64 { return float64(i) * 0x1p-52 }
	for range 100000 {
		check(sig(1<<52|r.Uint64()>>12), sig(1<<52|r.Uint64()>>12))
	}
	for k := range uint64(2000) {
		for _, bi := range []uint64{1<<53 - 1 - k, 1<<52 + k} {
			check(sig(1<<52|r.Uint64()>>12), sig(bi))
			check(sig(1<<53-1-k), sig(bi))
			check(sig(1<<52+k), sig(bi))
		}
	}
	divisors := 20000
	if s := os.Getenv("GOATEN_DIV64_DIVISORS"); s != "" {
		divisors, _ = strconv.Atoi(s)
	}
	hard := 0
	for i := range divisors {
		bi := 1<<52 | r.Uint64()>>12
		switch i % 8 { // some with trailing zeros, some near the ends
		case 1:
			bi &^= 1<<uint(r.IntN(40)) - 1
		case 2:
			bi = 1<<53 - 1 - uint64(r.IntN(1<<20))
		}
		if bi == 1<<52 {
			continue
		}
		divHard64(bi, 8, func(ai uint64) {
			hard++
			sh := uint(54) // the quotient's distance to the nearest multiple of 2^-sh, in 2^-(sh+52)/b
			if ai >= bi {
				sh = 53
			}
			n := new(big.Int).Mod(new(big.Int).Lsh(new(big.Int).SetUint64(ai), sh), new(big.Int).SetUint64(bi)).Int64()
			if n > int64(bi/2) {
				n -= int64(bi)
			}
			if n == 0 || n < -8 || n > 8 {
				t.Fatalf("divHard64(%#x) gave %#x, %d from a multiple", bi, ai, n)
			}
			check(sig(ai), sig(bi))
		})
	}
	t.Logf("%d quotients checked, %d of them near a rounding boundary (%d divisors)", count, hard, divisors)
}
