// Command digits trains a small MLP on the UCI handwritten digits (1,797 8×8
// images, examples/data/digits.csv.gz): a train/test split drawn from the
// seed, a progress bar per epoch, the test accuracy after each, the loss and
// accuracy curves drawn to a PNG, and a checkpoint (model and optimizer state)
// that -resume continues from.
//
//	go run ./examples/digits                      # 10 epochs
//	go run ./examples/digits -epochs 5 -resume    # 5 more from the checkpoint
//
// bench/peers/examples_digits.py does the same in PyTorch 1.13, with the same
// seed, split, initial weights and batch order.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	_, file, _, _ := runtime.Caller(0)
	c := Config{Log: os.Stdout}
	flag.StringVar(&c.Data, "data", filepath.Join(filepath.Dir(file), "..", "data", "digits.csv.gz"), "the digits CSV (64 pixels and the label a line)")
	flag.IntVar(&c.Epochs, "epochs", 10, "epochs to train (after those of a resumed checkpoint)")
	flag.IntVar(&c.Batch, "batch", 32, "batch size")
	flag.IntVar(&c.Hidden, "hidden", 64, "hidden units")
	flag.Float64Var(&c.LR, "lr", 0.05, "SGD learning rate (momentum 0.9)")
	flag.Uint64Var(&c.Seed, "seed", 0, "seed of the split, the initial weights and the batch order")
	flag.StringVar(&c.Out, "out", "digits-out", "directory for the plot (curves.png) and the checkpoint")
	flag.BoolVar(&c.Resume, "resume", false, "continue from the checkpoint in -out")
	flag.Parse()
	if _, err := Run(c); err != nil {
		fmt.Fprintln(os.Stderr, "digits:", err)
		os.Exit(1)
	}
}
