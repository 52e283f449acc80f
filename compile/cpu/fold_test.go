package cpu_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// TestFoldConstants: a causal mask made from full and triu (as an
// attention block makes it) is computed when the plan is made, not at each
// call — the plan lists those calls as constants — and two calls on
// different inputs still give eager's bits.
func TestFoldConstants(t *testing.T) {
	f := func(x *tensor.Tensor) *tensor.Tensor {
		future := tensor.FullOf(tensor.Bool, true, 6, 6).Triu(tensor.WithDiagonal(1))
		pos := tensor.ArangeOf(tensor.Float32, 0, 6, 1).MulScalar(0.5)
		return x.Add(pos).MaskedFillScalar(future, math.Inf(-1)).Softmax(-1)
	}
	x := randnSeeded(60, 2, 6, 6)
	gm, err := compile.Trace(f, []*tensor.Tensor{x}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := cpu.Describe(gm, []*tensor.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"full", "triu", "arange"} {
		if !strings.Contains(plan, "constant %"+op) || strings.Contains(plan, "call %"+op) {
			t.Errorf("%s is not folded:\n%s", op, plan)
		}
	}
	cc := compile.Compile(f, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	for i, in := range []*tensor.Tensor{x, x, randnSeeded(61, 2, 6, 6)} {
		r, err := cc.Call(in)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := r.(*tensor.Tensor).Float32s(), f(in).Float32s(); !slices.Equal(got, want) {
			t.Errorf("call %d differs from eager's", i)
		}
	}
}

// TestFoldKeepsOutputsFresh: a factory's value the graph returns, or a
// view of it, is made anew by each call (a caller may write it), and a
// value computed from a parameter is not folded (an optimizer updates the
// parameter in place between calls).
func TestFoldKeepsOutputsFresh(t *testing.T) {
	w := randnSeeded(62, 3, 4)
	f := func(x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, *tensor.Tensor) {
		z := tensor.FullOf(tensor.Float32, 2, 4, 3)
		return z, z.T(), x.Add(w.MulScalar(2))
	}
	cc := compile.Compile(f, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	call := func(x *tensor.Tensor) []*tensor.Tensor {
		r, err := cc.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		var out []*tensor.Tensor
		for _, v := range r.([]any) {
			out = append(out, v.(*tensor.Tensor))
		}
		return out
	}
	x := randnSeeded(63, 3, 4)
	call(x) // the trace
	a := call(x)
	a[0].AddScalar_(1)
	a[1].AddScalar_(1)
	w.AddScalar_(1)
	b := call(x)
	w0, w1, w2 := f(x)
	want := []*tensor.Tensor{w0, w1, w2}
	for i := range b {
		if !slices.Equal(b[i].Contiguous().Float32s(), want[i].Contiguous().Float32s()) {
			t.Errorf("result %d of the second call is not eager's (a folded value was written, or a parameter's use folded)", i)
		}
	}
	if a[0].Storage() == b[0].Storage() || a[1].Storage() == b[1].Storage() {
		t.Error("two calls returned the same storage")
	}
}
