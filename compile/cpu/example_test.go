package cpu_test

import (
	"fmt"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// Compile a pointwise chain with the cpu backend: it runs as one tile
// program (Describe prints it), with the Eager backend's results.
func Example() {
	f := func(x, b *tensor.Tensor) *tensor.Tensor {
		return x.Add(b).MulScalar(2).Sigmoid().Mul(x)
	}
	x := tensor.FromSlice([]float32{-1, 0, 1, 2, 3, 4}, 2, 3)
	b := tensor.FromSlice([]float32{0.5, -0.5, 0})
	c := compile.Compile(f, compile.Options{Backend: cpu.Backend})
	y, err := c.Call(x, b)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", y.(*tensor.Tensor).Float64s())

	gm := c.Graphs()[0]
	plan, _ := cpu.Describe(gm, []*tensor.Tensor{x, b})
	fmt.Print(plan)
	// Output:
	// [-0.2689 0.0000 0.8808 1.9866 2.9799 3.9987]
	// group [2 3]: 6 rows of 1, 6 rows a tile, 0+0 registers: add mul sigmoid mul_1
	//   in0 arg0_1 [2 3] (in place)
	//   in1 arg1_1 [3] (gathered)
	//   out0 mul_1 [2 3] (result)
	//     out0 = gather in1
	//     out0 = add(in0, out0)
	//     out0 = mul(out0, s0)
	//     out0 = sigmoid(out0)
	//     out0 = mul(out0, in0)
}

// A graph whose nodes are not all pointwise: the matrix product runs
// through the dispatcher; the bias, the activation, the residual and the
// layer norm after it form one group (layer_norm's unused statistics are
// not kept).
func ExampleDescribe() {
	f := func(x, w, b *tensor.Tensor) *tensor.Tensor {
		h := x.Mm(w).Add(b).Relu()
		return tensor.LayerNorm(h.Add(x), []int{4})
	}
	x, w, b := tensor.FullOf(tensor.Float32, 1, 3, 4), tensor.FullOf(tensor.Float32, 1, 4, 4), tensor.FullOf(tensor.Float32, 1, 4)
	gm, err := compile.Trace(f, []*tensor.Tensor{x, w, b}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		panic(err)
	}
	plan, _ := cpu.Describe(gm, []*tensor.Tensor{x, w, b})
	fmt.Print(plan)
	// Output:
	// call %mm : [#users=1] = call_function[target=torch.ops.aten.mm.default](args = (%arg0_1, %arg1_1), kwargs = {}) (into a planned result, header kept)
	// group [3 4]: 3 rows of 4, 3 rows a tile, 0+0 registers: add relu add_1 native_layer_norm getitem
	//   in0 mm [3 4] (in place)
	//   in1 arg2_1 [4] (gathered)
	//   in2 arg0_1 [3 4] (in place)
	//   out0 getitem [3 4] (result)
	//     out0 = gather in1
	//     out0 = add(in0, out0)
	//     out0 = relu(out0)
	//     out0 = add(out0, in2)
	//     out0, rscratch, rscratch = layer_norm(out0, in-1, in-1) per row
}
