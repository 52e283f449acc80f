package autograd_test

import (
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// TestLayerNormDoubleBackwardRoundings holds torch 1.13's second-order
// gradients of native_layer_norm over rows of two elements (resampled
// records, seeds 35 and 38), differentiating native_layer_norm_backward at
// the mean and rstd 1.13's forward gave. There the first-order input
// gradient is a cancellation residue of a few ulp, and its derivative comes
// out as 1.13 gives it only when layer_norm_double_backward's formula is
// computed op for op in float32; differentiating a functional form of the
// backward was off by 0.2%.
func TestLayerNormDoubleBackwardRoundings(t *testing.T) {
	f32 := func(v ...float32) *tensor.Tensor { return tensor.FromSlice(v, len(v)) }
	cases := []struct {
		name                 string
		x, w, gO, vx, vw     []float32
		mean, rstd           float32
		wantX, wantW, wantGO []float32
	}{
		{name: "no weight (seed 35)",
			x: []float32{-2.7512007, -2.557955}, gO: []float32{0.8288464, -2.0445864}, vx: []float32{1.5341316, 0.36990514},
			mean: -2.6545777, rstd: 10.34399,
			wantX: []float32{0.2862625, -0.28671265}, wantGO: []float32{0.0064152014, -0.0064299987}},
		{name: "weight (seed 38)",
			x: []float32{3.6883354, 3.9390147}, w: []float32{-3.6874883, -0.24647713},
			gO: []float32{0.74372137, -0.012053007}, vx: []float32{-1.9398134, -0.48680246}, vw: []float32{0.56187826, 0.0853693},
			mean: 3.813675, rstd: 7.9757805,
			wantX: []float32{0.12274885, -0.12250161}, wantW: []float32{-0.0027570636, -4.4538683e-05},
			wantGO: []float32{-0.54802877, 0.08443139}},
	}
	for _, c := range cases {
		x := autograd.SetRequiresGrad(f32(c.x...).Reshape([]int{1, 2}), true)
		gO := autograd.SetRequiresGrad(f32(c.gO...).Reshape([]int{1, 2}), true)
		ins, vs := []*tensor.Tensor{x}, []*tensor.Tensor{f32(c.vx...).Reshape([]int{1, 2})}
		var w *tensor.Tensor
		if c.w != nil {
			w = autograd.SetRequiresGrad(f32(c.w...), true)
			ins, vs = append(ins, w), append(vs, f32(c.vw...))
		}
		mean, rstd := f32(c.mean).Reshape([]int{1, 1}), f32(c.rstd).Reshape([]int{1, 1})
		dx, dw, _ := tensor.NativeLayerNormBackward(gO, x, []int{2}, mean, rstd, w, nil, []bool{true, w != nil, false})
		g := []*tensor.Tensor{dx}
		if w != nil {
			g = append(g, dw)
		}
		g2 := autograd.Grad(g, append(ins, gO), vs)
		wants := [][]float32{c.wantX, c.wantGO}
		got := []*tensor.Tensor{g2[0], g2[len(g2)-1]}
		if w != nil {
			wants, got = append(wants, c.wantW), append(got, g2[1])
		}
		for i, want := range wants {
			for j, v := range got[i].Contiguous().Float64s() {
				if float32(v) != want[j] {
					t.Errorf("%s: gradient %d element %d = %v, 1.13 gives %v", c.name, i, j, float32(v), want[j])
				}
			}
		}
	}
}
