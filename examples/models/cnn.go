package models

import gt "github.com/goaten/goaten"

// CNN is conv3x3(1→8) ReLU maxpool2 conv3x3(8→16) ReLU global-average-pool
// Linear(16→10) over [N, 1, H, W] images.
type CNN struct {
	Conv1, Conv2 Conv2d
	FC           Linear
	// Trace, when non-nil, receives conv1, relu1, pool1, conv2, relu2, gap.
	Trace map[string]*gt.Tensor
}

// NewCNN builds the CNN from weights named conv1.*, conv2.*, fc.*.
func NewCNN(weights map[string]*gt.Tensor) (*CNN, error) {
	p := NewParams(weights)
	m := &CNN{
		Conv1: Conv2d{Weight: p.Get("conv1.weight", 8, 1, 3, 3), Bias: p.Get("conv1.bias", 8), Stride: 1, Padding: 1},
		Conv2: Conv2d{Weight: p.Get("conv2.weight", 16, 8, 3, 3), Bias: p.Get("conv2.bias", 16), Stride: 1, Padding: 1},
		FC:    p.Linear("fc", 16, 10),
	}
	return m, p.Err
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
