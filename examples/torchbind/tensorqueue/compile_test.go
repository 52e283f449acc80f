package tensorqueue_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// emptyQueue is PyTorch's _empty_tensor_queue(): init tensor
// torch.empty(0).fill_(-1), with ts pushed.
func emptyQueue(ts ...*tensor.Tensor) *torchbind.Object {
	o := tq.Class.New(tensor.Empty(tensor.Float32, 0))
	for _, t := range ts {
		o.Call("push", t)
	}
	return o
}

// cloneQueue is a queue holding clones of o's tensors (requires_grad kept),
// for the eager run a compiled one is compared with.
func cloneQueue(o *torchbind.Object) *torchbind.Object {
	var ts []*tensor.Tensor
	for _, t := range torchbind.Unwrap[*tq.TensorQueue](o).GetRawQueue() {
		c := t.Detach().Clone()
		if t.RequiresGrad() {
			autograd.SetRequiresGrad(c, true)
		}
		ts = append(ts, c)
	}
	return emptyQueue(ts...)
}

func randn(dt tensor.DType, grad bool, sizes ...int) *tensor.Tensor {
	t := tensor.Randn(sizes).To(dt)
	if grad {
		autograd.SetRequiresGrad(t, true)
	}
	return t
}

// guardsModel is test_compile_script_object_input_guards' Model.forward:
// x_sin = tq.pop() - tq.size() (pop first, as Python evaluates it).
func guardsModel(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, tensor.ScriptObject) {
	torchbind.Call(q, "push", x.Cos())
	torchbind.Call(q, "push", x.Sin())
	popped := torchbind.Call(q, "pop").(*tensor.Tensor)
	n := torchbind.Call(q, "size").(int)
	return popped.Sub(tensor.WrappedNumber(tensor.Int(int64(n)))), q
}

func sameTensor(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	if got.DType() != want.DType() || fmt.Sprint(got.Sizes()) != fmt.Sprint(want.Sizes()) || got.RequiresGrad() != want.RequiresGrad() {
		t.Fatalf("%s: got %s %v grad=%v, want %s %v grad=%v", what, got.DType(), got.Sizes(), got.RequiresGrad(), want.DType(), want.Sizes(), want.RequiresGrad())
	}
	g, w := got.Detach().Float64s(), want.Detach().Float64s()
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("%s: element %d is %v, want %v", what, i, g[i], w[i])
		}
	}
}

// callAndCompare runs the compiled function on q and x and fn eagerly on a
// clone of q, and checks the results and the queues after the call agree.
func callAndCompare(t *testing.T, c *compile.Compiled, q *torchbind.Object, x *tensor.Tensor) {
	t.Helper()
	eq := cloneQueue(q)
	wantT, _ := guardsModel(eq, x)
	res, err := c.CallArgs(q, x)
	if err != nil {
		t.Fatal(err)
	}
	out := res.([]any)
	sameTensor(t, "x_sin", out[0].(*tensor.Tensor), wantT)
	if out[1] != tensor.ScriptObject(q) {
		t.Fatalf("the graph returned %v, not the queue it was given", out[1])
	}
	got, want := torchbind.Unwrap[*tq.TensorQueue](q).GetRawQueue(), torchbind.Unwrap[*tq.TensorQueue](eq).GetRawQueue()
	if len(got) != len(want) {
		t.Fatalf("the queue holds %d tensors after the compiled call, %d after the eager one", len(got), len(want))
	}
	for i := range got {
		sameTensor(t, fmt.Sprintf("queue[%d]", i), got[i], want[i])
	}
}

