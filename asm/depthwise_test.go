package asm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// dwKernelSet is one implementation of the in-place depthwise kernels.
type dwKernelSet struct {
	conv  dwConvKernel
	grad  dwGradKernel
	lanes int
	zeros bool // the forward kernel may give a zero sum the other sign (AVX2)
}

// dwCase is a plan and the operands of a call: n planes of x (xPlane
// apart), of gy and dst (oPlane apart), the weights and init.
type dwCase struct {
	p              *DWPlan
	n              int
	xPlane, oPlane int
	x, gy, w       []float32
	init           float32
}

// newDWCase draws a plan of a correlation of stride sh along the rows (the
// columns read at random offsets and ranges, as a column stride dealt into
// phases makes them; half the time some in a second plane of phases past
// the first's rows) and its operands.
func newDWCase(r *rand.Rand, H, OH, OW, kH, kW, sh, n int, finite bool) dwCase {
	ldx := OW + r.IntN(5)
	rowOff, colOff, lo, hi := make([]int, kH), make([]int, kW), make([]int, kW), make([]int, kW)
	for i := range rowOff {
		rowOff[i] = r.IntN(H+5) - 3
	}
	for i := range colOff {
		a := r.IntN(OW + 1)
		b := a + r.IntN(OW-a+1)
		lo[i], hi[i] = a, b
		// ColOff + [a, b) within [0, ldx).
		colOff[i] = -a + r.IntN(ldx-(b-a)+1)
	}
	span := H * ldx
	if r.IntN(2) == 0 {
		span *= 2
		for i := range colOff {
			if r.IntN(2) == 0 {
				colOff[i] += H * ldx
			}
		}
	}
	c := dwCase{p: NewDWPlan(H, OH, OW, sh, ldx, span, rowOff, colOff, lo, hi), n: n}
	c.xPlane = span + r.IntN(3)
	c.oPlane = OH*OW + r.IntN(3)
	vals := func(k int) []float32 {
		if !finite {
			return ewValues32(r, k)
		}
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	c.x = vals(max(0, (n-1)*c.xPlane+span))
	c.gy = vals(max(0, (n-1)*c.oPlane+OH*OW))
	c.w = vals(kH * kW)
	c.init = vals(1)[0]
	return c
}

func (c dwCase) String() string {
	p := c.p
	return fmt.Sprintf("%d planes %d×%d (ldx %d) → %d×%d, sh %d, rows %v, columns %v [%v, %v)",
		c.n, p.H, p.LDX, p.LDX, p.OH, p.OW, p.SH, p.RowOff, p.ColOff, p.Lo, p.Hi)
}

// checkConv runs the forward kernel k on the case, dst at offset at of a
// guarded buffer, and compares every element with the twin's bit for bit
// (zeros: a zero may have the other sign); the gaps between the planes
// keep their guard.
func (c dwCase) checkConv(t testing.TB, name string, k dwConvKernel, zeros bool, at int) {
	t.Helper()
	n := len(c.gy)
	want := make([]float32, n)
	for i := range want {
		want[i] = ewGuard
	}
	dst, buf := ewPad(want, at, ewGuard)
	x, _ := ewPad(c.x, at, ewGuard)
	dwConvGo(c.p, want, c.oPlane, c.x, c.xPlane, c.n, c.w, c.init)
	if c.n > 0 && c.p.OH > 0 && c.p.OW > 0 {
		k(c.p, dst, c.oPlane, x, c.xPlane, c.n, c.w, c.init)
	}
	for i := range want {
		if !ewSame(dst[i], want[i]) && !(zeros && dst[i] == 0 && want[i] == 0) {
			t.Fatalf("%s: %v: element %d (plane %d) = %v, the twin's %v", name, c, i, i/max(1, c.oPlane), dst[i], want[i])
		}
	}
	ewCheckGuards(t, name, buf, at, n, ewGuard)
}

// checkGrad runs the weight-gradient kernel k and compares its partial
// sums with the twin's (same lanes) bit for bit.
func (c dwCase) checkGrad(t testing.TB, name string, k dwGradKernel, vl int) {
	t.Helper()
	kWc := dwCols(len(c.p.ColOff))
	size := len(c.p.RowOff) * kWc * vl
	want, got := make([]float32, size), make([]float32, size)
	dwGradGo(c.p, c.gy, c.oPlane, c.x, c.xPlane, c.n, want, vl)
	for i := range got {
		got[i] = ewGuard
	}
	k(c.p, c.gy, c.oPlane, c.x, c.xPlane, c.n, got)
	for kh := range c.p.RowOff {
		for kw := range c.p.ColOff {
			for j := range vl {
				i := (kh*kWc+kw)*vl + j
				if !ewSame(got[i], want[i]) {
					t.Fatalf("%s: %v: tap (%d, %d) lane %d = %v, the twin's %v", name, c, kh, kw, j, got[i], want[i])
				}
			}
		}
	}
}

// TestDepthwiseInPlace compares every in-place depthwise kernel this CPU
// runs with the twins: output widths 1..40 (past two 16-lane vectors),
// 1..9 rows and some of 14..28 (blocks of eight or seven, the last moved
// back), kernels of 1..5 rows and columns, row strides 1..3, 0..3 planes
// with gaps between them, unaligned starts; the forward kernel with the
// specials mixed in, the gradient on finite values (where the kernels skip
// the padding's pairs exactly).
func TestDepthwiseInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for name, k := range dwKernelsUnderTest() {
		for ow := 1; ow <= 40; ow++ {
			for range 3 {
				oh, kh, kw, sh := 1+r.IntN(9), 1+r.IntN(5), 1+r.IntN(5), 1+r.IntN(3)
				if r.IntN(3) == 0 { // blocks of eight or seven rows, redone at the end
					oh = []int{14, 16, 21, 23, 28}[r.IntN(5)]
				}
				h := 1 + r.IntN(oh*sh+3)
				n := r.IntN(4)
				newDWCase(r, h, oh, ow, kh, kw, sh, n, false).checkConv(t, name, k.conv, k.zeros, r.IntN(8))
				newDWCase(r, h, oh, ow, kh, kw, sh, n, true).checkGrad(t, name, k.grad, k.lanes)
			}
			// Three consecutive kernel rows of three taps, row stride 1
			// (dwConv3AVX512's and dwGrad3AVX512's plans): 7..30 rows,
			// the kernel's first row from 3 rows above the output row to
			// 2 below.
			for range 3 {
				oh := 7 + r.IntN(24)
				h := max(1, oh+r.IntN(7)-3)
				n := r.IntN(4)
				c := newDWCase(r, h, oh, ow, 3, 3, 1, n, false)
				c.p = dwConsecutive(c.p, r.IntN(6)-3)
				c.checkConv(t, name, k.conv, k.zeros, r.IntN(8))
				g := newDWCase(r, h, oh, ow, 3, 3, 1, n, true)
				g.p = dwConsecutive(g.p, r.IntN(6)-3)
				g.checkGrad(t, name, k.grad, k.lanes)
			}
		}
	}
}

