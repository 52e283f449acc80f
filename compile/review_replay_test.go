package compile_test

import (
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

// callSame calls c and eager fn on x and compares the results.
func callSame(t *testing.T, c *compile.Compiled, fn func(*T) *T, x *T, what string) {
	t.Helper()
	want := fn(x)
	res, err := c.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, what, res.(*T), want)
}

// A sizes buffer the Go code reuses after passing it to a view: neither the
// graph of the segment (keyed and compiled when the segment ends, after the
// buffer changed) nor the tape (compared with the next call's arguments)
// takes the changed values.
func TestSegmentSizesBufferReused(t *testing.T) {
	buf := []int{6, 2}
	k := 0
	fn := func(x *T) *T {
		buf[0], buf[1] = 6, 2
		if k%2 == 1 {
			buf[0], buf[1] = 3, 4
		}
		y := x.View(buf).Sin()
		buf[0], buf[1] = 2, 6 // reused for something else
		y = y.Reshape(buf).MulScalar(2)
		if y.SumAll().Item().Float64() > 1e9 {
			return y
		}
		return y.Cos()
	}
	c := compile.Compile(fn, compile.Options{Logf: func(string, ...any) {}})
	x := tensor.Randn([]int{12})
	for k = range 6 {
		callSame(t, c, fn, x, "result")
	}
}

// Go values that change between calls without being tensor inputs: a
// float a closure reads (a scalar operand), a closed-over tensor replaced
// by another of the same metadata, a closed-over tensor whose
// requires_grad flips, an input of another dtype, the grad mode the call
// starts in. Each call equals eager's: the tape is left, or another graph
// runs.
func TestSegmentReplayGoValues(t *testing.T) {
	tensor.ManualSeed(8)
	scale := 0.5
	w := tensor.Randn([]int{3})
	fn := func(x *T) *T {
		y := x.Mul(w.To(x.DType())).MulScalar(scale)
		if y.SumAll().Item().Float64() > 1e9 {
			return y
		}
		return y.Tanh()
	}
	c := compile.Compile(fn, compile.Options{Logf: func(string, ...any) {}})
	x := tensor.Randn([]int{3})
	callSame(t, c, fn, x, "call 1")
	callSame(t, c, fn, x, "call 2 (replayed)")
	if s := c.Stats(); s.SegmentReplays == 0 {
		t.Fatalf("stats %+v: call 2 should replay call 1's tape", s)
	}
	scale = 0.25
	callSame(t, c, fn, x, "a closure float changed")
	w = tensor.Randn([]int{3})
	callSame(t, c, fn, x, "another closed-over tensor")
	w.Fill_(tensor.Float(3))
	callSame(t, c, fn, x, "the closed-over tensor written in place")
	callSame(t, c, fn, x.To(tensor.Float64), "a float64 input")
	w = w.Clone().SetRequiresGrad(true)
	res, err := c.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	if !res.(*T).RequiresGrad() {
		t.Fatalf("closed-over tensor requires grad: the result must too")
	}
	autograd.NoGrad(func() {
		res, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		if res.(*T).RequiresGrad() {
			t.Fatalf("under NoGrad the result must not require grad")
		}
		sameValues(t, "under NoGrad", res.(*T), fn(x))
	})
	res, err = c.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	if !res.(*T).RequiresGrad() {
		t.Fatalf("grad mode back on: the result must require grad")
	}
	res.(*T).SumAll().Backward()
	want := fn(x)
	g := w.Grad().Clone()
	autograd.SetGrad(w, nil)
	want.SumAll().Backward()
	sameValues(t, "w.grad", g, w.Grad())
}
