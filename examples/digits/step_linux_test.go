package main

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/goaten/goaten/internal/cputime"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/optim"
)

// BenchmarkStep is the default run's training (MLP 64-64-10, batch 32, SGD
// with momentum 0.9): "step" is one step on a fixed batch (forward, cross
// entropy, zero_grad, backward, step, the loss's Item), "epoch" is
// train.Run.Epoch (the batch order, the data loader and 45 steps) reported
// per step. cpu-ns/step is the process's CPU time (every thread's) per
// step. Run with -cpu 1,2.
func BenchmarkStep(b *testing.B) {
	c := Config{Data: filepath.Join("..", "data", "digits.csv.gz"), Epochs: 1, Batch: 32, Hidden: 64, LR: 0.05, Log: io.Discard}
	b.Run("step", func(b *testing.B) {
		run, err := setup(c)
		if err != nil {
			b.Fatal(err)
		}
		opt, err := optim.NewSGD(run.Model.Parameters(), optim.WithLR(c.LR), optim.WithMomentum(0.9))
		if err != nil {
			b.Fatal(err)
		}
		lossFn := nn.NewCrossEntropyLoss()
		x, y := run.XTrain.Narrow(0, 0, c.Batch).Contiguous(), run.YTrain.Narrow(0, 0, c.Batch).Contiguous()
		run.Model.Train()
		cpuSteps(b, 1, func() {
			loss := lossFn.Forward(run.Model.Forward(x), y)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			_ = loss.Item().Float64()
		})
	})
	b.Run("epoch", func(b *testing.B) {
		run, err := setup(c)
		if err != nil {
			b.Fatal(err)
		}
		opt, err := optim.NewSGD(run.Model.Parameters(), optim.WithLR(c.LR), optim.WithMomentum(0.9))
		if err != nil {
			b.Fatal(err)
		}
		lossFn := nn.NewCrossEntropyLoss()
		steps := (run.XTrain.Sizes()[0] + c.Batch - 1) / c.Batch
		epoch := 0
		cpuSteps(b, steps, func() {
			if _, _, err := run.Epoch(opt, lossFn, epoch, nil); err != nil {
				b.Fatal(err)
			}
			epoch++
		})
	})
}

// cpuSteps is b.Loop over f, a call of steps training steps, reporting the
// wall and CPU time per step (ns/step, cpu-ns/step); the first call is a
// warm-up left out of both.
func cpuSteps(b *testing.B, steps int, f func()) {
	b.ReportAllocs()
	var cpu0 time.Duration
	var t0 time.Time
	n := 0
	for b.Loop() {
		if n == 1 {
			cpu0, t0 = cputime.Process(), time.Now()
		}
		f()
		n++
	}
	if n > 1 {
		b.ReportMetric(float64(time.Since(t0))/float64((n-1)*steps), "ns/step")
		b.ReportMetric(float64(cputime.Process()-cpu0)/float64((n-1)*steps), "cpu-ns/step")
	}
}
