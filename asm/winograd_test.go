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
// channels of up to 16 tiles in quarters placed anywhere in the planes.
type winoCase struct {
	n, ldx, cs, ldc, ldp, ldy, ycs int
	x, m, bias, gy                 []float32
	xs                             int // x is read from xs on
	in, out                        WinoTiles
}

func newWinoCase(r *rand.Rand, n int, values func(int) []float32) winoCase {
	c := winoCase{n: n}
	for c.in.count() == 0 {
		for q := range 4 {
			c.in.Tiles[q] = r.IntN(5)
			if r.IntN(3) > 0 {
				c.in.Tiles[q] = 4
			}
		}
	}
	c.out.Tiles = c.in.Tiles
	lanes := c.in.count()
	c.ldc = lanes + r.IntN(3)
	c.ldp = max(n, 1)*c.ldc + r.IntN(3)
	c.ldx = 18 + r.IntN(10)
	c.cs = 24*c.ldx + r.IntN(5)
	c.ldy = 16 + r.IntN(10)
	c.ycs = 16*c.ldy + r.IntN(4)
	c.xs = -1
	for q := range 4 {
		// Rows and columns in the image, as its border clips a row of
		// tiles (or any set of rows).
		i0, i1 := r.IntN(3), 6-r.IntN(3)
		for i := i0; i < i1; i++ {
			c.in.Rows[q] |= 1 << i
		}
		if r.IntN(4) == 0 {
			c.in.Rows[q] = uint8(r.IntN(64))
		}
		c.in.Lo[q], c.in.Hi[q] = r.IntN(3), 18-r.IntN(3)
		if r.IntN(3) == 0 {
			c.in.Hi[q] = r.IntN(19)
		}
		c.in.Off[q] = q*6*c.ldx + r.IntN(c.ldx-17)
		for i := range 6 {
			if c.in.Rows[q]>>i&1 != 0 && c.in.Lo[q] < min(c.in.Hi[q], 4*c.in.Tiles[q]+2) {
				if o := c.in.Off[q] + i*c.ldx + c.in.Lo[q]; c.xs < 0 || o < c.xs {
					c.xs = o // the first position read
				}
				break
			}
		}
		c.out.Rows[q] = uint8(r.IntN(16))
		c.out.Hi[q] = r.IntN(17)
		if r.IntN(2) == 0 {
			c.out.Rows[q], c.out.Hi[q] = 15, 16
		}
		c.out.Off[q] = q*4*c.ldy + r.IntN(c.ldy-15)
	}
	c.xs = max(c.xs, 0)
	for q := range 4 {
		c.in.Off[q] -= c.xs
	}
	if n > 0 {
		c.x = values((n-1)*c.cs + 24*c.ldx)
		c.m = values(35*c.ldp + (n-1)*c.ldc + lanes)
		c.gy = values((n-1)*c.ycs + 16*c.ldy)
	}
	if r.IntN(2) == 0 {
		c.bias = values(n)
	}
	return c
}

// tiles calls f for each tile: its quarter, its place in the quarter and
// its column of v.
func (c winoCase) tiles(f func(q, i, t int)) {
	t := 0
	for q, n := range c.in.Tiles {
		for i := range n {
			f(q, i, t)
			t++
		}
	}
}

// read reports whether row r, column col of quarter q is read.
func (c winoCase) read(q, r, col int) bool {
	return c.in.Rows[q]>>r&1 != 0 && col >= c.in.Lo[q] && col < c.in.Hi[q]
}

// written reports whether row r, column col of quarter q is written.
func (c winoCase) written(q, r, col int) bool {
	return c.out.Rows[q]>>r&1 != 0 && col < c.out.Hi[q] && col < 4*c.out.Tiles[q]
}

