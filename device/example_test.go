package device_test

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/tensor"
)

// A device whose raw data is a []float64 of the values, with two lowerings.
// Everything else it is asked to run fails with "no lowering", or runs
// through the framework: constructors on the CPU, views through as_strided,
// non-core ops through their decompositions.
func Example() {
	dev := device.Register(device.Backend{
		Name:    "doubles",
		FromCPU: func(t *tensor.Tensor) any { return t.Float64s() },
		ToCPU: func(raw any, t *tensor.Tensor) *tensor.Tensor {
			return tensor.FromSlice(raw.([]float64), append([]int{}, t.Sizes()...)...).To(t.DType())
		},
		Lowerings: map[string]device.Lowering{
			"aten::exp.default": func(c *device.Call) any {
				x := c.Raw(0).([]float64)
				out := make([]float64, len(x))
				for i, v := range x {
					out[i] = math.Exp(v)
				}
				return out
			},
			"aten::mul.Tensor": func(c *device.Call) any { // same shapes or a scalar
				a, b := c.Raw(0).([]float64), c.Raw(1).([]float64)
				out := make([]float64, c.Out[0].Numel())
				for i := range out {
					out[i] = a[i%len(a)] * b[i%len(b)]
				}
				return out
			},
		},
	})
	x := tensor.FromSlice([]float64{0, 1, 2}).ToDevice(dev)
	y := tensor.Call("aten::mul.Tensor", x.Exp(), 2.0).(*tensor.Tensor)
	fmt.Println(y)
	fmt.Println(y.ToDevice(tensor.CPU).Device())
	fmt.Println(tensor.Try(func() { x.Sin() }))
	// Output:
	// tensor([ 2.0000,  5.4366, 14.7781], device='doubles', dtype=torch.float64)
	// cpu
	// aten::sin has no lowering on device "doubles" and no decomposition
}
