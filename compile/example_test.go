package compile_test

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

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
