package asm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// blockCase is one ConvBlockF32 call: its geometry and operands.
type blockCase struct {
	m, rows, cols, ldd, dPlane, ldx int
	wp                              []float32
	off                             []int
	bias                            []float32
	x                               []float32
}

// newBlockCase draws taps at offsets up to maxOff, x of exactly the length
// the taps read, and a bias half the time.
func newBlockCase(r *rand.Rand, m, rows, cols, taps, maxOff int) blockCase {
	c := blockCase{m: m, rows: rows, cols: cols, ldd: cols + r.IntN(4), ldx: cols + r.IntN(5)}
	c.dPlane = max(rows-1, 0)*c.ldd + cols + r.IntN(3)
	c.wp = ewValues32(r, 8*taps)
	c.off = make([]int, taps)
	hi := 0
	for i := range c.off {
		c.off[i] = r.IntN(maxOff + 1)
		hi = max(hi, c.off[i])
	}
	if r.IntN(2) == 0 {
		c.bias = ewValues32(r, m)
	}
	if rows > 0 && cols > 0 {
		c.x = ewValues32(r, (rows-1)*c.ldx+cols+hi)
	}
	return c
}

// check runs the case through kernel k, with dst and x at offset at of
// guarded buffers, and compares every element with the twin's bit for bit;
// the gaps between dst's rows and planes must keep their guard.
func (c blockCase) check(t testing.TB, name string, useAsm bool, at int) {
	t.Helper()
	n := 0
	if c.rows > 0 && c.cols > 0 {
		n = (c.m-1)*c.dPlane + (c.rows-1)*c.ldd + c.cols
	}
	want := make([]float32, n)
	for i := range want {
		want[i] = ewGuard
	}
	x, _ := ewPad(c.x, at, ewGuard)
	dst, buf := ewPad(make([]float32, n), at, ewGuard)
	for i := range dst {
		dst[i] = ewGuard
	}
	defer func(u bool) { convSmallUseAsm = u }(convSmallUseAsm)
	convSmallUseAsm = false
	ConvBlockF32(want, c.dPlane, c.ldd, c.x, c.ldx, c.wp, c.off, c.m, c.rows, c.cols, c.bias)
	convSmallUseAsm = useAsm
	ConvBlockF32(dst, c.dPlane, c.ldd, x, c.ldx, c.wp, c.off, c.m, c.rows, c.cols, c.bias)
	for i := range dst {
		if !ewSame(dst[i], want[i]) {
			t.Fatalf("%s: %d channels of %d rows of %d (ldd %d, plane %d, ldx %d), taps at %v, bias %v, x at %d: element %d = %v, the twin's %v",
				name, c.m, c.rows, c.cols, c.ldd, c.dPlane, c.ldx, c.off, c.bias != nil, at, i, dst[i], want[i])
		}
	}
	ewCheckGuards(t, name, buf, at, n, ewGuard)
}

// TestConvBlock compares every ConvBlockF32 kernel this CPU runs with the
// twin: 1–8 channels, rows 0..7 (pairs, an odd row redone, a lone row),
// columns 0..67 (past four 16-lane vectors), 0 to 20 taps, unaligned
// starts, the specials.
func TestConvBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for name, k := range convSmallKernelsUnderTest() {
		for rows := range 8 {
			for cols := range 68 {
				c := newBlockCase(r, 1+r.IntN(8), rows, cols, r.IntN(21), 3*cols+2)
				c.check(t, name, k, r.IntN(8))
			}
		}
		for _, cols := range []int{127, 128, 129, 1000} {
			c := newBlockCase(r, 8, 5, cols, 72, 2*cols+4)
			c.check(t, name, k, 3)
		}
	}
}

// wgradCase is one ConvWGradF32 call.
type wgradCase struct {
	n, rows, cols, gPlane, gImg, ldg, xImg, ldx int
	off                                         []int
	gy, x                                       []float32
}

