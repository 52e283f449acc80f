package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/data"
	"github.com/goaten/goaten/examples/internal/train"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
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
type Result struct {
	History    train.History   // every epoch's, those of a resumed run included
	EpochTimes []time.Duration // this run's epochs
}

// Run loads the data, splits it (20% test) from the seed, trains and
// evaluates, and writes the plot and the checkpoint to c.Out.
func Run(c Config) (Result, error) {
	var res Result
	ds, err := data.LoadCSV(c.Data)
	if err != nil {
		return res, err
	}
	x, y := ds.Tensors()[0].DivScalar(16), ds.Tensors()[1]
	n := x.Sizes()[0]
	nTest := n / 5

	gt.ManualSeed(c.Seed)
	perm := gt.Randperm(n)
	xTest, yTest := x.IndexSelect(0, perm.Narrow(0, 0, nTest)), y.IndexSelect(0, perm.Narrow(0, 0, nTest))
	xTrain, yTrain := x.IndexSelect(0, perm.Narrow(0, nTest, n-nTest)), y.IndexSelect(0, perm.Narrow(0, nTest, n-nTest))

	model := nn.NewSequential(nn.NewLinear(x.Sizes()[1], c.Hidden), nn.NewReLU(), nn.NewLinear(c.Hidden, 10))
	opt, err := optim.NewSGD(model.Parameters(), optim.WithLR(c.LR), optim.WithMomentum(0.9))
	if err != nil {
		return res, err
	}
	lossFn := nn.NewCrossEntropyLoss()
	ck := train.Checkpoint{Dir: filepath.Join(c.Out, "checkpoint")}
	start := 0
	if c.Resume {
		if start, res.History, err = ck.Load(model, opt); err != nil {
			return res, fmt.Errorf("resume: %w", err)
		}
		fmt.Fprintf(c.Log, "resumed after epoch %d from %s\n", start, ck.Dir)
	}
	fmt.Fprintf(c.Log, "digits: %d train, %d test samples; %s\n", n-nTest, nTest, nn.Repr(model))

	for epoch := start; epoch < start+c.Epochs; epoch++ {
		// The batch order: torch.manual_seed(seed+1+epoch); torch.randperm(n),
		// so that a resumed run draws what an uninterrupted one would.
		gt.ManualSeed(c.Seed + 1 + uint64(epoch))
		order := gt.Randperm(n - nTest)
		epochData, err := data.NewTensorDataset(xTrain.IndexSelect(0, order), yTrain.IndexSelect(0, order))
		if err != nil {
			return res, err
		}
		loader, err := data.NewLoader(epochData, c.Batch, data.WithPrefetch(2))
		if err != nil {
			return res, err
		}
		model.Train()
		bar := train.NewBar(c.Log, fmt.Sprintf("epoch %d/%d", epoch+1, start+c.Epochs), loader.Len())
		var sum float64
		var batches int
		for batch, err := range loader.All(context.Background()) {
			if err != nil {
				return res, err
			}
			loss := lossFn.Forward(model.Forward(batch[0]), batch[1])
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			sum += loss.Item().Float64()
			batches++
			bar.Add(1, fmt.Sprintf("loss %.4f", sum/float64(batches)))
		}
		res.EpochTimes = append(res.EpochTimes, bar.Done())
		acc := accuracy(model, xTest, yTest)
		res.History.Loss = append(res.History.Loss, sum/float64(batches))
		res.History.Accuracy = append(res.History.Accuracy, acc)
		fmt.Fprintf(c.Log, "epoch %d: train loss %.4f, test accuracy %.2f%%, %.3fs\n", epoch+1, sum/float64(batches), 100*acc, res.EpochTimes[len(res.EpochTimes)-1].Seconds())
	}
	if err := ck.Save(model, opt, start+c.Epochs, res.History); err != nil {
		return res, err
	}
	plot := filepath.Join(c.Out, "curves.png")
	if err := train.Plot(plot, "digits MLP", res.History); err != nil {
		return res, err
	}
	fmt.Fprintf(c.Log, "wrote %s and the checkpoint %s\n", plot, ck.Dir)
	return res, nil
}

// accuracy is the fraction of x that model classifies as y.
func accuracy(model nn.Layer, x, y *gt.Tensor) float64 {
	var right int64
	autograd.NoGrad(func() {
		right = model.Forward(x).Argmax(tensor.WithDim(1)).Eq(y).Sum(nil).Item().Int64()
	})
	return float64(right) / float64(y.Sizes()[0])
}
