package models_test

import (
	"path/filepath"
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

	// A dynamic batch: the views nn.Linear on [B, T, D] and the attention's
	// head split make compute their sizes from sym_size.int of the tokens,
	// so batch 1 and 5 run from the same file.
	outs = exportRun(t, gpt, []*gt.Tensor{tok}, export.Options{
		InputNames:    []string{"tokens"},
		DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 1, 8)}},
	}, []*gt.Tensor{row(tok, 0)}, []*gt.Tensor{tok5})
	compare(t, "gpt logits, batch 1", outs[0][0], row(want, 0))
	compare(t, "gpt logits, batch 5", outs[1][0], want5)
}
