package compile_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// runGraph runs gm's nodes in order on inputs through the dispatcher
// (op.Invoke(op.Bind(args, kwargs))), as an interpreter would, and returns
// the output's value. The graph's copy_ writes into the inputs.
func runGraph(t *testing.T, gm *fx.GraphModule, inputs ...*T) any {
	t.Helper()
	env := map[*fx.Node]any{}
	var resolve func(a any) any
	resolve = func(a any) any {
		switch x := a.(type) {
		case *fx.Node:
			v, ok := env[x]
			if !ok {
				t.Fatalf("%s is used before it is defined", x.Name)
			}
			return v
		case fx.Tuple:
			out := make([]any, len(x))
			for i, y := range x {
				out[i] = resolve(y)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, y := range x {
				out[i] = resolve(y)
			}
			return out
		}
		return a
	}
	next := 0
	for _, n := range gm.Graph.Nodes() {
		switch n.Op {
		case fx.OpPlaceholder:
			env[n] = inputs[next]
			next++
		case fx.OpGetAttr:
			v, ok := gm.Attr(n.Target.(string))
			if !ok {
				t.Fatalf("%s: no attribute %v", n.Name, n.Target)
			}
			env[n] = v
		case fx.OpCallFunction:
			args := resolve(n.Args()).([]any)
			switch target := n.Target.(type) {
			case *tensor.Op:
				kw := map[string]any{}
				for _, k := range n.Kwargs() {
					kw[k.Name] = resolve(k.Value)
				}
				env[n] = target.Invoke(target.Bind(args, kw))
			default:
				if target != fx.GetItem {
					t.Fatalf("%s: cannot run %v", n.Name, n.Target)
				}
				env[n] = args[0].([]*T)[args[1].(int)]
			}
		case fx.OpOutput:
			return resolve(n.Args()[0])
		}
	}
	t.Fatal("no output node")
	return nil
}

// clones are fresh CPU copies of xs.
func clones(xs []*T) []*T {
	out := make([]*T, len(xs))
	for i, x := range xs {
		out[i] = x.Clone()
	}
	return out
}

func diffValues(a, b *T) string {
	if !slices.Equal(a.Sizes(), b.Sizes()) || a.DType() != b.DType() {
		return fmt.Sprintf("%s %v != %s %v", a.DType(), a.Sizes(), b.DType(), b.Sizes())
	}
	if x, y := a.Float64s(), b.Float64s(); !slices.Equal(x, y) {
		return fmt.Sprintf("%v != %v", x, y)
	}
	return ""
}

// checkFunctionalized traces fn functionalized in both modes and checks
// that the graph is functional (views only as view ops in the default
// mode, none at all with remove='mutations_and_views'; no in-place op but
// the copy_ into each mutated input at the end), lints, and computes what
// fn computes eagerly on the CPU: the same results, and the same final
// values of the inputs.
func checkFunctionalized(t *testing.T, name string, fn func(...*T) []*T, inputs ...*T) map[string]string {
	t.Helper()
	eagerIn := clones(inputs)
	want := fn(eagerIn...)
	codes := map[string]string{}
	for _, remove := range []string{"mutations", "mutations_and_views"} {
		for _, mode := range []compile.Mode{compile.Real, compile.Fake} {
			traceIn := clones(inputs)
			gm, err := compile.Trace(fn, traceIn, compile.TraceOptions{Mode: mode, Remove: remove})
			if err != nil {
				t.Fatalf("%s (%s, %s): %v", name, remove, mode, err)
			}
			if err := gm.Lint(); err != nil {
				t.Errorf("%s (%s, %s): lint: %v", name, remove, mode, err)
			}
			code := strings.TrimSpace(gm.Code())
			if mode == compile.Real {
				codes[remove] = code
			} else if code != codes[remove] {
				t.Errorf("%s (%s): the fake trace differs from the real one:\n%s\nreal:\n%s", name, remove, code, codes[remove])
			}
			copies := 0
			for _, n := range gm.Graph.Nodes() {
				if n.Op == fx.OpGetAttr {
					t.Errorf("%s (%s): the graph reads a constant: %s", name, remove, n.Name)
				}
				op, ok := n.Target.(*tensor.Op)
				if !ok {
					continue
				}
				s := op.Schema
				switch {
				case op.Name == "aten::copy_":
					copies++
				case copies > 0:
					t.Errorf("%s (%s): %s after a copy_", name, remove, n.Name)
				case len(s.Mutates()) > 0:
					t.Errorf("%s (%s): in-place op %s", name, remove, n.Name)
				case s.IsView() && remove == "mutations_and_views":
					t.Errorf("%s (%s): view op %s", name, remove, n.Name)
				}
			}
			// A real trace runs fn, as make_fx does: the inputs end with
			// fn's writes; a fake one leaves them alone.
			for i, x := range traceIn {
				after := eagerIn[i]
				if mode == compile.Fake {
					after = inputs[i]
				}
				if msg := diffValues(x, after); msg != "" {
					t.Errorf("%s (%s, %s): input %d after tracing: %s", name, remove, mode, i, msg)
				}
			}
			runIn := clones(inputs)
			var got []*T
			switch r := runGraph(t, gm, runIn...).(type) {
			case *T:
				got = []*T{r}
			case []any:
				for _, x := range r {
					got = append(got, x.(*T))
				}
			default:
				t.Fatalf("%s: output %T", name, r)
			}
			if len(got) != len(want) {
				t.Fatalf("%s (%s): %d results, want %d", name, remove, len(got), len(want))
			}
			for i := range want {
				if msg := diffValues(got[i], want[i]); msg != "" {
					t.Errorf("%s (%s, %s): result %d: %s\n%s", name, remove, mode, i, msg, code)
				}
			}
			for i := range inputs {
				if msg := diffValues(runIn[i], eagerIn[i]); msg != "" {
					t.Errorf("%s (%s, %s): input %d after the graph: %s\n%s", name, remove, mode, i, msg, code)
				}
			}
		}
	}
	return codes
}

func seqT(shape ...int) *T {
	return tensor.ArangeOf(tensor.Float32, 0, tensor.Numel(shape), 1).View(shape)
}

// TestFunctionalizeMutate: make_fx(functionalize(mutate)) in both of
// PyTorch's modes, byte for byte, in real and fake mode, and the graph
// computes what mutate computes.
func TestFunctionalizeMutate(t *testing.T) {
	for _, c := range []struct {
		title string
		opts  compile.TraceOptions
	}{
		{"make_fx functionalize(mutate)", compile.TraceOptions{Functionalize: true}},
		{"make_fx functionalize(mutate, remove='mutations_and_views')", compile.TraceOptions{Remove: "mutations_and_views"}},
	} {
		for _, mode := range []compile.Mode{compile.Real, compile.Fake} {
			c.opts.Mode, c.opts.ArgNames = mode, []string{"a"}
			a := tensor.FullOf(tensor.Float32, 1, 2, 3)
			gm, err := compile.Trace(mutate, []*T{a}, c.opts)
			checkGolden(t, c.title, gm, err)
		}
	}
	checkFunctionalized(t, "mutate", func(a ...*T) []*T { return []*T{mutate(a[0])} }, tensor.FullOf(tensor.Float32, 1, 2, 3))
}

func TestFunctionalizeRemoveInvalid(t *testing.T) {
	_, err := compile.Trace(mutate, []*T{seqT(2, 3)}, compile.TraceOptions{Remove: "views"})
	if err == nil || !strings.Contains(err.Error(), "received invalid argument for remove=views") {
		t.Fatalf("err = %v", err)
	}
}

// The programs below write through views of their inputs and of
// intermediates; each graph must compute what the program computes on the
// CPU with real aliasing.
var mutationPrograms = []struct {
	name   string
	fn     func(...*T) []*T
	inputs func() []*T
}{
	{"slice written in place", func(a ...*T) []*T {
		s := a[0].Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(3))
		s.Mul_(num(3))
		return []*T{a[0].Add(num(1)), s}
	}, func() []*T { return []*T{seqT(3, 4)} }},
	{"transpose view written in place", func(a ...*T) []*T {
		t := a[0].Transpose(0, 1)
		t.Add_(seqT(4, 3))
		t.Select(0, 1).Mul_(num(2))
		return []*T{t.Sum(nil), a[0]}
	}, func() []*T { return []*T{seqT(3, 4)} }},
	{"out-of-place op on a stale alias", func(a ...*T) []*T {
		v := a[0].View([]int{-1})
		a[0].Add_(num(1))
		return []*T{v.Mul(num(2))}
	}, func() []*T { return []*T{seqT(2, 3)} }},
	{"two views of one base", func(a ...*T) []*T {
		x := a[0].Select(0, 0)
		y := a[0].Select(0, 1)
		x.Add_(num(10))
		y.Mul_(x)
		return []*T{x, y, a[0].Sum(nil)}
	}, func() []*T { return []*T{seqT(2, 3)} }},
	{"a view of an intermediate", func(a ...*T) []*T {
		b := a[0].Mul(num(2))
		c := b.View([]int{3, 2})
		c.Select(1, 0).Add_(num(1))
		return []*T{b}
	}, func() []*T { return []*T{seqT(2, 3)} }},
	{"two inputs, one written through the other", func(a ...*T) []*T {
		a[1].Select(0, 1).Copy_(a[0].Select(1, 2))
		a[0].Diagonal().Sub_(num(1))
		return []*T{a[0].Mul(a[1].Select(0, 1).Unsqueeze(1))}
	}, func() []*T { return []*T{seqT(3, 3), seqT(2, 3)} }},
	{"split, permute, unsqueeze and squeeze views", func(a ...*T) []*T {
		parts := a[0].Split(2, tensor.WithDim(1))
		parts[1].Add_(num(1))
		p := a[0].Permute([]int{1, 0}).Unsqueeze(0)
		p.Squeeze(0).Select(0, 3).Mul_(num(-1))
		return []*T{parts[0], parts[2], a[0].Clone()}
	}, func() []*T { return []*T{seqT(2, 5)} }},
	{"as_strided and expand", func(a ...*T) []*T {
		s := a[0].AsStrided([]int{2, 2}, []int{3, 1}, tensor.WithStorageOffset(1))
		s.Add_(num(5))
		e := a[0].Select(0, 0).Expand([]int{2, 3})
		return []*T{e.Mul(num(2)), a[0]}
	}, func() []*T { return []*T{seqT(3, 3)} }},
	{"out= into an input", func(a ...*T) []*T {
		tensor.CallKw("aten::atan2.out", []any{a[0].Select(0, 1), a[1]}, map[string]any{"out": a[0].Select(0, 0)})
		return []*T{a[0].Neg()}
	}, func() []*T { return []*T{seqT(2, 3), seqT(3)} }},
}

func TestFunctionalizePrograms(t *testing.T) {
	for _, p := range mutationPrograms {
		t.Run(p.name, func(t *testing.T) {
			codes := checkFunctionalized(t, p.name, p.fn, p.inputs()...)
			t.Logf("remove='mutations':\n%s\nremove='mutations_and_views':\n%s", codes["mutations"], codes["mutations_and_views"])
		})
	}
}