// S7: test_compile_script_object_input_guards. The graph is guarded on the
// queue's flattened state; the compiled call runs the real methods on the
// real queue.
func TestCompileGuardsS7(t *testing.T) {
	c := compile.Compile(guardsModel, compile.Options{Fullgraph: true})
	x := tensor.Randn([]int{2, 3})
	var ten []*tensor.Tensor
	for range 10 {
		ten = append(ten, randn(tensor.Float32, false, 4, 5))
	}
	steps := []struct {
		what   string
		q      *torchbind.Object
		frames int
	}{
		{"empty queue", emptyQueue(), 1},
		{"queue length change", emptyQueue(ten...), 2},
		{"tensor in queue changes shape", emptyQueue(randn(tensor.Float32, false, 2, 3)), 3},
		{"no recompile", emptyQueue(randn(tensor.Float32, false, 2, 3)), 3},
		{"tensor in queue changes dispatch key", emptyQueue(randn(tensor.Float32, true, 2, 3)), 4},
		{"tensor in queue changes dtype", emptyQueue(randn(tensor.Float64, true, 2, 3)), 5},
	}
	for _, s := range steps {
		callAndCompare(t, c, s.q, x)
		if f := c.Stats().Frames; f != s.frames {
			t.Fatalf("%s: frame_count %d, want %d\n%s", s.what, f, s.frames, c.Explain())
		}
	}
	st := c.Stats()
	want := []string{
		"len(inputs[0].queue) mismatch. expected 0, actual 10",
		"len(inputs[0].queue) mismatch. expected 10, actual 1",
		"tensor 'inputs[0].queue[0]' requires_grad mismatch. expected requires_grad=0",
		"tensor 'inputs[0].queue[0]' dtype mismatch. expected Float, actual Double",
	}
	if len(st.Recompiles) != len(want) {
		t.Fatalf("recompiles %q", st.Recompiles)
	}
	for i, w := range want {
		if !strings.HasPrefix(st.Recompiles[i], w) {
			t.Errorf("recompile %d: %q, want it to begin %q", i+1, st.Recompiles[i], w)
		}
	}
	// The graph reads size() at run time and is the Dynamo graph's ATen
	// form.
	wantGraph := `def forward(self, arg0_1, arg1_1):
    cos = torch.ops.aten.cos.default(arg1_1)
    call_torchbind = torch.ops.higher_order.call_torchbind(arg0_1, 'push', cos);  cos = None
    sin = torch.ops.aten.sin.default(arg1_1);  arg1_1 = None
    call_torchbind_1 = torch.ops.higher_order.call_torchbind(arg0_1, 'push', sin);  sin = None
    call_torchbind_2 = torch.ops.higher_order.call_torchbind(arg0_1, 'pop')
    call_torchbind_3 = torch.ops.higher_order.call_torchbind(arg0_1, 'size')
    sub = torch.ops.aten.sub.Tensor(call_torchbind_2, call_torchbind_3);  call_torchbind_2 = call_torchbind_3 = None
    return (sub, arg0_1)`
	if got := strings.TrimSpace(c.Graphs()[0].Code()); got != wantGraph {
		t.Errorf("graph:\n%s\nwant:\n%s", got, wantGraph)
	}
}

// S7: test_compile_script_object_input_automatic_dynamic_shape: a tensor
// in the queue going (2,3) -> (2,4) recompiles once with a dynamic dim;
// (2,5) then does not recompile.
func TestCompileAutomaticDynamicS7(t *testing.T) {
	c := compile.Compile(guardsModel, compile.Options{Fullgraph: true})
	x := tensor.Randn([]int{2, 3})
	for i, s := range []struct{ cols, frames int }{{3, 1}, {4, 2}, {5, 2}, {7, 2}} {
		callAndCompare(t, c, emptyQueue(randn(tensor.Float32, false, 2, s.cols)), x)
		if f := c.Stats().Frames; f != s.frames {
			t.Fatalf("call %d, queue[0] of (2,%d): frame_count %d, want %d\n%s", i+1, s.cols, f, s.frames, c.Explain())
		}
	}
	// The dim is dynamic, not any size: 0 and 1 are specialised.
	callAndCompare(t, c, emptyQueue(randn(tensor.Float32, false, 2, 1)), x)
	if f := c.Stats().Frames; f != 3 {
		t.Fatalf("queue[0] of (2,1): frame_count %d, want 3", f)
	}
}

