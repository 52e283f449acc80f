package bench

import (
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/internal/cputime"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/optim"
)

// mnistBatch is examples/mnist's batch size.
const mnistBatch = 32

// newMNISTCNN is examples/mnist's model: conv 1→8 and 8→16 (3×3, padding
// 1) each with ReLU and a 2×2 max pool, then Linear(16·7·7, 10).
func newMNISTCNN() *nn.Sequential {
	gt.ManualSeed(0)
	return nn.NewSequential(
		nn.NewConv2d(1, 8, 3, nn.Padding(1)), nn.NewReLU(), nn.NewMaxPool2d(2),
		nn.NewConv2d(8, 16, 3, nn.Padding(1)), nn.NewReLU(), nn.NewMaxPool2d(2),
		nn.NewFlatten(), nn.NewLinear(16*7*7, 10))
}

// cpuLoop is b.Loop that also reports the process's CPU time per call
// (every thread's, the collector's included) as cpu-ns/op, which on a
// machine shared with other work moves less than the wall time, and the
// page faults per call (faults/op: fresh pages of large results).
func cpuLoop(b *testing.B, f func()) {
	b.ReportAllocs()
	var cpu0, faults0 int64
	n := 0
	for b.Loop() {
		if n == 0 {
			cpu0, faults0 = int64(cputime.Process()), cputime.MinorFaults()
		}
		f()
		n++
	}
	if n > 1 {
		// The first call (a warm-up inside b.Loop's timing) is left out.
		b.ReportMetric(float64(int64(cputime.Process())-cpu0)/float64(n-1), "cpu-ns/op")
		b.ReportMetric(float64(cputime.MinorFaults()-faults0)/float64(n-1), "faults/op")
	}
}

// convCase is a convolution of batch n, in→out channels of hw×hw images,
// a k×k kernel with padding k/2, stride 1, groups g.
type convCase struct {
	name                 string
	n, in, out, hw, k, g int
	gradInput            bool // the backward computes the input gradient
}

// BenchmarkMNISTStep is one training step of examples/mnist (batch 32 of
// 1×28×28 images: forward, cross entropy, zero_grad, backward, SGD with
// momentum 0.9), and convolutions alone, forward (with a bias) and
// backward (input, weight and bias gradients): the model's two (conv1's
// input gradient is not asked for, as in the model) and the op survey's
// 3×3 and depthwise cases. bench/peers/mnist_torch.py prints the same cases
// for PyTorch.
func BenchmarkMNISTStep(b *testing.B) {
	b.Run("goaten/step", func(b *testing.B) {
		m := newMNISTCNN()
		x := gt.Rand(mnistBatch, 1, 28, 28)
		y := gt.Rand(mnistBatch).MulScalar(10).To(gt.Int64)
		opt, err := optim.NewSGD(m.Parameters(), optim.WithLR(0.05), optim.WithMomentum(0.9))
		if err != nil {
			b.Fatal(err)
		}
		lossFn := nn.NewCrossEntropyLoss()
		cpuLoop(b, func() {
			loss := lossFn.Forward(m.Forward(x), y)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
		})
	})
	for _, c := range []convCase{
		{"conv1", mnistBatch, 1, 8, 28, 3, 1, false},
		{"conv2", mnistBatch, 8, 16, 14, 3, 1, true},
		{"conv3x3_8x64x56x56", 8, 64, 64, 56, 3, 1, true},
		{"depthwise_8x256x14x14", 8, 256, 256, 14, 3, 256, true},
	} {
		gt.ManualSeed(0)
		x := gt.Rand(c.n, c.in, c.hw, c.hw)
		w := gt.Rand(c.out, c.in/c.g, c.k, c.k)
		bias := gt.Rand(c.out)
		gy := gt.Rand(c.n, c.out, c.hw, c.hw)
		pad := []int{c.k / 2, c.k / 2}
		b.Run("goaten/"+c.name+"/forward", func(b *testing.B) {
			cpuLoop(b, func() {
				gt.Conv2d(x, w, gt.WithBias(bias), gt.WithPadding(pad), gt.WithGroups(c.g))
			})
		})
		mask := []bool{c.gradInput, true, true}
		b.Run("goaten/"+c.name+"/backward", func(b *testing.B) {
			cpuLoop(b, func() {
				gt.ConvolutionBackward(gy, x, w, []int{c.out}, []int{1, 1}, pad, []int{1, 1}, false, []int{0, 0}, c.g, mask)
			})
		})
	}
}
