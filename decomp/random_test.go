package decomp_test

import (
	"slices"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// randomCases are calls of the random ops on a fresh tensor of shape
// (3, 7) and dtype d, with the dtype their result must have.
var randomCases = []struct {
	name string
	call func(x *tensor.Tensor) *tensor.Tensor
	want tensor.DType // 0: x's dtype
}{
	{"uniform_", func(x *tensor.Tensor) *tensor.Tensor { return x.Uniform_(tensor.WithFrom(-2), tensor.WithTo(3)) }, 0},
	{"normal_", func(x *tensor.Tensor) *tensor.Tensor { return x.Normal_(tensor.WithMean(1), tensor.WithStd(2)) }, 0},
	{"bernoulli_", func(x *tensor.Tensor) *tensor.Tensor { return x.Bernoulli_(tensor.WithP(0.25)) }, 0},
	{"bernoulli_.Tensor", func(x *tensor.Tensor) *tensor.Tensor { return x.BernoulliTensor_(x.Fill_(0.5)) }, 0},
	{"bernoulli", func(x *tensor.Tensor) *tensor.Tensor { return x.Fill_(0.5).Bernoulli() }, 0},
	{"bernoulli.p", func(x *tensor.Tensor) *tensor.Tensor { return x.BernoulliP(0.5) }, 0},
	{"exponential_", func(x *tensor.Tensor) *tensor.Tensor { return x.Exponential_(tensor.WithLambd(3)) }, 0},
	{"random_.from", func(x *tensor.Tensor) *tensor.Tensor { return x.RandomFrom_(-4, 9) }, 0},
	{"random_.to", func(x *tensor.Tensor) *tensor.Tensor { return x.RandomTo_(5) }, 0},
	{"random_", func(x *tensor.Tensor) *tensor.Tensor { return x.Random_() }, 0},
	{"rand_like", func(x *tensor.Tensor) *tensor.Tensor { return x.RandLike() }, 0},
	{"randn_like", func(x *tensor.Tensor) *tensor.Tensor { return x.RandnLike() }, 0},
	{"randint", func(x *tensor.Tensor) *tensor.Tensor {
		return tensor.CallKw("aten::randint.low", []any{-3, 3, x.Sizes()}, map[string]any{"device": x.Device()}).(*tensor.Tensor)
	}, tensor.Int64},
	{"multinomial", func(x *tensor.Tensor) *tensor.Tensor { return x.Fill_(1).Multinomial(4, tensor.WithReplacement(false)) }, tensor.Int64},
	{"multinomial replacement", func(x *tensor.Tensor) *tensor.Tensor { return x.Fill_(1).Multinomial(9, tensor.WithReplacement(true)) }, tensor.Int64},
}

// TestRandomDecompositionsMeta runs every random op on the meta device:
// the decompositions give the result's shape and dtype without values.
func TestRandomDecompositionsMeta(t *testing.T) {
	for _, c := range randomCases {
		x := tensor.Empty(tensor.Float32, 3, 7).ToDevice(tensor.Meta)
		got := c.call(x)
		want := c.want
		if want == 0 {
			want = tensor.Float32
		}
		shape := []int{3, 7}
		switch c.name {
		case "multinomial":
			shape = []int{3, 4}
		case "multinomial replacement":
			shape = []int{3, 9}
		}
		if got.Device() != tensor.Meta || got.DType() != want || !slices.Equal(got.Sizes(), shape) {
			t.Errorf("%s on meta: %v %v %v, want meta %v %v", c.name, got.Device(), got.DType(), got.Sizes(), want, shape)
		}
	}
}

// TestRandomDecompositionsCPU runs the decompositions themselves on the CPU
// and checks their values lie where the op puts them.
func TestRandomDecompositionsCPU(t *testing.T) {
	for _, c := range randomCases {
		name := map[string]string{"bernoulli_": "aten::bernoulli_.float", "bernoulli_.Tensor": "aten::bernoulli_.Tensor",
			"uniform_": "aten::uniform_", "exponential_": "aten::exponential_", "random_.from": "aten::random_.from",
			"multinomial replacement": "aten::multinomial"}[c.name]
		if name == "" {
			continue
		}
		op := tensor.MustOp(name)
		dec := op.Composite()
		tensor.ManualSeed(5)
		x := tensor.Empty(tensor.Float64, 3, 7)
		var args []any
		switch c.name {
		case "uniform_":
			args = op.Bind([]any{x, -2.0, 3.0}, nil)
		case "bernoulli_":
			args = op.Bind([]any{x, 0.25}, nil)
		case "bernoulli_.Tensor":
			args = op.Bind([]any{x, tensor.FullOf(tensor.Float64, 0.5, 7)}, nil)
		case "exponential_":
			args = op.Bind([]any{x, 3.0}, nil)
		case "random_.from":
			args = op.Bind([]any{x, -4, 9}, nil)
		case "multinomial replacement":
			args = op.Bind([]any{tensor.FromSlice([]float64{0, 1, 0, 3, 0}, 5), 50, true}, nil)
		}
		v := dec(op, args).(*tensor.Tensor).To(tensor.Float64).Float64s()
		for _, f := range v {
			ok := true
			switch c.name {
			case "uniform_":
				ok = f >= -2 && f < 3
			case "bernoulli_", "bernoulli_.Tensor":
				ok = f == 0 || f == 1
			case "exponential_":
				ok = f >= 0
			case "random_.from":
				ok = f >= -4 && f < 9 && f == float64(int(f))
			case "multinomial replacement":
				ok = f == 1 || f == 3
			}
			if !ok {
				t.Errorf("%s decomposition gave %v", c.name, f)
				break
			}
		}
	}
}
