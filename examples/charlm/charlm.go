package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/examples/internal/train"
	"github.com/goaten/goaten/optim"
)

// Files are the standard library sources the default run trains on, under
// GOROOT/src.
var Files = []string{"strings/strings.go", "strings/builder.go", "bytes/buffer.go", "sort/sort.go", "errors/wrap.go"}

// Config is a training run.
type Config struct {
	Root                 string   // where Files are (GOROOT/src)
	Files                []string // the text, concatenated
	GPT                  GPTConfig
	Epochs, Steps, Batch int
	LR                   float64
	Seed                 uint64
	Sample               int    // characters sampled after training
	Prompt               string // their start
	Out                  string
	Resume               bool
	Eager                bool // run the training loss eagerly instead of compiled
	Log                  io.Writer
}

// Result is what a run measured.
type Result struct {
	History    train.History // train loss per epoch; Accuracy unused
	ValLoss    []float64     // held-out loss after each epoch
	EpochTimes []time.Duration
	Sample     string
}

// LoadText reads and concatenates the files under root.
func LoadText(root string, files []string) (string, error) {
	var b strings.Builder
	for _, f := range files {
		t, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		b.Write(t)
	}
	return b.String(), nil
}

// Run trains the model on the text (90% train, 10% held out), for Epochs
// epochs of Steps steps on random windows, then samples from it.
func Run(c Config) (Result, error) {
	var res Result
	text, err := LoadText(c.Root, c.Files)
	if err != nil {
		return res, err
	}
	// The vocabulary: the bytes of the text, sorted.
	var seen [256]bool
	for i := range len(text) {
		seen[text[i]] = true
	}
	var vocab []byte
	var id [256]int64
	for b, ok := range seen {
		if ok {
			id[b] = int64(len(vocab))
			vocab = append(vocab, byte(b))
		}
	}
	ids := make([]int64, len(text))
	for i := range len(text) {
		ids[i] = id[text[i]]
	}
	all := gt.FromInt64s(ids, len(ids))
	nVal := len(ids) / 10
	trainData, valData := all.Narrow(0, 0, len(ids)-nVal), all.Narrow(0, len(ids)-nVal, nVal)
	c.GPT.Vocab = len(vocab)
	T := c.GPT.Block

	gt.ManualSeed(c.Seed)
	model := NewGPT(c.GPT)
	opt, err := optim.NewAdamW(model.Parameters(), optim.WithLR(c.LR))
	if err != nil {
		return res, err
	}
	ck := train.Checkpoint{Dir: filepath.Join(c.Out, "checkpoint")}
	start := 0
	if c.Resume {
		if start, res.History, err = ck.Load(model, opt); err != nil {
			return res, fmt.Errorf("resume: %w", err)
		}
		fmt.Fprintf(c.Log, "resumed after epoch %d from %s\n", start, ck.Dir)
	}
	nParams := 0
	for _, p := range model.Parameters() {
		nParams += p.Numel()
	}
	fmt.Fprintf(c.Log, "charlm: %d characters of Go (%d train, %d held out), vocabulary %d, %d parameters\n",
		len(ids), len(ids)-nVal, nVal, len(vocab), nParams)

	offsets := gt.Arange(0, T)
	windows := func(src, starts *gt.Tensor) (x, y *gt.Tensor) { // starts [B] -> x, y [B, T]
		b := starts.Sizes()[0]
		idx := starts.Unsqueeze(1).Add(offsets).Reshape([]int{b * T})
		return src.IndexSelect(0, idx).Reshape([]int{b, T}), src.IndexSelect(0, idx.AddScalar(1)).Reshape([]int{b, T})
	}
	lossOf := func(x, y *gt.Tensor) *gt.Tensor {
		return model.Forward(x).Reshape([]int{-1, c.GPT.Vocab}).CrossEntropyLoss(y.Reshape([]int{-1}))
	}
	// The training loss is compiled (torch.compile's counterpart: one graph
	// for the forward and the loss, its backward by AOT autograd, run by the
	// default CPU backend), unless c.Eager.
	trainLoss := func(x, y *gt.Tensor) (*gt.Tensor, error) { return lossOf(x, y), nil }
	if !c.Eager {
		cc := compile.Compile(lossOf, compile.Options{Fullgraph: true})
		trainLoss = func(x, y *gt.Tensor) (*gt.Tensor, error) {
			l, err := cc.Call(x, y)
			if err != nil {
				return nil, err
			}
			return l.(*gt.Tensor), nil
		}
	}
	for epoch := start; epoch < start+c.Epochs; epoch++ {
		// Each epoch's windows come from torch.manual_seed(seed+1+epoch), so
		// that a resumed run draws what an uninterrupted one would.
		gt.ManualSeed(c.Seed + 1 + uint64(epoch))
		model.Train()
		bar := train.NewBar(c.Log, fmt.Sprintf("epoch %d/%d", epoch+1, start+c.Epochs), c.Steps)
		var sum float64
		for step := range c.Steps {
			x, y := windows(trainData, gt.Randint(trainData.Sizes()[0]-T-1, []int{c.Batch}))
			loss, err := trainLoss(x, y)
			if err != nil {
				return res, fmt.Errorf("the compiled training loss: %w", err)
			}
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			sum += loss.Item().Float64()
			bar.Add(1, fmt.Sprintf("loss %.4f", sum/float64(step+1)))
		}
		res.EpochTimes = append(res.EpochTimes, bar.Done())
		res.History.Loss = append(res.History.Loss, sum/float64(c.Steps))
		// The held-out loss: consecutive windows from the start of valData.
		var val float64
		autograd.NoGrad(func() {
			n := min(32, (nVal-1)/T)
			val = lossOf(windows(valData, gt.Arange(0, n).MulScalar(T))).Item().Float64()
		})
		res.ValLoss = append(res.ValLoss, val)
		fmt.Fprintf(c.Log, "epoch %d: train loss %.4f, held-out loss %.4f, %.3fs\n", epoch+1, sum/float64(c.Steps), val, res.EpochTimes[len(res.EpochTimes)-1].Seconds())
	}
	if err := ck.Save(model, opt, start+c.Epochs, res.History); err != nil {
		return res, err
	}
	plot := filepath.Join(c.Out, "curves.png")
	if err := train.Plot(plot, "char-level GPT on Go sources", res.History); err != nil {
		return res, err
	}
	fmt.Fprintf(c.Log, "wrote %s and the checkpoint %s\n", plot, ck.Dir)

	// Sampling: torch.manual_seed(seed), then one multinomial draw per
	// character from the softmax of the last position's logits.
	gt.ManualSeed(c.Seed)
	model.Eval()
	ctx := make([]int64, 0, len(c.Prompt)+c.Sample)
	for i := range len(c.Prompt) {
		if !seen[c.Prompt[i]] {
			return res, fmt.Errorf("prompt byte %q is not in the vocabulary", c.Prompt[i])
		}
		ctx = append(ctx, id[c.Prompt[i]])
	}
	out := []byte(c.Prompt)
	autograd.NoGrad(func() {
		for range c.Sample {
			w := ctx[max(0, len(ctx)-T):]
			logits := model.Forward(gt.FromInt64s(slices.Clone(w), 1, len(w)))
			last := logits.Select(1, len(w)-1).Softmax(-1)
			next := last.Multinomial(1).Int64s()[0]
			ctx = append(ctx, next)
			out = append(out, vocab[next])
		}
	})
	res.Sample = string(out)
	fmt.Fprintf(c.Log, "sample:\n%s\n", res.Sample)
	return res, nil
}