// A graph whose ints depend on a dynamic size of a tensor in the queue
// reads the size from the method call that returned the tensor
// (sym_size.int of its call_torchbind node), so one graph serves every
// size. A size no method call gave cannot be read: it stays static and
// each size recompiles.
func TestCompileStateSizeInGraph(t *testing.T) {
	fn := func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		top := torchbind.Call(q, "top").(*tensor.Tensor)
		return top.Reshape([]int{top.Size(0) * top.Size(1)}).Sum(nil).Add(x)
	}
	c := compile.Compile(fn, compile.Options{Fullgraph: true})
	x := tensor.Randn([]int{1})
	for i, cols := range []int{3, 4, 5, 6} {
		top := randn(tensor.Float32, false, 2, cols)
		res, err := c.CallArgs(emptyQueue(top), x)
		if err != nil {
			t.Fatal(err)
		}
		sameTensor(t, "result", res.(*tensor.Tensor), top.Reshape([]int{2 * cols}).Sum(nil).Add(x))
		if f, want := c.Stats().Frames, min(i+1, 2); f != want {
			t.Fatalf("(2,%d): frame_count %d, want %d", cols, f, want)
		}
	}
	want := `def forward(self, arg0_1, arg1_1):
    call_torchbind = torch.ops.higher_order.call_torchbind(arg0_1, 'top');  arg0_1 = None
    sym_size_int = torch.ops.aten.sym_size.int(call_torchbind, 1)
    mul = sym_size_int * 2;  sym_size_int = None
    view = torch.ops.aten.view.default(call_torchbind, [mul]);  call_torchbind = mul = None
    sum_1 = torch.ops.aten.sum.dim_IntList(view, None);  view = None
    add = torch.ops.aten.add.Tensor(sum_1, arg1_1);  sum_1 = arg1_1 = None
    return add`
	if got := strings.TrimSpace(c.Graphs()[1].Code()); got != want {
		t.Errorf("dynamic graph:\n%s\nwant:\n%s", got, want)
	}

	// The size is read from the fake queue's state, not from a method's
	// result: no node gives it, so it stays static.
	fn2 := func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		n := torchbind.Unwrap[*tq.FakeTensorQueue](q).Queue[0].Size(0)
		y := x.Expand([]int{n})
		return torchbind.Call(q, "pop").(*tensor.Tensor).Add(y)
	}
	c = compile.Compile(fn2, compile.Options{Fullgraph: true})
	for i, cols := range []int{3, 4, 5} {
		q := randn(tensor.Float32, false, cols)
		res, err := c.CallArgs(emptyQueue(q), x)
		if err != nil {
			t.Fatal(err)
		}
		sameTensor(t, "result", res.(*tensor.Tensor), q.Add(x.Expand([]int{cols})))
		if f := c.Stats().Frames; f != i+1 {
			t.Fatalf("(%d): frame_count %d, want %d", cols, f, i+1)
		}
	}
	// The failed attempt left nothing in the static graph.
	if code := c.Graphs()[1].Code(); strings.Contains(code, "sym_size") || !strings.Contains(code, "[4]") {
		t.Errorf("static graph:\n%s", code)
	}
}

// S8: an input tensor that is also in the queue, and methods the fake
// class lacks, under compile.
func TestCompileErrorsS8(t *testing.T) {
	x := tensor.Randn([]int{2, 3})
	c := compile.Compile(func(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return x.Sin(), torchbind.Call(q, "pop").(*tensor.Tensor).Cos()
	}, compile.Options{Fullgraph: true})
	if _, err := c.CallArgs(emptyQueue(x), x); err == nil || !strings.Contains(err.Error(), "inputs[1] is alising inputs[0].queue[0]") {
		t.Fatalf("test_compile_error_on_input_aliasing_contents: %v", err)
	}
	// One tensor twice in the state is the same refusal, as Dynamo's
	// duplicate-input check on flattened script objects gives.
	y := tensor.Randn([]int{2, 3})
	if _, err := c.CallArgs(emptyQueue(y, y), x); err == nil || !strings.Contains(err.Error(), "inputs[0].queue[0] is alising inputs[0].queue[1]") {
		t.Fatalf("a tensor twice in the queue: %v", err)
	}
	if f := c.Stats().Frames; f != 0 {
		t.Fatalf("%d graphs compiled for refused calls", f)
	}
	for _, m := range []string{"_not_defined_attr", "clone_queue"} {
		c := compile.Compile(func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
			torchbind.Call(q, "push", x)
			torchbind.Call(q, m)
			return x
		}, compile.Options{Fullgraph: true})
		if _, err := c.CallArgs(emptyQueue(), x); err == nil || !strings.Contains(err.Error(), "FakeScriptObject doesn't define method "+m) {
			t.Fatalf("%s: %v", m, err)
		}
	}
	// Without Fullgraph the function runs eagerly on the real queue.
	q := emptyQueue()
	c = compile.Compile(func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		torchbind.Call(q, "push", x)
		torchbind.Call(q, "clone_queue")
		return x
	}, compile.Options{Logf: func(string, ...any) {}})
	if _, err := c.CallArgs(q, x); err != nil {
		t.Fatal(err)
	}
	if n := q.Call("size"); n != 1 || c.Stats().Eager != 1 {
		t.Fatalf("eager fallback: size %v, eager %d", n, c.Stats().Eager)
	}
}

