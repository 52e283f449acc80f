package main

import (
	"io"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
	"github.com/goaten/goaten/examples/internal/train"
	"github.com/goaten/goaten/nn"
)

// Config is a training run.
type Config struct {
	Data          string
	Epochs, Batch int
	Hidden        int
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
	r, err := setup(c)
	if err != nil {
		return Result{}, err
	}
	return train.Fit(r)
}

// setup loads the data, splits it (20% test) from the seed and makes the
// model: the run train.Fit trains.
func setup(c Config) (train.Run, error) {
	ds, err := data.LoadCSV(c.Data)
	if err != nil {
		return train.Run{}, err
	}
	x, y := ds.Tensors()[0].DivScalar(16), ds.Tensors()[1]
	n := x.Sizes()[0]
	nTest := n / 5

	gt.ManualSeed(c.Seed)
	perm := gt.Randperm(n)
	xTest, yTest := x.IndexSelect(0, perm.Narrow(0, 0, nTest)), y.IndexSelect(0, perm.Narrow(0, 0, nTest))
	xTrain, yTrain := x.IndexSelect(0, perm.Narrow(0, nTest, n-nTest)), y.IndexSelect(0, perm.Narrow(0, nTest, n-nTest))

	return train.Run{
		Name: "digits", Title: "digits MLP", Model: nn.NewSequential(nn.NewLinear(x.Sizes()[1], c.Hidden), nn.NewReLU(), nn.NewLinear(c.Hidden, 10)),
		XTrain: xTrain, YTrain: yTrain, XTest: xTest, YTest: yTest, EvalBatch: 0,
		Epochs: c.Epochs, Batch: c.Batch, LR: c.LR, Seed: c.Seed, Out: c.Out, Resume: c.Resume, Log: c.Log,
	}, nil
}
