package models

import (
	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// CNN is conv3x3(1→8) ReLU maxpool2 conv3x3(8→16) ReLU global-average-pool
// Linear(16→10) over [N, 1, H, W] images: PyTorch's CNN(conv1, conv2, fc),
// whose forward applies the ReLUs and poolings functionally.
type CNN struct {
	nn.Base
	Conv1, Conv2 *nn.Conv2d
	FC           *nn.Linear
	// Trace, when non-nil, receives conv1, relu1, pool1, conv2, relu2, gap.
	Trace map[string]*gt.Tensor
}

// NewCNNModule makes the CNN with PyTorch's default initialisation.
func NewCNNModule() *CNN {
	m := &CNN{}
	m.Conv1 = nn.Register(m, "conv1", nn.NewConv2d(1, 8, 3, nn.Padding(1)))
	m.Conv2 = nn.Register(m, "conv2", nn.NewConv2d(8, 16, 3, nn.Padding(1)))
	m.FC = nn.Register(m, "fc", nn.NewLinear(16, 10))
	return m
}

// NewCNN builds the CNN and loads weights named conv1.*, conv2.*, fc.*.
func NewCNN(weights map[string]*gt.Tensor) (*CNN, error) {
	m := NewCNNModule()
	return m, load(m, weights)
}

// Forward maps images [N, 1, H, W] to logits [N, 10].
func (m *CNN) Forward(x *gt.Tensor) *gt.Tensor {
	t := m.Trace
	x = trace(t, "conv1", m.Conv1.Forward(x))
	x = trace(t, "relu1", x.Relu())
	x = trace(t, "pool1", x.MaxPool2d([]int{2, 2}, gt.WithStride([]int{2, 2})))
	x = trace(t, "conv2", m.Conv2.Forward(x))
	x = trace(t, "relu2", x.Relu())
	x = trace(t, "gap", x.AdaptiveAvgPool2d([]int{1, 1}).Flatten(gt.WithStartDim(1)))
	return m.FC.Forward(x)
}
