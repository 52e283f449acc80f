// Command export exports the four models of testdata/models (built from
// nn layers in examples/models) with compile/export, saves each to a file
// in a temporary directory, then runs itself again as a child process that
// loads the files, runs them on the stored inputs and prints how closely
// their outputs agree with PyTorch 1.13's:
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
// and the stored output it should reproduce.
type model struct {
	name, input, output string
	build               func(w map[string]*gt.Tensor) (nn.Module, error)
}

var all = []model{
	{"mlp", "x", "logits", func(w map[string]*gt.Tensor) (nn.Module, error) { return models.NewMLP(w) }},
	{"cnn", "x", "logits", func(w map[string]*gt.Tensor) (nn.Module, error) { return models.NewCNN(w) }},
	{"transformer_encoder_layer", "x", "y", func(w map[string]*gt.Tensor) (nn.Module, error) {
		return models.NewEncoderLayer(w, 64, 4, 128)
	}},
	{"gpt_decoder", "tokens", "logits", func(w map[string]*gt.Tensor) (nn.Module, error) {
		return models.NewGPT(w, models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256})
	}},
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
		ep, err := export.Export(mod, []*gt.Tensor{in[m.input]}, export.Options{InputNames: []string{m.input}})
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
		got, err := ep.Module().Forward(in[m.input])
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		g, w := got[0].Float64s(), out[m.output].Float64s()
		if len(g) != len(w) {
			return fmt.Errorf("%s: %d outputs, PyTorch has %d", m.name, len(g), len(w))
		}
		maxAbs := 0.0
		for i := range g {
			maxAbs = math.Max(maxAbs, math.Abs(g[i]-w[i]))
		}
		fmt.Printf("ran      %-26s %s %v: max |diff| from PyTorch %.2g\n", m.name, m.output, got[0].Sizes(), maxAbs)
	}
	return nil
}
