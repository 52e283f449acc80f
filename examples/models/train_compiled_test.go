package models_test

import (
	"fmt"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/optim"
)

// trainCase is one of the public models set up for training: its module,
// the function of the input that returns the loss (forward and loss, the
// part that is compiled), and the input.
type trainCase struct {
	m    nn.Module
	loss func(x *gt.Tensor) *gt.Tensor
	x    *gt.Tensor
}

// trainCases build the four models of testdata/models, in training mode,
// from their stored weights. The CNN's labels and the encoder layer's
// regression target are fixed tensors of the test (PyTorch's records have
// none); the encoder layer's dropout is 0 (the recorded layer's), so no
// random numbers are drawn.
var trainCases = []struct {
	name  string
	build func(t *testing.T) trainCase
}{
	{"mlp", func(t *testing.T) trainCase {
		m, err := models.NewMLP(load(t, "mlp", "weights"))
		if err != nil {
			t.Fatal(err)
		}
		in := load(t, "mlp", "inputs")
		return trainCase{m, func(x *gt.Tensor) *gt.Tensor { return models.Loss(m.Forward(x), in["labels"]) }, in["x"]}
	}},
	{"cnn", func(t *testing.T) trainCase {
		m, err := models.NewCNN(load(t, "cnn", "weights"))
		if err != nil {
			t.Fatal(err)
		}
		labels := gt.FromInt64s([]int64{3, 7}, 2)
		return trainCase{m, func(x *gt.Tensor) *gt.Tensor { return models.Loss(m.Forward(x), labels) }, load(t, "cnn", "inputs")["x"]}
	}},
	{"transformer_encoder_layer", func(t *testing.T) trainCase {
		m, err := models.NewEncoderLayer(load(t, "transformer_encoder_layer", "weights"), 64, 4, 128)
		if err != nil {
			t.Fatal(err)
		}
		m.Train()
		x := load(t, "transformer_encoder_layer", "inputs")["x"]
		target := x.Flip([]int{1}) // each sequence reversed
		return trainCase{m, func(x *gt.Tensor) *gt.Tensor { return m.Forward(x).MseLoss(target) }, x}
	}},
	{"gpt_decoder", func(t *testing.T) trainCase {
		cfg := models.GPTConfig{Vocab: 97, Block: 32, Layers: 2, Heads: 4, D: 64, Hidden: 256}
		m, err := models.NewGPT(load(t, "gpt_decoder", "weights"), cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := load(t, "gpt_decoder", "inputs")
		return trainCase{m, func(tok *gt.Tensor) *gt.Tensor { return models.GPTLoss(m.Forward(tok), in["targets"]) }, in["tokens"]}
	}},
	// The encoder layer with dropout 0.1: the compiled forward graph draws
	// its masks from the default generator in eager's order (tracing, in
	// fake mode, draws nothing), so the same seed gives the same masks.
	{"transformer_encoder_layer_dropout", func(t *testing.T) trainCase {
		l := nn.NewTransformerEncoderLayer(64, 4, nn.DimFeedforward(128), nn.DropoutP(0.1), nn.BatchFirst(true))
		if err := l.LoadStateDict(load(t, "transformer_encoder_layer", "weights"), true); err != nil {
			t.Fatal(err)
		}
		x := load(t, "transformer_encoder_layer", "inputs")["x"]
		target := x.Flip([]int{1})
		gt.ManualSeed(1)
		return trainCase{l, func(x *gt.Tensor) *gt.Tensor { return l.Forward(x).MseLoss(target) }, x}
	}},
	// The CNN with a BatchNorm2d after each convolution, in training mode:
	// the running statistics are buffers the compiled forward updates in
	// place, as eager does (PyTorch's buffer mutations).
	{"cnn_batchnorm", func(t *testing.T) trainCase {
		gt.ManualSeed(0)
		m := &bnCNN{}
		m.Conv1 = nn.Register(m, "conv1", nn.NewConv2d(1, 8, 3, nn.Padding(1), nn.Bias(false)))
		m.BN1 = nn.Register(m, "bn1", nn.NewBatchNorm2d(8))
		m.Conv2 = nn.Register(m, "conv2", nn.NewConv2d(8, 16, 3, nn.Padding(1), nn.Bias(false)))
		m.BN2 = nn.Register(m, "bn2", nn.NewBatchNorm2d(16))
		m.FC = nn.Register(m, "fc", nn.NewLinear(16, 10))
		labels := gt.FromInt64s([]int64{3, 7}, 2)
		return trainCase{m, func(x *gt.Tensor) *gt.Tensor { return models.Loss(m.Forward(x), labels) }, load(t, "cnn", "inputs")["x"]}
	}},
}

// bnCNN is the CNN with batch normalisation: conv, BatchNorm2d, ReLU,
// maxpool 2, conv, BatchNorm2d, ReLU, global average pool, Linear. The
// convolutions have no bias (the normalisation removes it: its gradient is
// zero).
type bnCNN struct {
	nn.Base
	Conv1, Conv2 *nn.Conv2d
	BN1, BN2     *nn.BatchNorm2d
	FC           *nn.Linear
}

func (m *bnCNN) Forward(x *gt.Tensor) *gt.Tensor {
	x = m.BN1.Forward(m.Conv1.Forward(x)).Relu().MaxPool2d([]int{2, 2}, gt.WithStride([]int{2, 2}))
	x = m.BN2.Forward(m.Conv2.Forward(x)).Relu()
	return m.FC.Forward(x.AdaptiveAvgPool2d([]int{1, 1}).Flatten(gt.WithStartDim(1)))
}

// A compiled training step of each public model — the forward and the
// loss compiled (Fullgraph: one AOT autograd graph, traced once), Backward
// running its backward graph, torch.optim.SGD(lr=0.1, momentum=0.9)
// stepping eagerly — gives the eager parameters and buffers after 5 steps
// bit for bit (tolerance 0), with each backend. No tolerance is needed
// because no sum is reordered: the joint graph records the kernels eager
// autograd runs, in its order — a gradient gathered from several uses, such
// as the GPT's tied wte.weight, is added in the engine's order — and the
// Eager backend runs each node's kernel as an eager call would, while
// compile/cpu fuses a node only where its tile program calls the kernel
// device/cpu calls, on the same values in the same order (its package
// doc), and runs matrix products and convolutions through the dispatcher.
func TestCompiledTrainingModels(t *testing.T) {
	for _, b := range backends {
		for _, c := range trainCases {
			t.Run(c.name+"/"+b.name, func(t *testing.T) {
				eager := trainSteps(t, c.build(t), nil)
				comp := trainSteps(t, c.build(t), b.b)
				if len(eager) == 0 {
					t.Fatal("no state to compare")
				}
				for name, p := range eager {
					same(t, name, comp[name], p)
				}
			})
		}
	}
}

// trainSteps runs 5 SGD steps of c, the loss compiled with backend when
// it is non-nil, and returns the parameters and buffers by name. The
// compiled function is traced once and served from its cache afterwards;
// every parameter moves.
func trainSteps(t *testing.T, c trainCase, backend compile.Backend) map[string]*gt.Tensor {
	t.Helper()
	params := c.m.(interface{ NamedParameters() []nn.Named }).NamedParameters()
	var ps []*gt.Tensor
	for _, p := range params {
		ps = append(ps, p.Tensor)
	}
	opt, err := optim.NewSGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9))
	if err != nil {
		t.Fatal(err)
	}
	loss := c.loss
	var cc *compile.Compiled
	if backend != nil {
		cc = compile.Compile(c.loss, compile.Options{Fullgraph: true, Backend: backend})
		loss = func(x *gt.Tensor) *gt.Tensor {
			res, err := cc.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			return res.(*gt.Tensor)
		}
	}
	initial := map[string]*gt.Tensor{}
	for _, p := range params {
		initial[p.Name] = p.Tensor.Clone()
	}
	for range 5 {
		opt.ZeroGrad()
		l := loss(c.x)
		if !l.RequiresGrad() {
			t.Fatal("the loss does not require grad")
		}
		l.Backward()
		opt.Step()
	}
	out := map[string]*gt.Tensor{}
	for _, p := range params {
		if gt.AllClose(p.Tensor, initial[p.Name], 0, 0) {
			t.Errorf("%s did not change in 5 steps", p.Name)
		}
		out[p.Name] = p.Tensor
	}
	for _, b := range c.m.(interface{ NamedBuffers() []nn.Named }).NamedBuffers() {
		out["buffer."+b.Name] = b.Tensor
	}
	if cc != nil {
		if s := cc.Stats(); s.Frames != 1 || s.Hits != 4 || len(cc.Joints()) != 1 || cc.Joints()[0] == nil {
			t.Errorf("compiled: %d graph(s), %d cache hit(s), joints %v: want one training graph served 4 times from the cache", s.Frames, s.Hits, cc.Joints())
		}
	}
	return out
}

