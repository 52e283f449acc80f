package hop_test

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// A cond traced into a graph (PyTorch's make_fx of torch.cond): each branch
// is a sub-GraphModule, and the graph runs either way.
func ExampleCond() {
	f := func(a, b *tensor.Tensor) *tensor.Tensor {
		return hop.Cond(a.SumAll().GtScalar(0),
			func(x ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{x[0].Add(x[1])} },
			func(x ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{x[0].Mul(x[1])} },
			[]*tensor.Tensor{a, b})[0]
	}
	a, b := tensor.FromSlice([]float32{1, 2}), tensor.FromSlice([]float32{3, 4})
	gm, err := compile.Trace(f, []*tensor.Tensor{a, b}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"a", "b"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.TrimSpace(gm.Code()))
	tg, _ := gm.Attr("true_graph_0")
	fmt.Println(strings.TrimSpace(tg.(*fx.GraphModule).Code()))
	for _, x := range []*tensor.Tensor{a, a.Neg()} {
		out, _ := fx.NewInterpreter(gm).Run(x, b)
		fmt.Println(out, f(x, b))
	}
	// Output:
	// def forward(self, a_1, b_1):
	//     sum_1 = torch.ops.aten.sum.default(a_1)
	//     gt = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
	//     true_graph_0 = self.true_graph_0
	//     false_graph_0 = self.false_graph_0
	//     cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [a_1, b_1]);  gt = true_graph_0 = false_graph_0 = a_1 = b_1 = None
	//     getitem = cond[0];  cond = None
	//     return getitem
	// def forward(self, arg0_1, arg1_1):
	//     add = torch.ops.aten.add.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
	//     return (add,)
	// tensor([4., 6.]) tensor([4., 6.])
	// tensor([-3., -8.]) tensor([-3., -8.])
}

// A while_loop compiled (torch.compile of torch.while_loop): the loop is one
// node whose condition and body are sub-GraphModules.
func ExampleWhileLoop() {
	cond := func(a ...*tensor.Tensor) *tensor.Tensor { return a[0].SumAll().GtScalar(0) }
	body := func(a ...*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{a[0].SubScalar(1), a[1].MulScalar(2)}
	}
	f := func(it, x *tensor.Tensor) []*tensor.Tensor {
		return hop.WhileLoop(cond, body, []*tensor.Tensor{it, x}, nil)
	}
	c := compile.Compile(f, compile.Options{Fullgraph: true})
	out, err := c.Call(tensor.FromSlice([]int64{3}), tensor.OnesOf([]int{3}))
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	gm := c.Graphs()[0]
	fmt.Println(strings.TrimSpace(gm.Code()))
	bg, _ := gm.Attr("while_loop_body_graph_0")
	fmt.Println(strings.TrimSpace(bg.(*fx.GraphModule).Code()))
	// Output:
	// [tensor([0]) tensor([8., 8., 8.])]
	// def forward(self, arg0_1, arg1_1):
	//     while_loop_cond_graph_0 = self.while_loop_cond_graph_0
	//     while_loop_body_graph_0 = self.while_loop_body_graph_0
	//     while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (arg0_1, arg1_1), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = arg0_1 = arg1_1 = None
	//     getitem = while_loop[0]
	//     getitem_1 = while_loop[1];  while_loop = None
	//     return [getitem, getitem_1]
	// def forward(self, arg0_1, arg1_1):
	//     sub = torch.ops.aten.sub.Scalar(arg0_1, 1);  arg0_1 = None
	//     mul = torch.ops.aten.mul.Scalar(arg1_1, 2);  arg1_1 = None
	//     return (sub, mul)
}

// map_impl maps a function over the first dimension.
func ExampleMap() {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}).Reshape([]int{3, 2})
	w := tensor.FromSlice([]float32{10, 100})
	out := hop.Map(func(a ...*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{a[0].Mul(a[1]).SumAll()}
	}, []*tensor.Tensor{x}, []*tensor.Tensor{w})
	fmt.Println(out[0])
	// Output:
	// tensor([210., 430., 650.])
}

// A while_loop with an int carry: eagerly a Go loop; traced, the int is the
// unbacked symbol u0 in the sub-graphs and the loop's int result u1.
func ExampleWhileLoopCarries() {
	f := func(x *tensor.Tensor) any {
		cond := func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) }
		body := func(a ...any) []any {
			return []any{a[0].(hop.Int).Add(hop.IntOf(1)), a[1].(*tensor.Tensor).MulScalar(2)}
		}
		return fx.Tuple(hop.WhileLoopCarries(cond, body, []any{0, x}, nil))
	}
	x := tensor.FromSlice([]float32{1, 2})
	fmt.Println(f(x))
	gm, err := compile.Trace(f, []*tensor.Tensor{x}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}})
	if err != nil {
		panic(err)
	}
	body, _ := gm.Attr("while_loop_body_graph_0")
	fmt.Println(strings.TrimSpace(body.(*fx.GraphModule).Code()))
	res, _ := fx.NewInterpreter(gm).Run(x)
	fmt.Println(res)
	// Output:
	// [3 tensor([ 8., 16.])]
	// def forward(self, arg0_1, arg1_1):
	//     add = arg0_1 + 1;  arg0_1 = None
	//     mul = torch.ops.aten.mul.Scalar(arg1_1, 2);  arg1_1 = None
	//     return (add, mul)
	// [3 tensor([ 8., 16.])]
}
