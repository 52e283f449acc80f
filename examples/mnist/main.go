// Command mnist trains a small CNN (two 3×3 convolutions with max pooling,
// then a linear layer) on 10,000 MNIST test digits (examples/data), split
// 8,000/2,000 from the seed. By default it trains 2 epochs, a few seconds on
// a small machine (-epochs for more, -train N for a subset). Like examples/digits it shows a progress
// bar, writes the loss and accuracy curves to a PNG and a checkpoint that
// -resume continues from.
//
// bench/peers/examples_mnist.py does the same in PyTorch 1.13, with the same
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
	flag.StringVar(&c.Data, "data", filepath.Join(filepath.Dir(file), "..", "data", "mnist10k-images-idx3-ubyte.gz"), "the MNIST images (IDX, the labels file beside it)")
	flag.IntVar(&c.Epochs, "epochs", 2, "epochs to train (after those of a resumed checkpoint)")
	flag.IntVar(&c.Batch, "batch", 32, "batch size")
	flag.IntVar(&c.Train, "train", 0, "training samples used (of 8,000; 0 for all)")
	flag.Float64Var(&c.LR, "lr", 0.05, "SGD learning rate (momentum 0.9)")
	flag.Uint64Var(&c.Seed, "seed", 0, "seed of the split, the initial weights and the batch order")
	flag.StringVar(&c.Out, "out", "mnist-out", "directory for the plot (curves.png) and the checkpoint")
	flag.BoolVar(&c.Resume, "resume", false, "continue from the checkpoint in -out")
	flag.Parse()
	if _, err := Run(c); err != nil {
		fmt.Fprintln(os.Stderr, "mnist:", err)
		os.Exit(1)
	}
}
