package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The transforms' matrices, for the float64 references.
var (
	winoBT = [6][6]float64{
		{4, 0, -5, 0, 1, 0}, {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
		{0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1},
	}
	winoAT = [4][6]float64{
		{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1},
	}
)

// winoCase is one pair of WinogradInF32 and WinogradOutF32 calls on n
// channels of a tile.
type winoCase struct {
	n, ldx, cs, ldv, ldy, ycs int
	x, m, bias                []float32
	xs                        int // x is read from xs on (xoff = -xs)
	valid                     uint64
	outValid                  uint16
}

func newWinoCase(r *rand.Rand, n int, values func(int) []float32) winoCase {
	c := winoCase{n: n, ldx: 6 + r.IntN(4), ldv: n + r.IntN(3), ldy: 4 + r.IntN(3)}
	c.cs = 6*c.ldx + r.IntN(5)
	c.ycs = 4*c.ldy + r.IntN(4)
	// The positions in the image: rows i0 … i1-1, columns j0 … j1-1 (as
	// an image's border clips a tile), or any set of them.
	i0, i1, j0, j1 := r.IntN(3), 6-r.IntN(3), r.IntN(3), 6-r.IntN(3)
	for k := range 36 {
		if i, j := k/6, k%6; i >= i0 && i < i1 && j >= j0 && j < j1 {
			c.valid |= 1 << k
		}
	}
	if r.IntN(4) == 0 {
		c.valid = r.Uint64() & (1<<36 - 1)
	}
	c.outValid = uint16(r.Uint32())
	if r.IntN(2) == 0 {
		c.outValid = 0xffff
	}
	if c.valid != 0 {
		c.xs, _ = tileSpan(c.valid, 6, c.ldx) // the first position read
	}
	if n > 0 {
		c.x = values(max(n-1, 0)*c.cs + 5*c.ldx + 6)
		c.m = values(35*c.ldv + n)
	}
	if r.IntN(2) == 0 {
		c.bias = values(n)
	}
	return c
}

// run computes the case with the assembly or the twins, the outputs in
// guarded buffers.
func (c winoCase) run(t *testing.T, useAsm bool) (v, y []float32, finite bool) {
	t.Helper()
	defer func(u bool) { winoUseAsm = u }(winoUseAsm)
	winoUseAsm = useAsm
	nv := 35*c.ldv + c.n
	ny := max(c.n-1, 0)*c.ycs + 3*c.ldy + 4
	v, vb := ewPad(make([]float32, nv), 3, ewGuard)
	y, yb := ewPad(make([]float32, ny), 5, ewGuard)
	for i := range v {
		v[i] = ewGuard
	}
	for i := range y {
		y[i] = ewGuard
	}
	var x []float32
	if c.x != nil {
		x = c.x[c.xs:]
	}
	WinogradInF32(v, c.ldv, x, -c.xs, c.cs, c.ldx, c.n, c.valid)
	finite = WinogradOutF32(y, 0, c.ycs, c.ldy, c.m, c.ldv, c.n, c.bias, c.outValid)
	ewCheckGuards(t, "v", vb, 3, nv, ewGuard)
	ewCheckGuards(t, "y", yb, 5, ny, ewGuard)
	// What the kernels must not write keeps its guard.
	for ξ := range 36 {
		for c0 := c.n; c0 < c.ldv && ξ < 35; c0++ {
			if v[ξ*c.ldv+c0] != ewGuard {
				t.Fatalf("v[%d·ldv + %d] written, past %d channels", ξ, c0, c.n)
			}
		}
	}
	for ch := range c.n {
		for k := range 16 {
			if c.outValid>>k&1 == 0 && y[ch*c.ycs+k/4*c.ldy+k%4] != ewGuard {
				t.Fatalf("y position %d of channel %d written, not valid", k, ch)
			}
		}
	}
	return v, y, finite
}

// TestWinogradAsmTwin compares the kernels in use with their twins bit for
// bit, on every channel count to 40 (a vector and a tail, past two
// vectors), specials mixed in, clipped and arbitrary valid positions.
func TestWinogradAsmTwin(t *testing.T) {
	if !winoAsm {
		t.Skipf("no assembly Winograd kernels on %s (path %s): the twins are all there is", "this build", Path())
	}
	r := rand.New(rand.NewPCG(25, 4))
	for n := range 41 {
		for rep := range 6 {
			c := newWinoCase(r, n, func(k int) []float32 { return ewValues32(r, k) })
			if rep%2 == 0 {
				c = newWinoCase(r, n, func(k int) []float32 { return normal32(r, k) })
			}
			va, ya, fa := c.run(t, true)
			vg, yg, fg := c.run(t, false)
			for i := range va {
				if !ewSame(va[i], vg[i]) {
					t.Fatalf("n=%d rep %d: v[%d] = %v, twin %v", n, rep, i, va[i], vg[i])
				}
			}
			for i := range ya {
				if !ewSame(ya[i], yg[i]) {
					t.Fatalf("n=%d rep %d: y[%d] = %v, twin %v", n, rep, i, ya[i], yg[i])
				}
			}
			if fa != fg {
				t.Fatalf("n=%d rep %d: finite %v, twin %v", n, rep, fa, fg)
			}
		}
	}
}

func normal32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestWinogradTransforms checks the transforms in use against Bᵀ·d·B and
// Aᵀ·M·A in float64, to a few roundings of the sum of the terms'
// magnitudes, and their finiteness report.
func TestWinogradTransforms(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	for _, n := range []int{1, 3, 16, 21} {
		c := newWinoCase(r, n, func(k int) []float32 { return normal32(r, k) })
		v, y, finite := c.run(t, winoUseAsm)
		if !finite {
			t.Fatalf("n=%d: finite inputs reported not finite", n)
		}
		for ch := range n {
			var d [6][6]float64
			for k := range 36 {
				if c.valid>>k&1 != 0 {
					d[k/6][k%6] = float64(c.x[ch*c.cs+k/6*c.ldx+k%6])
				}
			}
			for a := range 6 {
				for b := range 6 {
					var s, mag float64
					for i := range 6 {
						for j := range 6 {
							term := winoBT[a][i] * d[i][j] * winoBT[b][j]
							s, mag = s+term, mag+math.Abs(term)
						}
					}
					if got := float64(v[(6*a+b)*c.ldv+ch]); math.Abs(got-s) > 8*0x1p-24*mag {
						t.Fatalf("n=%d channel %d: V[%d][%d] = %v, want %v (terms %v)", n, ch, a, b, got, s, mag)
					}
				}
			}
			for a := range 4 {
				for b := range 4 {
					var s, mag float64
					for i := range 6 {
						for j := range 6 {
							term := winoAT[a][i] * float64(c.m[(6*i+j)*c.ldv+ch]) * winoAT[b][j]
							s, mag = s+term, mag+math.Abs(term)
						}
					}
					if c.bias != nil {
						s += float64(c.bias[ch])
						mag += math.Abs(float64(c.bias[ch]))
					}
					if c.outValid>>(4*a+b)&1 == 0 {
						continue
					}
					if got := float64(y[ch*c.ycs+a*c.ldy+b]); math.Abs(got-s) > 8*0x1p-24*mag {
						t.Fatalf("n=%d channel %d: Y[%d][%d] = %v, want %v (terms %v)", n, ch, a, b, got, s, mag)
					}
				}
			}
		}
		// An infinity anywhere in M, even at a position not written, is
		// reported.
		for _, bad := range []float32{float32(math.Inf(1)), float32(math.NaN())} {
			c.m[r.IntN(36)*c.ldv+r.IntN(n)] = bad
			c.outValid = 0
			if _, _, finite := c.run(t, winoUseAsm); finite {
				t.Fatalf("n=%d: %v in M reported finite", n, bad)
			}
		}
	}
}

// TestWinogradPanics: reads and writes outside the slices are refused.
func TestWinogradPanics(t *testing.T) {
	x := make([]float32, 100)
	v := make([]float32, 36*4)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"v short", func() { WinogradInF32(v[:35*4+3], 4, x, 0, 10, 6, 4, 1) }},
		{"x before", func() { WinogradInF32(v, 4, x, -1, 10, 6, 4, 1) }},
		{"x after", func() { WinogradInF32(v, 4, x, 0, 30, 6, 4, 1<<35) }},
		{"ldv", func() { WinogradInF32(v, 3, x, 0, 10, 6, 4, 1) }},
		{"y after", func() { WinogradOutF32(x, 0, 30, 4, v, 4, 4, nil, 1<<15) }},
		{"bias", func() { WinogradOutF32(x, 0, 10, 4, v, 4, 4, make([]float32, 3), 1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
	// Positions not valid are not read: a negative offset is fine.
	WinogradInF32(v, 4, x, -7, 10, 6, 4, 1<<(6+1))
	if fmt.Sprint(v[0]) == "" {
		t.Fatal("unreachable")
	}
}

func FuzzWinogradAsmTwin(f *testing.F) {
	f.Add(uint64(1), uint8(17))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		if !winoAsm {
			t.Skip("no assembly Winograd kernels in this build")
		}
		r := rand.New(rand.NewPCG(seed, 25))
		c := newWinoCase(r, int(n%48), func(k int) []float32 { return ewValues32(r, k) })
		va, ya, fa := c.run(t, true)
		vg, yg, fg := c.run(t, false)
		for i := range va {
			if !ewSame(va[i], vg[i]) {
				t.Fatalf("v[%d] = %v, twin %v", i, va[i], vg[i])
			}
		}
		for i := range ya {
			if !ewSame(ya[i], yg[i]) {
				t.Fatalf("y[%d] = %v, twin %v", i, ya[i], yg[i])
			}
		}
		if fa != fg {
			t.Fatalf("finite %v, twin %v", fa, fg)
		}
	})
}
