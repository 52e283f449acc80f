package main

import (
	"io"
	"strings"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
	"github.com/goaten/goaten/examples/internal/train"
	"github.com/goaten/goaten/nn"
)

// Config is a training run.
type Config struct {
	Data          string
	Epochs, Batch int
	Train         int // training samples used, 0 for all
	LR            float64
	Seed          uint64
	Out           string // plot and checkpoint directory
	Resume        bool
	Log           io.Writer
}

// Result is what a run measured.
type Result = train.Result

// Run loads the data, splits it (20% test) from the seed, trains and
// evaluates, and writes the plot and the checkpoint to c.Out.
func Run(c Config) (Result, error) {
	ds, err := data.LoadMNIST(c.Data, strings.Replace(c.Data, "images-idx3", "labels-idx1", 1))
	if err != nil {
		return Result{}, err
	}
	x, y := ds.Tensors()[0].To(gt.Float32).DivScalar(255), ds.Tensors()[1]
	n := x.Sizes()[0]
	x = x.Reshape([]int{n, 1, 28, 28})
	nTest := n / 5

	gt.ManualSeed(c.Seed)
	perm := gt.Randperm(n)
	xTest, yTest := x.IndexSelect(0, perm.Narrow(0, 0, nTest)), y.IndexSelect(0, perm.Narrow(0, 0, nTest))
	nTrain := n - nTest
	if c.Train > 0 && c.Train < nTrain {
		nTrain = c.Train
	}
	xTrain, yTrain := x.IndexSelect(0, perm.Narrow(0, nTest, nTrain)), y.IndexSelect(0, perm.Narrow(0, nTest, nTrain))

	return train.Fit(train.Run{
		Name: "mnist", Title: "MNIST CNN", Model: NewCNN(),
		XTrain: xTrain, YTrain: yTrain, XTest: xTest, YTest: yTest, EvalBatch: 500,
		Epochs: c.Epochs, Batch: c.Batch, LR: c.LR, Seed: c.Seed, Out: c.Out, Resume: c.Resume, Log: c.Log,
	})
}

// NewCNN is the model: [N, 1, 28, 28] images to [N, 10] logits.
func NewCNN() *nn.Sequential {
	return nn.NewSequential(
		nn.NewConv2d(1, 8, 3, nn.Padding(1)), nn.NewReLU(), nn.NewMaxPool2d(2),
		nn.NewConv2d(8, 16, 3, nn.Padding(1)), nn.NewReLU(), nn.NewMaxPool2d(2),
		nn.NewFlatten(), nn.NewLinear(16*7*7, 10))
}
