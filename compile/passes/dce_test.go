package passes_test

import (
	"testing"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/passes"
	"github.com/goaten/goaten/tensor"
)

// TestDeadCode: unused pure nodes go, from the last to the first (a dead
// chain goes whole); every kind of side effect stays.
func TestDeadCode(t *testing.T) {
	b, ph := newBuilder("x_1", "y_1", "unused_1")
	x, y := ph[0], ph[1]
	r := b.call(op("aten::relu"), x)
	b.call(op("aten::neg"), r)                                                       // dead, and makes relu dead
	b.call(op("aten::add_.Tensor"), x, 1)                                            // in place
	b.call(op("aten::copy_"), y, x)                                                  // copy_
	b.callKw(op("aten::atan2.out"), []any{x, x}, fx.Kwargs{{Name: "out", Value: y}}) // out=
	b.call(op("aten::native_dropout"), x, 0.5, true)                                 // random
	b.callKw(op("aten::rand"), []any{[]int{3}}, nil)                                 // random factory
	b.call(schemaOp("mylib::bump_(Tensor(a!) x) -> ()"), x)                          // mutates, other namespace
	b.call(schemaOp("mylib::pure(Tensor x) -> Tensor"), x)                           // pure, other namespace: dead
	b.call(&fx.Function{Name: "effect", Qualified: "my.effect", SideEffects: true}, x)
	b.call(&fx.Function{Name: "pure_fn", Qualified: "my.pure_fn"}, x) // dead
	d := b.call(op("aten::native_dropout"), x, 0.5, true)
	b.call(fx.GetItem, d, 0) // getitem of a random op: dead, the dropout stays
	c := b.constant(tensor.FromSlice([]float32{1}))
	b.call(op("aten::mul.Tensor"), c, 2) // dead with its get_attr
	b.g.Output(b.call(op("aten::sin"), x))
	apply(t, passes.DeadCode, b.gm, `
def forward(self, x_1, y_1, unused_1):
    add_ = torch.ops.aten.add_.Tensor(x_1, 1)
    copy_ = torch.ops.aten.copy_.default(y_1, x_1)
    atan2 = torch.ops.aten.atan2.out(x_1, x_1, out = y_1);  y_1 = None
    native_dropout = torch.ops.aten.native_dropout.default(x_1, 0.5, True)
    rand = torch.ops.aten.rand.default([3])
    bump_ = torch.ops.mylib.bump_.default(x_1)
    effect = my.effect(x_1)
    native_dropout_1 = torch.ops.aten.native_dropout.default(x_1, 0.5, True)
    sin = torch.ops.aten.sin.default(x_1);  x_1 = None
    return sin`)
	// The constant stays an attribute: only FoldConstants deletes them.
	if _, ok := b.gm.Attr("_tensor_constant0"); !ok {
		t.Error("DeadCode deleted an attribute")
	}
	// A second run changes nothing.
	before := code(b.gm)
	apply(t, passes.DeadCode, b.gm, before)
}

func TestDeadCodeErrors(t *testing.T) {
	// An op without a schema: its effects are unknown.
	b, ph := newBuilder("x_1")
	b.g.CreateNode(fx.OpCallFunction, &tensor.Op{Name: "mylib::opaque"}, []any{ph[0]}, nil, "opaque")
	b.g.Output(ph[0])
	wantPassError(t, passes.DeadCode(b.gm), "DeadCode", "opaque",
		"passes.DeadCode: node opaque: op mylib::opaque has no schema, so its effects are unknown")

	// A target that is not callable: Lint's message, naming the node.
	b, ph = newBuilder("x_1")
	n := b.call(op("aten::relu"), ph[0])
	b.g.Output(n)
	n.Target = "relu"
	wantPassError(t, passes.DeadCode(b.gm), "DeadCode", "relu",
		"passes.DeadCode: node relu: Node relu target relu has type string but a Callable is expected")

	// Nodes out of order.
	b, ph = newBuilder("x_1")
	a := b.call(op("aten::relu"), ph[0])
	s := b.call(op("aten::sin"), a)
	b.g.Output(s)
	a.MoveAfter(s)
	wantPassError(t, passes.DeadCode(b.gm), "DeadCode", "sin",
		"passes.DeadCode: node sin: Argument 'relu' of Node 'sin' was used before it has been defined! "+
			"Please check that Nodes in the graph are topologically ordered")

	// No output: the graph as a whole is at fault.
	b, ph = newBuilder("x_1")
	b.call(op("aten::relu"), ph[0])
	wantPassError(t, passes.DeadCode(b.gm), "DeadCode", "", "passes.DeadCode: Graph has no output node!")

	if err := passes.DeadCode(nil); err == nil {
		t.Error("DeadCode(nil) passed")
	}
}
