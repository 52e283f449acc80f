package newdevice_test

import (
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/examples/newdevice"
)

// mlp is a two-layer perceptron with a softmax head: the forward pass of a
// small classifier.
func mlp(x, w1, b1, w2, b2 *gt.Tensor) *gt.Tensor {
	h := gt.Linear(x, w1, gt.WithBias(b1)).Relu()
	return gt.Linear(h, w2, gt.WithBias(b2)).Softmax(-1)
}

// TestMLPForward runs the same MLP on the CPU and on the gonum device.
func TestMLPForward(t *testing.T) {
	gt.ManualSeed(7)
	x := gt.Randn(8, 16)
	w1, b1 := gt.Randn(32, 16), gt.Randn(32)
	w2, b2 := gt.Randn(10, 32), gt.Randn(10)
	want := mlp(x, w1, b1, w2, b2)

	on := func(t *gt.Tensor) *gt.Tensor { return t.ToDevice(newdevice.Device) }
	got := mlp(on(x), on(w1), on(b1), on(w2), on(b2))
	if got.Device() != newdevice.Device {
		t.Fatalf("result on %s, want gonum", got.Device())
	}
	back := got.ToDevice(gt.CPU)
	if !gt.AllClose(back, want, 1e-5, 1e-6) {
		t.Errorf("MLP on gonum:\n%v\nwant (cpu):\n%v", back, want)
	}
	if s := got.Sum(nil).Item().Float64(); s < 7.999 || s > 8.001 {
		t.Errorf("softmax rows sum to %v, want 8", s)
	}
}

// TestDebugCompare runs the MLP with every op checked against the CPU.
func TestDebugCompare(t *testing.T) {
	var trace strings.Builder
	d := device.Debug(newdevice.Device, device.DebugOptions{CompareWithCPU: true, Trace: &trace})
	defer d.Close()
	gt.ManualSeed(1)
	on := func(t *gt.Tensor) *gt.Tensor { return t.ToDevice(newdevice.Device) }
	mlp(on(gt.Randn(4, 6)), on(gt.Randn(5, 6)), on(gt.Randn(5)), on(gt.Randn(3, 5)), on(gt.Randn(3)))
	if m := d.First(); m != nil {
		t.Errorf("the gonum device disagrees with the CPU: %v", m)
	}
	if d.Ops() == 0 || !strings.Contains(trace.String(), "[gonum] aten::addmm(f32[5], f32[4, 6], f32[6, 5]) -> f32[4, 5]") {
		t.Errorf("trace of %d ops lacks the first addmm:\n%s", d.Ops(), trace.String())
	}
}

// TestNoLowering: an op the device does not lower fails at call time.
func TestNoLowering(t *testing.T) {
	x := gt.FromFloat32s([]float32{1, 2, 3}).ToDevice(newdevice.Device)
	err := gt.Try(func() { gt.Call("aten::_fft_r2c", x, []int{0}, 0, true) })
	if err == nil || !strings.Contains(err.Error(), `aten::_fft_r2c has no lowering on device "gonum" and no decomposition`) {
		t.Errorf("got %v", err)
	}
}

// TestScalarTensor: a 0-d CPU tensor mixes with gonum tensors as a scalar;
// a CPU tensor with dims does not.
func TestScalarTensor(t *testing.T) {
	x := gt.FromFloat32s([]float32{1, 2, 3}).ToDevice(newdevice.Device)
	two := gt.FromFloat32s([]float32{2}, []int{}...)
	if got := x.Mul(two).ToDevice(gt.CPU).Float64s(); got[2] != 6 {
		t.Errorf("x * 0-d cpu tensor = %v", got)
	}
	err := gt.Try(func() { x.Mul(gt.FromFloat32s([]float32{1, 2, 3})) })
	if err == nil || !strings.Contains(err.Error(), "Expected all tensors to be on the same device, but found at least two devices") {
		t.Errorf("mixing devices: %v", err)
	}
}
