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
