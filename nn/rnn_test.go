package nn_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// TestRNNLayersAreCellsUnrolled: a one-layer bidirectional RNN, LSTM or
// GRU gives, in each direction, what its cell gives stepped over the
// sequence (the reverse direction from the end) with the same weights.
func TestRNNLayersAreCellsUnrolled(t *testing.T) {
	gt.ManualSeed(7)
	x := gt.Randn([]int{5, 2, 3})
	h0 := gt.Randn([]int{2, 2, 4})
	c0 := gt.Randn([]int{2, 2, 4})
	type stepper func(x, h, c *gt.Tensor) (*gt.Tensor, *gt.Tensor)
	for _, tc := range []struct {
		name  string
		layer func() (out, hn, cn *gt.Tensor, w []nn.RNNWeights)
		cell  func(w nn.RNNWeights) stepper
	}{
		{"rnn_relu", func() (*gt.Tensor, *gt.Tensor, *gt.Tensor, []nn.RNNWeights) {
			m := nn.NewRNN(3, 4, nn.Bidirectional(true), nn.Nonlinearity("relu"))
			out, hn := m.Forward(x, h0)
			return out, hn, nil, m.Weights
		}, func(w nn.RNNWeights) stepper {
			c := nn.NewRNNCell(3, 4, nn.Nonlinearity("relu"))
			c.WeightIH, c.WeightHH, c.BiasIH, c.BiasHH = w.WeightIH, w.WeightHH, w.BiasIH, w.BiasHH
			return func(x, h, _ *gt.Tensor) (*gt.Tensor, *gt.Tensor) { return c.Forward(x, h), nil }
		}},
		{"lstm", func() (*gt.Tensor, *gt.Tensor, *gt.Tensor, []nn.RNNWeights) {
			m := nn.NewLSTM(3, 4, nn.Bidirectional(true))
			out, hn, cn := m.Forward(x, h0, c0)
			return out, hn, cn, m.Weights
		}, func(w nn.RNNWeights) stepper {
			c := nn.NewLSTMCell(3, 4)
			c.WeightIH, c.WeightHH, c.BiasIH, c.BiasHH = w.WeightIH, w.WeightHH, w.BiasIH, w.BiasHH
			return c.Forward
		}},
		{"gru_nobias", func() (*gt.Tensor, *gt.Tensor, *gt.Tensor, []nn.RNNWeights) {
			m := nn.NewGRU(3, 4, nn.Bidirectional(true), nn.Bias(false))
			out, hn := m.Forward(x, h0)
			return out, hn, nil, m.Weights
		}, func(w nn.RNNWeights) stepper {
			c := nn.NewGRUCell(3, 4, nn.Bias(false))
			c.WeightIH, c.WeightHH = w.WeightIH, w.WeightHH
			return func(x, h, _ *gt.Tensor) (*gt.Tensor, *gt.Tensor) { return c.Forward(x, h), nil }
		}},
	} {
		out, hn, cn, ws := tc.layer()
		if fmt.Sprint(out.Sizes(), hn.Sizes()) != "[5 2 8] [2 2 4]" {
			t.Fatalf("%s: sizes %v %v", tc.name, out.Sizes(), hn.Sizes())
		}
		for dir := 0; dir < 2; dir++ {
			step := tc.cell(ws[dir])
			h, c := h0.Select(0, dir), c0.Select(0, dir)
			for i := 0; i < 5; i++ {
				ti := i
				if dir == 1 {
					ti = 4 - i
				}
				h, c = step(x.Select(0, ti), h, c)
				want := out.Select(0, ti).Narrow(1, 4*dir, 4)
				if ok, _, msg := compare(h.Detach(), want.Detach(), f32); !ok {
					t.Errorf("%s: direction %d step %d: %s", tc.name, dir, ti, msg)
				}
			}
			if ok, _, msg := compare(h.Detach(), hn.Select(0, dir).Detach(), f32); !ok {
				t.Errorf("%s: direction %d final h: %s", tc.name, dir, msg)
			}
			if cn != nil {
				if ok, _, msg := compare(c.Detach(), cn.Select(0, dir).Detach(), f32); !ok {
					t.Errorf("%s: direction %d final c: %s", tc.name, dir, msg)
				}
			}
		}
	}
}

// TestRNNCellInputDims: PyTorch asserts a cell's input is 1-D or 2-D (an
// AssertionError, here a ValueError with its message).
func TestRNNCellInputDims(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { nn.NewRNNCell(3, 4).Forward(gt.Randn([]int{2, 2, 3}), nil) }, "RNNCell: Expected input to be 1-D or 2-D but received 3-D tensor"},
		{func() { nn.NewLSTMCell(3, 4).Forward(gt.Randn([]int{}), nil, nil) }, "LSTMCell: Expected input to be 1-D or 2-D but received 0-D tensor"},
		{func() { nn.NewGRUCell(3, 4).Forward(gt.Randn([]int{1, 1, 1, 3}), nil) }, "GRUCell: Expected input to be 1-D or 2-D but received 4-D tensor"},
	} {
		err := gt.Try(c.f)
		var te *gt.Error
		if !errors.As(err, &te) || te.Kind != tensor.ValueError || te.Msg != c.want {
			t.Errorf("got %v, want ValueError: %s", err, c.want)
		}
	}
	for _, f := range []func(){
		func() { nn.NewLSTM(3, 4).Forward(gt.Randn([]int{2, 1, 3}), gt.Zeros(1, 1, 4), nil) },
		func() { nn.NewLSTMCell(3, 4).Forward(gt.Randn([]int{1, 3}), nil, gt.Zeros(1, 4)) },
	} {
		if err := gt.Try(f); err == nil || !strings.Contains(err.Error(), "must both be given or both be nil") {
			t.Errorf("one LSTM state given: %v", err)
		}
	}
}

