package compile_test

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

// Compile a Go function: the first call traces it into a graph of ATen ops
// (printed as PyTorch prints gm.code), later calls with inputs that pass the
// graph's guards run the cached graph.
func Example() {
	gelu := func(x *tensor.Tensor) *tensor.Tensor {
		return x.Mul(x.Mul(num(0.7071067811865476)).Erf().Add(num(1))).Mul(num(0.5))
	}
	f := compile.Compile(gelu)
	x := tensor.FromSlice([]float32{-1, 0, 1, 2})
	y, _ := f.Call(x)
	fmt.Println(y.(*tensor.Tensor).Float64s())
	_, _ = f.Call(tensor.FromSlice([]float32{3, 4, 5, 6})) // same guards: cached
	_, _ = f.Call(tensor.FromSlice([]float64{3, 4}))       // float64, 2 elements: recompiled
	fmt.Println(strings.TrimSpace(f.Graphs()[0].Code()))
	fmt.Print(f.Explain())
	// Output:
	// [-0.15865525603294373 0 0.8413447141647339 1.9544997215270996]
	// def forward(self, arg0_1):
	//     mul = torch.ops.aten.mul.Tensor(arg0_1, 0.7071067811865476)
	//     erf = torch.ops.aten.erf.default(mul);  mul = None
	//     add = torch.ops.aten.add.Tensor(erf, 1);  erf = None
	//     mul_1 = torch.ops.aten.mul.Tensor(arg0_1, add);  arg0_1 = add = None
	//     mul_2 = torch.ops.aten.mul.Tensor(mul_1, 0.5);  mul_1 = None
	//     return mul_2
	// 2 graph(s) compiled, 3 call(s), 1 cache hit(s), 0 eager fallback(s)
	// recompile 1: tensor 'inputs[0]' dtype mismatch. expected Float, actual Double
}
