package models_test

import (
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/nn"
)

// exportRun exports m at args, saves the program to a file, loads it back
// and runs it on in.
func exportRun(t *testing.T, m nn.Module, args []*gt.Tensor, opts export.Options, in ...[]*gt.Tensor) [][]*gt.Tensor {
	t.Helper()
	ep, err := export.Export(m, args, opts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.pt2")
	if err := export.Save(ep, path); err != nil {
		t.Fatal(err)
	}
	loaded, err := export.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var outs [][]*gt.Tensor
	for _, xs := range in {
		out, err := loaded.Module().Forward(xs...)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	return outs
}

// The four models, exported, saved, loaded and run, give PyTorch's
// outputs; the GPT, exported with a dynamic batch, runs batch 1 and 5 from
// the same file.
func TestExportedModels(t *testing.T) {
	mlp, err := models.NewMLP(load(t, "mlp", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	x := load(t, "mlp", "inputs")["x"]
	compare(t, "mlp logits", exportRun(t, mlp, []*gt.Tensor{x}, export.Options{}, []*gt.Tensor{x})[0][0], load(t, "mlp", "outputs")["logits"])

	cnn, err := models.NewCNN(load(t, "cnn", "weights"))
	if err != nil {
		t.Fatal(err)
	}
	x = load(t, "cnn", "inputs")["x"]
	compare(t, "cnn logits", exportRun(t, cnn, []*gt.Tensor{x}, export.Options{}, []*gt.Tensor{x})[0][0], load(t, "cnn", "outputs")["logits"])

	enc, err := models.NewEncoderLayer(load(t, "transformer_encoder_layer", "weights"), 64, 4, 128)
	if err != nil {
		t.Fatal(err)
	}
	x = load(t, "transformer_encoder_layer", "inputs")["x"]
	compare(t, "encoder layer y", exportRun(t, enc, []*gt.Tensor{x}, export.Options{}, []*gt.Tensor{x})[0][0], load(t, "transformer_encoder_layer", "outputs")["y"])

	cfg := models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256}
	gpt, err := models.NewGPT(load(t, "gpt_decoder", "weights"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tok, want := load(t, "gpt_decoder", "inputs")["tokens"], load(t, "gpt_decoder", "outputs")["logits"]
	row := func(z *gt.Tensor, i int) *gt.Tensor { return z.Narrow(0, i, 1) }
	tok5 := gt.Cat([]*gt.Tensor{tok, row(tok, 1), tok})     // rows 0 1 1 0 1
	want5 := gt.Cat([]*gt.Tensor{want, row(want, 1), want}) // their logits
	outs := exportRun(t, gpt, []*gt.Tensor{tok}, export.Options{InputNames: []string{"tokens"}}, []*gt.Tensor{tok})
	compare(t, "gpt logits", outs[0][0], want)

	// A dynamic batch: export traces at the example's sizes and its graph
	// has no symbolic sizes, so the views that nn.Linear on [B, T, D] and
	// the attention's head split make (matmul folding B·T) bake the batch
	// in, and Export refuses the Dim as PyTorch refuses a specialized one.
	// Batch 1 and 5 each need their own export until export has symbolic
	// sizes.
	_, err = export.Export(gpt, []*gt.Tensor{tok}, export.Options{
		InputNames:    []string{"tokens"},
		DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 1, 8)}},
	})
	if err == nil {
		t.Error("the GPT exported with a dynamic batch: run batch 1 and 5 from one file here")
	} else if !strings.Contains(err.Error(), "Constraints violated (batch)") {
		t.Errorf("dynamic batch: %v", err)
	}
	for _, c := range []struct {
		name      string
		tok, want *gt.Tensor
	}{{"batch 1", row(tok, 0), row(want, 0)}, {"batch 5", tok5, want5}} {
		compare(t, "gpt logits, "+c.name, exportRun(t, gpt, []*gt.Tensor{c.tok}, export.Options{}, []*gt.Tensor{c.tok})[0][0], c.want)
	}
}
