package train

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/data"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/optim"
	"github.com/goaten/goaten/tensor"
)

// Classifier is a model the examples train: a layer with state dicts and a
// training mode.
type Classifier interface {
	Model
	nn.Layer
	Train()
	Parameters() []*tensor.Tensor
}

// Run is a classifier's training run: SGD with momentum 0.9 on the cross
// entropy, the batch order of epoch e drawn by torch.manual_seed(Seed+1+e);
// torch.randperm, so that a resumed run draws what an uninterrupted one
// would.
type Run struct {
	Name, Title    string // the log's name of the data, the plot's title
	Model          Classifier
	XTrain, YTrain *gt.Tensor
	XTest, YTest   *gt.Tensor
	EvalBatch      int // test samples per forward call, 0 for all at once
	Epochs, Batch  int
	LR             float64
	Seed           uint64
	Out            string // plot and checkpoint directory
	Resume         bool
	Log            io.Writer
}

// Result is what a run measured.
type Result struct {
	History    History         // every epoch's, those of a resumed run included
	EpochTimes []time.Duration // this run's epochs
}

// Fit trains r.Model, evaluates it on the test set after every epoch, and
// writes the checkpoint and the plot of the curves to r.Out.
func Fit(r Run) (Result, error) {
	var res Result
	model := r.Model
	opt, err := optim.NewSGD(model.Parameters(), optim.WithLR(r.LR), optim.WithMomentum(0.9))
	if err != nil {
		return res, err
	}
	lossFn := nn.NewCrossEntropyLoss()
	ck := Checkpoint{Dir: filepath.Join(r.Out, "checkpoint")}
	start := 0
	if r.Resume {
		if start, res.History, err = ck.Load(model, opt); err != nil {
			return res, fmt.Errorf("resume: %w", err)
		}
		fmt.Fprintf(r.Log, "resumed after epoch %d from %s\n", start, ck.Dir)
	}
	nTrain := r.XTrain.Sizes()[0]
	fmt.Fprintf(r.Log, "%s: %d train, %d test samples; %s\n", r.Name, nTrain, r.XTest.Sizes()[0], nn.Repr(model))

	for epoch := start; epoch < start+r.Epochs; epoch++ {
		bar := NewBar(r.Log, fmt.Sprintf("epoch %d/%d", epoch+1, start+r.Epochs), (nTrain+r.Batch-1)/r.Batch)
		sum, batches, err := r.Epoch(opt, lossFn, epoch, bar)
		if err != nil {
			return res, err
		}
		res.EpochTimes = append(res.EpochTimes, bar.Done())
		acc := accuracy(model, r.XTest, r.YTest, r.EvalBatch)
		res.History.Loss = append(res.History.Loss, sum/float64(batches))
		res.History.Accuracy = append(res.History.Accuracy, acc)
		fmt.Fprintf(r.Log, "epoch %d: train loss %.4f, test accuracy %.2f%%, %.3fs\n", epoch+1, sum/float64(batches), 100*acc, res.EpochTimes[len(res.EpochTimes)-1].Seconds())
	}
	if err := ck.Save(model, opt, start+r.Epochs, res.History); err != nil {
		return res, err
	}
	plot := filepath.Join(r.Out, "curves.png")
	if err := Plot(plot, r.Title, res.History); err != nil {
		return res, err
	}
	fmt.Fprintf(r.Log, "wrote %s and the checkpoint %s\n", plot, ck.Dir)
	return res, nil
}

// Epoch trains r.Model for one epoch (epoch counts from 0) with opt and
// lossFn: the batch order drawn by torch.manual_seed(Seed+1+epoch);
// torch.randperm, r.Batch samples a step through a data.Loader, the bar (nil
// for none) advanced at each step. It returns the sum of the steps' losses
// and the number of steps.
func (r Run) Epoch(opt optim.Optimizer, lossFn *nn.CrossEntropyLoss, epoch int, bar *Bar) (sum float64, batches int, err error) {
	gt.ManualSeed(r.Seed + 1 + uint64(epoch))
	order := gt.Randperm(r.XTrain.Sizes()[0])
	epochData, err := data.NewTensorDataset(r.XTrain.IndexSelect(0, order), r.YTrain.IndexSelect(0, order))
	if err != nil {
		return 0, 0, err
	}
	// No loader goroutines: a batch of a TensorDataset is one index_select
	// per tensor, microseconds, less than handing it between goroutines
	// costs (with GOMAXPROCS 2 the worker woke on the other core each step).
	loader, err := data.NewLoader(epochData, r.Batch, data.WithWorkers(0))
	if err != nil {
		return 0, 0, err
	}
	r.Model.Train()
	for batch, err := range loader.All(context.Background()) {
		if err != nil {
			return 0, 0, err
		}
		loss := lossFn.Forward(r.Model.Forward(batch[0]), batch[1])
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		sum += loss.Item().Float64()
		batches++
		if bar != nil {
			bar.AddFunc(1, func() string { return fmt.Sprintf("loss %.4f", sum/float64(batches)) })
		}
	}
	return sum, batches, nil
}

// accuracy is the fraction of x's rows whose highest score is y's class,
// evaluated batch rows at a time (all at once for 0).
func accuracy(model nn.Layer, x, y *gt.Tensor, batch int) float64 {
	n := y.Sizes()[0]
	if batch <= 0 {
		batch = n
	}
	var right int64
	autograd.NoGrad(func() {
		for i := 0; i < n; i += batch {
			k := min(batch, n-i)
			right += model.Forward(x.Narrow(0, i, k)).Argmax(tensor.WithDim(1)).Eq(y.Narrow(0, i, k)).Sum(nil).Item().Int64()
		}
	})
	return float64(right) / float64(n)
}