// optimizers are the two the whole-step test trains with: SGD with
// momentum (a momentum_buffer per parameter) and Adam (exp_avg, exp_avg_sq
// and a step count).
var optimizers = []struct {
	name string
	make func(ps []*gt.Tensor) (optim.Optimizer, error)
}{
	{"sgd_momentum", func(ps []*gt.Tensor) (optim.Optimizer, error) {
		return optim.NewSGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9))
	}},
	{"adam", func(ps []*gt.Tensor) (optim.Optimizer, error) { return optim.NewAdam(ps, optim.WithLR(1e-3)) }},
}

// A whole training step compiled — one Go function doing the forward, the
// loss, loss.Backward(), opt.Step() and opt.ZeroGrad() (first, last, or
// first with set_to_none=False: the gradients zeroed in place and
// accumulated into), returning the loss — gives after 5 steps the eager losses, parameters,
// buffers, gradients and optimizer state (SGD's momentum buffers; Adam's
// exp_avg, exp_avg_sq and step count) bit for bit, each of them a real
// tensor, with each backend. The Backward is a graph break (as in
// PyTorch's Dynamo), so the function runs in segments: its Go code runs on
// every call, the backward is traced into the call's graph (the kernels
// eager autograd runs, in its order, under no_grad), the optimizer's
// in-place updates are recorded under no_grad, and the tensors the graph
// computes become real when it runs. Same kernels on the same values in
// the same order: tolerance 0.
func TestCompiledWholeTrainingStep(t *testing.T) {
	for _, b := range backends {
		for _, o := range optimizers {
			for _, order := range []string{"zero_grad_first", "zero_grad_last", "zero_grad_keep"} {
				for _, c := range trainCases {
					t.Run(c.name+"/"+o.name+"/"+order+"/"+b.name, func(t *testing.T) {
						eager := wholeSteps(t, c.build(t), o.make, order, nil)
						comp := wholeSteps(t, c.build(t), o.make, order, b.b)
						if len(eager) == 0 {
							t.Fatal("no state to compare")
						}
						for name, p := range eager {
							if comp[name] == nil {
								t.Fatalf("%s: missing in the compiled run", name)
							}
							same(t, name, comp[name], p)
						}
					})
				}
			}
		}
	}
}