// newWGradCase draws a ConvWGradF32 call: taps at offsets up to maxOff,
// or with rows3 (and at most 16 columns) three rows of three taps a row
// of x apart.
func newWGradCase(r *rand.Rand, n, rows, cols, maxOff int, rows3 bool) wgradCase {
	c := wgradCase{n: n, rows: rows, cols: cols, ldg: cols + r.IntN(3), ldx: cols + r.IntN(4)}
	c.gPlane = rows*c.ldg + r.IntN(3)
	if r.IntN(4) == 0 {
		c.gPlane = 0 // one channel twice
	}
	c.gImg = 2*rows*c.ldg + r.IntN(5)
	c.off = make([]int, 9)
	hi := 0
	for i := range c.off {
		c.off[i] = r.IntN(maxOff + 1)
		if i >= 3 && cols <= 16 && rows3 {
			// Three rows of three taps, a row apart (convWGrad3F32AVX512).
			c.off[i] = c.off[i%3] + i/3*c.ldx
		}
		hi = max(hi, c.off[i])
	}
	c.xImg = rows*c.ldx + hi + r.IntN(5)
	if n > 0 && rows > 0 && cols > 0 {
		c.gy = ewValues32(r, c.gPlane+(n-1)*c.gImg+(rows-1)*c.ldg+cols)
		c.x = ewValues32(r, (n-1)*c.xImg+(rows-1)*c.ldx+cols+hi)
	}
	return c
}

// check compares kernel k's sums with the twin's bit for bit.
func (c wgradCase) check(t testing.TB, name string, useAsm bool, at int) {
	t.Helper()
	want, got := make([]float32, 18), make([]float32, 18)
	gy, _ := ewPad(c.gy, at, ewGuard)
	x, _ := ewPad(c.x, (at+3)%8, ewGuard)
	defer func(u bool) { convSmallUseAsm = u }(convSmallUseAsm)
	convSmallUseAsm = false
	ConvWGradF32(want, c.gy, c.gPlane, c.gImg, c.ldg, c.x, c.xImg, c.ldx, c.off, c.n, c.rows, c.cols)
	convSmallUseAsm = useAsm
	ConvWGradF32(got, gy, c.gPlane, c.gImg, c.ldg, x, c.xImg, c.ldx, c.off, c.n, c.rows, c.cols)
	for i := range got {
		if !ewSame(got[i], want[i]) {
			t.Fatalf("%s: %d images of %d rows of %d, taps at %v: sum %d = %v, the twin's %v", name, c.n, c.rows, c.cols, c.off, i, got[i], want[i])
		}
	}
}

// TestConvWGrad compares every ConvWGradF32 kernel this CPU runs with the
// twin over images 0..3, rows 0..4, columns 0..67, unaligned starts, the
// specials (whose NaN and infinities the sums carry); taps three rows of
// three (the 3×3 kernel) for rows up to 16 columns, in pairs and alone.
func TestConvWGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for name, k := range convSmallKernelsUnderTest() {
		for n := range 4 {
			for rows := range 5 {
				for cols := range 68 {
					c := newWGradCase(r, n, rows, cols, 2*cols+3, false)
					c.check(t, name, k, r.IntN(8))
				}
				for cols := range 17 {
					c := newWGradCase(r, n, 2*rows+cols%2, cols, 4, true)
					c.check(t, name, k, r.IntN(8))
				}
			}
		}
	}
}

