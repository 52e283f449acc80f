package compile_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

func sameValues(t *testing.T, what string, got, want *T) {
	t.Helper()
	if !slices.Equal(got.Sizes(), want.Sizes()) || got.DType() != want.DType() {
		t.Fatalf("%s: got %v %s, want %v %s", what, got.Sizes(), got.DType(), want.Sizes(), want.DType())
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		if g[i] != w[i] && !(g[i] != g[i] && w[i] != w[i]) {
			t.Fatalf("%s: element %d: got %v, want %v", what, i, g[i], w[i])
		}
	}
}

// Recompiles happen on a guard miss, each with PyTorch's reason, and their
// count follows PyTorch's: static sizes, a dtype change, a requires-grad
// change, a dim that changed becoming dynamic (no recompile after), and the
// recompile limit.
func TestCompileRecompiles(t *testing.T) {
	var logged []string
	c := compile.Compile(chain, compile.Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	call := func(x *T) {
		t.Helper()
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, "compiled chain", res.(*T), chain(x))
	}
	x := tensor.Randn([]int{2, 3})
	call(x)
	call(tensor.Randn([]int{2, 3})) // same guards: a cache hit
	call(x.To(tensor.Float64))      // dtype
	xr := tensor.Randn([]int{2, 3}).SetRequiresGrad(true)
	call(xr) // requires_grad
	s := c.Stats()
	if s.Frames != 3 || s.Hits != 1 {
		t.Fatalf("frames %d hits %d, want 3 and 1", s.Frames, s.Hits)
	}
	want := []string{
		"tensor 'inputs[0]' dtype mismatch. expected Float, actual Double",
		"tensor 'inputs[0]' dtype mismatch. expected Double, actual Float; tensor 'inputs[0]' requires_grad mismatch. expected requires_grad=0",
	}
	if !slices.Equal(s.Recompiles[:2], want) {
		t.Fatalf("reasons %q, want %q", s.Recompiles, want)
	}
	// Automatic dynamic shapes: (2,3) -> (2,4) recompiles once with dim 1
	// dynamic; (2,5) does not recompile.
	d := compile.Compile(chain)
	for _, n := range []int{3, 4, 5, 6} {
		if _, err := d.Call(tensor.Randn([]int{2, n})); err != nil {
			t.Fatal(err)
		}
	}
	if s := d.Stats(); s.Frames != 2 || s.Recompiles[0] != "tensor 'inputs[0]' size mismatch at index 1. expected 3, actual 4" {
		t.Fatalf("automatic dynamic: frames %d, reasons %q", s.Frames, s.Recompiles)
	}
	if !strings.Contains(c.Explain(), "recompile 1: tensor 'inputs[0]' dtype mismatch") {
		t.Errorf("Explain:\n%s", c.Explain())
	}
}