// With Fullgraph the whole step is PyTorch's graph-break error at
// loss.backward(), and the refused call leaves the parameters, their
// gradients and the optimizer state as they were.
func TestCompiledWholeTrainingStepFullgraph(t *testing.T) {
	c := trainCases[0].build(t)
	params := c.m.(interface{ NamedParameters() []nn.Named }).NamedParameters()
	var ps, before []*gt.Tensor
	for _, p := range params {
		ps = append(ps, p.Tensor)
		before = append(before, p.Tensor.Clone())
	}
	opt, err := optim.NewSGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9))
	if err != nil {
		t.Fatal(err)
	}
	step := func(x *gt.Tensor) *gt.Tensor {
		l := c.loss(x)
		l.Backward()
		opt.Step()
		opt.ZeroGrad()
		return l
	}
	_, err = compile.Compile(step, compile.Options{Fullgraph: true}).Call(c.x)
	want := "Unsupported Tensor.backward() call\n  Explanation: "
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error with %q", err, want)
	}
	for i, p := range params {
		same(t, p.Name, p.Tensor, before[i])
		if p.Tensor.Grad() != nil || opt.State(p.Tensor) != nil {
			t.Errorf("%s: .grad %v, state %v after the refused call", p.Name, p.Tensor.Grad(), opt.State(p.Tensor))
		}
	}
}

// wholeSteps runs 5 training steps of c with the optimizer newOpt makes,
// the whole step compiled with backend when it is non-nil, and returns by
// name the losses, parameters, buffers, gradients (zero_grad_last: checked
// nil instead) and optimizer state tensors and step counts (as tensors).
func wholeSteps(t *testing.T, c trainCase, newOpt func([]*gt.Tensor) (optim.Optimizer, error), order string, backend compile.Backend) map[string]*gt.Tensor {
	t.Helper()
	params := c.m.(interface{ NamedParameters() []nn.Named }).NamedParameters()
	var ps []*gt.Tensor
	for _, p := range params {
		ps = append(ps, p.Tensor)
	}
	opt, err := newOpt(ps)
	if err != nil {
		t.Fatal(err)
	}
	zeroLast := order == "zero_grad_last"
	step := func(x *gt.Tensor) *gt.Tensor {
		switch order {
		case "zero_grad_first":
			opt.ZeroGrad()
		case "zero_grad_keep":
			opt.ZeroGrad(optim.WithSetToNone(false))
		}
		l := c.loss(x)
		l.Backward()
		opt.Step()
		if zeroLast {
			opt.ZeroGrad()
		}
		return l
	}
	var cc *compile.Compiled
	if backend != nil {
		cc = compile.Compile(step, compile.Options{Backend: backend, Logf: t.Logf})
		step = func(x *gt.Tensor) *gt.Tensor {
			res, err := cc.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			return res.(*gt.Tensor)
		}
	}
	out := map[string]*gt.Tensor{}
	for i := range 5 {
		out[fmt.Sprint("loss", i)] = step(c.x).Detach()
	}
	for _, p := range params {
		out[p.Name] = p.Tensor
		switch g := p.Tensor.Grad(); {
		case zeroLast && g != nil:
			t.Errorf("%s has a .grad after ZeroGrad", p.Name)
		case !zeroLast && g == nil:
			t.Fatalf("%s has no .grad after the step", p.Name)
		case !zeroLast:
			out["grad."+p.Name] = g
		}
		s := opt.State(p.Tensor)
		if s == nil {
			t.Fatalf("%s has no optimizer state", p.Name)
		}
		for k, v := range s.Tensors {
			out["state."+p.Name+"."+k] = v
		}
		out["state."+p.Name+".step"] = gt.FromFloat64s([]float64{float64(s.Step)}, 1)
	}
	for _, b := range c.m.(interface{ NamedBuffers() []nn.Named }).NamedBuffers() {
		out["buffer."+b.Name] = b.Tensor
	}
	if cc != nil {
		if s := cc.Stats(); s.Eager != 0 || s.Frames != 0 || s.Segments+s.SegmentHits != 5 {
			t.Errorf("stats %+v: want the 5 calls run in segments (one graph each), none eagerly", s)
		}
	}
	return out
}
