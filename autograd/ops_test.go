package autograd_test

import (
	"math/rand"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

type T = tensor.Tensor

// randn makes a float64 leaf with values in [-1, 1) from a fixed seed.
func randn(r *rand.Rand, shape ...int) *T {
	n := tensor.Numel(shape)
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	return tensor.FromSlice(v).Reshape(shape).SetRequiresGrad(true)
}

// positive makes a float64 leaf with values in [0.5, 1.5).
func positive(r *rand.Rand, shape ...int) *T {
	n := tensor.Numel(shape)
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64() + 0.5
	}
	return tensor.FromSlice(v).Reshape(shape).SetRequiresGrad(true)
}

func one(f func(in []*T) *T) func(in []*T) []*T {
	return func(in []*T) []*T { return []*T{f(in)} }
}

// TestGradcheckOps checks the formulas of many core ops (and a few
// decomposed ones) against finite differences, first and second order.
func TestGradcheckOps(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	idx := tensor.FromSlice([]int64{2, 0, 1, 2}, 4)
	cases := []struct {
		name   string
		f      func(in []*T) *T
		in     []*T
		second bool
	}{
		{"mul broadcast", func(in []*T) *T { return in[0].Mul(in[1]) }, []*T{randn(r, 2, 3), randn(r, 3)}, true},
		{"div", func(in []*T) *T { return in[0].Div(in[1]) }, []*T{randn(r, 3), positive(r, 3)}, true},
		{"pow", func(in []*T) *T { return in[0].Pow(in[1]) }, []*T{positive(r, 3), randn(r, 3)}, true},
		{"atan2", func(in []*T) *T { return in[0].Atan2(in[1]) }, []*T{randn(r, 3), positive(r, 3)}, true},
		{"tanh sigmoid", func(in []*T) *T { return in[0].Tanh().Sigmoid() }, []*T{randn(r, 4)}, true},
		{"log exp sqrt", func(in []*T) *T { return in[0].Log().Exp().Sqrt() }, []*T{positive(r, 4)}, true},
		{"erf rsqrt", func(in []*T) *T { return in[0].Erf().Add(in[1].Rsqrt()) }, []*T{randn(r, 4), positive(r, 4)}, true},
		{"asin acos atan", func(in []*T) *T {
			return in[0].MulScalar(0.5).Asin().Add(in[0].MulScalar(0.5).Acos()).Add(in[0].Atan())
		}, []*T{randn(r, 4)}, true},
		{"sum mean", func(in []*T) *T { return in[0].Sum([]int{1}, tensor.WithKeepdim(true)).Mul(in[0].MeanDim([]int{0})) }, []*T{randn(r, 2, 3)}, true},
		{"var", func(in []*T) *T { return in[0].Var(tensor.WithDim([]int{1})) }, []*T{randn(r, 3, 4)}, true},
		{"prod with a zero", func(in []*T) *T { return in[0].ProdDim(1) }, []*T{tensor.FromSlice([]float64{1, 0, 2, 3, 4, 5}, 2, 3).SetRequiresGrad(true)}, false},
		{"amax", func(in []*T) *T { return in[0].Amax(tensor.WithDim([]int{1})) }, []*T{randn(r, 3, 4)}, false},
		{"cumsum", func(in []*T) *T { return in[0].Cumsum(1) }, []*T{randn(r, 2, 4)}, false},
		{"mm addmm", func(in []*T) *T { return in[2].Addmm(in[0], in[1]) }, []*T{randn(r, 2, 3), randn(r, 3, 4), randn(r, 4)}, true},
		{"bmm", func(in []*T) *T { return in[0].Bmm(in[1]) }, []*T{randn(r, 2, 2, 3), randn(r, 2, 3, 2)}, true},
		{"softmax", func(in []*T) *T { return in[0].Softmax(1) }, []*T{randn(r, 2, 4)}, true},
		{"log_softmax", func(in []*T) *T { return in[0].LogSoftmax(0) }, []*T{randn(r, 3, 2)}, true},
		{"layer_norm", func(in []*T) *T {
			return tensor.LayerNorm(in[0], []int{4}, tensor.WithWeight(in[1]), tensor.WithBias(in[2]))
		}, []*T{randn(r, 3, 4), randn(r, 4), randn(r, 4)}, true},
		{"group_norm", func(in []*T) *T { return tensor.GroupNorm(in[0], 2, tensor.WithWeight(in[1]), tensor.WithBias(in[2])) }, []*T{randn(r, 2, 4, 3), randn(r, 4), randn(r, 4)}, true},
		{"batch_norm", func(in []*T) *T {
			return tensor.BatchNorm(in[0], in[1], in[2], nil, nil, true, 0.1, 1e-5, true)
		}, []*T{randn(r, 4, 3, 2), randn(r, 3), randn(r, 3)}, true},
		{"conv2d", func(in []*T) *T {
			return tensor.Conv2d(in[0], in[1], tensor.WithBias(in[2]), tensor.WithPadding([]int{1, 0}))
		}, []*T{randn(r, 1, 2, 4, 3), randn(r, 3, 2, 2, 2), randn(r, 3)}, true},
		{"conv_transpose2d", func(in []*T) *T {
			return tensor.ConvTranspose2d(in[0], in[1], tensor.WithStride([]int{2, 1}))
		}, []*T{randn(r, 1, 2, 3, 2), randn(r, 2, 2, 2, 2)}, true},
		{"avg_pool2d", func(in []*T) *T {
			return in[0].AvgPool2d([]int{2, 2}, tensor.WithStride([]int{1, 2}), tensor.WithPadding([]int{1, 0}), tensor.WithCountIncludePad(false))
		}, []*T{randn(r, 1, 2, 4, 4)}, true},
		{"avg_pool3d", func(in []*T) *T {
			return in[0].AvgPool3d([]int{2, 2, 2}, tensor.WithStride([]int{1, 2, 1}), tensor.WithPadding([]int{1, 0, 1}), tensor.WithCeilMode(true))
		}, []*T{randn(r, 1, 1, 3, 4, 3)}, false},
		{"max_pool2d", func(in []*T) *T { return in[0].MaxPool2d([]int{2, 2}, tensor.WithStride([]int{2, 2})) }, []*T{randn(r, 1, 1, 4, 4)}, true},
		{"adaptive_avg_pool3d", func(in []*T) *T { return in[0].AdaptiveAvgPool3d([]int{2, 1, 3}) }, []*T{randn(r, 1, 2, 3, 3, 4)}, false},
		{"upsample_bilinear", func(in []*T) *T { return tensor.UpsampleBilinear2d(in[0], []int{5, 3}, false, nil) }, []*T{randn(r, 1, 1, 3, 2)}, false},
		{"upsample_nearest", func(in []*T) *T { return tensor.UpsampleNearest2d(in[0], []int{5, 3}, nil) }, []*T{randn(r, 1, 1, 3, 2)}, false},
		{"reflection_pad2d", func(in []*T) *T { return in[0].ReflectionPad2d([]int{2, 1, 1, 2}) }, []*T{randn(r, 1, 1, 3, 4)}, false},
		{"replication_pad3d", func(in []*T) *T { return in[0].ReplicationPad3d([]int{1, 0, 2, 1, 0, 1}) }, []*T{randn(r, 1, 1, 2, 2, 3)}, false},
		{"index_select gather", func(in []*T) *T { return in[0].IndexSelect(0, idx).Gather(1, idx.View([]int{4, 1})) }, []*T{randn(r, 3, 3)}, false},
		{"index put", func(in []*T) *T { return in[0].IndexPut([]*T{idx}, in[1], tensor.WithAccumulate(true)) }, []*T{randn(r, 3), randn(r, 4)}, false},
		{"cat stack", func(in []*T) *T { return tensor.Cat([]*T{in[0], tensor.Stack([]*T{in[1], in[1]})}) }, []*T{randn(r, 1, 3), randn(r, 3)}, false},
		{"views", func(in []*T) *T { return in[0].Permute([]int{1, 0}).Select(0, 1).Unsqueeze(0).Expand([]int{2, 3}) }, []*T{randn(r, 3, 2)}, false},
		{"as_strided overlapping", func(in []*T) *T { return in[0].AsStrided([]int{3, 2}, []int{1, 1}, tensor.WithStorageOffset(0)) }, []*T{randn(r, 4)}, false},
		{"diagonal", func(in []*T) *T { return in[0].Diagonal(tensor.WithOffset(1)) }, []*T{randn(r, 3, 4)}, false},
		{"where clamp", func(in []*T) *T {
			return tensor.Where(in[0].GtScalar(0), in[0], in[1]).Clamp(tensor.WithMin(-0.5), tensor.WithMax(0.5))
		}, []*T{randn(r, 5), randn(r, 5)}, false},
		{"sort topk", func(in []*T) *T {
			v, _ := in[0].Sort(tensor.WithDim(0))
			k, _ := v.Topk(2, tensor.WithDim(0))
			return k
		}, []*T{randn(r, 5)}, false},
		{"cdist", func(in []*T) *T { return tensor.Cdist(in[0], in[1]) }, []*T{randn(r, 3, 2), randn(r, 2, 2)}, false},
		{"grid_sampler bilinear", func(in []*T) *T { return tensor.GridSampler2d(in[0], in[1], 0, 0, false) }, []*T{randn(r, 1, 2, 3, 3), tensor.FromSlice([]float64{-0.3, 0.2, 0.45, -0.7, 0.1, 0.61}, 1, 1, 3, 2).SetRequiresGrad(true)}, false},
		{"grid_sampler bicubic reflection", func(in []*T) *T { return tensor.GridSampler2d(in[0], in[1], 2, 2, true) }, []*T{randn(r, 1, 1, 3, 4), tensor.FromSlice([]float64{-0.3, 0.2, 0.45, -0.7, 1.1, 0.61}, 1, 1, 3, 2).SetRequiresGrad(true)}, false},
		{"embedding_bag mean", func(in []*T) *T {
			out, _, _, _ := tensor.EmbeddingBag(in[0], idx, tensor.FromSlice([]int64{0, 1}), tensor.WithMode(1))
			return out
		}, []*T{randn(r, 3, 2)}, false},
		{"cross_entropy", func(in []*T) *T {
			return in[0].CrossEntropyLoss(tensor.FromSlice([]int64{1, 0, 2}), tensor.WithLabelSmoothing(0.1))
		}, []*T{randn(r, 3, 3)}, true},
		{"col2im", func(in []*T) *T { return in[0].Col2im([]int{3, 3}, []int{2, 2}, []int{1, 1}, []int{0, 0}, []int{1, 1}) }, []*T{randn(r, 1, 4, 4)}, false},
	}
	for _, c := range cases {
		if err := autograd.Gradcheck(one(c.f), c.in); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.second {
			out := c.f(c.in)
			g := randn(r, out.Shape()...)
			if err := autograd.Gradgradcheck(one(c.f), c.in, []*T{g}); err != nil {
				t.Errorf("%s (second order): %v", c.name, err)
			}
		}
	}
	_ = autograd.IsGradEnabled
}
