// Command export exports the four models of testdata/models (built from
// nn layers in examples/models) with compile/export, saves each to a file
// in a temporary directory, then runs itself again as a child process that
// loads the files, runs them on the stored inputs and prints how closely
// their outputs agree with PyTorch 1.13's (the GPT, exported with a dynamic
// batch and sequence length, at batch 1 and 5 and several lengths):
//
//	go run ./examples/export                  (from the repository root)
//	go run ./examples/export -models DIR      (another copy of testdata/models)
//
// The child is this program with the subcommand "run DIR": it sees only
// the saved files, not the Go models.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/safetensors"
)

// a model: its testdata directory, how to build it from weights, its input
// and the stored output it should reproduce, and its dynamic dimensions.
type model struct {
	name, input, output string
	build               func(w map[string]*gt.Tensor) (nn.Module, error)
	dynamic             map[int]*export.Dimension
}

var all = []model{
	{"mlp", "x", "logits", func(w map[string]*gt.Tensor) (nn.Module, error) { return models.NewMLP(w) }, nil},
	{"cnn", "x", "logits", func(w map[string]*gt.Tensor) (nn.Module, error) { return models.NewCNN(w) }, nil},
	{"transformer_encoder_layer", "x", "y", func(w map[string]*gt.Tensor) (nn.Module, error) {
		return models.NewEncoderLayer(w, 64, 4, 128)
	}, nil},
	// The GPT with a dynamic batch and sequence length (up to its block
	// size of 32): the child runs one file at several of each.
	{"gpt_decoder", "tokens", "logits", func(w map[string]*gt.Tensor) (nn.Module, error) {
		return models.NewGPT(w, models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256})
	}, map[int]*export.Dimension{0: export.Dim("batch", 1, 8), 1: export.Dim("seq", 1, 32)}},
}

func main() {
	dir := flag.String("models", filepath.Join("testdata", "models"), "the directory of the model files")
	flag.Parse()
	var err error
	switch flag.Arg(0) {
	case "":
		err = exportAll(*dir)
	case "run":
		err = runAll(*dir, flag.Arg(1))
	default:
		err = fmt.Errorf("unknown subcommand %q", flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}

func load(dir, name, file string) (map[string]*gt.Tensor, error) {
	f, err := safetensors.Load(filepath.Join(dir, name, file+".safetensors"))
	if err != nil {
		return nil, err
	}
	return f.Tensors, nil
}

// exportAll exports every model into a temporary directory and runs the
// child on it.
func exportAll(dir string) error {
	tmp, err := os.MkdirTemp("", "goaten-export")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, m := range all {
		w, err := load(dir, m.name, "weights")
		if err != nil {
			return err
		}
		in, err := load(dir, m.name, "inputs")
		if err != nil {
			return err
		}
		mod, err := m.build(w)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		opts := export.Options{InputNames: []string{m.input}}
		if m.dynamic != nil {
			opts.DynamicShapes = []map[int]*export.Dimension{m.dynamic}
		}
		ep, err := export.Export(mod, []*gt.Tensor{in[m.input]}, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		path := filepath.Join(tmp, m.name+".pt2")
		if err := export.Save(ep, path); err != nil {
			return err
		}
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		fmt.Printf("exported %-26s %4d nodes, %7d bytes\n", m.name, len(ep.GraphModule.Graph.Nodes()), st.Size())
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-models", dir, "run", tmp)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// runAll loads each saved program, runs it and compares its output with
// PyTorch's.
func runAll(dir, tmp string) error {
	fmt.Printf("child process %d: loading from %s\n", os.Getpid(), tmp)
	for _, m := range all {
		ep, err := export.LoadFile(filepath.Join(tmp, m.name+".pt2"))
		if err != nil {
			return err
		}
		in, err := load(dir, m.name, "inputs")
		if err != nil {
			return err
		}
		out, err := load(dir, m.name, "outputs")
		if err != nil {
			return err
		}
		x, want := in[m.input], out[m.output]
		if err := runOne(ep, m.name, m.output, x, want); err != nil {
			return err
		}
		if m.dynamic == nil {
			continue
		}
		// Other batches and sequence lengths from the same file: rows of
		// the stored batch, and the first tokens of each row (attention is
		// causal, so their logits are the first rows of PyTorch's).
		row := func(z *gt.Tensor, i int) *gt.Tensor { return z.Narrow(0, i, 1) }
		prefix := func(z *gt.Tensor, n int) *gt.Tensor { return z.Narrow(1, 0, n).Contiguous() }
		x5 := gt.Cat([]*gt.Tensor{x, row(x, 1), x})
		want5 := gt.Cat([]*gt.Tensor{want, row(want, 1), want})
		for _, seq := range []int{1, 5, x.Size(1)} {
			if err := runOne(ep, m.name, m.output, prefix(row(x, 0), seq), prefix(row(want, 0), seq)); err != nil {
				return err
			}
			if err := runOne(ep, m.name, m.output, prefix(x5, seq), prefix(want5, seq)); err != nil {
				return err
			}
		}
	}
	return nil
}

// runOne runs a loaded program on x and prints how closely its output
// agrees with want.
func runOne(ep *export.ExportedProgram, name, output string, x, want *gt.Tensor) error {
	got, err := ep.Module().Forward(x)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	g, w := got[0].Float64s(), want.Float64s()
	if len(g) != len(w) {
		return fmt.Errorf("%s: %d outputs, PyTorch has %d", name, len(g), len(w))
	}
	maxAbs := 0.0
	for i := range g {
		maxAbs = math.Max(maxAbs, math.Abs(g[i]-w[i]))
	}
	fmt.Printf("ran      %-26s %s %v: max |diff| from PyTorch %.2g\n", name, output, got[0].Sizes(), maxAbs)
	if !(maxAbs <= maxDiff) {
		return fmt.Errorf("%s: output %v differs from PyTorch's by %g (more than %g)", name, got[0].Sizes(), maxAbs, maxDiff)
	}
	return nil
}

// maxDiff is the largest difference from PyTorch's outputs the child
// accepts: float32 rounding of differently ordered sums stays below 1e-6
// on these models (examples/models tests them elementwise, tighter).
const maxDiff = 1e-4