// dwConsecutive is p with the kernel rows first, first+1, … (its other
// geometry unchanged).
func dwConsecutive(p *DWPlan, first int) *DWPlan {
	rowOff := make([]int, len(p.RowOff))
	for i := range rowOff {
		rowOff[i] = first + i
	}
	return NewDWPlan(p.H, p.OH, p.OW, p.SH, p.LDX, p.Span, rowOff, p.ColOff, p.Lo, p.Hi)
}

// TestDepthwiseConvPlain checks DepthwiseConvF32 on a 3×3 correlation with
// padding 1 (the plan device/cpu builds) against a float64 sum.
func TestDepthwiseConvPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	const H, W = 7, 13
	x := make([]float32, H*W)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	w := make([]float32, 9)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	p := NewDWPlan(H, H, W, 1, W, H*W, []int{-1, 0, 1}, []int{-1, 0, 1}, []int{1, 0, 0}, []int{W, W, W - 1})
	dst := make([]float32, H*W)
	DepthwiseConvF32(p, dst, H*W, x, H*W, 1, w, 0.25)
	acc := make([]float32, p.DWGradLen())
	DepthwiseGradF32(p, x, H*W, x, H*W, 1, acc) // x against itself
	for oh := range H {
		for ow := range W {
			s := 0.25
			for kh := range 3 {
				for kw := range 3 {
					h, c := oh+kh-1, ow+kw-1
					if h >= 0 && h < H && c >= 0 && c < W {
						s += float64(w[kh*3+kw]) * float64(x[h*W+c])
					}
				}
			}
			if got := float64(dst[oh*W+ow]); math.Abs(got-s) > 1e-5*(1+math.Abs(s)) {
				t.Fatalf("output (%d, %d) = %v, want %v", oh, ow, got, s)
			}
		}
	}
	for kh := range 3 {
		for kw := range 3 {
			want := 0.0
			for oh := range H {
				for ow := range W {
					h, c := oh+kh-1, ow+kw-1
					if h >= 0 && h < H && c >= 0 && c < W {
						want += float64(x[oh*W+ow]) * float64(x[h*W+c])
					}
				}
			}
			got := 0.0
			for _, v := range acc[p.DWGradAt(kh, kw):][:DWLanes()] {
				got += float64(v)
			}
			if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
				t.Fatalf("tap (%d, %d): gradient %v, want %v", kh, kw, got, want)
			}
		}
	}
}

