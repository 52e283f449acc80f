package asm

import (
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
// channels of a row of tiles.
type winoCase struct {
	n, lanes, ldx, cs, ldc, ldp, ldy, ycs int
	x, m, bias                            []float32
	xs                                    int   // x is read from xs on (xoff = -xs)
	rows, outRows                         uint8 // the rows in the image
	lo, hi, outHi                         int   // the columns in the image
}

func newWinoCase(r *rand.Rand, n, lanes int, values func(int) []float32) winoCase {
	c := winoCase{n: n, lanes: lanes, ldc: lanes + r.IntN(3)}
	c.ldx = 4*lanes + 2 + r.IntN(20)
	c.cs = 6*c.ldx + r.IntN(5)
	c.ldp = max(n, 1)*c.ldc + r.IntN(3)
	c.ldy = 4*lanes + r.IntN(20)
	c.ycs = 4*c.ldy + r.IntN(4)
	// The rows and columns in the image, as its border clips a row of
	// tiles (or any set of rows).
	i0, i1 := r.IntN(3), 6-r.IntN(3)
	for i := i0; i < i1; i++ {
		c.rows |= 1 << i
	}
	if r.IntN(4) == 0 {
		c.rows = uint8(r.IntN(64))
	}
	c.lo, c.hi = r.IntN(3), 4*lanes+2-r.IntN(3)
	if r.IntN(3) == 0 {
		c.hi = r.IntN(4*lanes + 3)
	}
	c.outRows = uint8(r.IntN(16))
	c.outHi = r.IntN(4*lanes + 1)
	if r.IntN(2) == 0 {
		c.outRows, c.outHi = 15, 4*lanes
	}
	for i := range 6 {
		if c.rows>>i&1 != 0 {
			c.xs = i*c.ldx + c.lo // the first position read
			break
		}
	}
	if n > 0 {
		c.x = values((n-1)*c.cs + 5*c.ldx + 4*lanes + 2)
		c.m = values(35*c.ldp + (n-1)*c.ldc + lanes)
	}
	if r.IntN(2) == 0 {
		c.bias = values(n)
	}
	return c
}

// in reports whether position (i, col) of a tile row's input is read.
func (c winoCase) in(i, col int) bool {
	return c.rows>>i&1 != 0 && col >= c.lo && col < c.hi
}

// out reports whether position (i, col) of a tile row's output is written.
func (c winoCase) out(i, col int) bool { return c.outRows>>i&1 != 0 && col < c.outHi }

// run computes the case with the assembly or the twins, the outputs in
// guarded buffers.
func (c winoCase) run(t *testing.T, useAsm bool) (v, y []float32, finite bool) {
	t.Helper()
	defer func(u bool) { winoUseAsm = u }(winoUseAsm)
	winoUseAsm = useAsm
	nv := 35*c.ldp + max(c.n-1, 0)*c.ldc + c.lanes
	ny := max(c.n-1, 0)*c.ycs + 3*c.ldy + 4*c.lanes
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
	WinogradInF32(v, c.ldp, c.ldc, x, -c.xs, c.cs, c.ldx, c.n, c.rows, c.lo, c.hi, c.lanes)
	finite = WinogradOutF32(y, 0, c.ycs, c.ldy, c.m, c.ldp, c.ldc, c.n, c.bias, c.outRows, c.outHi, c.lanes)
	ewCheckGuards(t, "v", vb, 3, nv, ewGuard)
	ewCheckGuards(t, "y", yb, 5, ny, ewGuard)
	// What the kernels must not write keeps its guard.
	for k := range v {
		if k%c.ldp < c.n*c.ldc && k%c.ldp%c.ldc < c.lanes {
			continue
		}
		if v[k] != ewGuard {
			t.Fatalf("v[%d] written, not a tile of a channel", k)
		}
	}
	for k := range y {
		ch, q := k/c.ycs, k%c.ycs
		if ch < c.n && q/c.ldy < 4 && q%c.ldy < 4*c.lanes && c.out(q/c.ldy, q%c.ldy) {
			continue
		}
		if y[k] != ewGuard {
			t.Fatalf("y[%d] written, not an output in the image", k)
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
	for n := range 5 {
		for lanes := 1; lanes <= 16; lanes++ {
			rep := lanes + n
			c := newWinoCase(r, n, lanes, func(k int) []float32 { return ewValues32(r, k) })
			if rep%2 == 0 {
				c = newWinoCase(r, n, lanes, func(k int) []float32 { return normal32(r, k) })
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
	for _, n := range []int{1, 3, 5} {
		lanes := 1 + r.IntN(16)
		c := newWinoCase(r, n, lanes, func(k int) []float32 { return normal32(r, k) })
		v, y, finite := c.run(t, winoUseAsm)
		if !finite {
			t.Fatalf("n=%d: finite inputs reported not finite", n)
		}
		for ch := range n * lanes {
			ch, tl := ch/lanes, ch%lanes
			var d [6][6]float64
			for k := range 36 {
				if i, col := k/6, 4*tl+k%6; c.in(i, col) {
					d[k/6][k%6] = float64(c.x[ch*c.cs+i*c.ldx+col])
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
					if got := float64(v[(6*a+b)*c.ldp+ch*c.ldc+tl]); math.Abs(got-s) > 8*0x1p-24*mag {
						t.Fatalf("n=%d channel %d: V[%d][%d] = %v, want %v (terms %v)", n, ch, a, b, got, s, mag)
					}
				}
			}
			for a := range 4 {
				for b := range 4 {
					var s, mag float64
					for i := range 6 {
						for j := range 6 {
							term := winoAT[a][i] * float64(c.m[(6*i+j)*c.ldp+ch*c.ldc+tl]) * winoAT[b][j]
							s, mag = s+term, mag+math.Abs(term)
						}
					}
					if c.bias != nil {
						s += float64(c.bias[ch])
						mag += math.Abs(float64(c.bias[ch]))
					}
					if !c.out(a, 4*tl+b) {
						continue
					}
					if got := float64(y[ch*c.ycs+a*c.ldy+4*tl+b]); math.Abs(got-s) > 8*0x1p-24*mag {
						t.Fatalf("n=%d channel %d: Y[%d][%d] = %v, want %v (terms %v)", n, ch, a, b, got, s, mag)
					}
				}
			}
		}
		// An infinity anywhere in M, even at a position not written, is
		// reported.
		for _, bad := range []float32{float32(math.Inf(1)), float32(math.NaN())} {
			c.m[r.IntN(36)*c.ldp+r.IntN(n)*c.ldc+r.IntN(lanes)] = bad
			c.outRows = 0
			if _, _, finite := c.run(t, winoUseAsm); finite {
				t.Fatalf("n=%d: %v in M reported finite", n, bad)
			}
		}
	}
}

// TestWinogradPanics: reads and writes outside the slices are refused.
func TestWinogradPanics(t *testing.T) {
	x := make([]float32, 200)
	v := make([]float32, 36*64)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"v short", func() { WinogradInF32(v[:35*64+3*16], 64, 16, x, 0, 30, 6, 4, 63, 0, 66, 16) }},
		{"x before", func() { WinogradInF32(v, 64, 16, x, -1, 30, 6, 1, 1, 0, 66, 16) }},
		{"x after", func() { WinogradInF32(v, 64, 16, x, 0, 30, 66, 4, 63, 0, 66, 16) }},
		{"lanes", func() { WinogradInF32(v, 64, 16, x, 0, 30, 6, 1, 1, 0, 66, 17) }},
		{"ldc", func() { WinogradInF32(v, 64, 3, x, 0, 30, 6, 1, 1, 0, 66, 4) }},
		{"y after", func() { WinogradOutF32(x, 0, 30, 70, v, 64, 16, 4, nil, 15, 64, 16) }},
		{"bias", func() { WinogradOutF32(x, 0, 10, 4, v, 64, 16, 4, make([]float32, 3), 1, 4, 1) }},
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
	// Positions not read: a negative offset is fine.
	WinogradInF32(v, 64, 16, x, -7, 30, 6, 4, 1<<1, 2, 66, 16)
	WinogradInF32(v, 64, 16, x, -3, 30, 6, 4, 1, 3, 66, 16)
}

func FuzzWinogradAsmTwin(f *testing.F) {
	f.Add(uint64(1), uint8(17))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		if !winoAsm {
			t.Skip("no assembly Winograd kernels in this build")
		}
		r := rand.New(rand.NewPCG(seed, 25))
		c := newWinoCase(r, int(n%5), 1+int(n/5%16), func(k int) []float32 { return ewValues32(r, k) })
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