// TestConvSmallConv checks ConvBlockF32 and ConvWGradF32 as the
// convolution code calls them against a plain 3×3 correlation of C input
// planes with zero padding and its weight gradient, summed in float64.
func TestConvSmallConv(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	const N, C, M, H, W = 2, 3, 5, 7, 13
	Hp, Wp := H+2, W+2
	xp := make([]float32, N*C*Hp*Wp)
	img := make([]float32, N*C*H*W)
	for i := range img {
		img[i] = float32(r.NormFloat64())
		p, h, w := i/(H*W), i/W%H, i%W
		xp[p*Hp*Wp+(h+1)*Wp+w+1] = img[i]
	}
	w := make([]float32, M*C*9)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	bias := []float32{0.5, -1, 0.25, 2, 0}
	// Forward: taps k = c·9 + t at offsets c·plane + off[t].
	off := make([]int, C*9)
	wp := make([]float32, 8*C*9)
	for k := range off {
		c, t := k/9, k%9
		off[k] = c*Hp*Wp + t/3*Wp + t%3
		for o := range M {
			wp[8*k+o] = w[(o*C+c)*9+t]
		}
	}
	y := make([]float32, N*M*H*W)
	for n := range N {
		ConvBlockF32(y[n*M*H*W:], H*W, W, xp[n*C*Hp*Wp:], Wp, wp, off, M, H, W, bias)
	}
	at := func(n, c, h, w int) float64 {
		if h < 0 || h >= H || w < 0 || w >= W {
			return 0
		}
		return float64(img[((n*C+c)*H+h)*W+w])
	}
	gy := make([]float32, N*M*H*W)
	for i := range gy {
		gy[i] = float32(r.NormFloat64())
	}
	for n := range N {
		for o := range M {
			for oh := range H {
				for ow := range W {
					s := float64(bias[o])
					for c := range C {
						for t := range 9 {
							s += float64(w[(o*C+c)*9+t]) * at(n, c, oh+t/3-1, ow+t%3-1)
						}
					}
					if got := float64(y[((n*M+o)*H+oh)*W+ow]); math.Abs(got-s) > 1e-5*(1+math.Abs(s)) {
						t.Fatalf("output (%d, %d, %d, %d) = %v, want %v", n, o, oh, ow, got, s)
					}
				}
			}
		}
	}
	// Weight gradient: channels o, o+1 of gy against channel c of x.
	tapOff := make([]int, 9)
	for t := range tapOff {
		tapOff[t] = t/3*Wp + t%3
	}
	s := make([]float32, 18)
	for c := range C {
		for o := 0; o < M; o += 2 {
			gPlane := H * W
			if o+1 == M {
				gPlane = 0
			}
			ConvWGradF32(s, gy[o*H*W:], gPlane, M*H*W, W, xp[c*Hp*Wp:], C*Hp*Wp, Wp, tapOff, N, H, W)
			for j := range min(2, M-o) {
				for tp := range 9 {
					want := 0.0
					for n := range N {
						for oh := range H {
							for ow := range W {
								want += float64(gy[((n*M+o+j)*H+oh)*W+ow]) * at(n, c, oh+tp/3-1, ow+tp%3-1)
							}
						}
					}
					if got := float64(s[9*j+tp]); math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
						t.Fatalf("weight gradient (%d, %d, %d) = %v, want %v", o+j, c, tp, got, want)
					}
				}
			}
		}
	}
}

// TestConvSmallBadArgs checks that the kernels refuse calls that would
// read or write outside their slices.
func TestConvSmallBadArgs(t *testing.T) {
	x, d, wp := make([]float32, 40), make([]float32, 40), make([]float32, 16)
	s := make([]float32, 18)
	nine := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"no channels", func() { ConvBlockF32(d, 8, 4, x, 4, wp, []int{0}, 0, 2, 4, nil) }},
		{"nine channels", func() { ConvBlockF32(d, 8, 4, x, 4, make([]float32, 72), []int{0}, 9, 2, 4, nil) }},
		{"weights short", func() { ConvBlockF32(d, 8, 4, x, 4, wp, []int{0, 0, 0}, 1, 2, 4, nil) }},
		{"bias short", func() { ConvBlockF32(d, 8, 4, x, 4, wp, []int{0}, 2, 2, 4, []float32{1}) }},
		{"negative offset", func() { ConvBlockF32(d, 8, 4, x, 4, wp, []int{-1}, 1, 2, 4, nil) }},
		{"x too short", func() { ConvBlockF32(d, 8, 4, x, 8, wp, []int{33}, 1, 2, 4, nil) }},
		{"dst too short", func() { ConvBlockF32(d, 33, 4, x, 4, wp, []int{0}, 2, 2, 4, nil) }},
		{"planes overlap", func() { ConvBlockF32(d, 3, 4, x, 4, wp, []int{0}, 2, 2, 4, nil) }},
		{"rows overlap", func() { ConvBlockF32(d, 8, 3, x, 4, wp, []int{0}, 1, 2, 4, nil) }},
		{"eight offsets", func() { ConvWGradF32(s, x, 0, 8, 4, x, 8, 4, nine[:8], 1, 2, 4) }},
		{"sums short", func() { ConvWGradF32(s[:17], x, 0, 8, 4, x, 8, 4, nine, 1, 2, 4) }},
		{"gy too short", func() { ConvWGradF32(s, x, 33, 8, 4, x, 8, 4, nine, 1, 2, 4) }},
		{"x too short", func() { ConvWGradF32(s, x, 0, 8, 4, x, 30, 4, nine, 2, 2, 4) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.f()
		}()
	}
}

