package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// dwCases are depthwise convolutions (float32: conv_depthwise.go) of every
// kind the in-place kernels take: strides 2 and 3 along either dim, 5×5
// and dilated kernels, padding past the kernel's reach, odd sizes, 1×1
// planes, rows wider than a vector, batch 1 and one channel, a stride
// past the kernel (input positions no tap reaches), and channels enough
// to run in parallel.
var dwCases = []struct {
	x, w             []int
	stride, pad, dil []int
}{
	{[]int{2, 6, 9, 11}, []int{6, 1, 3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1}},
	{[]int{1, 4, 8, 7}, []int{4, 1, 5, 5}, []int{2, 1}, []int{2, 2}, []int{1, 1}},
	{[]int{3, 3, 7, 10}, []int{3, 1, 3, 3}, []int{1, 2}, []int{2, 1}, []int{2, 1}},
	{[]int{2, 5, 1, 1}, []int{5, 1, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}},
	{[]int{1, 2, 20, 37}, []int{2, 1, 3, 3}, []int{3, 3}, []int{0, 4}, []int{1, 1}},
	{[]int{2, 3, 12, 12}, []int{3, 1, 3, 3}, []int{2, 2}, []int{0, 0}, []int{1, 1}},
	{[]int{1, 1, 6, 9}, []int{1, 1, 1, 1}, []int{3, 2}, []int{0, 0}, []int{1, 1}},
	{[]int{2, 4, 14, 14}, []int{4, 1, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}},
	{[]int{1, 3, 5, 40}, []int{3, 1, 5, 5}, []int{1, 1}, []int{4, 2}, []int{1, 2}},
	{[]int{3, 2, 11, 9}, []int{2, 1, 2, 4}, []int{2, 3}, []int{1, 3}, []int{2, 1}},
	// Enough channels for the cores to share them.
	{[]int{2, 64, 14, 14}, []int{64, 1, 3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}},
	{[]int{2, 48, 15, 15}, []int{48, 1, 3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1}},
	// 3×3, stride 2, padding 1 on even sizes (the one-pass gradients,
	// dwS2), rows wider than a vector.
	{[]int{2, 5, 14, 10}, []int{5, 1, 3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1}},
	{[]int{1, 40, 8, 36}, []int{40, 1, 3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1}},
}

// TestConvDepthwiseKinds checks the depthwise forward convolution (with a
// bias) and all three gradients against float64 sums of their definition
// over dwCases, the input once contiguous and once a transposed view.
func TestConvDepthwiseKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, c := range dwCases {
		for _, view := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v*%v/s%v/p%v/d%v/view%v", c.x, c.w, c.stride, c.pad, c.dil, view), func(t *testing.T) {
				C := c.x[1]
				yShape := naiveConvShape(c.x, c.w, c.stride, c.pad, c.dil)
				xv, wv, bv := convRand(r, numel(c.x), tensor.Float32), convRand(r, numel(c.w), tensor.Float32), convRand(r, C, tensor.Float32)
				gv := convRand(r, numel(yShape), tensor.Float32)
				want := make([]float64, numel(yShape))
				for i := range want {
					want[i] = bv[i/numel(yShape[2:])%C]
				}
				wantX, wantW, wantB := make([]float64, len(xv)), make([]float64, len(wv)), make([]float64, C)
				naiveConvTerms(c.x, c.w, c.stride, c.pad, c.dil, C, func(yi, xi, wi int) {
					want[yi] += xv[xi] * wv[wi]
					wantX[xi] += gv[yi] * wv[wi]
					wantW[wi] += gv[yi] * xv[xi]
				})
				for i, g := range gv {
					wantB[i/numel(yShape[2:])%C] += g
				}
				x := tensor.FromSlice(xv, c.x...).To(tensor.Float32)
				if view {
					// The same values, stored with the last two dims swapped.
					x = x.Transpose(2, 3).Contiguous().Transpose(2, 3)
					if x.IsContiguous() && c.x[2] > 1 && c.x[3] > 1 {
						t.Fatal("the view is contiguous")
					}
				}
				w := tensor.FromSlice(wv, c.w...).To(tensor.Float32)
				b := tensor.FromSlice(bv, C).To(tensor.Float32)
				gy := tensor.FromSlice(gv, yShape...).To(tensor.Float32)
				y := tensor.Call("aten::convolution", x, w, b, c.stride, c.pad, c.dil, false, []int{0, 0}, C).(*tensor.Tensor)
				outs := tensor.Call("aten::convolution_backward", gy, x, w, []int{C}, c.stride, c.pad, c.dil, false, []int{0, 0}, C, []bool{true, true, true}).([]*tensor.Tensor)
				terms := numel(c.w) / C
				for _, cmp := range []struct {
					got   *tensor.Tensor
					want  []float64
					shape []int
					name  string
					terms int
				}{
					{y, want, yShape, "output", terms},
					{outs[0], wantX, c.x, "grad_input", terms},
					{outs[1], wantW, c.w, "grad_weight", numel(yShape) / C},
					{outs[2], wantB, []int{C}, "grad_bias", numel(yShape) / C},
				} {
					if fmt.Sprint(cmp.got.Sizes()) != fmt.Sprint(cmp.shape) {
						t.Fatalf("%s shape %v, want %v", cmp.name, cmp.got.Sizes(), cmp.shape)
					}
					for i, g := range cmp.got.Float64s() {
						if !(math.Abs(g-cmp.want[i]) <= 1e-5*(1+math.Abs(cmp.want[i]))*float64(cmp.terms)) { // NaN fails too
							t.Fatalf("%s[%d] = %v, want %v", cmp.name, i, g, cmp.want[i])
						}
					}
				}
			})
		}
	}
}

// TestConvDepthwiseInfWeight: a tap that reads padding is left out, as
// PyTorch 1.13 leaves it out: an infinite corner weight makes the outputs
// whose corner tap reads padding finite, not NaN (PyTorch's output for this
// case, printed by torch.ops.aten.convolution).
func TestConvDepthwiseInfWeight(t *testing.T) {
	ones := make([]float32, 2*4*5)
	for i := range ones {
		ones[i] = 1
	}
	wv := make([]float32, 2*9)
	for i := range wv {
		wv[i] = 1
		if i%9 == 0 {
			wv[i] = float32(math.Inf(1))
		}
	}
	x := tensor.FromSlice(ones, 1, 2, 4, 5)
	w := tensor.FromSlice(wv, 2, 1, 3, 3)
	inf := math.Inf(1)
	want := []float64{
		4, 6, 6, 6, 4,
		6, inf, inf, inf, inf,
		6, inf, inf, inf, inf,
		4, inf, inf, inf, inf,
	}
	for _, b := range []*tensor.Tensor{nil, tensor.FromSlice([]float32{0, 0}, 2)} {
		y := tensor.Call("aten::convolution", x, w, b, []int{1, 1}, []int{1, 1}, []int{1, 1}, false, []int{0, 0}, 2).(*tensor.Tensor)
		for i, g := range y.Float64s() {
			if g != want[i%20] {
				t.Fatalf("bias %v: y[%d] = %v, want %v", b != nil, i, g, want[i%20])
			}
		}
	}
}