// TestDepthwiseInPlaceBadArgs checks that NewDWPlan and the kernels refuse
// calls that would read or write outside their slices.
func TestDepthwiseInPlaceBadArgs(t *testing.T) {
	p := NewDWPlan(3, 3, 4, 1, 4, 12, []int{-1, 0, 1}, []int{-1, 0, 1}, []int{1, 0, 0}, []int{4, 4, 3})
	x, d, w := make([]float32, 12), make([]float32, 12), make([]float32, 9)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"span short of the rows", func() { NewDWPlan(3, 3, 4, 1, 4, 11, []int{0}, []int{0}, []int{0}, []int{4}) }},
		{"column past the row", func() { NewDWPlan(3, 3, 4, 1, 4, 12, []int{0}, []int{1}, []int{0}, []int{4}) }},
		{"column before the row", func() { NewDWPlan(3, 3, 4, 1, 4, 12, []int{0}, []int{-1}, []int{0}, []int{4}) }},
		{"range past the output", func() { NewDWPlan(3, 3, 4, 1, 4, 12, []int{0}, []int{0}, []int{0}, []int{5}) }},
		{"lengths differ", func() { NewDWPlan(3, 3, 4, 1, 4, 12, []int{0}, []int{0, 1}, []int{0}, []int{4}) }},
		{"weights", func() { DepthwiseConvF32(p, d, 12, x, 12, 1, w[:8], 0) }},
		{"dst too short", func() { DepthwiseConvF32(p, d, 12, x, 12, 2, w, 0) }},
		{"x too short", func() { DepthwiseConvF32(p, d[:12], 0, x[:11], 12, 1, w, 0) }},
		{"partial sums too few", func() { DepthwiseGradF32(p, d, 12, x, 12, 1, make([]float32, p.DWGradLen()-1)) }},
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

// FuzzDepthwiseInPlace runs the in-place kernels on a case whose input
// comes from data.
func FuzzDepthwiseInPlace(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(3), uint8(17), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, oh, ow, k uint8) {
		r := rand.New(rand.NewPCG(uint64(len(data)), 7))
		OH, OW := 1+int(oh%10), 1+int(ow%40)
		c := newDWCase(r, 1+int(k%13), OH, OW, 1+int(k%4), 1+int(k/4%5), 1+int(k/32%3), 1+int(k%3), false)
		if k >= 128 { // a plan of dwConv3AVX512: 3×3, consecutive rows, row stride 1
			OH = 7 + int(oh%16)
			c = newDWCase(r, max(1, OH+int(k%7)-3), OH, OW, 3, 3, 1, 1+int(k%3), false)
			c.p = dwConsecutive(c.p, int(k/8%6)-3)
		}
		for i := range c.x {
			if 4*i+4 <= len(data) {
				c.x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			}
		}
		for name, ks := range dwKernelsUnderTest() {
			c.checkConv(t, name, ks.conv, ks.zeros, len(data)%8)
		}
	})
}

// FuzzDepthwiseS2 runs DepthwiseInputGradS2F32 and DepthwiseGradS2F32 on
// operands that come from data and compares them with their twins.
func FuzzDepthwiseS2(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(3), uint8(17))
	f.Fuzz(func(t *testing.T, data []byte, oh, ow uint8) {
		r := rand.New(rand.NewPCG(uint64(len(data)), 9))
		OH, OW, n := 1+int(oh%12), 1+int(ow%40), 1+len(data)%3
		vals := func(k, from int) []float32 {
			v := make([]float32, k)
			for i := range v {
				v[i] = float32(r.NormFloat64())
				if j := 4 * (from + i); j+4 <= len(data) {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[j:]))
				}
			}
			return v
		}
		w, gy := vals(9, 0), vals(n*OH*OW, 9)
		x := vals(4*n*OH*OW, 0)
		want, got := make([]float32, 4*n*OH*OW), make([]float32, 4*n*OH*OW)
		dwInputS2Go(want, 4*OH*OW, gy, OH*OW, n, OH, OW, w)
		DepthwiseInputGradS2F32(got, 4*OH*OW, gy, OH*OW, n, OH, OW, w)
		for i := range want {
			if !ewSame(got[i], want[i]) {
				t.Fatalf("input gradient, %d planes of %d×%d: gx[%d] = %v, the twin's %v", n, OH, OW, i, got[i], want[i])
			}
		}
		wantW, gotW := make([]float32, 9*16), make([]float32, 9*16)
		dwGradS2Go(gy, OH*OW, x, 4*OH*OW, n, OH, OW, wantW)
		DepthwiseGradS2F32(gy, OH*OW, x, 4*OH*OW, n, OH, OW, gotW)
		for i := range wantW {
			if !ewSame(gotW[i], wantW[i]) {
				t.Fatalf("weight gradient, %d planes of %d×%d: tap %d lane %d = %v, the twin's %v", n, OH, OW, i/16, i%16, gotW[i], wantW[i])
			}
		}
	})
}

