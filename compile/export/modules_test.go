package export_test

import (
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// Test modules built on nn.Base (the layers of package nn are written
// elsewhere).

// seq is 0, 1, 2, ... scaled by 0.1 and shifted, in the given shape: small
// distinct values.
func seq(shift float64, shape ...int) *tensor.Tensor {
	n := tensor.Numel(shape)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(float64(i)*0.1 + shift)
	}
	return tensor.FromSlice(v, shape...)
}

// linear is torch.nn.Linear: y = x @ weight.T + bias.
type linear struct {
	nn.Base
	Weight, Bias *tensor.Tensor
}

func newLinear(in, out int, shift float64) *linear {
	l := &linear{}
	l.SetName("Linear")
	l.Weight = l.RegisterParameter("weight", seq(shift, out, in).MulScalar(0.25))
	l.Bias = l.RegisterParameter("bias", seq(-shift, out))
	return l
}

func (l *linear) Forward(x *tensor.Tensor) *tensor.Tensor {
	return x.Matmul(l.Weight.T()).Add(l.Bias)
}

// batchNorm normalizes each feature of a [N, C] input; in training mode it
// uses the batch statistics and updates its running statistics in place.
type batchNorm struct {
	nn.Base
	Weight, Bias            *tensor.Tensor
	RunningMean, RunningVar *tensor.Tensor
	NumBatches              *tensor.Tensor
	Momentum, Eps           float64
}

func newBatchNorm(c int) *batchNorm {
	b := &batchNorm{Momentum: 0.1, Eps: 1e-5}
	b.SetName("BatchNorm1d")
	b.Weight = b.RegisterParameter("weight", tensor.FullOf(tensor.Float32, 1, c))
	b.Bias = b.RegisterParameter("bias", tensor.FullOf(tensor.Float32, 0, c))
	b.RunningMean = b.RegisterBuffer("running_mean", tensor.FullOf(tensor.Float32, 0, c), true)
	b.RunningVar = b.RegisterBuffer("running_var", tensor.FullOf(tensor.Float32, 1, c), true)
	b.NumBatches = b.RegisterBuffer("num_batches_tracked", tensor.FromSlice([]int64{0}).Reshape([]int{}), true)
	return b
}

func num(v float64) *tensor.Tensor { return tensor.WrappedNumber(tensor.Float(v)) }

func (b *batchNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	mean, v := b.RunningMean, b.RunningVar
	if b.Training() {
		mean = x.MeanDim([]int{0})
		d := x.Sub(mean)
		v = d.Mul(d).MeanDim([]int{0})
		n := float64(x.Size(0))
		unbiased := v.Mul(num(n / (n - 1)))
		autograd.NoGrad(func() {
			b.RunningMean.Mul_(num(1 - b.Momentum)).Add_(mean.Mul(num(b.Momentum)))
			b.RunningVar.Mul_(num(1 - b.Momentum)).Add_(unbiased.Mul(num(b.Momentum)))
			b.NumBatches.Add_(tensor.WrappedNumber(tensor.Int(1)))
		})
	}
	return x.Sub(mean).Div(v.Add(num(b.Eps)).Sqrt()).Mul(b.Weight).Add(b.Bias)
}

// scaled holds a constant tensor that is neither a parameter nor a buffer.
type scaled struct {
	nn.Base
	Scale *tensor.Tensor
	shift *tensor.Tensor `export:"shift_by"`
}

func newScaled() *scaled {
	s := &scaled{Scale: tensor.FromSlice([]float32{2, -1, 0.5}), shift: tensor.FromSlice([]float32{1})}
	s.SetName("Scaled")
	return s
}

func (s *scaled) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Mul(s.Scale).Add(s.shift) }

// net is linear -> batch norm -> relu -> linear, with a constant scale.
type net struct {
	nn.Base
	FC1 *linear
	BN  *batchNorm
	FC2 *linear
	Sc  *scaled
}

func newNet() *net {
	n := &net{}
	n.SetName("Net")
	n.FC1 = nn.Register(n, "fc1", newLinear(4, 3, 0.5))
	n.BN = nn.Register(n, "bn", newBatchNorm(3))
	n.FC2 = nn.Register(n, "fc2", newLinear(3, 3, -0.3))
	n.Sc = nn.Register(n, "sc", newScaled())
	return n
}

func (n *net) Forward(x *tensor.Tensor) *tensor.Tensor {
	return n.Sc.Forward(n.FC2.Forward(n.BN.Forward(n.FC1.Forward(x)).Relu()))
}

// addIn writes into its input: x.add_(1); returns x * 2.
type addIn struct{ nn.Base }

func (*addIn) Forward(x *tensor.Tensor) *tensor.Tensor {
	x.Add_(num(1))
	return x.Mul(num(2))
}

// mlp is a plain module for examples: relu(x @ w + b), no views.
type mlp struct {
	nn.Base
	W, B *tensor.Tensor
}

func newMLP() *mlp {
	m := &mlp{}
	m.W = m.RegisterParameter("w", seq(-0.5, 4, 3))
	m.B = m.RegisterParameter("b", seq(0.1, 3))
	return m
}

func (m *mlp) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Matmul(m.W).Add(m.B).Relu() }

// to moves the net to dev, its constants (plain fields, which Base.To
// leaves alone as PyTorch's module.to does) too.
func (n *net) to(dev tensor.Device) *net {
	n.To(dev)
	n.Sc.Scale = n.Sc.Scale.ToDevice(dev)
	n.Sc.shift = n.Sc.shift.ToDevice(dev)
	return n
}
