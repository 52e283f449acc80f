package nn_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/safetensors"
)

func keys(m interface{ StateDict() *nn.StateDict }) string {
	return strings.Join(m.StateDict().Keys, " ")
}

func TestContainers(t *testing.T) {
	s := nn.NewSequential(nn.NewLinear(2, 3), nn.NewReLU())
	s.Append(nn.NewLinear(3, 1))
	s.Insert(1, nn.NewBatchNorm1d(3))
	if got := keys(s); got != "0.weight 0.bias 1.weight 1.bias 1.running_mean 1.running_var 1.num_batches_tracked 3.weight 3.bias" {
		t.Errorf("Sequential keys %s", got)
	}
	if _, ok := s.At(-1).(*nn.Linear); !ok || s.Len() != 4 {
		t.Errorf("At(-1) is %T, Len %d", s.At(-1), s.Len())
	}
	if y := s.Forward(gt.Randn([]int{5, 2})); fmt.Sprint(y.Sizes()) != "[5 1]" {
		t.Errorf("Sequential output %v", y.Sizes())
	}

	l := nn.NewModuleList(nn.NewLinear(1, 1), nn.NewLinear(1, 2))
	l.Insert(0, nn.NewLinear(1, 3))
	if got := keys(l); got != "0.weight 0.bias 1.weight 1.bias 2.weight 2.bias" {
		t.Errorf("ModuleList keys %s", got)
	}
	if l.Pop(0).(*nn.Linear).OutFeatures != 3 || l.At(1).(*nn.Linear).OutFeatures != 2 || l.Len() != 2 {
		t.Error("ModuleList Pop/At")
	}
	if err := gt.Try(func() { l.At(2) }); err == nil || err.Error() != "index 2 is out of range" {
		t.Errorf("At(2): %v", err)
	}

	d := nn.NewModuleDict()
	d.Set("enc", nn.NewLinear(2, 2)).Set("act", nn.NewTanh()).Set("dec", nn.NewLinear(2, 1, nn.Bias(false)))
	d.Set("enc", nn.NewLinear(2, 4)) // replaces in place
	if got := keys(d); got != "enc.weight enc.bias dec.weight" || strings.Join(d.Keys(), " ") != "enc act dec" {
		t.Errorf("ModuleDict keys %s / %v", got, d.Keys())
	}
	if m, ok := d.Get("enc"); !ok || m.(*nn.Linear).OutFeatures != 4 {
		t.Error("ModuleDict Set did not replace")
	}
	d.Pop("act")
	if d.Len() != 2 {
		t.Errorf("Len %d after Pop", d.Len())
	}
	want := "ModuleDict(\n  (enc): Linear(in_features=2, out_features=4, bias=True)\n  (dec): Linear(in_features=2, out_features=1, bias=False)\n)"
	if got := d.String(); got != want {
		t.Errorf("repr\n%s\nwant\n%s", got, want)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { nn.NewMaxPool2d(2, nn.Bias(false)) }, "MaxPool2d.__init__() got an unexpected keyword argument 'bias'"},
		{func() { nn.NewReLU(nn.P(0.5)) }, "ReLU.__init__() got an unexpected keyword argument 'p'"},
		{func() { nn.NewLinear(2, 2, nn.Kw("bias", 1)) }, "Linear.__init__(): argument 'bias' must be bool, not int"},
		{func() { nn.NewConv2d(2, 2, []int{3, 3, 3}) }, "Conv2d.__init__(): kernel_size must be an int or a tuple of 2 ints, got 3 values"},
		{func() { nn.NewConv2d(2, 2, 3, nn.PaddingMode("mirror")) }, "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='mirror'"},
		{func() { nn.NewEmbedding(5, 2, nn.PaddingIdx(5)) }, "Padding_idx must be within num_embeddings"},
		{func() { nn.NewKLDivLoss(nn.Reduction("batchmean")); nn.NewMSELoss(nn.Reduction("batchmean")) }, "batchmean is not a valid value for reduction"},
	} {
		err := gt.Try(c.f)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

// TestDeviceOption: layers made with nn.Device hold their parameters on
// that device, with the values initialised on the CPU.
func TestDeviceOption(t *testing.T) {
	dev, ok := gt.LookupDevice("gonum")
	if !ok {
		t.Fatal("the gonum device is not registered (module_test.go imports examples/newdevice for it)")
	}
	gt.ManualSeed(3)
	cpu := nn.NewConv2d(2, 3, 3, nn.Padding(1))
	gt.ManualSeed(3)
	on := nn.NewConv2d(2, 3, 3, nn.Padding(1), nn.Device(dev))
	if on.Weight.Device() != dev || !on.Weight.RequiresGrad() {
		t.Fatalf("weight on %s", on.Weight.Device())
	}
	if fmt.Sprint(on.Weight.Float64s()) != fmt.Sprint(cpu.Weight.Float64s()) {
		t.Error("values differ from the CPU layer's")
	}
	bn := nn.NewBatchNorm2d(3, nn.Device(dev))
	if bn.RunningMean.Device() != dev || bn.NumBatchesTracked.Device() != dev {
		t.Error("buffers not moved")
	}
}

// TestLoadPyTorchState loads the state PyTorch recorded after training
// into a layer built from another seed: the eval outputs are then
// PyTorch's.
func TestLoadPyTorchState(t *testing.T) {
	f, err := safetensors.Load(filepath.Join("..", "testdata", "nn", "container.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	sd := map[string]*gt.Tensor{}
	for k, v := range f.Tensors {
		if rest, ok := strings.CutPrefix(k, "sequential_cnn/eval/state/"); ok {
			sd[rest] = v
		}
	}
	gt.ManualSeed(12345)
	m := torchCases["sequential_cnn"].build().(*nn.Sequential)
	if err := m.LoadStateDict(sd, true); err != nil {
		t.Fatal(err)
	}
	m.Eval()
	ok, _, msg := compare(m.Forward(f.Tensors["sequential_cnn/input/0"]).Detach(), f.Tensors["sequential_cnn/eval/output"], f32)
	if !ok {
		t.Error(msg)
	}
}

func TestInplaceAndIndices(t *testing.T) {
	x := gt.FromFloat32s([]float32{-1, 2, -3, 4}, 1, 1, 2, 2)
	if y := nn.NewReLU(nn.Inplace(true)).Forward(x); y != x || fmt.Sprint(x.Float64s()) != "[0 2 0 4]" {
		t.Errorf("inplace ReLU: %v", x.Float64s())
	}
	out, idx := nn.NewMaxPool2d(2).ForwardWithIndices(gt.FromFloat32s([]float32{1, 5, 3, 2}, 1, 1, 2, 2))
	if fmt.Sprint(out.Float64s(), idx.Int64s()) != "[5] [1]" {
		t.Errorf("ForwardWithIndices: %v %v", out.Float64s(), idx.Int64s())
	}
	e := nn.NewEmbeddingFromPretrained(gt.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2), true)
	if e.Weight.RequiresGrad() || fmt.Sprint(e.Forward(gt.FromInt64s([]int64{1}, 1)).Float64s()) != "[3 4]" {
		t.Error("from_pretrained")
	}
}
