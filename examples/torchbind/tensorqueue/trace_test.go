package tensorqueue_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// s5 is test_make_fx_tensor_queue_methods' program: the methods are called
// with torchbind.Call, so a trace records them.
func s5(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, tensor.ScriptObject) {
	torchbind.Call(q, "push", x.Cos())
	torchbind.Call(q, "push", x.Sin())
	n := func() *tensor.Tensor { return tensor.WrappedNumber(tensor.Int(int64(torchbind.Call(q, "size").(int)))) }
	xCos := torchbind.Call(q, "pop").(*tensor.Tensor).Add(n())
	xSin := torchbind.Call(q, "pop").(*tensor.Tensor).Sub(n())
	return xSin, xCos, q
}

// S5: make_fx over TensorQueue methods with a fake class, under the
// PyTorch-compatible option that burns size() in as a constant
// (TestSymbolicSizeS5 has the default, symbolic graph).
func TestTraceQueueMethodsS5(t *testing.T) {
	real := tq.Class.New(tensor.FullOf(tensor.Float32, -1, 1))
	var fakes []*tq.FakeTensorQueue
	gm, err := compile.TraceArgs(func(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, tensor.ScriptObject) {
		fakes = append(fakes, torchbind.Unwrap[*tq.FakeTensorQueue](q))
		return s5(q, x)
	}, []any{real, tensor.Randn([]int{2, 3})}, compile.TraceOptions{Mode: compile.Fake, ConstantMethodResults: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `def forward(self, arg0_1, arg1_1):
    cos = torch.ops.aten.cos.default(arg1_1)
    call_torchbind = torch.ops.higher_order.call_torchbind(arg0_1, 'push', cos);  cos = None
    sin = torch.ops.aten.sin.default(arg1_1);  arg1_1 = None
    call_torchbind_1 = torch.ops.higher_order.call_torchbind(arg0_1, 'push', sin);  sin = None
    call_torchbind_2 = torch.ops.higher_order.call_torchbind(arg0_1, 'pop')
    call_torchbind_3 = torch.ops.higher_order.call_torchbind(arg0_1, 'size')
    add = torch.ops.aten.add.Tensor(call_torchbind_2, 1);  call_torchbind_2 = None
    call_torchbind_4 = torch.ops.higher_order.call_torchbind(arg0_1, 'pop')
    call_torchbind_5 = torch.ops.higher_order.call_torchbind(arg0_1, 'size')
    sub = torch.ops.aten.sub.Tensor(call_torchbind_4, 0);  call_torchbind_4 = None
    return (sub, add, arg0_1)`
	if got := strings.TrimSpace(gm.Code()); got != want {
		t.Errorf("graph:\n%s\nwant:\n%s", got, want)
	}
	if len(fakes) != 1 {
		t.Fatalf("fn ran %d times", len(fakes))
	}
	for _, m := range []string{"push", "pop", "size"} {
		if c := fakes[0].Calls[m]; c != 2 {
			t.Errorf("fake %s ran %d times, want 2", m, c)
		}
	}
	if n := torchbind.Unwrap[*tq.TensorQueue](real).Size(); n != 0 {
		t.Errorf("the real queue has %d tensors after tracing, want 0", n)
	}
}

// A custom op taking the queue runs its fake kernel on the fake and is
// recorded with the queue's placeholder.
func TestTraceForEachAddOp(t *testing.T) {
	q := tq.New(tensor.FullOf(tensor.Float32, -1, 1))
	for range 3 {
		q.Push(tensor.FullOf(tensor.Float32, 0, 1))
	}
	real := tq.Class.Wrap(q)
	var fake *tq.FakeTensorQueue
	want := map[bool]string{false: `def forward(self, arg0_1, arg1_1):
    for_each_add_ = torch.ops.MyCustomClass.for_each_add_.default(arg0_1, arg1_1);  arg1_1 = None
    return arg0_1`,
		// S1's graph before export names its placeholders (token, tq, a).
		true: `def forward(self, arg0_1, arg1_1, arg2_1):
    with_effects = torch.ops.higher_order.with_effects(arg0_1, torch.ops.MyCustomClass.for_each_add_.default, arg1_1, arg2_1);  arg0_1 = arg2_1 = None
    getitem = with_effects[0];  with_effects = None
    return (getitem, arg1_1)`}
	for _, fn := range []bool{false, true} {
		gm, err := compile.TraceArgs(func(o tensor.ScriptObject, a *tensor.Tensor) tensor.ScriptObject {
			fake = torchbind.Unwrap[*tq.FakeTensorQueue](o)
			tq.ForEachAdd.Call(o, a)
			return o
		}, []any{real, tensor.FullOf(tensor.Float32, 1, 1)}, compile.TraceOptions{Mode: compile.Fake, Functionalize: fn})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(gm.Code()); got != want[fn] {
			t.Errorf("functionalize=%v:\n%s\nwant:\n%s", fn, got, want[fn])
		}
		if fake.Calls["for_each_add_"] != 1 {
			t.Errorf("fake for_each_add_ ran %d times", fake.Calls["for_each_add_"])
		}
	}
	for _, x := range q.GetRawQueue() {
		if v := x.Float64s()[0]; v != 0 {
			t.Errorf("the real queue changed: %v", v)
		}
	}
}
