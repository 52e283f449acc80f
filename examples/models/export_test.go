package models_test

import (
	"fmt"
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

// The GPT exported with a dynamic batch and sequence length: one file runs
// batch 1 and 5 at sequence lengths 1, 5 and 16. The sequence length
// reaches the graph through the slice of the position table, the views of
// the heads, the causal mask (full, triu) and the attention's matmuls, each
// computed from sym_size.int of the tokens; the graph prints the sizes in
// the symbols s0 (batch) and s1 (sequence). Attention is causal, so the
// logits of the first T tokens are the first T rows of PyTorch's logits.
// Sizes outside the Dims' ranges are refused in PyTorch's words.
func TestExportedGPTDynamicSeq(t *testing.T) {
	cfg := models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256}
	gpt, err := models.NewGPT(load(t, "gpt_decoder", "weights"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tok, want := load(t, "gpt_decoder", "inputs")["tokens"], load(t, "gpt_decoder", "outputs")["logits"]
	ep, err := export.Export(gpt, []*gt.Tensor{tok}, export.Options{
		InputNames: []string{"tokens"},
		DynamicShapes: []map[int]*export.Dimension{{
			0: export.Dim("batch", 1, 8),
			1: export.Dim("seq", 1, cfg.Block),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gpt.pt2")
	if err := export.Save(ep, path); err != nil {
		t.Fatal(err)
	}
	loaded, err := export.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ep.String(), loaded.String(); a != b {
		t.Errorf("the loaded program prints otherwise:\n%s\nloaded:\n%s", a, b)
	}
	text := loaded.String()
	for _, line := range []string{
		`tokens: "i64[s0, s1]"):`,
		`sym_size_int: "Sym(s1)" = torch.ops.aten.sym_size.int(tokens, 1)`,
		`slice_1: "f32[s1, 64]" = torch.ops.aten.slice.Tensor(p_wpe_weight, 0, 0, sym_size_int);`,
		`embedding: "f32[s0, s1, 64]" = torch.ops.aten.embedding.default(p_wte_weight, tokens)`,
		`sym_size_int_1: "Sym(s0)" = torch.ops.aten.sym_size.int(tokens, 0);`,
		`mul: "Sym(s0*s1)" = sym_size_int_1 * sym_size_int`,
		`view: "f32[s0*s1, 64]" = torch.ops.aten.view.default(getitem, [mul, 64]);`,
		`view_2: "f32[s0, s1, 4, 16]" = torch.ops.aten.view.default(getitem_3, [sym_size_int_1, sym_size_int, 4, 16]);`,
		`mul_1: "Sym(4*s0)" = sym_size_int_1 * 4`,
		`bmm: "f32[4*s0, s1, s1]" = torch.ops.aten.bmm.default(view_5, view_6);`,
		`full: "b8[s1, s1]" = torch.ops.aten.full.default([sym_size_int, sym_size_int], 1, dtype = torch.bool)`,
		`triu: "b8[s1, s1]" = torch.ops.aten.triu.default(full, 1);`,
		`Range constraints: {s0: VR[1, 8], s1: VR[1, 32]}`,
	} {
		if !strings.Contains(text, line) {
			t.Errorf("the program lacks %s:\n%s", line, text)
		}
	}
	row := func(z *gt.Tensor, i int) *gt.Tensor { return z.Narrow(0, i, 1) }
	prefix := func(z *gt.Tensor, n int) *gt.Tensor { return z.Narrow(1, 0, n) }
	mod := loaded.Module()
	for _, seq := range []int{1, 5, 16} {
		for _, c := range []struct {
			name      string
			tok, want *gt.Tensor
		}{
			{"batch 1", row(tok, 1), row(want, 1)},
			{"batch 5", gt.Cat([]*gt.Tensor{tok, row(tok, 1), tok}), gt.Cat([]*gt.Tensor{want, row(want, 1), want})},
		} {
			got, err := mod.Forward(prefix(c.tok, seq).Contiguous())
			if err != nil {
				t.Fatalf("%s, seq %d: %v", c.name, seq, err)
			}
			compare(t, fmt.Sprintf("gpt %s, seq %d", c.name, seq), got[0], prefix(c.want, seq).Contiguous())
		}
	}
	for _, c := range []struct {
		sizes []int
		want  string
	}{
		{[]int{2, 33}, "Expected input at *args[0].shape[1] to be <= 32, but got 33"},
		{[]int{9, 4}, "Expected input at *args[0].shape[0] to be <= 8, but got 9"},
		{[]int{2, 4, 1}, "Unexpected number of dimensions in input at *args[0].shape (expected torch.Size([s0, s1]), got torch.Size([2, 4, 1]))"},
	} {
		_, err := mod.Forward(gt.Zeros(c.sizes, gt.WithDtype(gt.Int64)))
		if err == nil || err.Error() != c.want {
			t.Errorf("tokens %v: got %v, want %q", c.sizes, err, c.want)
		}
	}
}
