package models

import (
	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// MLP is Linear(784→128), ReLU, Linear(128→10): PyTorch's
// MLP(fc1, relu, fc2).
type MLP struct {
	nn.Base
	FC1  *nn.Linear
	ReLU *nn.ReLU
	FC2  *nn.Linear
	// Trace, when non-nil, receives the intermediate tensors h1 and a1.
	Trace map[string]*gt.Tensor
}

// NewMLPModule makes the MLP with PyTorch's default initialisation.
func NewMLPModule() *MLP {
	m := &MLP{}
	m.FC1 = nn.Register(m, "fc1", nn.NewLinear(784, 128))
	m.ReLU = nn.Register(m, "relu", nn.NewReLU())
	m.FC2 = nn.Register(m, "fc2", nn.NewLinear(128, 10))
	return m
}

// NewMLP builds the MLP and loads weights named fc1.weight, fc1.bias,
// fc2.weight, fc2.bias.
func NewMLP(weights map[string]*gt.Tensor) (*MLP, error) {
	m := NewMLPModule()
	return m, load(m, weights)
}

// Forward maps x [N, 784] to logits [N, 10].
func (m *MLP) Forward(x *gt.Tensor) *gt.Tensor {
	h1 := trace(m.Trace, "h1", m.FC1.Forward(x))
	a1 := trace(m.Trace, "a1", m.ReLU.Forward(h1))
	return m.FC2.Forward(a1)
}

// Loss is the mean cross-entropy of logits [N, C] against class labels [N].
func Loss(logits, labels *gt.Tensor) *gt.Tensor {
	return logits.CrossEntropyLoss(labels)
}
