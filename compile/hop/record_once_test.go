package hop_test

import (
	"testing"

	"github.com/goaten/goaten/autograd"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// Recording a higher-order op's sub-programs happens once per compile:
// the Go functions run while the graph is traced (once each, for a trace
// that lifts nothing), never when the compiled graph runs, however many
// steps its loops take and however often it is called.
func TestSubprogramsRecordedOnce(t *testing.T) {
	var nCond, nBody, nCombine, nTrue, nFalse, nMap int
	cond := func(a ...*T) *T { nCond++; return a[0].LtScalar(50) }
	body := func(a ...*T) []*T { nBody++; return ts(a[0].AddScalar(1), a[1].MulScalar(0.5).Add(a[2])) }
	combine := func(carry, x, _ []*T) ([]*T, []*T) {
		nCombine++
		n := carry[0].Add(x[0])
		return ts(n), ts(n.Clone())
	}
	tr := func(a ...*T) []*T { nTrue++; return ts(a[0].Sin()) }
	fa := func(a ...*T) []*T { nFalse++; return ts(a[0].Cos()) }
	mf := func(a ...*T) []*T { nMap++; return ts(a[0].MulScalar(2)) }
	prog := func(i, x, y, xs *T) []*T {
		w := hop.WhileLoop(cond, body, ts(i, x), ts(y))
		c, ys := hop.Scan(combine, ts(w[1]), ts(xs), 0, false)
		r := hop.Cond(c[0].SumAll().GtScalar(0), tr, fa, ts(ys[0]))
		return hop.Map(mf, r, nil)
	}
	i := tensor.FromSlice([]int64{0}).Reshape([]int{})
	x, y, xs := tensor.Randn([]int{4}), tensor.Randn([]int{4}), tensor.Randn([]int{30, 4})
	counts := func() [6]int { return [6]int{nCond, nBody, nCombine, nTrue, nFalse, nMap} }
	want := prog(i, x, y, xs)
	eager := counts()
	if eager[0] != 51 || eager[1] != 50 || eager[2] != 30 || eager[5] != 30 {
		t.Fatalf("eager calls (cond, body, combine, true, false, map) %v", eager)
	}
	c := compile.Compile(prog, compile.Options{Fullgraph: true})
	for k := range 5 {
		got, err := c.Call(i, x, y, xs)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "compiled", results(got), want)
		now := counts()
		for j := range now {
			if d := now[j] - eager[j]; d != 1 {
				t.Fatalf("call %d: sub-program %d ran %d times since the eager run, want once (the trace)", k, j, d)
			}
		}
	}
	if s := c.Stats(); s.Frames != 1 {
		t.Errorf("stats %+v", s)
	}
}

// A compiled function whose result needs grad only through a parameter a
// higher-order op's sub-program closes over (lifted to the op's operands
// below its autograd rule) trains: the parameter's gradient equals
// eager's, through cond, while_loop, scan, map and checkpoint.
func TestCompiledClosedOverParamGrad(t *testing.T) {
	w := tensor.Randn([]int{3, 3}).To(tensor.Float64)
	autograd.SetRequiresGrad(w, true)
	progs := map[string]func(x *T) *T{
		"cond": func(x *T) *T {
			return hop.Cond(x.SumAll().GtScalar(0), func(a ...*T) []*T { return ts(a[0].Matmul(w).Tanh()) }, func(a ...*T) []*T { return ts(a[0].Mul(w)) }, []*T{x})[0].SumAll()
		},
		"while_loop": func(x *T) *T {
			i := tensor.FromSlice([]int64{0}).Reshape([]int{})
			return hop.WhileLoop(func(a ...*T) *T { return a[0].LtScalar(3) },
				func(a ...*T) []*T { return ts(a[0].AddScalar(1), a[1].Matmul(w).Tanh()) }, ts(i, x), nil)[1].SumAll()
		},
		"scan": func(x *T) *T {
			c, _ := hop.Scan(func(c, xs, _ []*T) ([]*T, []*T) {
				n := c[0].Add(xs[0]).Matmul(w).Tanh()
				return ts(n), ts(n.Clone())
			}, ts(x.Select(0, 0).ZerosLike()), ts(x), 0, false)
			return c[0].SumAll()
		},
		"map": func(x *T) *T {
			return hop.Map(func(a ...*T) []*T { return ts(a[0].Mul(w.Select(0, 0)).Sin()) }, ts(x), nil)[0].SumAll()
		},
		"checkpoint": func(x *T) *T {
			return hop.Checkpoint(func(a ...*T) []*T { return ts(a[0].Matmul(w).Sin()) }, x)[0].SumAll()
		},
	}
	for name, f := range progs {
		for _, sign := range []float64{1, -1} {
			x := tensor.Randn([]int{3, 3}).To(tensor.Float64).Abs().MulScalar(sign)
			autograd.SetGrad(w, nil)
			f(x).Backward()
			want := w.Grad().Clone()
			autograd.SetGrad(w, nil)
			c := compile.Compile(f, compile.Options{Fullgraph: true})
			res, err := c.Call(x)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			results(res)[0].Backward()
			if w.Grad() == nil {
				t.Fatalf("%s: no gradient for the closed-over parameter", name)
			}
			expectClose(t, name+" grad", ts(w.Grad()), ts(want))
		}
	}
}