// Beyond PyTorch: x + tq.size() traces to a graph that reads the size at
// run time, so one graph is right for queues of every length. PyTorch's
// graph (the ConstantMethodResults option) burns the size in and is wrong
// for any other length.
func TestSymbolicSize(t *testing.T) {
	fn := func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		n := torchbind.Call(q, "size").(int)
		return x.Add(tensor.WrappedNumber(tensor.Int(int64(n)))).Mul(tensor.WrappedNumber(tensor.Int(int64(2*n + 1))))
	}
	x := tensor.Randn([]int{3})
	args := []any{emptyQueue(randn(tensor.Float32, false, 2)), x}
	sym, err := compile.TraceArgs(fn, args, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	burned, err := compile.TraceArgs(fn, args, compile.TraceOptions{Mode: compile.Fake, ConstantMethodResults: true})
	if err != nil {
		t.Fatal(err)
	}
	wantSym := `def forward(self, arg0_1, arg1_1):
    call_torchbind = torch.ops.higher_order.call_torchbind(arg0_1, 'size');  arg0_1 = None
    add = torch.ops.aten.add.Tensor(arg1_1, call_torchbind);  arg1_1 = None
    mul = call_torchbind * 2;  call_torchbind = None
    add_1 = mul + 1;  mul = None
    mul_1 = torch.ops.aten.mul.Tensor(add, add_1);  add = add_1 = None
    return mul_1`
	if got := strings.TrimSpace(sym.Code()); got != wantSym {
		t.Errorf("symbolic graph:\n%s\nwant:\n%s", got, wantSym)
	}
	wantBurned := `def forward(self, arg0_1, arg1_1):
    call_torchbind = torch.ops.higher_order.call_torchbind(arg0_1, 'size');  arg0_1 = None
    add = torch.ops.aten.add.Tensor(arg1_1, 1);  arg1_1 = None
    mul = torch.ops.aten.mul.Tensor(add, 3);  add = None
    return mul`
	if got := strings.TrimSpace(burned.Code()); got != wantBurned {
		t.Errorf("burned-in graph:\n%s\nwant:\n%s", got, wantBurned)
	}
	for _, n := range []int{0, 1, 4, 9} {
		var ts []*tensor.Tensor
		for range n {
			ts = append(ts, randn(tensor.Float32, false, 2))
		}
		q := emptyQueue(ts...)
		want := fn(q, x)
		got, err := fx.NewInterpreter(sym).Run(q, x)
		if err != nil {
			t.Fatal(err)
		}
		sameTensor(t, fmt.Sprintf("symbolic graph, queue of %d", n), got.(*tensor.Tensor), want)
		old, err := fx.NewInterpreter(burned).Run(q, x)
		if err != nil {
			t.Fatal(err)
		}
		if right := old.(*tensor.Tensor).Sub(want).Abs().Max().Item().Float64() == 0; right != (n == 1) {
			t.Errorf("queue of %d: the burned-in graph gives %v, eager %v", n, old.(*tensor.Tensor).Float64s(), want.Float64s())
		}
	}
	// Compiled, the same graph serves every length the guards let through.
	c := compile.Compile(fn, compile.Options{Fullgraph: true})
	for _, n := range []int{2, 2} {
		var ts []*tensor.Tensor
		for range n {
			ts = append(ts, randn(tensor.Float32, false, 2))
		}
		q := emptyQueue(ts...)
		want := fn(emptyQueue(ts...), x)
		got, err := c.CallArgs(q, x)
		if err != nil {
			t.Fatal(err)
		}
		sameTensor(t, "compiled", got.(*tensor.Tensor), want)
	}
	if got := strings.TrimSpace(c.Graphs()[0].Code()); got != wantSym {
		t.Errorf("compiled graph:\n%s", got)
	}
}

