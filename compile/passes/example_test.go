package passes_test

import (
	"fmt"
	"strings"

	_ "github.com/goaten/goaten" // the core ops and the CPU device
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/passes"
	"github.com/goaten/goaten/tensor"
)

// The three passes in a row on (x * 2).relu() + (x * 2).relu() * (w + 1),
// with a constant w and a leftover dropout: CSE merges the repeated
// subexpression, FoldConstants precomputes w + 1, DeadCode drops what is
// unused but keeps the dropout, which draws random numbers.
func Example() {
	g := fx.New()
	gm := fx.NewGraphModule(g)
	x := g.Placeholder("x_1")
	mul, relu, add := tensor.MustOp("aten::mul.Tensor"), tensor.MustOp("aten::relu"), tensor.MustOp("aten::add.Tensor")
	a := g.CallFunction(relu, []any{g.CallFunction(mul, []any{x, 2}, nil)}, nil)
	b := g.CallFunction(relu, []any{g.CallFunction(mul, []any{x, 2}, nil)}, nil)
	w := gm.AddConstant(tensor.FromSlice([]float32{1, 2}))
	w1 := g.CallFunction(add, []any{w, 1}, nil)
	g.CallFunction(tensor.MustOp("aten::native_dropout"), []any{x, 0.5, true}, nil)
	g.CallFunction(tensor.MustOp("aten::neg"), []any{x}, nil)
	g.Output(g.CallFunction(add, []any{a, g.CallFunction(mul, []any{b, w1}, nil)}, nil))

	if err := passes.Run(gm, passes.CSE, passes.FoldConstants, passes.DeadCode); err != nil {
		panic(err)
	}
	fmt.Println(strings.TrimSpace(gm.Code()))
	fmt.Println(gm.AttrNames())
	v, _ := gm.Attr("_frozen_param0")
	fmt.Println(v)
	// Output:
	// def forward(self, x_1):
	//     mul = torch.ops.aten.mul.Tensor(x_1, 2)
	//     relu = torch.ops.aten.relu.default(mul);  mul = None
	//     _frozen_param0 = self._frozen_param0
	//     native_dropout = torch.ops.aten.native_dropout.default(x_1, 0.5, True);  x_1 = None
	//     mul_2 = torch.ops.aten.mul.Tensor(relu, _frozen_param0);  _frozen_param0 = None
	//     add_1 = torch.ops.aten.add.Tensor(relu, mul_2);  relu = mul_2 = None
	//     return add_1
	// [_frozen_param0]
	// tensor([2., 3.])
}

// A pass that meets a graph it cannot handle says which node is at fault.
func ExampleError() {
	g := fx.New()
	gm := fx.NewGraphModule(g)
	a := gm.AddConstant(tensor.FromSlice([]float32{1, 2}))
	b := gm.AddConstant(tensor.FromSlice([]float32{1, 2, 3}))
	g.Output(g.CallFunction(tensor.MustOp("aten::add.Tensor"), []any{a, b}, nil))
	err := passes.FoldConstants(gm)
	fmt.Println(err)
	fmt.Println(err.(*passes.Error).Node.Name)
	// Output:
	// passes.FoldConstants: node add: aten::add.Tensor: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0
	// add
}
