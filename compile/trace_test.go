package compile_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

type T = tensor.Tensor

// sections reads testdata/ref_graphs_113.out: "==== title" headers, each
// followed by a graph text ending at a blank line (PyTorch 1.13.1's make_fx
// output for the programs of ref_graphs_113.py, written here in Go).
func sections(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/ref_graphs_113.out")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		title, ok := strings.CutPrefix(lines[i], "==== ")
		if !ok {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != "" {
			j++
		}
		out[strings.TrimSpace(title)] = strings.Join(lines[i+1:j], "\n")
		i = j
	}
	return out
}

func checkGolden(t *testing.T, title string, gm *fx.GraphModule, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", title, err)
	}
	want := sections(t)[title]
	if got := strings.TrimSpace(gm.Code()); got != want {
		t.Errorf("%s: got\n%s\nwant\n%s", title, got, want)
	}
}

// num is a Python number given where an op takes a Tensor (x * 2 in
// Python calls mul.Tensor with a wrapped number).
func num(v any) *T { s, _ := tensor.ToScalar(v); return tensor.WrappedNumber(s) }

func chain(x *T) *T { return x.Mul(num(2)).Add(num(1)).Sigmoid().Mul(x) }

func TestTraceChain(t *testing.T) {
	x := tensor.Randn([]int{4})
	for _, mode := range []compile.Mode{compile.Real, compile.Fake} {
		gm, err := compile.Trace(chain, []*T{x}, compile.TraceOptions{Mode: mode, ArgNames: []string{"x"}})
		checkGolden(t, "make_fx chain", gm, err)
	}
}

func mlp(x, w, b *T) *T { return x.Matmul(w).Add(b).Gelu().Softmax(-1) }

func TestTraceMLP(t *testing.T) {
	x, w, b := tensor.Randn([]int{2, 4}), tensor.Randn([]int{4, 3}), tensor.Randn([]int{3})
	gm, err := compile.Trace(mlp, []*T{x, w, b}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x", "w", "b"}})
	checkGolden(t, "make_fx mlp (no decomp)", gm, err)
}

func TestTraceDecompositions(t *testing.T) {
	x, w, b := tensor.Randn([]int{2, 4}), tensor.Randn([]int{4, 3}), tensor.Randn([]int{3})
	d, err := compile.GetDecompositions("aten::gelu", "aten::_softmax", "aten::addmm")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := compile.Trace(mlp, []*T{x, w, b}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x", "w", "b"}, Decompositions: d})
	checkGolden(t, "make_fx mlp (gelu/_softmax/addmm decomposed)", gm, err)
	if _, err := compile.GetDecompositions("aten::mm"); err == nil {
		t.Error("no error for an op without a decomposition")
	}
}

func mutate(a *T) *T {
	b := a.View([]int{-1})
	b.Add_(num(1))
	c := a.Select(0, 0)
	c.Mul_(num(2))
	return a.SumAll()
}

func TestTraceMutate(t *testing.T) {
	a := tensor.FullOf(tensor.Float32, 1, 2, 3)
	gm, err := compile.Trace(mutate, []*T{a}, compile.TraceOptions{ArgNames: []string{"a"}})
	checkGolden(t, "make_fx mutate (no functionalize)", gm, err)
	// A real-mode trace runs the function on the inputs, as make_fx does.
	if got := a.Float64s(); got[0] != 4 || got[5] != 2 {
		t.Errorf("the traced function's writes: %v", got)
	}
}

// Two goroutines tracing at once, while a third runs eager ops, each get
// exactly their own graph.
func TestTraceGoroutines(t *testing.T) {
	want := sections(t)["make_fx chain"]
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				x := tensor.Randn([]int{4})
				if g == 2 {
					y := chain(x) // eager
					if y.Numel() != 4 {
						errs <- "eager result"
					}
					continue
				}
				gm, err := compile.Trace(chain, []*T{x}, compile.TraceOptions{Mode: compile.Mode(g), ArgNames: []string{"x"}})
				if err != nil {
					errs <- err.Error()
					continue
				}
				if got := strings.TrimSpace(gm.Code()); got != want {
					errs <- "goroutine graph:\n" + got
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Factory calls inside the traced function are recorded (they reach the
// tracer through the goroutine's modes), and a Backward inside it records
// the backward ops.
func TestTraceFactoryAndBackward(t *testing.T) {
	f := func(x *T) *T {
		z := tensor.ZerosOf([]int{2, 3})
		return x.Add(z).Add(tensor.Arange(0, 3))
	}
	gm, err := compile.Trace(f, []*T{tensor.Randn([]int{2, 3})}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	code := gm.Code()
	for _, want := range []string{"torch.ops.aten.zeros.default([2, 3]", "torch.ops.aten.arange.start_step(0, 3"} {
		if !strings.Contains(code, want) {
			t.Errorf("no %q in\n%s", want, code)
		}
	}
	w := tensor.Randn([]int{3}).SetRequiresGrad(true)
	g := func(x *T) *T {
		loss := x.Mul(w).SumAll()
		loss.Backward()
		return loss
	}
	gm, err = compile.Trace(g, []*T{tensor.Randn([]int{3})}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if code := gm.Code(); !strings.Contains(code, "torch.ops.aten.expand.default") || !strings.Contains(code, "mul_1 = torch.ops.aten.mul.Tensor") {
		t.Errorf("the backward is not in the graph:\n%s", code)
	}
}

// RunDecompositions on a traced graph gives the graph traced with the
// table in the first place.
func TestRunDecompositions(t *testing.T) {
	x, w, b := tensor.Randn([]int{2, 4}), tensor.Randn([]int{4, 3}), tensor.Randn([]int{3})
	gm, err := compile.Trace(mlp, []*T{x, w, b}, compile.TraceOptions{Mode: compile.Fake, ArgNames: []string{"x", "w", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := compile.GetDecompositions("aten::gelu", "aten::_softmax")
	out, err := compile.RunDecompositions(gm, d)
	checkGolden(t, "make_fx mlp (gelu/_softmax/addmm decomposed)", out, err)
}
