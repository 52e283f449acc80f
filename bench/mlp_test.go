package bench

import (
	"math"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/optim"
)

// mlp is the benchmark MLP 784-1024-1024-10 with ReLU, as nn.Linear
// initialises it (uniform in ±1/√fan_in).
type mlp struct {
	w, b []*gt.Tensor
}

var mlpSizes = []int{784, 1024, 1024, 10}

const mlpBatch = 256

func newMLP() *mlp {
	gt.ManualSeed(0)
	m := &mlp{}
	for i := 0; i+1 < len(mlpSizes); i++ {
		in, out := mlpSizes[i], mlpSizes[i+1]
		bound := 1 / math.Sqrt(float64(in))
		m.w = append(m.w, gt.Rand(out, in).MulScalar(2*bound).AddScalar(-bound))
		m.b = append(m.b, gt.Rand(out).MulScalar(2*bound).AddScalar(-bound))
	}
	return m
}

// forward is logits = L3(relu(L2(relu(L1(x))))) and the mean cross-entropy.
func (m *mlp) forward(x, labels *gt.Tensor) *gt.Tensor {
	h := x
	for i := range m.w {
		h = gt.Linear(h, m.w[i], gt.WithBias(m.b[i]))
		if i+1 < len(m.w) {
			h = h.Relu()
		}
	}
	return h.CrossEntropyLoss(labels)
}

// mlpFlops is the multiply-adds of one forward pass, ×2.
func mlpFlops() float64 {
	f := 0.0
	for i := 0; i+1 < len(mlpSizes); i++ {
		f += 2 * mlpBatch * float64(mlpSizes[i]*mlpSizes[i+1])
	}
	return f
}

// trainFlops counts a training step's products: the forward ones, one
// weight gradient per layer, and an input gradient for every layer but the
// first (x needs none).
func trainFlops() float64 {
	first := 2 * mlpBatch * float64(mlpSizes[0]*mlpSizes[1])
	return 3*mlpFlops() - first
}

// BenchmarkMLP is the MLP 784-1024-1024-10 at batch 256: forward with the
// loss, and the training step (zero_grad, forward, backward, SGD step).
// GFLOP/s counts the matrix products: three forward, eight in the step.
func BenchmarkMLP(b *testing.B) {
	m := newMLP()
	x := gt.Randn(mlpBatch, mlpSizes[0])
	labels := gt.Rand(mlpBatch).MulScalar(float64(mlpSizes[len(mlpSizes)-1])).To(gt.Int64)
	b.Run("goaten/forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = m.forward(x, labels)
		}
		b.ReportMetric(mlpFlops()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("goaten/train", func(b *testing.B) {
		m := newMLP()
		params := append(append([]*gt.Tensor{}, m.w...), m.b...)
		for _, p := range params {
			p.SetRequiresGrad(true)
		}
		opt, err := optim.NewSGD(params, optim.WithLR(0.01))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			opt.ZeroGrad()
			m.forward(x, labels).Backward()
			opt.Step()
		}
		b.ReportMetric(trainFlops()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
