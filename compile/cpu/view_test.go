package cpu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// TestViewSteps: a graph's views (view, transpose, permute, expand, select,
// split, unsqueeze, t) are made by the plan without the dispatcher, give
// the Eager backend's values, alias the same storages as the Eager
// backend's results (a returned view of an input is still a view of it),
// and a warm call allocates less than the dispatcher's views did.
func TestViewSteps(t *testing.T) {
	f := func(x, w *tensor.Tensor) []*tensor.Tensor {
		h := x.View([]int{4, 8, 16}).Transpose(1, 2)      // [4 16 8]
		p := h.Bmm(w.Unsqueeze(0).Expand([]int{4, 8, 6})) // [4 16 6]
		parts := p.Permute([]int{2, 0, 1}).SplitWithSizes([]int{2, 4})
		return []*tensor.Tensor{parts[0].Sigmoid(), parts[1].Select(0, 3).Exp(), w.T().Mm(w), x.T()}
	}
	x, w := randn(true, 32, 16), randn(false, 8, 6)
	run := func(b compile.Backend) []*tensor.Tensor {
		c := compile.Compile(f, compile.Options{Backend: b})
		var res any
		var err error
		for range 2 {
			if res, err = c.Call(x, w); err != nil {
				t.Fatal(err)
			}
		}
		return tensors(res)
	}
	got, want := run(cpu.Backend), run(compile.Eager)
	for i := range want {
		if err := sameBits(got[i], want[i]); err != nil {
			t.Errorf("result %d differs from Eager's: %v", i, err)
		}
	}
	if got[3].Storage() != x.Storage() || want[3].Storage() != x.Storage() {
		t.Errorf("x.T() returned from the plan is not a view of x")
	}

	gm, err := compile.Trace(f, []*tensor.Tensor{x, w}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := cpu.Describe(gm, []*tensor.Tensor{x, w})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"view", "transpose", "unsqueeze", "expand", "permute", "split_with_sizes", "select", "t"} {
		if !strings.Contains(plan, "view %"+v+" ") {
			t.Errorf("the plan does not make %s itself:\n%s", v, plan)
		}
	}
	if strings.Contains(plan, "call %view") || !strings.Contains(plan, "call %bmm") {
		t.Errorf("plan:\n%s", plan)
	}
}

// TestViewHeaderReuse: a view that only feeds an aten op keeps its header
// from call to call, re-pointed at each call's input, while a view the
// graph returns is a new header each call: two calls on different inputs
// give eager's results, and the first call's returned view still shows
// the first input after the second call.
func TestViewHeaderReuse(t *testing.T) {
	w := randnSeeded(50, 8, 5)
	f := func(x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return x.T().Mm(w).Relu(), x.T()
	}
	cc := compile.Compile(f, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	call := func(x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		r, err := cc.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		l := r.([]any)
		return l[0].(*tensor.Tensor), l[1].(*tensor.Tensor)
	}
	x1, x2 := randnSeeded(51, 8, 6), randnSeeded(52, 8, 6)
	call(x1) // the trace
	p1, v1 := call(x1)
	p2, v2 := call(x2)
	if v1 == v2 {
		t.Fatal("a returned view's header was handed out twice")
	}
	for i, c := range []struct{ got, want *tensor.Tensor }{
		{p1, x1.T().Mm(w).Relu()}, {p2, x2.T().Mm(w).Relu()}, {v1, x1.T()}, {v2, x2.T()},
	} {
		if !slices.Equal(c.got.Contiguous().Float32s(), c.want.Contiguous().Float32s()) {
			t.Errorf("result %d differs from eager's", i)
		}
	}
}

// TestGroupOutputHeaderKept: a fusion group's value that only an aten op
// reads (here a matrix product) keeps its header from call to call, given
// each call's storage, while the value the graph returns is a new tensor
// each call: calls on different inputs give eager's results, and the first
// call's result is intact after the second.
func TestGroupOutputHeaderKept(t *testing.T) {
	w := randnSeeded(53, 6, 5)
	f := func(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(2).AddScalar(1).Mm(w).Relu() }
	cc := compile.Compile(f, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	call := func(x *tensor.Tensor) *tensor.Tensor {
		r, err := cc.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		return r.(*tensor.Tensor)
	}
	x1, x2 := randnSeeded(54, 8, 6), randnSeeded(55, 8, 6)
	call(x1) // the trace
	r1 := call(x1)
	want1 := slices.Clone(r1.Float32s())
	r2 := call(x2)
	if r1 == r2 || r1.Storage() == r2.Storage() {
		t.Fatal("two calls returned the same result")
	}
	if !slices.Equal(r1.Float32s(), want1) || !slices.Equal(want1, f(x1).Float32s()) || !slices.Equal(r2.Float32s(), f(x2).Float32s()) {
		t.Error("results differ from eager's")
	}
}
