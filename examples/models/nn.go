// Package models rebuilds small PyTorch models from goaten's nn layers: an
// MLP, a CNN, a Transformer encoder layer and a GPT-style decoder, each an
// nn.Module whose state dict has the PyTorch module's names, so the
// weights recorded from PyTorch 1.13 in testdata/models/<name> load with
// LoadStateDict(strict). The tests compare outputs, the MLP's gradients,
// and five training steps with package optim, and export the models with
// compile/export.
package models

import (
	"fmt"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// load copies weights into m by their PyTorch names (strict: every key of
// m's state dict and no other), converting a panic into an error.
func load(m nn.Module, weights map[string]*gt.Tensor) error {
	sd := m.(interface {
		LoadStateDict(map[string]*gt.Tensor, bool) error
	})
	var err error
	if perr := gt.Try(func() { err = sd.LoadStateDict(weights, true) }); perr != nil {
		return perr
	}
	return err
}

// build runs a constructor, turning its panic (a bad configuration) into an error.
func build(f func()) error {
	if err := gt.Try(f); err != nil {
		return fmt.Errorf("models: %w", err)
	}
	return nil
}

// trace stores t under name when m is non-nil, and returns t.
func trace(m map[string]*gt.Tensor, name string, t *gt.Tensor) *gt.Tensor {
	if m != nil {
		m[name] = t
	}
	return t
}