// A graph that bakes in a float computed from a size cannot make that dim
// dynamic: each new size recompiles, until the limit; then the function
// runs eagerly (logged) or, with Fullgraph, fails.
func TestCompileRecompileLimit(t *testing.T) {
	flat := func(x *T) *T { return x.Mul(num(1 / float64(x.Sizes()[1]))) }
	for _, full := range []bool{false, true} {
		var logged []string
		c := compile.Compile(flat, compile.Options{RecompileLimit: 3, Fullgraph: full,
			Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
		var err error
		for n := 1; n <= 5; n++ {
			var res any
			x := tensor.Randn([]int{2, n})
			res, err = c.Call(x)
			if err != nil {
				break
			}
			sameValues(t, fmt.Sprintf("n=%d", n), res.(*T), flat(x))
		}
		s := c.Stats()
		if s.Frames != 3 {
			t.Fatalf("fullgraph=%v: %d frames, want 3", full, s.Frames)
		}
		if full {
			if err == nil || !strings.Contains(err.Error(), "recompile limit (3) reached; last reason: tensor 'inputs[0]' size mismatch at index 1. expected 3, actual 4") {
				t.Fatalf("fullgraph: err %v", err)
			}
			continue
		}
		if err != nil || s.Eager != 2 || len(logged) == 0 || !strings.Contains(logged[len(logged)-1], "running eagerly") {
			t.Fatalf("fallback: err %v, eager %d, log %q", err, s.Eager, logged)
		}
	}
}

// The grad mode is guarded: the same inputs under NoGrad recompile.
func TestCompileGradModeGuard(t *testing.T) {
	c := compile.Compile(chain)
	x := tensor.Randn([]int{3}).SetRequiresGrad(true)
	if _, err := c.Call(x); err != nil {
		t.Fatal(err)
	}
	autograd.NoGrad(func() {
		if _, err := c.Call(x); err != nil {
			t.Fatal(err)
		}
	})
	if s := c.Stats(); s.Frames != 2 || s.Recompiles[0] != "grad_mode mismatch. expected True, actual False" {
		t.Fatalf("frames %d reasons %q", s.Frames, s.Recompiles)
	}
}

// Gradients flow through a compiled call (autograd over the interpreted
// graph) and equal eager ones.
func TestCompileGradients(t *testing.T) {
	f := compile.Fn2(func(x, w *T) *T { return x.Matmul(w).Tanh().SumAll() })
	x := tensor.Randn([]int{3, 4})
	w1 := tensor.Randn([]int{4, 2}).SetRequiresGrad(true)
	w2 := w1.Detach().SetRequiresGrad(true)
	f(x, w1).Backward()
	x.Matmul(w2).Tanh().SumAll().Backward()
	sameValues(t, "grad", w1.Grad(), w2.Grad())
}

// Bad input: a wrong number of inputs, a function that panics while traced.
func TestCompileBadInput(t *testing.T) {
	c := compile.Compile(chain)
	if _, err := c.Call(); err == nil {
		t.Error("no error for a missing input")
	}
	bad := compile.Compile(func(x *T) *T { return x.Mm(x) }, compile.Options{Fullgraph: true})
	_, err := bad.Call(tensor.Randn([]int{2, 3}))
	if err == nil || !strings.Contains(err.Error(), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)") {
		t.Fatalf("err %v", err)
	}
	// Still usable.
	if res, err := bad.Call(tensor.Randn([]int{3, 3})); err != nil || res.(*T).Numel() != 9 {
		t.Fatalf("after an error: %v %v", res, err)
	}
}

// A function that reads tensor data runs in segments: the graph before the
// read and each branch after it are compiled and cached under their own
// guards, and the results are the eager ones. With Fullgraph the read is an
// error naming the op and the line.
func TestCompileSegments(t *testing.T) {
	step := func(x, w *T) *T {
		loss := x.Mul(w).SumAll()
		if loss.Item().Float64() > 0 {
			return x.Mul(num(2)).Add(loss)
		}
		return x.Neg().Exp()
	}
	c := compile.Compile(step, compile.Options{Logf: func(string, ...any) {}})
	w := tensor.FromSlice([]float32{1, 2, 3})
	pos, neg := tensor.FromSlice([]float32{1, 1, 1}), tensor.FromSlice([]float32{-1, -1, -1})
	for i, x := range []*T{pos, pos, neg, pos, neg} {
		res, err := c.Call(x, w)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		sameValues(t, fmt.Sprintf("call %d", i), res.(*T), step(x, w))
	}
	s := c.Stats()
	// Calls 1-2: the segment before the read, the positive branch; call 3:
	// the negative branch; then cache hits only.
	if s.Segments != 3 || s.SegmentHits != 7 {
		t.Fatalf("segments %d, hits %d, want 3 and 7", s.Segments, s.SegmentHits)
	}
	full := compile.Compile(step, compile.Options{Fullgraph: true})
	_, err := full.Call(pos, w)
	if err == nil || !compile.IsDataDependent(err) || !strings.Contains(err.Error(), "aten::_local_scalar_dense reads tensor data") || !strings.Contains(err.Error(), "compile_test.go") {
		t.Fatalf("fullgraph: %v", err)
	}
}

// A dim that changes between calls becomes symbolic: the graph computes
// the ints that depend on it from sym_size nodes (here the view's size), so
// further sizes reuse it; sizes 0 and 1 are specialised.
func TestCompileSymbolicDims(t *testing.T) {
	flat := func(x *T) *T { return x.View([]int{x.Sizes()[0] * x.Sizes()[1]}).Mul(num(2)) }
	c := compile.Compile(flat)
	for _, n := range []int{3, 4, 5, 7, 2} {
		x := tensor.Randn([]int{2, n})
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		sameValues(t, fmt.Sprintf("n=%d", n), res.(*T), flat(x))
	}
	s := c.Stats()
	if s.Frames != 2 {
		t.Fatalf("frames %d, want 2 (%q)", s.Frames, s.Recompiles)
	}
	want := `def forward(self, arg0_1):
    sym_size_int = torch.ops.aten.sym_size.int(arg0_1, 1)
    mul = sym_size_int * 2;  sym_size_int = None
    view = torch.ops.aten.view.default(arg0_1, [mul]);  arg0_1 = mul = None
    mul_1 = torch.ops.aten.mul.Tensor(view, 2);  view = None
    return mul_1`
	if got := strings.TrimSpace(c.Graphs()[1].Code()); got != want {
		t.Errorf("symbolic graph:\n%s\nwant\n%s", got, want)
	}
	// Marked dynamic up front (mark_dynamic): one graph from the first call.
	up := compile.Compile(flat, compile.Options{Dynamic: map[int][]int{0: {1}}})
	for _, n := range []int{3, 4, 5} {
		if _, err := up.Call(tensor.Randn([]int{2, n})); err != nil {
			t.Fatal(err)
		}
	}
	if s := up.Stats(); s.Frames != 1 {
		t.Fatalf("Dynamic up front: %d frames (%q)", s.Frames, s.Recompiles)
	}
	if _, err := c.Call(tensor.Randn([]int{2, 1})); err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Frames != 3 || !strings.Contains(s.Recompiles[1], "expected a dynamic size >= 2, actual 1") {
		t.Fatalf("size 1: frames %d, reasons %q", s.Frames, s.Recompiles)
	}
}

// BindCall binds a node as the Eager program does: the node arguments'
// slots are reported, and Invoke runs the op on the slots' values.
func TestBindCall(t *testing.T) {
	f := func(x, y *tensor.Tensor) *tensor.Tensor { return x.Add(y, tensor.WithAlpha(2)).Sum([]int{1}) }
	x, y := tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2), tensor.FromSlice([]float32{10, 20, 30, 40}, 2, 2)
	gm, err := compile.Trace(f, []*tensor.Tensor{x, y}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	slots := map[*fx.Node]int{}
	for i, n := range gm.Graph.Nodes() {
		slots[n] = i
	}
	vals := make([]any, len(slots))
	vals[0], vals[1] = x, y
	for i, n := range gm.Graph.Nodes() {
		if n.Op != fx.OpCallFunction {
			continue
		}
		c, ok := compile.BindCall(n, slots)
		if !ok {
			t.Fatalf("%s: not bound", n.Name)
		}
		if c.Op() == nil || len(c.ArgSlots()) == 0 {
			t.Fatalf("%s: op %v, slots %v", n.Name, c.Op(), c.ArgSlots())
		}
		vals[i] = c.Invoke(vals)
	}
	got := vals[len(vals)-2].(*tensor.Tensor).Float64s()
	if fmt.Sprint(got) != "[63 147]" {
		t.Fatalf("got %v", got)
	}
}