// run computes the case with the assembly or the twins, the outputs in
// guarded buffers.
func (c winoCase) run(t *testing.T, useAsm bool) (v, y, g []float32, finite bool) {
	t.Helper()
	defer func(u bool) { winoUseAsm = u }(winoUseAsm)
	winoUseAsm = useAsm
	lanes := c.in.count()
	nv := 35*c.ldp + max(c.n-1, 0)*c.ldc + lanes
	ny := max(c.n-1, 0)*c.ycs + 16*c.ldy
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
	in, out := c.in, c.out
	g, gb := ewPad(make([]float32, nv), 4, ewGuard)
	for i := range g {
		g[i] = ewGuard
	}
	WinogradGradF32(g, c.ldp, c.ldc, c.gy, c.ycs, c.ldy, c.n, &out)
	ewCheckGuards(t, "g", gb, 4, nv, ewGuard)
	for k := range g {
		if k%c.ldp < c.n*c.ldc && k%c.ldp%c.ldc < lanes {
			continue
		}
		if g[k] != ewGuard {
			t.Fatalf("g[%d] written, not a tile of a channel", k)
		}
	}
	WinogradInF32(v, c.ldp, c.ldc, x, c.cs, c.ldx, c.n, &in)
	finite = WinogradOutF32(y, c.ycs, c.ldy, c.m, c.ldp, c.ldc, c.n, c.bias, &out)
	ewCheckGuards(t, "v", vb, 3, nv, ewGuard)
	ewCheckGuards(t, "y", yb, 5, ny, ewGuard)
	// What the kernels must not write keeps its guard.
	for k := range v {
		if k%c.ldp < c.n*c.ldc && k%c.ldp%c.ldc < lanes {
			continue
		}
		if v[k] != ewGuard {
			t.Fatalf("v[%d] written, not a tile of a channel", k)
		}
	}
	mine := make([]bool, len(y))
	for ch := range c.n {
		c.tiles(func(q, i, _ int) {
			for e := range 16 {
				if r, col := e/4, 4*i+e%4; c.written(q, r, col) {
					mine[c.out.Off[q]+ch*c.ycs+r*c.ldy+col] = true
				}
			}
		})
	}
	for k := range y {
		if !mine[k] && y[k] != ewGuard {
			t.Fatalf("y[%d] written, not an output in the image", k)
		}
	}
	return v, y, g, finite
}

