package nn_test

import (
	"fmt"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// A small classifier: construct it (the weights are PyTorch's for the same
// seed, so the output is what torch.manual_seed(0) and the same
// nn.Sequential print), run it in eval mode, and list its state dict and
// parameter count.
func Example() {
	gt.ManualSeed(0)
	model := nn.NewSequential(
		nn.NewLinear(4, 8),
		nn.NewReLU(),
		nn.NewDropout(nn.P(0.1)),
		nn.NewLinear(8, 3, nn.Bias(false)),
		nn.NewLogSoftmax(1),
	)
	fmt.Println(model)

	model.Eval()
	x := gt.FromFloat32s([]float32{0.5, -1, 2, 0, 1, 1, -0.5, 0.25}, 2, 4)
	y := model.Forward(x)
	fmt.Printf("%v %.4f\n", y.Sizes(), y.Float64s())

	sd := model.StateDict()
	for _, k := range sd.Keys {
		fmt.Println(k, sd.Tensors[k].Sizes())
	}
	n := 0
	for _, p := range model.Parameters() {
		n += p.Numel()
	}
	fmt.Println(n, "parameters")
	// Output:
	// Sequential(
	//   (0): Linear(in_features=4, out_features=8, bias=True)
	//   (1): ReLU()
	//   (2): Dropout(p=0.1, inplace=False)
	//   (3): Linear(in_features=8, out_features=3, bias=False)
	//   (4): LogSoftmax(dim=1)
	// )
	// [2 3] [-0.9759 -0.9614 -1.4237 -1.4214 -1.0371 -0.9060]
	// 0.weight [8 4]
	// 0.bias [8]
	// 3.weight [3 8]
	// 64 parameters
}

// Constructors take PyTorch's keyword arguments as options.
func ExampleNewConv2d() {
	gt.ManualSeed(0)
	conv := nn.NewConv2d(3, 16, 3, nn.Stride(2), nn.Padding(1), nn.Bias(false))
	fmt.Println(conv)
	fmt.Println(conv.Forward(gt.Zeros(1, 3, 32, 32)).Sizes())
	fmt.Println(gt.Try(func() { nn.NewConv2d(3, 16, 3, nn.Groups(2)) }))
	fmt.Println(gt.Try(func() { nn.NewLinear(3, 16, nn.Stride(2)) }))
	// Output:
	// Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)
	// [1 16 16 16]
	// in_channels must be divisible by groups
	// Linear.__init__() got an unexpected keyword argument 'stride'
}

// BatchNorm updates its running statistics in training and uses them in
// eval.
func ExampleBatchNorm1d() {
	bn := nn.NewBatchNorm1d(2, nn.Momentum(0.5))
	x := gt.FromFloat32s([]float32{1, 10, 3, 20}, 2, 2)
	fmt.Printf("%.3f\n", bn.Forward(x).Float64s())
	fmt.Println(bn.RunningMean.Float64s(), bn.RunningVar.Float64s(), bn.NumBatchesTracked.Item())
	bn.Eval()
	fmt.Printf("%.3f\n", bn.Forward(x).Float64s())
	// Output:
	// [-1.000 -1.000 1.000 1.000]
	// [1 7.5] [1.5 25.5] 1
	// [0.000 0.495 1.633 2.475]
}

// Losses name their reduction.
func ExampleCrossEntropyLoss() {
	logits := gt.FromFloat32s([]float32{2, 0, -1, 0, 3, 0}, 2, 3)
	target := gt.FromInt64s([]int64{0, 1}, 2)
	fmt.Printf("%.4f\n", nn.NewCrossEntropyLoss().Forward(logits, target).Item().Float64())
	fmt.Printf("%.4f\n", nn.NewCrossEntropyLoss(nn.Reduction("none"), nn.LabelSmoothing(0.1)).Forward(logits, target).Float64s())
	fmt.Println(gt.Try(func() { nn.NewCrossEntropyLoss(nn.Reduction("avg")) }))
	// Output:
	// 0.1324
	// [0.3365 0.2949]
	// avg is not a valid value for reduction
}

// nn.Transformer with PyTorch's initial weights for the seed: the output is
// what torch.manual_seed(0) and the same nn.Transformer give, in eval mode,
// with a causal target mask.
func ExampleNewTransformer() {
	gt.ManualSeed(0)
	m := nn.NewTransformer(nn.DModel(8), nn.NHead(2), nn.NumEncoderLayers(1), nn.NumDecoderLayers(1), nn.DimFeedforward(16))
	m.Eval()
	mask := nn.GenerateSquareSubsequentMask(3)
	fmt.Println(mask.Float64s())
	src := gt.ArangeEnd(32, gt.WithDtype(gt.Float32)).DivScalar(10).Sin().Reshape([]int{4, 1, 8})
	tgt := gt.ArangeEnd(24, gt.WithDtype(gt.Float32)).DivScalar(7).Cos().Reshape([]int{3, 1, 8})
	y := m.ForwardMasked(src, tgt, nn.TransformerMasks{TgtMask: mask})
	fmt.Println(y.Sizes())
	fmt.Printf("%.4f\n", y.Select(1, 0).Narrow(1, 0, 4).Float64s())
	n := 0
	for _, p := range m.Parameters() {
		n += p.Numel()
	}
	fmt.Println(len(m.Parameters()), "parameters,", n, "values")
	fmt.Println(m.StateDict().Tensors["decoder.layers.0.multihead_attn.in_proj_weight"].Sizes())
	// Output:
	// [0 -Inf -Inf 0 0 -Inf 0 0 0]
	// [3 1 8]
	// [0.1903 0.3294 1.4468 -2.2946 1.3877 0.6350 1.1995 -1.3027 1.1675 -0.0700 -0.3977 0.4906]
	// 34 parameters, 1536 values
	// [24 8]
}

// A two-layer bidirectional LSTM over a batch-first input: after the same
// seed its weights, and so its outputs, are PyTorch's (torch.manual_seed(0);
// nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)). The
// final states h_n and c_n come back as PyTorch returns them, and go back
// in to continue the sequence.
func ExampleLSTM() {
	gt.ManualSeed(0)
	lstm := nn.NewLSTM(3, 4, nn.NumLayers(2), nn.BatchFirst(true), nn.Bidirectional(true))
	fmt.Println(lstm)
	x := gt.Arange(0, 12, gt.WithDtype(gt.Float32)).Reshape([]int{2, 2, 3}).DivScalar(10) // (batch, seq, feature)
	out, h, c := lstm.Forward(x, nil, nil)
	fmt.Println(out.Sizes(), h.Sizes(), c.Sizes())
	fmt.Printf("%.4f\n", h.Select(0, 3).Float64s()) // last layer, reverse direction
	out, _, _ = lstm.Forward(x, h, c)
	fmt.Println(out.Sizes())
	fmt.Println(gt.Try(func() { lstm.Forward(gt.Zeros(2, 2, 5), nil, nil) }))
	// Output:
	// LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)
	// [2 2 8] [4 2 4] [4 2 4]
	// [0.0107 -0.1778 0.1073 0.1063 -0.0228 -0.1862 0.0926 0.0731]
	// [2 2 8]
	// input.size(-1) must be equal to input_size. Expected 3, got 5
}
