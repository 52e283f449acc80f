package fx_test

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// The graph make_fx records for (x * 2 + 1).sigmoid() * x, printed as
// PyTorch prints gm.code.
func Example() {
	g := fx.New()
	x := g.Placeholder("x_1")
	mul := g.CallFunction(tensor.MustOp("aten::mul.Tensor"), []any{x, 2}, nil)
	add := g.CallFunction(tensor.MustOp("aten::add.Tensor"), []any{mul, 1}, nil)
	sig := g.CallFunction(tensor.MustOp("aten::sigmoid"), []any{add}, nil)
	g.Output(g.CallFunction(tensor.MustOp("aten::mul.Tensor"), []any{sig, x}, nil))
	gm := fx.NewGraphModule(g)
	if err := gm.Lint(); err != nil {
		panic(err)
	}
	fmt.Println(strings.TrimSpace(gm.Code()))
	// Output:
	// def forward(self, x_1):
	//     mul = torch.ops.aten.mul.Tensor(x_1, 2)
	//     add = torch.ops.aten.add.Tensor(mul, 1);  mul = None
	//     sigmoid = torch.ops.aten.sigmoid.default(add);  add = None
	//     mul_1 = torch.ops.aten.mul.Tensor(sigmoid, x_1);  sigmoid = x_1 = None
	//     return mul_1
}

// Erasing a node that is still used is refused; names are never reused.
func ExampleGraph_EraseNode() {
	g := fx.New()
	x := g.Placeholder("x_1")
	add := g.CallFunction(tensor.MustOp("aten::add.Tensor"), []any{x, 1}, nil)
	mul := g.CallFunction(tensor.MustOp("aten::mul.Tensor"), []any{add, 2}, nil)
	fmt.Println(g.EraseNode(add))
	g.Output(add)
	fmt.Println(g.EraseNode(mul))
	fmt.Println(g.CallFunction(tensor.MustOp("aten::mul.Tensor"), []any{add, 3}, nil).Name)
	// Output:
	// Tried to erase Node add but it still had 1 users in the graph: {mul: None}!
	// <nil>
	// mul_1
}

// A higher-order op is a Target; its subgraphs are GraphModule attributes
// read by get_attr nodes, and getitem prints as a subscript.
func ExampleTarget() {
	cond := &fx.Function{Name: "cond", Qualified: "torch.ops.higher_order.cond"}
	g := fx.New()
	pred, x := g.Placeholder("pred_1"), g.Placeholder("x_1")
	tg, fg := g.GetAttr("true_graph_0"), g.GetAttr("false_graph_0")
	c := g.CallFunction(cond, []any{pred, tg, fg, []*fx.Node{x}}, nil)
	g.Output(g.CallFunction(fx.GetItem, []any{c, 0}, nil))
	fmt.Println(strings.TrimSpace(g.PythonCode(fx.CodeOptions{})))
	// Output:
	// def forward(self, pred_1, x_1):
	//     true_graph_0 = self.true_graph_0
	//     false_graph_0 = self.false_graph_0
	//     cond = torch.ops.higher_order.cond(pred_1, true_graph_0, false_graph_0, [x_1]);  pred_1 = true_graph_0 = false_graph_0 = x_1 = None
	//     getitem = cond[0];  cond = None
	//     return getitem
}

// The interpreter runs a graph through the dispatcher on its inputs' device
// and returns the output as written: here a Tuple.
func ExampleInterpreter() {
	g := fx.New()
	x := g.Placeholder("x")
	mx := g.CallFunction(tensor.MustOp("aten::max.dim"), []any{x, 1}, nil)
	values := g.CallFunction(fx.GetItem, []any{mx, 0}, nil)
	indices := g.CallFunction(fx.GetItem, []any{mx, 1}, nil)
	g.Output(fx.Tuple{g.CallFunction(tensor.MustOp("aten::mul.Tensor"), []any{values, 2}, nil), indices})

	out, err := fx.NewInterpreter(fx.NewGraphModule(g)).Run(tensor.FromSlice([]float32{1, 5, 2, 7, 3, 4}, 2, 3))
	fmt.Println(out, err)
	// Output:
	// [tensor([10., 14.]) tensor([1, 0])] <nil>
}

// negForSigmoid overrides one method of the Interpreter it embeds.
type negForSigmoid struct{ *fx.Interpreter }

func (s negForSigmoid) CallFunction(n *fx.Node, target any, args []any, kwargs fx.Kwargs) (any, error) {
	if target == tensor.MustOp("aten::sigmoid") {
		target = tensor.MustOp("aten::neg")
	}
	return s.Interpreter.CallFunction(n, target, args, kwargs)
}

// A type embedding *Interpreter changes what calls do; Run calls its
// methods (S24's test_interpreter_onthefly_swap).
func ExampleRun() {
	g := fx.New()
	x := g.Placeholder("x")
	g.Output(g.CallFunction(tensor.MustOp("aten::sigmoid"), []any{x}, nil))
	gm := fx.NewGraphModule(g)

	out, _ := fx.Run(negForSigmoid{fx.NewInterpreter(gm)}, tensor.FromSlice([]float32{1, -2}, 2))
	fmt.Println(out)
	// Output:
	// tensor([-1.,  2.])
}

// ShapeProp runs a graph on the meta device and records each node's value.
func ExampleShapeProp() {
	g := fx.New()
	x, w := g.Placeholder("x"), g.Placeholder("w")
	mm := g.CallFunction(tensor.MustOp("aten::mm"), []any{x, w}, nil)
	g.Output(g.CallFunction(tensor.MustOp("aten::relu"), []any{mm}, nil))

	_, err := fx.NewShapeProp(fx.NewGraphModule(g)).Propagate(
		tensor.FromSlice(make([]float32, 8), 2, 4), tensor.FromSlice(make([]float32, 12), 4, 3))
	for _, n := range g.Nodes() {
		fmt.Printf("%s %+v\n", n.Name, n.Meta[fx.MetaTensorMeta])
	}
	fmt.Println(err)
	// Output:
	// x {Sizes:[2 4] Strides:[4 1] DType:float32 Contiguous:true}
	// w {Sizes:[4 3] Strides:[3 1] DType:float32 Contiguous:true}
	// mm {Sizes:[2 3] Strides:[3 1] DType:float32 Contiguous:true}
	// relu {Sizes:[2 3] Strides:[3 1] DType:float32 Contiguous:true}
	// output {Sizes:[2 3] Strides:[3 1] DType:float32 Contiguous:true}
	// <nil>
}