// TestWinogradAsmTwin compares the kernels in use with their twins bit for
// bit, on every channel count to 40 (a vector and a tail, past two
// vectors), specials mixed in, clipped and arbitrary valid positions.
func TestWinogradAsmTwin(t *testing.T) {
	if !winoAsm {
		t.Skipf("no assembly Winograd kernels in this build (path %s, purego or not amd64 with AVX-512): nothing to compare the twins with; TestWinogradTransforms checks them against the definition", Path())
	}
	r := rand.New(rand.NewPCG(25, 4))
	for n := range 5 {
		for rep := range 16 {
			c := newWinoCase(r, n, func(k int) []float32 { return ewValues32(r, k) })
			if rep%2 == 0 {
				c = newWinoCase(r, n, func(k int) []float32 { return normal32(r, k) })
			}
			va, ya, ga, fa := c.run(t, true)
			vg, yg, gg, fg := c.run(t, false)
			for i := range va {
				if !ewSame(va[i], vg[i]) {
					t.Fatalf("n=%d rep %d: v[%d] = %v, twin %v", n, rep, i, va[i], vg[i])
				}
				if !ewSame(ga[i], gg[i]) {
					t.Fatalf("n=%d rep %d: g[%d] = %v, twin %v", n, rep, i, ga[i], gg[i])
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
	for _, n := range []int{1, 3, 5, 2, 4} {
		c := newWinoCase(r, n, func(k int) []float32 { return normal32(r, k) })
		v, y, g, finite := c.run(t, winoUseAsm)
		if !finite {
			t.Fatalf("n=%d: finite inputs reported not finite", n)
		}
		for ch := range n {
			c.tiles(func(q, tile, tl int) {
				var d [6][6]float64
				for k := range 36 {
					if i, col := k/6, 4*tile+k%6; c.read(q, i, col) {
						d[k/6][k%6] = float64(c.x[c.xs+c.in.Off[q]+ch*c.cs+i*c.ldx+col])
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
							t.Fatalf("n=%d channel %d tile %d: V[%d][%d] = %v, want %v (terms %v)", n, ch, tl, a, b, got, s, mag)
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
						if !c.written(q, a, 4*tile+b) {
							continue
						}
						if got := float64(y[c.out.Off[q]+ch*c.ycs+a*c.ldy+4*tile+b]); math.Abs(got-s) > 8*0x1p-24*mag {
							t.Fatalf("n=%d channel %d tile %d: Y[%d][%d] = %v, want %v (terms %v)", n, ch, tl, a, b, got, s, mag)
						}
					}
				}
				// The output gradient's transform A·d·Aᵀ.
				var dy [4][4]float64
				for k := range 16 {
					if r, col := k/4, 4*tile+k%4; c.written(q, r, col) {
						dy[r][k%4] = float64(c.gy[c.out.Off[q]+ch*c.ycs+r*c.ldy+col])
					}
				}
				for a := range 6 {
					for b := range 6 {
						var s, mag float64
						for i := range 4 {
							for j := range 4 {
								term := winoAT[i][a] * dy[i][j] * winoAT[j][b]
								s, mag = s+term, mag+math.Abs(term)
							}
						}
						if got := float64(g[(6*a+b)*c.ldp+ch*c.ldc+tl]); math.Abs(got-s) > 8*0x1p-24*mag {
							t.Fatalf("n=%d channel %d tile %d: A·dy·Aᵀ[%d][%d] = %v, want %v (terms %v)", n, ch, tl, a, b, got, s, mag)
						}
					}
				}
			})
		}
		// An infinity anywhere in M, even at a position not written, is
		// reported.
		for _, bad := range []float32{float32(math.Inf(1)), float32(math.NaN())} {
			c.m[r.IntN(36)*c.ldp+r.IntN(n)*c.ldc+r.IntN(c.in.count())] = bad
			c.out.Rows = [4]uint8{}
			if _, _, _, finite := c.run(t, winoUseAsm); finite {
				t.Fatalf("n=%d: %v in M reported finite", n, bad)
			}
		}
	}
}

// TestWinogradPanics: reads and writes outside the slices are refused.
func TestWinogradPanics(t *testing.T) {
	x := make([]float32, 200)
	v := make([]float32, 36*64)
	full := WinoTiles{Tiles: [4]int{4, 4, 4, 4}, Off: [4]int{0, 16, 32, 48}, Rows: [4]uint8{1, 1, 1, 1}, Hi: [4]int{18, 18, 18, 18}}
	with := func(f func(*WinoTiles)) *WinoTiles {
		tl := full
		f(&tl)
		return &tl
	}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"v short", func() { WinogradInF32(v[:35*64+3*16], 64, 16, x, 30, 6, 4, &full) }},
		{"x before", func() { WinogradInF32(v, 64, 16, x, 30, 6, 1, with(func(tl *WinoTiles) { tl.Off[2] = -1 })) }},
		{"x after", func() { WinogradInF32(v, 64, 16, x, 50, 6, 4, with(func(tl *WinoTiles) { tl.Rows[3] = 63 })) }},
		{"quarter of 5", func() { WinogradInF32(v, 64, 16, x, 30, 6, 1, with(func(tl *WinoTiles) { tl.Tiles[1] = 5 })) }},
		{"ldc", func() { WinogradInF32(v, 64, 15, x, 30, 6, 1, &full) }},
		{"y after", func() { WinogradOutF32(x, 30, 70, v, 64, 16, 4, nil, with(func(tl *WinoTiles) { tl.Rows[0] = 15 })) }},
		{"bias", func() { WinogradOutF32(x, 10, 4, v, 64, 16, 4, make([]float32, 3), &full) }},
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
	WinogradInF32(v, 64, 16, x, 30, 6, 4, with(func(tl *WinoTiles) { tl.Off[0], tl.Rows[0] = -7, 1<<2 }))
	WinogradInF32(v, 64, 16, x, 30, 6, 4, with(func(tl *WinoTiles) { tl.Off[0], tl.Lo[0] = -3, 3 }))
}

func FuzzWinogradAsmTwin(f *testing.F) {
	f.Add(uint64(1), uint8(17))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		if !winoAsm {
			t.Skip("no assembly Winograd kernels in this build (purego or not amd64 with AVX-512): nothing to compare the twins with; TestWinogradTransforms checks them against the definition")
		}
		r := rand.New(rand.NewPCG(seed, 25))
		c := newWinoCase(r, int(n%5), func(k int) []float32 { return ewValues32(r, k) })
		va, ya, ga, fa := c.run(t, true)
		vg, yg, gg, fg := c.run(t, false)
		for i := range va {
			if !ewSame(va[i], vg[i]) {
				t.Fatalf("v[%d] = %v, twin %v", i, va[i], vg[i])
			}
			if !ewSame(ga[i], gg[i]) {
				t.Fatalf("g[%d] = %v, twin %v", i, ga[i], gg[i])
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