// S5's program in the default, symbolic form: size() is read at run time,
// and the graph gives eager's results for a queue of any length.
func TestSymbolicSizeS5(t *testing.T) {
	real := tq.Class.New(tensor.FullOf(tensor.Float32, -1, 1))
	gm, err := compile.TraceArgs(s5, []any{real, tensor.Randn([]int{2, 3})}, compile.TraceOptions{Mode: compile.Fake})
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
    add = torch.ops.aten.add.Tensor(call_torchbind_2, call_torchbind_3);  call_torchbind_2 = call_torchbind_3 = None
    call_torchbind_4 = torch.ops.higher_order.call_torchbind(arg0_1, 'pop')
    call_torchbind_5 = torch.ops.higher_order.call_torchbind(arg0_1, 'size')
    sub = torch.ops.aten.sub.Tensor(call_torchbind_4, call_torchbind_5);  call_torchbind_4 = call_torchbind_5 = None
    return (sub, add, arg0_1)`
	if got := strings.TrimSpace(gm.Code()); got != want {
		t.Errorf("graph:\n%s\nwant:\n%s", got, want)
	}
	if n := torchbind.Unwrap[*tq.TensorQueue](real).Size(); n != 0 {
		t.Errorf("the real queue has %d tensors after tracing, want 0", n)
	}
	for _, n := range []int{0, 3} {
		x := tensor.Randn([]int{2, 3})
		var ts []*tensor.Tensor
		for range n {
			ts = append(ts, randn(tensor.Float32, false, 2, 3))
		}
		q, eq := emptyQueue(ts...), emptyQueue(ts...)
		wantSin, wantCos, _ := s5(eq, x)
		got, err := fx.NewInterpreter(gm).Run(q, x)
		if err != nil {
			t.Fatal(err)
		}
		out := got.(fx.Tuple)
		sameTensor(t, "sub", out[0].(*tensor.Tensor), wantSin)
		sameTensor(t, "add", out[1].(*tensor.Tensor), wantCos)
		if a, b := q.Call("size"), eq.Call("size"); a != b {
			t.Errorf("queue of %d: size %v after the graph, %v after eager", n, a, b)
		}
	}
}

// The methods' alias annotations: PyTorch prints method schemas without
// them (S8's test_method_schema, TestMethodSchemas); AnnotatedSchema has
// them.
func TestAnnotatedSchemas(t *testing.T) {
	q := "__torch__.torch.classes.MyCustomClass.TensorQueue"
	want := map[string]string{
		"push":          "push(" + q + "(a!) _0, Tensor(b -> *) _1) -> NoneType _0",
		"pop":           "pop(" + q + "(a!) _0) -> Tensor(*) _0",
		"top":           "top(" + q + " _0) -> Tensor(*) _0",
		"size":          "size(" + q + " _0) -> int _0",
		"clone_queue":   "clone_queue(" + q + " _0) -> " + q + " _0",
		"get_raw_queue": "get_raw_queue(" + q + " _0) -> Tensor(*)[] _0",
		"for_each_add_": "for_each_add_(" + q + "(a!) _0, Tensor _1) -> NoneType _0",
	}
	for name, s := range want {
		m := tq.Class.Method(name)
		if got := m.AnnotatedSchema(); got != s {
			t.Errorf("%s: got %q, want %q", name, got, s)
		}
		if strings.ContainsAny(m.Schema(), "!*") {
			t.Errorf("%s: the plain schema %q has annotations", name, m.Schema())
		}
	}
	push, pop := tq.Class.Method("push"), tq.Class.Method("pop")
	if !push.Mutates() || !push.Stores(1) || push.ReturnsAlias() || !pop.Mutates() || pop.Stores(1) || !pop.ReturnsAlias() {
		t.Errorf("push: mutates %v stores %v; pop: mutates %v returns alias %v", push.Mutates(), push.Stores(1), pop.Mutates(), pop.ReturnsAlias())
	}
	if m := tq.Class.Method("size"); m.Mutates() || m.ReturnsAlias() {
		t.Error("size is declared to mutate or alias")
	}
}

// Goroutines calling one compiled function, each with its own queue: the
// graphs and guards are shared, each call changes its own queue only.
func TestCompileConcurrentQueues(t *testing.T) {
	c := compile.Compile(guardsModel, compile.Options{Fullgraph: true})
	x := tensor.Randn([]int{2, 3})
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			errs <- tensor.Try(func() {
				for i := range 10 {
					q := emptyQueue(randn(tensor.Float32, false, 2, 3+g%2))
					want, _ := guardsModel(cloneQueue(q), x)
					res, err := c.CallArgs(q, x)
					if err != nil {
						tensor.Panicf("goroutine %d call %d: %v", g, i, err)
					}
					got := res.([]any)[0].(*tensor.Tensor)
					if d := got.Sub(want).Abs().Max().Item().Float64(); d != 0 || q.Call("size") != 2 {
						tensor.Panicf("goroutine %d call %d: differs from eager by %v, queue size %v", g, i, d, q.Call("size"))
					}
				}
			})
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if f := c.Stats().Frames; f > 2 {
		t.Errorf("%d graphs for two queue shapes", f)
	}
}

// test_compile_obj_closure / test_compile_global_obj: a queue fn closes
// over is a graph attribute the graph calls at run time, and the graph is
// guarded on its state as an input's would be.
func TestCompileClosedOverQueue(t *testing.T) {
	mk := func(q *torchbind.Object) func(x *tensor.Tensor) *tensor.Tensor {
		return func(x *tensor.Tensor) *tensor.Tensor {
			torchbind.Call(q, "push", x.Sin())
			return torchbind.Call(q, "pop").(*tensor.Tensor)
		}
	}
	q, eq := emptyQueue(), emptyQueue()
	c := compile.Compile(mk(q), compile.Options{Fullgraph: true})
	eager := mk(eq)
	x := tensor.Randn([]int{3, 2})
	for i := range 3 {
		if i == 2 {
			// The queue's state changes between calls: a recompile.
			q.Call("push", randn(tensor.Float32, false, 3, 2))
			eq.Call("push", q.Call("top").(*tensor.Tensor).Clone())
		}
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameTensor(t, fmt.Sprintf("call %d", i), res.(*tensor.Tensor), eager(x))
		if a, b := q.Call("size"), eq.Call("size"); a != b {
			t.Fatalf("call %d: queue size %v, eager %v", i, a, b)
		}
	}
	st := c.Stats()
	if st.Frames != 2 || len(st.Recompiles) != 1 || !strings.HasPrefix(st.Recompiles[0], "len(_torchbind_obj0.queue) mismatch. expected 0, actual 1") {
		t.Errorf("frames %d, recompiles %q", st.Frames, st.Recompiles)
	}
	if !strings.Contains(c.Graphs()[0].Code(), "_torchbind_obj0 = self._torchbind_obj0") {
		t.Errorf("graph:\n%s", c.Graphs()[0].Code())
	}
}

// test_compile_body_aliasing_contents: views of the input pushed into the
// queue; the compiled call pushes the same views eager pushes.
func TestCompileBodyAliasingContents(t *testing.T) {
	fn := func(q tensor.ScriptObject, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, tensor.ScriptObject) {
		x1 := x.View([]int{-1})
		x2 := x.Permute([]int{1, 0})
		torchbind.Call(q, "push", x1)
		torchbind.Call(q, "push", x2)
		n := func() *tensor.Tensor { return tensor.WrappedNumber(tensor.Int(int64(torchbind.Call(q, "size").(int)))) }
		return x1.Sub(n()), x2.Add(n()), q
	}
	x := tensor.Randn([]int{2, 3})
	eq, q := emptyQueue(), emptyQueue()
	w1, w2, _ := fn(eq, x)
	res, err := compile.Compile(fn, compile.Options{Fullgraph: true}).CallArgs(q, x)
	if err != nil {
		t.Fatal(err)
	}
	out := res.([]any)
	sameTensor(t, "x1 - size", out[0].(*tensor.Tensor), w1)
	sameTensor(t, "x2 + size", out[1].(*tensor.Tensor), w2)
	got := torchbind.Unwrap[*tq.TensorQueue](q).GetRawQueue()
	want := torchbind.Unwrap[*tq.TensorQueue](eq).GetRawQueue()
	for i := range want {
		sameTensor(t, fmt.Sprintf("queue[%d]", i), got[i], want[i])
		if fmt.Sprint(got[i].Strides()) != fmt.Sprint(want[i].Strides()) {
			t.Errorf("queue[%d]: strides %v, eager %v", i, got[i].Strides(), want[i].Strides())
		}
	}
	// They are views of x, as eager's: a write into x shows in the queue.
	x.Add_(tensor.WrappedNumber(tensor.Int(1)))
	sameTensor(t, "queue[0] after x += 1", got[0], want[0])
}
