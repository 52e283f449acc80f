package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// naiveConv is the definition of a (non-transposed) convolution over
// float64 values: x is N×C×spatial, w is O×(C/groups)×kernel, both
// contiguous; the spatial rank is len(k).
func naiveConv(x []float64, xs []int, w []float64, ws []int, stride, pad, dil []int, groups int) ([]float64, []int) {
	nd := len(ws) - 2
	N, C, O := xs[0], xs[1], ws[0]
	cg, og := C/groups, O/groups
	in, k, out := xs[2:], ws[2:], make([]int, nd)
	for i := range nd {
		out[i] = (in[i]+2*pad[i]-dil[i]*(k[i]-1)-1)/stride[i] + 1
	}
	prod := func(v []int) int {
		p := 1
		for _, x := range v {
			p *= x
		}
		return p
	}
	inLen, kLen, outLen := prod(in), prod(k), prod(out)
	y := make([]float64, N*O*outLen)
	idx := make([]int, nd)
	kidx := make([]int, nd)
	for n := range N {
		for o := range O {
			g := o / og
			for q := range outLen {
				r := q
				for d := nd - 1; d >= 0; d-- {
					idx[d] = r % out[d]
					r /= out[d]
				}
				var s float64
				for c := range cg {
					for kk := range kLen {
						r := kk
						for d := nd - 1; d >= 0; d-- {
							kidx[d] = r % k[d]
							r /= k[d]
						}
						off, ok := 0, true
						for d := range nd {
							p := idx[d]*stride[d] - pad[d] + kidx[d]*dil[d]
							if p < 0 || p >= in[d] {
								ok = false
								break
							}
							off = off*in[d] + p
						}
						if ok {
							s += x[(n*C+g*cg+c)*inLen+off] * w[(o*cg+c)*kLen+kk]
						}
					}
				}
				y[(n*O+o)*outLen+q] = s
			}
		}
	}
	return y, append([]int{N, O}, out...)
}

// Convolutions run as GEMMs whose im2col operand is gathered straight into
// the packed slivers (asm.SgemmPacked): against the definition, over 1-, 2-
// and 3-d shapes with strides, padding, dilation and groups, output rows
// narrower and wider than a sliver, more than one sliver per row, and
// enough output channels for the GEMM team.
func TestConvPackedIm2col(t *testing.T) {
	cases := []struct {
		x, w             []int
		stride, pad, dil []int
		groups           int
	}{
		{[]int{2, 3, 70}, []int{4, 3, 3}, []int{1}, []int{1}, []int{1}, 1},
		{[]int{1, 4, 9, 11}, []int{6, 2, 3, 3}, []int{2, 1}, []int{1, 2}, []int{1, 2}, 2},
		{[]int{2, 8, 56, 56}, []int{16, 8, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 1},
		{[]int{1, 3, 33, 47}, []int{5, 3, 5, 4}, []int{3, 2}, []int{2, 0}, []int{1, 1}, 1},
		{[]int{1, 2, 5, 6, 7}, []int{3, 2, 2, 3, 2}, []int{1, 2, 1}, []int{1, 0, 1}, []int{2, 1, 1}, 1},
		{[]int{1, 16, 20, 20}, []int{150, 16, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 1},
	}
	r := rand.New(rand.NewPCG(5, 7))
	for _, c := range cases {
		for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} {
			t.Run(fmt.Sprintf("%v*%v/s%v/p%v/d%v/g%d/%s", c.x, c.w, c.stride, c.pad, c.dil, c.groups, d), func(t *testing.T) {
				rnd := func(shape []int) []float64 {
					n := 1
					for _, s := range shape {
						n *= s
					}
					v := make([]float64, n)
					for i := range v {
						v[i] = r.Float64()*2 - 1
						if d == tensor.Float32 {
							v[i] = float64(float32(v[i]))
						}
					}
					return v
				}
				xv, wv := rnd(c.x), rnd(c.w)
				want, shape := naiveConv(xv, c.x, wv, c.w, c.stride, c.pad, c.dil, c.groups)
				x := tensor.FromSlice(xv, c.x...).To(d)
				w := tensor.FromSlice(wv, c.w...).To(d)
				y := tensor.Call("aten::convolution", x, w, nil, c.stride, c.pad, c.dil, false, make([]int, len(c.stride)), c.groups).(*tensor.Tensor)
				if fmt.Sprint(y.Sizes()) != fmt.Sprint(shape) {
					t.Fatalf("shape %v, want %v", y.Sizes(), shape)
				}
				tol := 1e-12
				if d == tensor.Float32 {
					tol = 1e-5
				}
				for i, g := range y.Float64s() {
					if math.Abs(g-want[i]) > tol*(1+math.Abs(want[i]))*float64(c.w[1]*9) {
						t.Fatalf("y[%d] = %v, want %v", i, g, want[i])
					}
				}
			})
		}
	}
}

// TestConvDepthwise: a 2-d convolution with one channel per group and
// stride 1 (convDepthwise: padded planes, a fused axpy per tap) against a
// direct float64 sum, with padding, dilation, a bias, odd sizes and a
// 1×1 kernel.
func TestConvDepthwise(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	mk := func(shape ...int) *tensor.Tensor {
		v := make([]float32, tensor.Numel(shape))
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return tensor.FromSlice(v, shape...)
	}
	for _, c := range []struct{ n, ch, h, w, kh, kw, ph, pw, dh, dw int }{
		{2, 5, 7, 9, 3, 2, 1, 0, 1, 2},
		{1, 3, 14, 14, 3, 3, 1, 1, 1, 1},
		{3, 2, 5, 4, 1, 1, 0, 0, 1, 1},
		{1, 4, 6, 6, 5, 5, 2, 2, 1, 1},
	} {
		x, w, b := mk(c.n, c.ch, c.h, c.w), mk(c.ch, 1, c.kh, c.kw), mk(c.ch)
		y := tensor.Call("aten::convolution.default", x, w, b, []int{1, 1}, []int{c.ph, c.pw}, []int{c.dh, c.dw},
			false, []int{0, 0}, c.ch).(*tensor.Tensor)
		oh, ow := y.Size(2), y.Size(3)
		xs, ws, bs, ys := x.Float64s(), w.Float64s(), b.Float64s(), y.Float64s()
		for n := range c.n {
			for ch := range c.ch {
				for i := range oh {
					for j := range ow {
						want := bs[ch]
						for a := range c.kh {
							for e := range c.kw {
								ih, iw := i-c.ph+a*c.dh, j-c.pw+e*c.dw
								if ih >= 0 && ih < c.h && iw >= 0 && iw < c.w {
									want += ws[(ch*c.kh+a)*c.kw+e] * xs[((n*c.ch+ch)*c.h+ih)*c.w+iw]
								}
							}
						}
						got := ys[((n*c.ch+ch)*oh+i)*ow+j]
						if math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
							t.Fatalf("%+v: y[%d,%d,%d,%d] = %v, want %v", c, n, ch, i, j, got, want)
						}
					}
				}
			}
		}
	}
}