// FuzzConvBlock runs ConvBlockF32's and ConvWGradF32's kernels on cases
// whose x is decoded from data.
func FuzzConvBlock(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(3), uint8(17), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, rows, cols, taps uint8) {
		r := rand.New(rand.NewPCG(uint64(len(data)), 9))
		c := newBlockCase(r, 1+int(taps%8), int(rows%8), int(cols%80), int(taps%24), 2*int(cols%80)+3)
		g := newWGradCase(r, 1+int(rows%3), int(rows%5), int(cols%80), 2*int(cols%80)+3, taps%2 == 0)
		for i := range c.x {
			if 4*i+4 <= len(data) {
				c.x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			}
		}
		for i := range g.x {
			if 4*i+4 <= len(data) {
				g.x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			}
		}
		for name, k := range convSmallKernelsUnderTest() {
			c.check(t, name, k, len(data)%8)
			g.check(t, name, k, len(data)%8)
		}
	})
}

func ExampleConvBlockF32() {
	// Two output channels of a 1×3 row, padded by one zero each side,
	// by the taps [1 2] (channel 0) and [0 1] (channel 1), bias 10 and 0.
	x := []float32{0, 1, 2, 3, 0}
	wp := []float32{1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0}
	dst := make([]float32, 8)
	ConvBlockF32(dst, 4, 4, x, 5, wp, []int{0, 1}, 2, 1, 4, []float32{10, 0})
	fmt.Println(dst)
	// Output: [12 15 18 13 1 2 3 0]
}

// BenchmarkConvSmall times ConvBlockF32 on one image of examples/mnist's
// second convolution (8→16 channels, 14×14, 3×3, padding 1) and
// ConvWGradF32 on its weight gradient over a batch of 32 for one input and
// two output channels.
func BenchmarkConvSmall(b *testing.B) {
	const C, M, H, N = 8, 16, 14, 32
	Wp := H + 2
	plane := Wp * Wp
	x := make([]float32, N*C*plane)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	off := make([]int, C*9)
	for k := range off {
		off[k] = k/9*plane + k%9/3*Wp + k%3
	}
	wp := make([]float32, 8*len(off))
	for i := range wp {
		wp[i] = float32(i%5) - 2
	}
	y := make([]float32, M*H*H)
	b.Run(Path()+"/block/8x16x14x14", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ConvBlockF32(y, H*H, H, x, Wp, wp, off, 8, H, H, nil)
			ConvBlockF32(y[8*H*H:], H*H, H, x, Wp, wp, off, 8, H, H, nil)
		}
		b.ReportMetric(float64(2*M*C*9*H*H)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	gy := make([]float32, N*M*H*H)
	s := make([]float32, 18)
	b.Run(Path()+"/wgrad/32x2x14x14", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ConvWGradF32(s, gy, H*H, M*H*H, H, x, C*plane, Wp, off[:9], N, H, H)
		}
		b.ReportMetric(float64(2*2*9*N*H*H)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