// BenchmarkDepthwiseInPlace times the in-place kernels on the 8 planes of
// a channel of a 3×3 depthwise convolution with padding 1.
func BenchmarkDepthwiseInPlace(b *testing.B) {
	for _, n := range []int{14, 56} {
		p := NewDWPlan(n, n, n, 1, n, n*n, []int{-1, 0, 1}, []int{-1, 0, 1}, []int{1, 0, 0}, []int{n, n, n - 1})
		x := make([]float32, 8*n*n)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		dst := make([]float32, len(x))
		w := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
		acc := make([]float32, p.DWGradLen())
		b.Run(fmt.Sprintf("%s/conv/%dx%d", Path(), n, n), func(b *testing.B) {
			b.SetBytes(int64(4 * (len(x) + len(dst))))
			for b.Loop() {
				DepthwiseConvF32(p, dst, n*n, x, n*n, 8, w, 0)
			}
			b.ReportMetric(float64(2*9*len(x))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("%s/s2input/%dx%d", Path(), 2*n, 2*n), func(b *testing.B) {
			gx := make([]float32, 4*len(x))
			b.SetBytes(int64(4 * (len(x) + len(gx))))
			for b.Loop() {
				DepthwiseInputGradS2F32(gx, 4*n*n, x, n*n, 8, n, n, w)
			}
			b.ReportMetric(float64(2*9*len(x))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("%s/s2grad/%dx%d", Path(), 2*n, 2*n), func(b *testing.B) {
			x4 := make([]float32, 4*len(x))
			b.SetBytes(int64(4 * (len(x) + len(x4))))
			for b.Loop() {
				DepthwiseGradS2F32(x, n*n, x4, 4*n*n, 8, n, n, acc)
			}
			b.ReportMetric(float64(2*9*len(x))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("%s/grad/%dx%d", Path(), n, n), func(b *testing.B) {
			b.SetBytes(int64(4 * 2 * len(x)))
			for b.Loop() {
				DepthwiseGradF32(p, x, n*n, x, n*n, 8, acc)
			}
			b.ReportMetric(float64(2*9*len(x))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestDepthwiseInputGradS2 compares DepthwiseInputGradS2F32's kernel with
// its twin bit for bit: gy of 1..9 rows (and some of 14..28) by 1..40
// columns (past two vectors), 0..3 planes with gaps between them, the
// specials mixed into gy and the weights, gx at unaligned starts in a
// guarded buffer; and the twin with a float64 sum of the definition on
// finite values.
func TestDepthwiseInputGradS2(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 50))
	for ow := 1; ow <= 40; ow++ {
		for range 3 {
			oh := 1 + r.IntN(9)
			if r.IntN(3) == 0 {
				oh = 14 + r.IntN(15)
			}
			n, gPlane, gxPlane := r.IntN(4), oh*ow+r.IntN(3), 4*oh*ow+r.IntN(3)
			gy := ewValues32(r, max(0, (n-1)*gPlane+oh*ow))
			w := ewValues32(r, 9)
			size := max(0, (n-1)*gxPlane+4*oh*ow)
			want := make([]float32, size)
			for i := range want {
				want[i] = ewGuard
			}
			at := r.IntN(8)
			got, buf := ewPad(want, at, ewGuard)
			dwInputS2Go(want, gxPlane, gy, gPlane, n, oh, ow, w)
			DepthwiseInputGradS2F32(got, gxPlane, gy, gPlane, n, oh, ow, w)
			for i := range want {
				if !ewSame(got[i], want[i]) {
					t.Fatalf("%d planes of %d×%d: gx[%d] = %v, the twin's %v", n, oh, ow, i, got[i], want[i])
				}
			}
			ewCheckGuards(t, "DepthwiseInputGradS2F32", buf, at, size, ewGuard)
		}
	}
	// Each weight infinite in turn, gy finite: the taps reading outside gy
	// are left out (no 0·Inf), as the twin leaves them out.
	for k := range 9 {
		for _, ow := range []int{7, 16, 17, 33} {
			oh := 4
			gy := make([]float32, oh*ow)
			for i := range gy {
				gy[i] = float32(r.NormFloat64())
			}
			w := make([]float32, 9)
			for i := range w {
				w[i] = float32(r.NormFloat64())
			}
			w[k] = float32(math.Inf(1))
			got, want := make([]float32, 4*oh*ow), make([]float32, 4*oh*ow)
			dwInputS2Go(want, 0, gy, 0, 1, oh, ow, w)
			DepthwiseInputGradS2F32(got, 0, gy, 0, 1, oh, ow, w)
			for i := range want {
				if !ewSame(got[i], want[i]) {
					t.Fatalf("w[%d] = +Inf, %d×%d: gx[%d] = %v, the twin's %v", k, oh, ow, i, got[i], want[i])
				}
			}
		}
	}
	// The definition: gx[2i+kh−1][2j+kw−1] += w[kh][kw]·gy[i][j].
	const oh, ow = 5, 7
	gy, w := make([]float32, oh*ow), make([]float32, 9)
	for i := range gy {
		gy[i] = float32(r.NormFloat64())
	}
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	gx := make([]float32, 4*oh*ow)
	DepthwiseInputGradS2F32(gx, 0, gy, 0, 1, oh, ow, w)
	want := make([]float64, len(gx))
	for i := range oh {
		for j := range ow {
			for kh := range 3 {
				for kw := range 3 {
					if h, c := 2*i+kh-1, 2*j+kw-1; h >= 0 && c >= 0 {
						want[h*2*ow+c] += float64(w[kh*3+kw]) * float64(gy[i*ow+j])
					}
				}
			}
		}
	}
	for i, g := range gx {
		if math.Abs(float64(g)-want[i]) > 1e-5*(1+math.Abs(want[i])) {
			t.Fatalf("gx[%d] = %v, want %v", i, g, want[i])
		}
	}
}

// TestDepthwiseGradS2 compares DepthwiseGradS2F32's kernel with its twin
// bit for bit (gy of 1..9 rows and some of 14..28 by 1..40 columns, 0..3
// planes with gaps, the specials mixed in: both sum only the pairs inside
// the image), and the sums of the partial sums with a float64 sum of the
// definition on finite values.
func TestDepthwiseGradS2(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for ow := 1; ow <= 40; ow++ {
		for range 3 {
			oh := 1 + r.IntN(9)
			if r.IntN(3) == 0 {
				oh = 14 + r.IntN(15)
			}
			n, gPlane, xPlane := r.IntN(4), oh*ow+r.IntN(3), 4*oh*ow+r.IntN(3)
			gy := ewValues32(r, max(0, (n-1)*gPlane+oh*ow))
			x := ewValues32(r, max(0, (n-1)*xPlane+4*oh*ow))
			want, got := make([]float32, 9*16), make([]float32, 9*16)
			for i := range got {
				got[i] = ewGuard
			}
			dwGradS2Go(gy, gPlane, x, xPlane, n, oh, ow, want)
			DepthwiseGradS2F32(gy, gPlane, x, xPlane, n, oh, ow, got)
			for i := range want {
				if !ewSame(got[i], want[i]) {
					t.Fatalf("%d planes of %d×%d: tap %d lane %d = %v, the twin's %v", n, oh, ow, i/16, i%16, got[i], want[i])
				}
			}
		}
	}
	for _, ow := range []int{7, 14, 23} {
		const oh, n = 6, 2
		gy, x := make([]float32, n*oh*ow), make([]float32, n*4*oh*ow)
		for i := range gy {
			gy[i] = float32(r.NormFloat64())
		}
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		acc := make([]float32, 9*16)
		DepthwiseGradS2F32(gy, oh*ow, x, 4*oh*ow, n, oh, ow, acc)
		for kh := range 3 {
			for kw := range 3 {
				want, got := 0.0, 0.0
				for p := range n {
					for i := range oh {
						for j := range ow {
							if h, c := 2*i+kh-1, 2*j+kw-1; h >= 0 && c >= 0 {
								want += float64(gy[(p*oh+i)*ow+j]) * float64(x[p*4*oh*ow+h*2*ow+c])
							}
						}
					}
				}
				for _, v := range acc[(kh*3+kw)*16:][:16] {
					got += float64(v)
				}
				if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
					t.Fatalf("%d×%d, tap (%d, %d): gradient %v, want %v", oh, ow, kh, kw, got, want)
				}
			}
		}
	}
}