// TestRNNStructure: parameter names, AllWeights, shapes and the
// dropout-free eval mode.
func TestRNNStructure(t *testing.T) {
	gt.ManualSeed(1)
	m := nn.NewLSTM(3, 6, nn.NumLayers(2), nn.ProjSize(2), nn.Bidirectional(true), nn.Bias(false), nn.DropoutP(1))
	if got := keys(m); got != "weight_ih_l0 weight_hh_l0 weight_hr_l0 weight_ih_l0_reverse weight_hh_l0_reverse weight_hr_l0_reverse "+
		"weight_ih_l1 weight_hh_l1 weight_hr_l1 weight_ih_l1_reverse weight_hh_l1_reverse weight_hr_l1_reverse" {
		t.Errorf("keys %s", got)
	}
	aw := m.AllWeights()
	if len(aw) != 4 || len(aw[3]) != 3 || aw[3][2] != m.Weights[3].WeightHR {
		t.Errorf("AllWeights: %d lists", len(aw))
	}
	if fmt.Sprint(m.Weights[2].WeightIH.Sizes(), m.Weights[2].WeightHH.Sizes(), m.Weights[2].WeightHR.Sizes()) != "[24 4] [24 2] [2 6]" {
		t.Errorf("layer 1 sizes %v %v %v", m.Weights[2].WeightIH.Sizes(), m.Weights[2].WeightHH.Sizes(), m.Weights[2].WeightHR.Sizes())
	}
	x := gt.Randn([]int{4, 3})
	// dropout=1 zeroes the first layer's outputs in training: the second
	// layer then sees only zeros.
	out, hn, cn := m.Forward(x, nil, nil)
	if fmt.Sprint(out.Sizes(), hn.Sizes(), cn.Sizes()) != "[4 4] [4 2] [4 6]" {
		t.Fatalf("unbatched sizes %v %v %v", out.Sizes(), hn.Sizes(), cn.Sizes())
	}
	zeroIn, _, _ := m.Forward(gt.Zeros(4, 3), nil, nil)
	if ok, _, msg := compare(out.Detach(), zeroIn.Detach(), exact); !ok {
		t.Errorf("training with dropout=1: %s", msg)
	}
	m.Eval()
	var e1, e2 *gt.Tensor
	autograd.NoGrad(func() {
		e1, _, _ = m.Forward(x, nil, nil)
		e2, _, _ = m.Forward(x, nil, nil)
	})
	if ok, _, _ := compare(e1, zeroIn.Detach(), exact); ok {
		t.Error("eval applied dropout")
	}
	if ok, _, msg := compare(e1, e2, exact); !ok {
		t.Errorf("eval not deterministic: %s", msg)
	}
}

// TestRNNDevice: a GRU made with nn.Device runs on that device and gives
// the CPU's results.
func TestRNNDevice(t *testing.T) {
	dev, ok := gt.LookupDevice("gonum")
	if !ok {
		t.Fatal("the gonum device is not registered (module_test.go imports examples/newdevice for it)")
	}
	gt.ManualSeed(5)
	cpu := nn.NewGRU(3, 4, nn.NumLayers(2), nn.BatchFirst(true))
	gt.ManualSeed(5)
	on := nn.NewGRU(3, 4, nn.NumLayers(2), nn.BatchFirst(true), nn.Device(dev))
	if on.Weights[1].BiasHH.Device() != dev {
		t.Fatalf("parameters on %s", on.Weights[1].BiasHH.Device())
	}
	x := gt.Randn([]int{2, 5, 3})
	want, wantH := cpu.Forward(x, nil)
	got, gotH := on.Forward(x.ToDevice(dev), nil)
	if got.Device() != dev {
		t.Fatalf("output on %s", got.Device())
	}
	for _, p := range [][2]*gt.Tensor{{got, want}, {gotH, wantH}} {
		if ok, _, msg := compare(p[0].Detach().ToDevice(gt.CPU), p[1].Detach(), f32); !ok {
			t.Error(msg)
		}
	}
}

// TestRNNSizeChecks: hidden_size and num_layers below 1 are PyTorch 2's
// ValueErrors (PyTorch 1.13 fails later, with other messages); options
// the class does not take are PyTorch's TypeErrors.
func TestRNNSizeChecks(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { nn.NewGRU(3, 0) }, "hidden_size must be greater than zero"},
		{func() { nn.NewLSTM(3, 4, nn.NumLayers(0)) }, "num_layers must be greater than zero"},
		{func() { nn.NewRNN(3, 4, nn.Kw("num_layers", 1.5)) }, "RNNBase.__init__(): argument 'num_layers' must be int, not float64"},
		{func() { nn.NewGRUCell(3, 4, nn.NumLayers(2)) }, "GRUCell.__init__() got an unexpected keyword argument 'num_layers'"},
	} {
		if err := gt.Try(c.f); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
	if m := nn.NewRNN(3, 4, nn.Nonlinearity("relu")); m.Mode != "RNN_RELU" || m.Nonlinearity != "relu" || nn.Repr(m) != "RNN(3, 4)" {
		t.Errorf("RNN relu: mode %s, nonlinearity %s, repr %s", m.Mode, m.Nonlinearity, nn.Repr(m))
	}
}
