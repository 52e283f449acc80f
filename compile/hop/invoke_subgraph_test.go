package hop_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

func block(a ...*T) []*T { return ts(a[0].Matmul(a[1]).Sin(), a[0].Cos()) }

func twoBlocks(x, w *T) *T {
	y := hop.InvokeSubgraph(block, "subgraph_0", x, w)
	z := hop.InvokeSubgraph(block, "subgraph_0", y[0], w)
	return z[0].Add(z[1]).Add(y[1])
}

func twoBlocksEager(x, w *T) *T {
	y := block(x, w)
	z := block(y[0], w)
	return z[0].Add(z[1]).Add(y[1])
}

// S22: two calls with one identifier share one sub-graph.
func TestInvokeSubgraphReuse(t *testing.T) {
	x := tensor.Randn([]int{3, 3})
	w := tensor.Randn([]int{3, 3})
	for _, mode := range modes {
		gm := trace(t, twoBlocks, ts(x, w), mode, "x", "w")
		expectCode(t, gm, "", `
def forward(self, x_1, w_1):
    subgraph_0 = self.subgraph_0
    invoke_subgraph = torch.ops.higher_order.invoke_subgraph(subgraph_0, 'subgraph_0', x_1, w_1);  subgraph_0 = x_1 = None
    getitem = invoke_subgraph[0]
    getitem_1 = invoke_subgraph[1];  invoke_subgraph = None
    subgraph_1 = self.subgraph_0
    invoke_subgraph_1 = torch.ops.higher_order.invoke_subgraph(subgraph_1, 'subgraph_0', getitem, w_1);  subgraph_1 = getitem = w_1 = None
    getitem_2 = invoke_subgraph_1[0]
    getitem_3 = invoke_subgraph_1[1];  invoke_subgraph_1 = None
    add = torch.ops.aten.add.Tensor(getitem_2, getitem_3);  getitem_2 = getitem_3 = None
    add_1 = torch.ops.aten.add.Tensor(add, getitem_1);  add = getitem_1 = None
    return add_1`)
		if names := gm.AttrNames(); len(names) != 1 {
			t.Errorf("%v: attributes %v, want one sub-graph", mode, names)
		}
		res, err := fx.NewInterpreter(gm).Run(x, w)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "interpreted", results(res), ts(twoBlocksEager(x, w)))
		for _, n := range gm.Graph.Nodes() {
			if n.Target == hop.InvokeSubgraphOp {
				s, err := hop.InvokeSubgraphSchema(n)
				if err != nil || s != "invoke_subgraph(Any subgraph, str identifier, Tensor arg0, Tensor arg1) -> (Tensor, Tensor)" {
					t.Errorf("schema %q %v", s, err)
				}
			}
		}
	}
	res, err := compile.Compile(twoBlocks, compile.Options{Fullgraph: true}).Call(x, w)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "compiled", results(res), ts(twoBlocksEager(x, w)))
}

func TestInvokeSubgraphGrad(t *testing.T) {
	x := tensor.Randn([]int{3, 3}).To(tensor.Float64).SetRequiresGrad(true)
	w := tensor.Randn([]int{3, 3}).To(tensor.Float64).SetRequiresGrad(true)
	got := autograd.Grad(ts(twoBlocks(x, w).SumAll()), ts(x, w), nil)
	want := autograd.Grad(ts(twoBlocksEager(x, w).SumAll()), ts(x, w), nil)
	expectClose(t, "grads", got, want)
	if err := autograd.Gradcheck(func(in []*T) []*T { return ts(twoBlocks(in[0], in[1])) }, ts(x, w)); err != nil {
		t.Error(err)
	}
	c := compile.Compile(twoBlocks, compile.Options{Fullgraph: true})
	res, err := c.Call(x, w)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "compiled grads", autograd.Grad(ts(results(res)[0].SumAll()), ts(x, w), nil), want)
	if g := c.Graphs(); len(g) == 0 || !strings.Contains(g[0].Code(), "invoke_subgraph") {
		t.Errorf("compiled graphs have no invoke_subgraph")
	}
}
