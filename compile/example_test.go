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

// Tracing a function that writes into its input through a view,
// functionalized as PyTorch's make_fx(functionalize(f)) records it: the
// write becomes an out-of-place add, the view's inverse writes it back into
// the base, and a copy_ gives the input its final value.
func ExampleTrace_functionalize() {
	f := func(a *tensor.Tensor) *tensor.Tensor {
		a.Select(0, 1).Add_(tensor.WrappedNumber(tensor.Int(1)))
		return a.Mul(a)
	}
	x := tensor.FullOf(tensor.Float32, 1, 2, 2)
	for _, remove := range []string{"mutations", "mutations_and_views"} {
		gm, err := compile.Trace(f, []*tensor.Tensor{x}, compile.TraceOptions{ArgNames: []string{"a"}, Remove: remove})
		if err != nil {
			panic(err)
		}
		fmt.Println(strings.TrimSpace(gm.Code()))
	}
	// Output:
	// def forward(self, a_1):
	//     select = torch.ops.aten.select.int(a_1, 0, 1)
	//     add = torch.ops.aten.add.Tensor(select, 1);  select = None
	//     select_scatter = torch.ops.aten.select_scatter.default(a_1, add, 0, 1);  add = None
	//     mul = torch.ops.aten.mul.Tensor(select_scatter, select_scatter)
	//     copy_ = torch.ops.aten.copy_.default(a_1, select_scatter);  a_1 = select_scatter = None
	//     return mul
	// def forward(self, a_1):
	//     select_copy = torch.ops.aten.select_copy.int(a_1, 0, 1)
	//     add = torch.ops.aten.add.Tensor(select_copy, 1);  select_copy = None
	//     select_scatter = torch.ops.aten.select_scatter.default(a_1, add, 0, 1);  add = None
	//     mul = torch.ops.aten.mul.Tensor(select_scatter, select_scatter)
	//     copy_ = torch.ops.aten.copy_.default(a_1, select_scatter);  a_1 = select_scatter = None
	//     return mul
}
