package asm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// depthwiseCase is one DepthwiseF32 call: its geometry and operands.
type depthwiseCase struct {
	rows, cols, ldd, ldx int
	w                    []float32
	off                  []int
	init                 float32
	x                    []float32
}

// newDepthwiseCase draws taps at offsets up to maxOff and an x of exactly
// the length the taps read.
func newDepthwiseCase(r *rand.Rand, rows, cols, taps, maxOff int) depthwiseCase {
	c := depthwiseCase{rows: rows, cols: cols, ldd: cols + r.IntN(4), ldx: cols + r.IntN(5)}
	c.w = ewValues32(r, taps)
	c.off = make([]int, taps)
	hi := 0
	for i := range c.off {
		c.off[i] = r.IntN(maxOff + 1)
		hi = max(hi, c.off[i])
	}
	c.init = ewValues32(r, 1)[0]
	if rows > 0 && cols > 0 {
		c.x = ewValues32(r, (rows-1)*c.ldx+cols+hi)
	}
	return c
}

// check runs the case through kernel k, with dst and x at offset at of
// guarded buffers, and compares every element with the twin's bit for bit;
// the gaps between dst's rows must keep their guard.
func (c depthwiseCase) check(t testing.TB, name string, k depthwiseKernel, at int) {
	t.Helper()
	n := 0
	if c.rows > 0 && c.cols > 0 {
		n = (c.rows-1)*c.ldd + c.cols
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
	defer func(k depthwiseKernel) { depthwise = k }(depthwise)
	depthwise = depthwiseGo
	DepthwiseF32(want, c.ldd, c.x, c.ldx, c.w, c.off, c.rows, c.cols, c.init)
	depthwise = k
	DepthwiseF32(dst, c.ldd, x, c.ldx, c.w, c.off, c.rows, c.cols, c.init)
	for i := range dst {
		if !ewSame(dst[i], want[i]) {
			t.Fatalf("%s: %d rows of %d (ldd %d, ldx %d), taps at %v, x at %d: element %d (row %d, column %d) = %v, the twin's %v",
				name, c.rows, c.cols, c.ldd, c.ldx, c.off, at, i, i/c.ldd, i%c.ldd, dst[i], want[i])
		}
	}
	ewCheckGuards(t, name, buf, at, n, ewGuard)
}

// TestDepthwise compares every DepthwiseF32 kernel this CPU runs with the
// twin: rows 0..9 (four-row blocks and single rows), columns 0..67 (past
// four 16-lane vectors), 0 to 10 taps, unaligned starts, the specials.
func TestDepthwise(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for name, k := range depthwiseKernelsUnderTest() {
		for rows := range 10 {
			for cols := range 68 {
				c := newDepthwiseCase(r, rows, cols, r.IntN(11), 3*cols+2)
				c.check(t, name, k, r.IntN(8))
			}
		}
		for _, cols := range []int{127, 128, 129, 1000} {
			c := newDepthwiseCase(r, 6, cols, 9, 2*cols+4)
			c.check(t, name, k, 3)
		}
	}
}

// TestDepthwiseConv checks DepthwiseF32 as the convolution code calls it
// against a plain 3×3 correlation with zero padding, summed in float64.
func TestDepthwiseConv(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	const H, W = 7, 13
	Wp := W + 2
	xp := make([]float32, (H+2)*Wp)
	img := make([]float32, H*W)
	for i := range img {
		img[i] = float32(r.NormFloat64())
		xp[(i/W+1)*Wp+i%W+1] = img[i]
	}
	w := make([]float32, 9)
	off := make([]int, 9)
	for i := range w {
		w[i] = float32(r.NormFloat64())
		off[i] = i/3*Wp + i%3
	}
	dst := make([]float32, H*W)
	DepthwiseF32(dst, W, xp, Wp, w, off, H, W, 0.25)
	for oh := range H {
		for ow := range W {
			s := 0.25
			for kh := range 3 {
				for kw := range 3 {
					h, c := oh+kh-1, ow+kw-1
					if h >= 0 && h < H && c >= 0 && c < W {
						s += float64(w[kh*3+kw]) * float64(img[h*W+c])
					}
				}
			}
			if got := float64(dst[oh*W+ow]); math.Abs(got-s) > 1e-5*(1+math.Abs(s)) {
				t.Fatalf("output (%d, %d) = %v, want %v", oh, ow, got, s)
			}
		}
	}
}

// TestDepthwiseBadArgs checks that DepthwiseF32 refuses calls that would
// read or write outside its slices.
func TestDepthwiseBadArgs(t *testing.T) {
	x, d := make([]float32, 20), make([]float32, 20)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"taps and offsets differ", func() { DepthwiseF32(d, 4, x, 4, make([]float32, 2), []int{0}, 2, 4, 0) }},
		{"negative offset", func() { DepthwiseF32(d, 4, x, 4, []float32{1}, []int{-1}, 2, 4, 0) }},
		{"x too short", func() { DepthwiseF32(d, 4, x, 8, []float32{1}, []int{9}, 2, 4, 0) }},
		{"dst too short", func() { DepthwiseF32(d, 17, x, 4, []float32{1}, []int{0}, 2, 4, 0) }},
		{"rows overlap", func() { DepthwiseF32(d, 3, x, 4, []float32{1}, []int{0}, 2, 4, 0) }},
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

// FuzzDepthwise runs DepthwiseF32's kernels on a case decoded from data.
func FuzzDepthwise(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(3), uint8(17), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, rows, cols, taps uint8) {
		r := rand.New(rand.NewPCG(uint64(len(data)), 7))
		c := newDepthwiseCase(r, int(rows%12), int(cols%80), int(taps%12), 2*int(cols%80)+3)
		for i := range c.x {
			if 4*i+4 <= len(data) {
				c.x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			}
		}
		for name, k := range depthwiseKernelsUnderTest() {
			c.check(t, name, k, len(data)%8)
		}
	})
}

func ExampleDepthwiseF32() {
	// A 2×3 plane padded by one zero column each side, by the taps
	// [1 2] of one row: each output is x[c] + 2·x[c+1] of the padded row.
	x := []float32{0, 1, 2, 3, 0, 0, 4, 5, 6, 0}
	dst := make([]float32, 8)
	DepthwiseF32(dst, 4, x, 5, []float32{1, 2}, []int{0, 1}, 2, 4, 0)
	fmt.Println(dst)
	// Output: [2 5 8 3 8 14 17 6]
}

// BenchmarkDepthwise times DepthwiseF32 on the planes of a 3×3 depthwise
// convolution with padding 1 (a 14×14 plane is MobileNet's late stage).
func BenchmarkDepthwise(b *testing.B) {
	for _, n := range []int{14, 56} {
		b.Run(fmt.Sprintf("%s/%dx%d", Path(), n, n), func(b *testing.B) {
			wp := n + 2
			x := make([]float32, wp*wp)
			for i := range x {
				x[i] = float32(i%7) - 3
			}
			dst := make([]float32, n*n)
			w := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
			off := make([]int, 9)
			for i := range off {
				off[i] = i/3*wp + i%3
			}
			b.SetBytes(int64(4 * (len(x) + len(dst))))
			b.ReportAllocs()
			for b.Loop() {
				DepthwiseF32(dst, n, x, wp, w, off, n, n, 0)
			}
			b.ReportMetric(float64(2*9*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
