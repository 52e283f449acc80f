package models

import gt "github.com/goaten/goaten"

// MLP is Linear(784→128), ReLU, Linear(128→10).
type MLP struct {
	FC1, FC2 Linear
	// Trace, when non-nil, receives the intermediate tensors h1 and a1.
	Trace map[string]*gt.Tensor
}

// NewMLP builds the MLP from weights named fc1.weight, fc1.bias, fc2.weight, fc2.bias.
func NewMLP(weights map[string]*gt.Tensor) (*MLP, error) {
	p := NewParams(weights)
	m := &MLP{FC1: p.Linear("fc1", 784, 128), FC2: p.Linear("fc2", 128, 10)}
	return m, p.Err
}

// Parameters lists the weights by their PyTorch names.
func (m *MLP) Parameters() map[string]*gt.Tensor {
	return map[string]*gt.Tensor{
		"fc1.weight": m.FC1.Weight, "fc1.bias": m.FC1.Bias,
		"fc2.weight": m.FC2.Weight, "fc2.bias": m.FC2.Bias,
	}
}

// Forward maps x [N, 784] to logits [N, 10].
func (m *MLP) Forward(x *gt.Tensor) *gt.Tensor {
	h1 := trace(m.Trace, "h1", m.FC1.Forward(x))
	a1 := trace(m.Trace, "a1", h1.Relu())
	return m.FC2.Forward(a1)
}

// Loss is the mean cross-entropy of logits [N, C] against class labels [N].
func Loss(logits, labels *gt.Tensor) *gt.Tensor {
	return logits.CrossEntropyLoss(labels)
}
