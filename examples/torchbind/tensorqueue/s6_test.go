package tensorqueue_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// The _TorchScriptTesting ops S6 calls, on MyCustomClass::TensorQueue:
// queue_push, queue_pop and queue_size, each with a fake kernel that calls
// the fake queue's method.
var opQueuePush, opQueuePop, opQueueSize = func() (*library.Op, *library.Op, *library.Op) {
	cls := "__torch__.torch.classes.MyCustomClass.TensorQueue"
	push := library.Define("_TorchScriptTesting::queue_push(" + cls + " foo, Tensor t) -> ()")
	pop := library.Define("_TorchScriptTesting::queue_pop(" + cls + " foo) -> Tensor")
	size := library.Define("_TorchScriptTesting::queue_size(" + cls + " foo) -> int")
	q := func(a library.Args) *tq.TensorQueue { return torchbind.Unwrap[*tq.TensorQueue](a.Object("foo")) }
	push.Impl("CPU", func(a library.Args) any { q(a).Push(a.Tensor("t")); return nil })
	pop.Impl("CPU", func(a library.Args) any { return q(a).Pop() })
	size.Impl("CPU", func(a library.Args) any { return q(a).Size() })
	push.RegisterFake(func(a library.Args) any { torchbind.Call(a.Object("foo"), "push", a.Tensor("t")); return nil })
	pop.RegisterFake(func(a library.Args) any { return torchbind.Call(a.Object("foo"), "pop") })
	size.RegisterFake(func(a library.Args) any { return torchbind.Call(a.Object("foo"), "size") })
	for _, op := range []*library.Op{push, pop, size} {
		// Ops taking a script object are effectful (PyTorch's _get_effect
		// gives them ORDERED); register them where that is not automatic.
		if _, ok := hop.Effect(op.TensorOp()); !ok {
			hop.RegisterEffect(op.TensorOp(), hop.EffectOrdered)
		}
	}
	return push, pop, size
}()

// S6: test_aot_export_tensor_queue_operators. The functionalized trace
// threads an effect token through every op on the queue. PyTorch prints
// with_effects as torch.ops.higher_order.with_effects since the seed's
// time (S9's graphs); TraceArgs prints that spelling, export the seed-era
// torch._higher_order_ops.effects.with_effects of S6's text, which is
// otherwise the same byte for byte, getitem numbering gaps included.
func TestAOTExportQueueOpsS6(t *testing.T) {
	fn := func(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, tensor.ScriptObject) {
		opQueuePush.Call(q, x.Cos())
		opQueuePush.Call(q, x.Sin())
		xSin := opQueuePop.Call(q).(*tensor.Tensor).Sub(tensor.WrappedNumber(tensor.Int(int64(opQueueSize.Call(q).(int)))))
		xCos := opQueuePop.Call(q).(*tensor.Tensor).Add(tensor.WrappedNumber(tensor.Int(int64(opQueueSize.Call(q).(int)))))
		return xSin, xCos, q
	}
	real := emptyQueue()
	gm, err := compile.TraceArgs(fn, []any{real, tensor.Randn([]int{2, 3})}, compile.TraceOptions{Mode: compile.Fake, Functionalize: true})
	if err != nil {
		t.Fatal(err)
	}
	s6 := `def forward(self, arg0_1, arg1_1, arg2_1):
    cos = torch.ops.aten.cos.default(arg2_1)
    with_effects = torch._higher_order_ops.effects.with_effects(arg0_1, torch.ops._TorchScriptTesting.queue_push.default, arg1_1, cos);  arg0_1 = cos = None
    getitem = with_effects[0];  with_effects = None
    sin = torch.ops.aten.sin.default(arg2_1);  arg2_1 = None
    with_effects_1 = torch._higher_order_ops.effects.with_effects(getitem, torch.ops._TorchScriptTesting.queue_push.default, arg1_1, sin);  getitem = sin = None
    getitem_2 = with_effects_1[0];  with_effects_1 = None
    with_effects_2 = torch._higher_order_ops.effects.with_effects(getitem_2, torch.ops._TorchScriptTesting.queue_pop.default, arg1_1);  getitem_2 = None
    getitem_4 = with_effects_2[0]
    getitem_5 = with_effects_2[1];  with_effects_2 = None
    with_effects_3 = torch._higher_order_ops.effects.with_effects(getitem_4, torch.ops._TorchScriptTesting.queue_size.default, arg1_1);  getitem_4 = None
    getitem_6 = with_effects_3[0];  with_effects_3 = None
    sub = torch.ops.aten.sub.Tensor(getitem_5, 1);  getitem_5 = None
    with_effects_4 = torch._higher_order_ops.effects.with_effects(getitem_6, torch.ops._TorchScriptTesting.queue_pop.default, arg1_1);  getitem_6 = None
    getitem_8 = with_effects_4[0]
    getitem_9 = with_effects_4[1];  with_effects_4 = None
    with_effects_5 = torch._higher_order_ops.effects.with_effects(getitem_8, torch.ops._TorchScriptTesting.queue_size.default, arg1_1);  getitem_8 = None
    getitem_10 = with_effects_5[0];  with_effects_5 = None
    add = torch.ops.aten.add.Tensor(getitem_9, 0);  getitem_9 = None
    return (getitem_10, sub, add, arg1_1)`
	want := strings.ReplaceAll(s6, "torch._higher_order_ops.effects.with_effects", "torch.ops.higher_order.with_effects")
	if got := strings.TrimSpace(gm.Code()); got != want {
		t.Errorf("graph:\n%s\nwant:\n%s", got, want)
	}
	if n := real.Call("size"); n != 0 {
		t.Errorf("the real queue has %v tensors after tracing, want 0", n)
	}
	// Run on a real queue, the graph gives eager's results and leaves the
	// queue as eager does.
	x := tensor.Randn([]int{2, 3})
	q, eq := emptyQueue(), emptyQueue()
	wantSin, wantCos, _ := fn(eq, x)
	got, err := fx.NewInterpreter(gm).Run(tensor.Empty(tensor.Float32, 0), q, x)
	if err != nil {
		t.Fatal(err)
	}
	out := got.(fx.Tuple)
	sameTensor(t, "sub", out[1].(*tensor.Tensor), wantSin)
	sameTensor(t, "add", out[2].(*tensor.Tensor), wantCos)
	if out[3] != tensor.ScriptObject(q) || q.Call("size") != eq.Call("size") {
		t.Errorf("queue after the graph: %v (size %v), eager size %v", out[3], q.Call("size"), eq.Call("size"))
	}
}
