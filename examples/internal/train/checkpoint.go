package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
)

// Checkpoint names the files of a checkpoint in a directory: model.safetensors
// (the model's state dict, with the epoch and the history in its metadata) and
// optim.safetensors (the optimizer's state dict, optim.StateDict.Marshal).
type Checkpoint struct{ Dir string }

// Model is a module's state dict methods (every nn module has them through
// nn.Base).
type Model interface {
	StateDict() *nn.StateDict
	LoadStateDict(sd map[string]*tensor.Tensor, strict bool) error
}

// Save writes the model's and the optimizer's state after epoch epochs.
func (c Checkpoint) Save(m Model, opt optim.Optimizer, epoch int, h History) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	hist, err := json.Marshal(h)
	if err != nil {
		return err
	}
	meta := map[string]string{"epoch": fmt.Sprint(epoch), "history": string(hist)}
	if err := safetensors.Save(filepath.Join(c.Dir, "model.safetensors"), m.StateDict().Tensors, meta); err != nil {
		return err
	}
	b, err := opt.StateDict().Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Dir, "optim.safetensors"), b, 0o644)
}

// Load restores the model and the optimizer and returns the number of epochs
// done and the history saved with them.
func (c Checkpoint) Load(m Model, opt optim.Optimizer) (int, History, error) {
	var h History
	f, err := safetensors.Load(filepath.Join(c.Dir, "model.safetensors"))
	if err != nil {
		return 0, h, err
	}
	if err := m.LoadStateDict(f.Tensors, true); err != nil {
		return 0, h, err
	}
	var epoch int
	if _, err := fmt.Sscan(f.Metadata["epoch"], &epoch); err != nil {
		return 0, h, fmt.Errorf("checkpoint %s: epoch: %w", c.Dir, err)
	}
	if err := json.Unmarshal([]byte(f.Metadata["history"]), &h); err != nil {
		return 0, h, fmt.Errorf("checkpoint %s: history: %w", c.Dir, err)
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, "optim.safetensors"))
	if err != nil {
		return 0, h, err
	}
	sd, err := optim.ParseStateDict(b)
	if err != nil {
		return 0, h, err
	}
	return epoch, h, opt.LoadStateDict(sd)
}
