package export_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// A while_loop with an int carry exports: the carry is the unbacked
// symbol u0 in the sub-graphs, and the exported program runs with eager's
// values. Saving it is refused as PyTorch's serializer refuses it: the
// carried inputs (0, x) mix an int with a tensor, which no Argument of the
// schema holds.
func TestHOPIntCarryExport(t *testing.T) {
	run := func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		r := hop.WhileLoopCarries(
			func(a ...any) any { return a[0].(hop.Int).Lt(hop.IntOf(3)) },
			func(a ...any) []any {
				return []any{a[0].(hop.Int).Add(hop.IntOf(1)), n.FC.Forward(a[1].(*tensor.Tensor)).Tanh()}
			},
			[]any{0, x}, nil)
		y := r[1].(*tensor.Tensor)
		return []*tensor.Tensor{y, y.SumAll().Unsqueeze(0).Expand([]int{r[0].(hop.Int).AsSize()}).MulScalar(2.0)}
	}
	net := newHopNet(run)
	x := seq(0.3, 2, 4)
	ep, err := export.Export(net, []*tensor.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	s := ep.String()
	if testing.Verbose() {
		t.Log(s)
	}
	for _, want := range []string{
		`torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (0, args_0), (p_fc_weight, p_fc_bias))`,
		`getitem: "Sym(u1)" = while_loop[0]`,
		`getitem_1: "f32[2, 4]" = while_loop[1]`,
		`expand: "f32[u1]" = torch.ops.aten.expand.default(unsqueeze, [getitem])`,
		"Range constraints: {u1: VR[0, int_oo]}",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	m := ep.Module()
	for _, in := range []*tensor.Tensor{x, seq(-1, 2, 4)} {
		want := net.Forward(in)
		got, err := m.Forward(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[1].Size(0) != 3 {
			t.Fatalf("exported outputs %v", got)
		}
		for i := range want {
			if err := sameBits(got[i], want[i]); err != nil {
				t.Errorf("output %d: %v", i, err)
			}
		}
	}
	var b strings.Builder
	if err := ep.Save(&b); err == nil || !strings.Contains(err.Error(), "Unsupported list/tuple argument type: [<class 'int'>, <class 'torch.fx.node.Node'>]") {
		t.Errorf("Save: %v", err)
	}
}
