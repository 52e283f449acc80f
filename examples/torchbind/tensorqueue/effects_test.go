package tensorqueue_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

func newQueue() *torchbind.Object { return tq.Class.New(tensor.FullOf(tensor.Float32, -1, 1)) }

func queueSize(o *torchbind.Object) int { return torchbind.Unwrap[*tq.TensorQueue](o).Size() }

// fnMod is a module whose Forward is fn(tq, x).
type fnMod struct {
	nn.Base
	fn func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor
}

func (m *fnMod) Forward(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor { return m.fn(q, x) }

func sameValues(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	if got == nil || !tensor.AllClose(got, want, 1e-6, 1e-7) {
		t.Errorf("%s: got %v, want %v (eager)", what, got, want)
	}
}

// The Mod program traced functionalized: each method call is
// with_effects(token, call_torchbind, ...), in the newer spelling that
// also wraps call_torchbind (S2's newer form), and runs on a real queue.
func TestFunctionalizedMethodCalls(t *testing.T) {
	mod := func(q tensor.ScriptObject, x *tensor.Tensor) (tensor.ScriptObject, *tensor.Tensor) {
		torchbind.Call(q, "push", x.Sin())
		torchbind.Call(q, "push", x.Cos())
		return q, torchbind.Call(q, "pop").(*tensor.Tensor)
	}
	want := `def forward(self, arg0_1, arg1_1, arg2_1):
    sin = torch.ops.aten.sin.default(arg2_1)
    with_effects = torch.ops.higher_order.with_effects(arg0_1, torch.ops.higher_order.call_torchbind, arg1_1, 'push', sin);  arg0_1 = sin = None
    getitem = with_effects[0];  with_effects = None
    cos = torch.ops.aten.cos.default(arg2_1);  arg2_1 = None
    with_effects_1 = torch.ops.higher_order.with_effects(getitem, torch.ops.higher_order.call_torchbind, arg1_1, 'push', cos);  getitem = cos = None
    getitem_2 = with_effects_1[0];  with_effects_1 = None
    with_effects_2 = torch.ops.higher_order.with_effects(getitem_2, torch.ops.higher_order.call_torchbind, arg1_1, 'pop');  getitem_2 = None
    getitem_4 = with_effects_2[0]
    getitem_5 = with_effects_2[1];  with_effects_2 = None
    return (getitem_4, arg1_1, getitem_5)`
	x := tensor.Randn([]int{2, 3})
	for _, mode := range []compile.Mode{compile.Fake, compile.Real} {
		q := newQueue()
		gm, err := compile.TraceArgs(mod, []any{q, x}, compile.TraceOptions{Mode: mode, Functionalize: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(gm.Code()); got != want {
			t.Errorf("%v:\n%s\nwant:\n%s", mode, got, want)
		}
		wantSize := map[compile.Mode]int{compile.Fake: 0, compile.Real: 1}[mode] // a real trace runs the methods
		if n := queueSize(q); n != wantSize {
			t.Errorf("%v: the queue has %d tensors after tracing, want %d", mode, n, wantSize)
		}
		if compile.TokenInput(gm) == nil {
			t.Errorf("%v: no token input", mode)
		}
		// The graph runs on a real queue with a fresh token, in order.
		run := newQueue()
		res, err := fx.NewInterpreter(gm).Run(tensor.Empty(tensor.Float32, 0), run, x)
		if err != nil {
			t.Fatal(err)
		}
		out := res.(fx.Tuple)
		if out[1] != run {
			t.Errorf("%v: the graph returned %v, not the queue", mode, out[1])
		}
		sameValues(t, "popped", out[2].(*tensor.Tensor), x.Sin())
		if n := queueSize(run); n != 1 {
			t.Errorf("%v: the queue has %d tensors after the run, want 1", mode, n)
		}
	}
}

// hazard is seed 001's aliasing hazard: push(a); a.sin_(); b = pop();
// return a + b. Eagerly the queue holds a itself, so b is the written a:
// the result is 2·sin(a).
func hazard(q tensor.ScriptObject, a *tensor.Tensor) *tensor.Tensor {
	torchbind.Call(q, "push", a)
	a.Sin_()
	b := torchbind.Call(q, "pop").(*tensor.Tensor)
	return a.Add(b)
}

// The hazard never gives a silently different result: the functionalized
// trace and export refuse it at trace time (PyTorch's captured graph
// returns sin(a) + a); Compile, whose graphs keep in-place ops and real
// aliasing, returns eager's value.
func TestAliasingHazard(t *testing.T) {
	a0 := tensor.Randn([]int{3})
	eagerA := a0.Clone()
	want := hazard(newQueue(), eagerA)
	sameValues(t, "eager is 2·sin(a)", want, a0.Sin().MulScalar(2.0))

	const msg = "compile.Trace: a tensor passed to MyCustomClass.TensorQueue.push was written in place before MyCustomClass.TensorQueue.pop"
	_, err := compile.TraceArgs(hazard, []any{newQueue(), a0.Clone()}, compile.TraceOptions{Mode: compile.Fake, Functionalize: true})
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("functionalized trace: err = %v, want %q", err, msg)
	}
	m := &fnMod{fn: hazard}
	m.SetName("Hazard")
	_, err = export.ExportArgs(m, []any{newQueue(), a0.Clone()}, export.Options{InputNames: []string{"tq", "a"}})
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("export: err = %v, want %q", err, msg)
	}
	// A clone pushed instead is fine, and the export equals eager.
	cloned := func(q tensor.ScriptObject, a *tensor.Tensor) *tensor.Tensor {
		torchbind.Call(q, "push", a.Clone())
		a.Sin_()
		b := torchbind.Call(q, "pop").(*tensor.Tensor)
		return a.Add(b)
	}
	m = &fnMod{fn: cloned}
	m.SetName("Cloned")
	ep, err := export.ExportArgs(m, []any{newQueue(), a0.Clone()}, export.Options{InputNames: []string{"tq", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	in := a0.Clone()
	out, err := ep.Module().ForwardArgs(newQueue(), in)
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, "exported with a clone", out[0].(*tensor.Tensor), a0.Sin().Add(a0))
	sameValues(t, "the input written back", in, a0.Sin())

	// Compile: the graph writes a in place, the queue holds a itself.
	q := newQueue()
	c := compile.Compile(func(a *tensor.Tensor) *tensor.Tensor { return hazard(q, a) }, compile.Options{Fullgraph: true})
	a := a0.Clone()
	res, err := c.Call(a)
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, "compiled", res.(*tensor.Tensor), want)
	sameValues(t, "compiled input", a, eagerA)
	if n := queueSize(q); n != 0 {
		t.Errorf("the queue has %d tensors after the compiled call, want 0", n)
	}
}

// identity is seed 001's "is" case: tq.push(a); if tq.pop() is a: a + 1
// else a - 1. Eagerly pop gives back the pointer pushed: a + 1.
func identity(q tensor.ScriptObject, a *tensor.Tensor) *tensor.Tensor {
	torchbind.Call(q, "push", a)
	if torchbind.Call(q, "pop").(*tensor.Tensor) == a {
		return a.AddScalar(1)
	}
	return a.SubScalar(1)
}

// The "is" case gives eager's answer traced (plain and functionalized),
// compiled and exported (PyTorch's captured graph returns a - 1).
func TestIdentityIsEager(t *testing.T) {
	a := tensor.Randn([]int{3})
	want := identity(newQueue(), a)
	sameValues(t, "eager is a + 1", want, a.AddScalar(1))
	for _, fn := range []bool{false, true} {
		gm, err := compile.TraceArgs(identity, []any{newQueue(), a}, compile.TraceOptions{Mode: compile.Fake, Functionalize: fn})
		if err != nil {
			t.Fatal(err)
		}
		if c := gm.Code(); !strings.Contains(c, "torch.ops.aten.add.Scalar(") || strings.Contains(c, "sub") {
			t.Errorf("functionalize=%v: the graph does not add 1:\n%s", fn, c)
		}
	}
	q := newQueue()
	c := compile.Compile(func(a *tensor.Tensor) *tensor.Tensor { return identity(q, a) }, compile.Options{Fullgraph: true})
	res, err := c.Call(a)
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, "compiled", res.(*tensor.Tensor), want)
	m := &fnMod{fn: identity}
	m.SetName("Identity")
	ep, err := export.ExportArgs(m, []any{newQueue(), a}, export.Options{InputNames: []string{"tq", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ep.Module().ForwardArgs(newQueue(), a)
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, "exported", out[0].(*tensor.Tensor), want)
}

// S6's ops: custom ops taking the queue (test_aot_export_tensor_queue_operators).
var queuePush, queuePop, queueSizeOp = func() (*library.Op, *library.Op, *library.Op) {
	const q = "__torch__.torch.classes.MyCustomClass.TensorQueue"
	push := library.Define("_TorchScriptTesting::queue_push(" + q + " foo, Tensor x) -> ()")
	pop := library.Define("_TorchScriptTesting::queue_pop(" + q + " foo) -> Tensor")
	size := library.Define("_TorchScriptTesting::queue_size(" + q + " foo) -> int")
	for _, op := range []*library.Op{push, pop, size} {
		method := map[*library.Op]string{push: "push", pop: "pop", size: "size"}[op]
		kernel := func(a library.Args) any {
			if method == "push" {
				return torchbind.Call(a.Object("foo"), method, a.Tensor("x"))
			}
			return torchbind.Call(a.Object("foo"), method)
		}
		op.Impl("CPU", kernel)
		op.RegisterFake(kernel)
	}
	return push, pop, size
}()

// S6: aot_export over custom ops taking the queue. Each is a with_effects
// node; queue_size's int is burned in (sub(getitem_5, 1)), its None
// getitem dropped but named (getitem_7 is missing).
func TestAOTExportQueueOpsS6(t *testing.T) {
	prog := func(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, tensor.ScriptObject) {
		n := func() *tensor.Tensor { return tensor.WrappedNumber(tensor.Int(int64(queueSizeOp.Call(q).(int)))) }
		queuePush.Call(q, x.Cos())
		queuePush.Call(q, x.Sin())
		xSin := queuePop.Call(q).(*tensor.Tensor).Sub(n())
		xCos := queuePop.Call(q).(*tensor.Tensor).Add(n())
		return xSin, xCos, q
	}
	real := newQueue()
	x := tensor.Randn([]int{2, 3})
	gm, err := compile.TraceArgs(prog, []any{real, x}, compile.TraceOptions{Mode: compile.Fake, Functionalize: true})
	if err != nil {
		t.Fatal(err)
	}
	// aot_export of S6's time prints seed 001's spelling.
	for _, n := range gm.Graph.Nodes() {
		if n.Target == hop.WithEffectsOp {
			n.Target = hop.WithEffectsSeedOp
		}
	}
	want := `def forward(self, arg0_1, arg1_1, arg2_1):
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
	if got := strings.TrimSpace(gm.Code()); got != want {
		t.Errorf("S6:\n%s\nwant:\n%s", got, want)
	}
	if n := queueSize(real); n != 0 {
		t.Errorf("tracing changed the real queue: size %d", n)
	}
	// The graph runs on a real queue as the program does eagerly.
	eq := newQueue()
	wantSin, wantCos, _ := prog(eq, x)
	run := newQueue()
	res, err := fx.NewInterpreter(gm).Run(tensor.Empty(tensor.Float32, 0), run, x)
	if err != nil {
		t.Fatal(err)
	}
	out := res.(fx.Tuple)
	sameValues(t, "x_sin", out[1].(*tensor.Tensor), wantSin)
	sameValues(t, "x_cos", out[2].(*tensor.Tensor), wantCos)
	if queueSize(run) != 0 || out[3] != run {
		t.Errorf("after the run: size %d, returned %v", queueSize(run), out[3])
	}
}
