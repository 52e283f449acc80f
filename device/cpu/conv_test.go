package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// naiveConvTerms visits every product term of a (non-transposed)
// convolution: x is N×C×spatial, w is O×(C/groups)×kernel, both contiguous,
// the spatial rank is len(ws)-2; f(yi, xi, wi) says that y[yi] has the term
// x[xi]·w[wi]. It returns the shape of y.
func naiveConvTerms(xs, ws, stride, pad, dil []int, groups int, f func(yi, xi, wi int)) []int {
	nd := len(ws) - 2
	N, C, O := xs[0], xs[1], ws[0]
	cg, og := C/groups, O/groups
	shape := naiveConvShape(xs, ws, stride, pad, dil)
	in, k, out := xs[2:], ws[2:], shape[2:]
	inLen, kLen, outLen := numel(in), numel(k), numel(out)
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
							f((n*O+o)*outLen+q, (n*C+g*cg+c)*inLen+off, (o*cg+c)*kLen+kk)
						}
					}
				}
			}
		}
	}
	return shape
}

// naiveConvShape is the shape of the convolution of naiveConvTerms.
func naiveConvShape(xs, ws, stride, pad, dil []int) []int {
	shape := []int{xs[0], ws[0]}
	for i, in := range xs[2:] {
		shape = append(shape, (in+2*pad[i]-dil[i]*(ws[2+i]-1)-1)/stride[i]+1)
	}
	return shape
}

// convRand is n values uniform in [-1, 1), representable in dtype d.
func convRand(r *rand.Rand, n int, d tensor.DType) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()*2 - 1
		if d == tensor.Float32 {
			v[i] = float64(float32(v[i]))
		}
	}
	return v
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// naiveConv is the definition of a (non-transposed) convolution over
// float64 values (shapes as naiveConvTerms).
func naiveConv(x []float64, xs []int, w []float64, ws []int, stride, pad, dil []int, groups int) ([]float64, []int) {
	shape := naiveConvShape(xs, ws, stride, pad, dil)
	y := make([]float64, numel(shape))
	naiveConvTerms(xs, ws, stride, pad, dil, groups, func(yi, xi, wi int) { y[yi] += x[xi] * w[wi] })
	return y, shape
}

