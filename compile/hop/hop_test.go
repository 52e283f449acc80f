package hop_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// The registry lists the ops; each prints as torch.ops.higher_order.<name>
// and names its nodes after <name>; a name is defined once.
func TestRegistry(t *testing.T) {
	var names []string
	for _, op := range hop.Ops() {
		names = append(names, op.Name())
		if got, ok := hop.Lookup(op.Name()); !ok || got != op {
			t.Errorf("Lookup(%q)", op.Name())
		}
		var target fx.Target = op
		var _ fx.Callable = op
		if target.QualifiedName() != "torch.ops.higher_order."+op.Name() || target.TargetName() != op.Name() {
			t.Errorf("%s: names %q %q", op.Name(), target.QualifiedName(), target.TargetName())
		}
	}
	if got := strings.Join(names, " "); got != "auto_functionalized auto_functionalized_v2 cond invoke_subgraph map_impl scan tag_activation_checkpoint while_loop with_effects wrap" {
		t.Errorf("ops: %s", got)
	}
	expectPanic(t, `higher-order op "cond" is already defined`, func() {
		hop.Define("cond", hop.Rules{Dense: func(*hop.Call) []*T { return nil }, Trace: func(*hop.Call, *compile.HOPTracer) []*T { return nil }})
	})
	// A graph node of the op runs through fx.Interpreter's Callable path;
	// bad arguments are errors naming the op.
	if _, err := hop.CondOp.Call([]any{boolT(true), 1, 2, []any{}}, nil); err == nil || !strings.Contains(err.Error(), "cond: true_fn must be a GraphModule") {
		t.Errorf("bad node arguments: %v", err)
	}
}

// Compile without Fullgraph runs a loop whose body reads tensor data in
// segments: the loop runs inline, each read ending a segment.
func TestWhileLoopSegments(t *testing.T) {
	cond := func(a ...*T) *T { return a[0].LtScalar(3) }
	body := func(a ...*T) []*T {
		k := a[1].SumAll().Item().Float64() // data-dependent
		return ts(a[0].Add(num(1)), a[1].AddScalar(k))
	}
	fn := func(i, x *T) []*T { return hop.WhileLoop(cond, body, []*T{i, x}, nil) }
	i, x := tensor.FromSlice([]int64{0}).Reshape([]int{}), tensor.FromSlice([]float32{1, 2})
	want := fn(i, x)
	if _, err := compile.Compile(fn, compile.Options{Fullgraph: true}).Call(i, x); err == nil || !compile.IsDataDependent(err) {
		t.Errorf("fullgraph: %v", err)
	}
	c := compile.Compile(fn, compile.Options{Logf: func(string, ...any) {}})
	for range 2 {
		got, err := c.Call(i, x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "segments", results(got), want)
	}
	if s := c.Stats(); s.Segments == 0 || s.Eager != 0 {
		t.Errorf("stats %+v", s)
	}
}

// Shape propagation runs while_loop's and map_impl's meta rules.
func TestShapePropLoops(t *testing.T) {
	fn := func(i, x *T) any {
		o := hop.WhileLoop(func(a ...*T) *T { return a[0].LtScalar(3) },
			func(a ...*T) []*T { return ts(a[0].Add(num(1)), a[1].Sin()) }, []*T{i, x}, nil)
		m := hop.Map(func(a ...*T) []*T { return ts(a[0].SumAll()) }, []*T{o[1]}, nil)
		return fx.Tuple{o[0], m[0]}
	}
	i, x := tensor.FromSlice([]int64{0}).Reshape([]int{}), tensor.Randn([]int{5, 2})
	gm := trace(t, fn, ts(i, x), compile.Fake)
	out, err := fx.NewShapeProp(gm).Propagate(i, x)
	if err != nil {
		t.Fatal(err)
	}
	r := results(out)
	if len(r) != 2 || r[0].Dim() != 0 || r[0].DType() != tensor.Int64 || r[1].Dim() != 1 || r[1].Size(0) != 5 || r[1].Device() != tensor.Meta {
		t.Errorf("shape prop: %v", r)
	}
}

// A compiled graph runs a higher-order op's node with a prepared callable
// that keeps the sub-graphs compiled: a loop whose body holds a cond runs
// compiled as eagerly, also from several goroutines at once.
func TestCompiledNestedConcurrent(t *testing.T) {
	var _ compile.Preparer = hop.WhileLoopOp
	cond := func(a ...*T) *T { return a[0].LtScalar(6) }
	body := func(a ...*T) []*T {
		odd := a[0].Remainder(num(2)).EqScalar(1)
		y := hop.Cond(odd, func(b ...*T) []*T { return ts(b[0].MulScalar(2)) }, func(b ...*T) []*T { return ts(b[0].AddScalar(1)) }, []*T{a[1]})[0]
		return ts(a[0].Add(num(1)), y)
	}
	fn := func(i, x *T) []*T { return hop.WhileLoop(cond, body, []*T{i, x}, nil) }
	i := tensor.FromSlice([]int64{0}).Reshape([]int{})
	for _, dev := range devices {
		x := tensor.FromSlice([]float32{1, -2, 3}).ToDevice(dev)
		ii := i.ToDevice(dev)
		want := fn(ii, x)
		c := compile.Compile(fn, compile.Options{Fullgraph: true})
		if got, err := c.Call(ii, x); err != nil {
			t.Fatal(err)
		} else {
			expectClose(t, dev.String(), results(got), want)
		}
		errs := make(chan error, 8)
		for range 4 {
			go func() {
				for range 5 {
					got, err := c.Call(ii, x)
					if err == nil && !(close(results(got)[1], want[1]) && close(results(got)[0], want[0])) {
						err = tensor.Errorf("wrong result %v", got)
					}
					if err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		if s := c.Stats(); s.Frames != 1 {
			t.Errorf("stats %+v", s)
		}
	}
}
