// Command charlm trains a small character-level GPT (token and position
// embeddings, pre-LayerNorm blocks of causal self-attention built from
// Linear layers and a GELU MLP) on Go source code every Go installation has:
// a few files of the standard library under runtime.GOROOT()/src. After
// training it samples text from a seeded generator. Like examples/digits it
// shows a progress bar, draws the loss curve to a PNG and saves a checkpoint
// that -resume continues from. The training loss is compiled (package
// compile: the forward and the loss traced into one graph, the backward by
// AOT autograd, both run by the CPU backend); -eager runs it eagerly, with
// the same losses.
//
//	go run ./examples/charlm                   # 4 epochs of 50 steps
//	go run ./examples/charlm -epochs 20 -d 128
//	go run ./examples/charlm -eager
//
// bench/peers/examples_charlm.py does the same in PyTorch 1.13.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	c := Config{Log: os.Stdout}
	files := flag.String("files", strings.Join(Files, ","), "comma-separated files under -root to train on")
	flag.StringVar(&c.Root, "root", filepath.Join(runtime.GOROOT(), "src"), "directory of the files")
	flag.IntVar(&c.GPT.Block, "block", 64, "context length")
	flag.IntVar(&c.GPT.Layers, "layers", 2, "transformer blocks")
	flag.IntVar(&c.GPT.Heads, "heads", 4, "attention heads")
	flag.IntVar(&c.GPT.D, "d", 64, "model width")
	flag.IntVar(&c.Epochs, "epochs", 4, "epochs (after those of a resumed checkpoint)")
	flag.IntVar(&c.Steps, "steps", 50, "steps per epoch")
	flag.IntVar(&c.Batch, "batch", 16, "windows per step")
	flag.Float64Var(&c.LR, "lr", 3e-3, "AdamW learning rate")
	flag.Uint64Var(&c.Seed, "seed", 0, "seed of the weights, the windows and the sampling")
	flag.IntVar(&c.Sample, "sample", 300, "characters to sample after training")
	flag.StringVar(&c.Prompt, "prompt", "func ", "the sample's start")
	flag.StringVar(&c.Out, "out", "charlm-out", "directory for the plot (curves.png) and the checkpoint")
	flag.BoolVar(&c.Resume, "resume", false, "continue from the checkpoint in -out")
	flag.BoolVar(&c.Eager, "eager", false, "run the training loss eagerly instead of compiled")
	flag.Parse()
	c.Files = strings.Split(*files, ",")
	if _, err := Run(c); err != nil {
		fmt.Fprintln(os.Stderr, "charlm:", err)
		os.Exit(1)
	}
}