// Convolutions run as GEMMs whose im2col operand is gathered straight into
// the packed slivers (asm.SgemmPacked): against the definition, over 1-, 2-
// and 3-d shapes with strides, padding, dilation and groups, output rows
// narrower and wider than a sliver, more than one sliver per row, and
// enough output channels for the GEMM team.
var convCases = []struct {
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
	{[]int{2, 6, 5, 7}, []int{4, 3, 1, 1}, []int{1, 1}, []int{0, 0}, []int{1, 1}, 2},
	{[]int{1, 3, 6, 6}, []int{2, 3, 2, 2}, []int{1, 1}, []int{2, 1}, []int{1, 1}, 1},
	// Stride 1 (convWide, and its input and weight gradients): examples/
	// mnist's two convolutions, whose batches span several chunks of
	// images; 3-d with groups, dilation and uneven padding; unpadded.
	{[]int{32, 1, 28, 28}, []int{8, 1, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 1},
	{[]int{32, 8, 14, 14}, []int{16, 8, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 1},
	{[]int{3, 4, 5, 6, 7}, []int{6, 2, 3, 2, 3}, []int{1, 1, 1}, []int{1, 0, 2}, []int{1, 2, 1}, 2},
	{[]int{2, 6, 9, 10}, []int{6, 3, 3, 3}, []int{1, 1}, []int{2, 1}, []int{2, 1}, 2},
	{[]int{5, 3, 7, 6}, []int{4, 3, 2, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}, 1},
	// Rows keeping their width (convFlat): dilated along the width, 5
	// taps wide, 1-d, a row narrower than a sliver.
	{[]int{2, 4, 7, 9}, []int{6, 2, 3, 3}, []int{1, 1}, []int{1, 2}, []int{1, 2}, 2},
	{[]int{3, 2, 5, 40}, []int{3, 2, 1, 5}, []int{1, 1}, []int{0, 2}, []int{1, 1}, 1},
	{[]int{4, 3, 37}, []int{5, 3, 3}, []int{1}, []int{3}, []int{3}, 1},
	{[]int{3, 2, 4, 3}, []int{2, 2, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 1},
	// Depthwise (convDepthwise and convDepthwiseWeightGrad for float32):
	// padded, dilated, unpadded, and padded past the kernel's reach (the
	// input gradient then takes the general path).
	{[]int{2, 6, 9, 11}, []int{6, 1, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 6},
	{[]int{1, 4, 8, 7}, []int{4, 1, 3, 2}, []int{1, 1}, []int{2, 0}, []int{2, 1}, 4},
	{[]int{2, 5, 7, 9}, []int{5, 1, 3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}, 5},
	{[]int{1, 3, 6, 6}, []int{3, 1, 2, 2}, []int{1, 1}, []int{2, 1}, []int{1, 1}, 3},
}

func TestConvPackedIm2col(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	for ci, c := range convCases {
		for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} {
			t.Run(fmt.Sprintf("%v*%v/s%v/p%v/d%v/g%d/%s", c.x, c.w, c.stride, c.pad, c.dil, c.groups, d), func(t *testing.T) {
				xv, wv := convRand(r, numel(c.x), d), convRand(r, numel(c.w), d)
				want, shape := naiveConv(xv, c.x, wv, c.w, c.stride, c.pad, c.dil, c.groups)
				// A bias on every other case.
				var bias *tensor.Tensor
				if ci%2 == 1 {
					bv := convRand(r, c.w[0], d)
					outLen := numel(shape[2:])
					for i := range want {
						want[i] += bv[i/outLen%c.w[0]]
					}
					bias = tensor.FromSlice(bv, c.w[0]).To(d)
				}
				x := tensor.FromSlice(xv, c.x...).To(d)
				w := tensor.FromSlice(wv, c.w...).To(d)
				y := tensor.Call("aten::convolution", x, w, bias, c.stride, c.pad, c.dil, false, make([]int, len(c.stride)), c.groups).(*tensor.Tensor)
				if fmt.Sprint(y.Sizes()) != fmt.Sprint(shape) {
					t.Fatalf("shape %v, want %v", y.Sizes(), shape)
				}
				tol := 1e-12
				if d == tensor.Float32 {
					tol = 1e-5
				}
				for i, g := range y.Float64s() {
					if !(math.Abs(g-want[i]) <= tol*(1+math.Abs(want[i]))*float64(c.w[1]*9)) { // NaN fails too
						t.Fatalf("y[%d] = %v, want %v", i, g, want[i])
					}
				}
			})
		}
	}
}

// The input and weight gradients of ordinary and transposed convolutions
// against the definition over the shapes of TestConvPackedIm2col (the
// transposed convolution is the adjoint of the ordinary one with the same
// weight, its output padding making up the ordinary one's uncovered rows;
// the input gradient of a stride-1 ordinary convolution is a convolution by
// the flipped weight).
func TestConvBackward(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 11))
	for _, c := range convCases {
		for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} {
			for _, transposed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v*%v/s%v/p%v/d%v/g%d/%s/T%v", c.x, c.w, c.stride, c.pad, c.dil, c.groups, d, transposed), func(t *testing.T) {
					yShape := naiveConvShape(c.x, c.w, c.stride, c.pad, c.dil)
					// xv and yv are the tensors of the x and y shapes: the
					// input and output gradient of the ordinary convolution,
					// the output gradient and input of the transposed one.
					xv, yv, wv := convRand(r, numel(c.x), d), convRand(r, numel(yShape), d), convRand(r, numel(c.w), d)
					// The weight gradient, and the input gradient: of x for
					// the ordinary convolution, of y for the transposed one.
					wantW := make([]float64, len(wv))
					wantX, wantY := make([]float64, len(xv)), make([]float64, len(yv))
					naiveConvTerms(c.x, c.w, c.stride, c.pad, c.dil, c.groups, func(yi, xi, wi int) {
						wantW[wi] += yv[yi] * xv[xi]
						wantX[xi] += yv[yi] * wv[wi]
						wantY[yi] += xv[xi] * wv[wi]
					})
					x := tensor.FromSlice(xv, c.x...).To(d)
					y := tensor.FromSlice(yv, yShape...).To(d)
					w := tensor.FromSlice(wv, c.w...).To(d)
					outPad := make([]int, len(c.stride))
					gout, input := y, x
					if transposed {
						gout, input = x, y
						for i, s := range c.stride {
							outPad[i] = (c.x[2+i] + 2*c.pad[i] - c.dil[i]*(c.w[2+i]-1) - 1) % s
						}
					}
					outs := tensor.Call("aten::convolution_backward", gout, input, w, nil, c.stride, c.pad, c.dil, transposed, outPad, c.groups, []bool{true, true, false}).([]*tensor.Tensor)
					wantIn := wantX
					if transposed {
						wantIn = wantY
					}
					tol := 1e-12
					if d == tensor.Float32 {
						tol = 1e-5
					}
					for _, cmp := range []struct {
						got   *tensor.Tensor
						want  []float64
						shape []int
						name  string
						terms int
					}{{outs[0], wantIn, input.Sizes(), "grad_input", numel(c.w) / c.w[1]}, {outs[1], wantW, c.w, "grad_weight", numel(yShape) / yShape[1]}} {
						if fmt.Sprint(cmp.got.Sizes()) != fmt.Sprint(cmp.shape) {
							t.Fatalf("%s shape %v, want %v", cmp.name, cmp.got.Sizes(), cmp.shape)
						}
						for i, g := range cmp.got.Float64s() {
							if !(math.Abs(g-cmp.want[i]) <= tol*(1+math.Abs(cmp.want[i]))*float64(cmp.terms)) { // NaN fails too
								t.Fatalf("%s[%d] = %v, want %v", cmp.name, i, g, cmp.want[i])
							}
						}
					}
				})
			}
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
						if !(math.Abs(got-want) <= 1e-5*(1+math.Abs(want))) { // NaN fails too
							t.Fatalf("%+v: y[%d,%d,%d,%d] = %v, want %v", c, n, ch, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// TestConvGradNonFinite checks the weight gradient of stride-1
// convolutions (depthwise: convDepthwiseWeightGrad; the others and float64:
// convWideWeightGrad) where an input plane holds an infinity or a NaN that
// some taps never meet: the gradient of those taps must stay finite (the
// wide layout's zero columns would meet them).
func TestConvGradNonFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, c := range []struct {
		ws     []int
		groups int
		d      tensor.DType
	}{
		{[]int{2, 1, 3, 3}, 2, tensor.Float32},
		{[]int{2, 1, 3, 3}, 2, tensor.Float64},
		{[]int{3, 2, 3, 3}, 1, tensor.Float32},
		{[]int{3, 2, 3, 3}, 1, tensor.Float64},
	} {
		xs, ws := []int{2, 2, 4, 5}, c.ws
		stride, pad, dil := []int{1, 1}, []int{1, 1}, []int{1, 1}
		yShape := naiveConvShape(xs, ws, stride, pad, dil)
		xv, yv, wv := convRand(r, numel(xs), c.d), convRand(r, numel(yShape), c.d), convRand(r, numel(ws), c.d)
		xv[4] = math.Inf(1)        // image 0, channel 0: the top right corner
		xv[20+15] = math.NaN()     // image 0, channel 1: the bottom left corner
		xv[40+20+9] = math.Inf(-1) // image 1, channel 1
		want := make([]float64, len(wv))
		naiveConvTerms(xs, ws, stride, pad, dil, c.groups, func(yi, xi, wi int) { want[wi] += yv[yi] * xv[xi] })
		x := tensor.FromSlice(xv, xs...).To(c.d)
		y := tensor.FromSlice(yv, yShape...).To(c.d)
		w := tensor.FromSlice(wv, ws...).To(c.d)
		outs := tensor.Call("aten::convolution_backward", y, x, w, nil, stride, pad, dil, false, []int{0, 0}, c.groups, []bool{false, true, false}).([]*tensor.Tensor)
		finite := 0
		for i, g := range outs[1].Float64s() {
			switch wi := want[i]; {
			case math.IsNaN(wi):
				if !math.IsNaN(g) {
					t.Errorf("%v: grad_weight[%d] = %v, want NaN", c, i, g)
				}
			case math.IsInf(wi, 0):
				if g != wi {
					t.Errorf("%v: grad_weight[%d] = %v, want %v", c, i, g, wi)
				}
			default:
				finite++
				if !(math.Abs(g-wi) <= 1e-5*(1+math.Abs(wi))*20) {
					t.Errorf("%v: grad_weight[%d] = %v, want %v", c, i, g, wi)
				}
			}
		}
		if finite == 0 || finite == len(want) {
			t.Fatalf("%v: %d of %d taps finite: the case does not test what it should", c, finite, len(want))
		}
	}
}
