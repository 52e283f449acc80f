package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/tensor"
)

func BenchmarkNormBwdTmp(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	mk := func(sh ...int) *tensor.Tensor {
		v := make([]float32, tensor.Numel(sh))
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return tensor.FromSlice(v, sh...)
	}
	N, C, H, W := 8, 64, 56, 56
	x, dy, w, bb := mk(N, C, H, W), mk(N, C, H, W), mk(C), mk(C)
	gn := tensor.Call("aten::native_group_norm.default", x, w, bb, N, C, H*W, 8, 1e-5).([]*tensor.Tensor)
	b.Run("group_norm_backward", func(b *testing.B) {
		for b.Loop() {
			tensor.Call("aten::native_group_norm_backward.default", dy, x, gn[1], gn[2], w, N, C, H*W, 8, []bool{true, true, true})
		}
		b.ReportMetric(float64(x.Numel())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
	rm, rv := mk(C), mk(C).Abs()

	b.Run("batch_norm", func(b *testing.B) {
		for b.Loop() {
			tensor.Call("aten::native_batch_norm.default", x, w, bb, rm, rv, true, 0.1, 1e-5)
		}
		b.ReportMetric(float64(x.Numel())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
	b.Run("group_norm", func(b *testing.B) {
		for b.Loop() {
			tensor.Call("aten::native_group_norm.default", x, w, bb, N, C, H*W, 8, 1e-5)
		}
		b.ReportMetric(float64(x.Numel())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
}
