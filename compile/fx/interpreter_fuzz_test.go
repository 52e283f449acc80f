package fx_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// fuzzBytes hands out the fuzz input one byte at a time, zeros when it runs
// out.
type fuzzBytes struct {
	b []byte
	k int
}

func (f *fuzzBytes) next() int {
	if f.k >= len(f.b) {
		return 0
	}
	f.k++
	return int(f.b[f.k-1])
}

func (f *fuzzBytes) pick(n int) int { return f.next() % n }

// fuzzOp is one op the fuzzer may call: its node arguments and its eager
// value through the typed API, both from the same parameter byte p.
type fuzzOp struct {
	name  string
	arity int
	args  func(in []*fx.Node, p int) ([]any, fx.Kwargs)
	eager func(in []*tensor.Tensor, p int) any
}

func unary(name string, f func(*tensor.Tensor) *tensor.Tensor) fuzzOp {
	return fuzzOp{name, 1,
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) { return []any{in[0]}, nil },
		func(in []*tensor.Tensor, p int) any { return f(in[0]) }}
}

func binary(name string, f func(a, b *tensor.Tensor) *tensor.Tensor) fuzzOp {
	return fuzzOp{name, 2,
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) { return []any{in[0], in[1]}, nil },
		func(in []*tensor.Tensor, p int) any { return f(in[0], in[1]) }}
}

// dim is a dim from p in -1, 0, 1; keep whether p asks for keepdim.
func dim(p int) int     { return p%3 - 1 }
func keep(p int) bool   { return p&4 != 0 }
func num(p int) float64 { return float64(p%9-4) * 0.5 }

// reduction is a (Tensor self, int[1]? dim, bool keepdim=False) op in its
// normalized form: keepdim left out when false.
func reduction(name string, f func(*tensor.Tensor, []int, ...tensor.Option) *tensor.Tensor) fuzzOp {
	return fuzzOp{name, 1,
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) {
			if keep(p) {
				return []any{in[0], []int{dim(p)}, true}, nil
			}
			return []any{in[0], []int{dim(p)}}, nil
		},
		func(in []*tensor.Tensor, p int) any { return f(in[0], []int{dim(p)}, tensor.WithKeepdim(keep(p))) }}
}

var fuzzOps = []fuzzOp{
	unary("aten::neg", (*tensor.Tensor).Neg),
	unary("aten::relu", (*tensor.Tensor).Relu),
	unary("aten::sigmoid", (*tensor.Tensor).Sigmoid),
	unary("aten::exp", (*tensor.Tensor).Exp),
	unary("aten::abs", (*tensor.Tensor).Abs),
	unary("aten::tanh", (*tensor.Tensor).Tanh),
	binary("aten::mul.Tensor", (*tensor.Tensor).Mul),
	binary("aten::sub.Tensor", func(a, b *tensor.Tensor) *tensor.Tensor { return a.Sub(b) }),
	binary("aten::maximum", (*tensor.Tensor).Maximum),
	binary("aten::div.Tensor", func(a, b *tensor.Tensor) *tensor.Tensor { return a.Div(b) }),
	{"aten::add.Tensor", 2, // alpha as a kwarg, left out when 1
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) {
			if p%2 == 0 {
				return []any{in[0], in[1]}, nil
			}
			return []any{in[0], in[1]}, fx.Kwargs{{Name: "alpha", Value: 2}}
		},
		func(in []*tensor.Tensor, p int) any {
			if p%2 == 0 {
				return in[0].Add(in[1])
			}
			return in[0].Add(in[1].Mul(tensor.WrappedNumber(tensor.Int(2))))
		}},
	{"aten::mul.Tensor", 1, // a Python number for the Tensor other
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) { return []any{in[0], num(p)}, nil },
		func(in []*tensor.Tensor, p int) any { return in[0].Mul(tensor.WrappedNumber(tensor.Float(num(p)))) }},
	{"aten::add.Tensor", 1,
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) { return []any{in[0], p % 3}, nil },
		func(in []*tensor.Tensor, p int) any { return in[0].Add(tensor.WrappedNumber(tensor.Int(int64(p % 3)))) }},
	reduction("aten::sum.dim_IntList", (*tensor.Tensor).Sum),
	reduction("aten::mean.dim", (*tensor.Tensor).MeanDim),
	reduction("aten::amax", func(x *tensor.Tensor, d []int, o ...tensor.Option) *tensor.Tensor {
		return x.Amax(append(o, tensor.WithDim(d))...)
	}),
	{"aten::max.dim", 1, // followed by a getitem
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) {
			if keep(p) {
				return []any{in[0], dim(p), true}, nil
			}
			return []any{in[0], dim(p)}, nil
		},
		func(in []*tensor.Tensor, p int) any {
			v, ix := in[0].MaxDim(dim(p), tensor.WithKeepdim(keep(p)))
			return []*tensor.Tensor{v, ix}
		}},
	{"aten::_softmax", 1,
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) { return []any{in[0], dim(p), false}, nil },
		func(in []*tensor.Tensor, p int) any { return in[0].Softmax(dim(p)) }},
	{"aten::clamp", 1, // min only, or a None min before a max
		func(in []*fx.Node, p int) ([]any, fx.Kwargs) {
			if p%2 == 0 {
				return []any{in[0], num(p)}, nil
			}
			return []any{in[0], nil, num(p)}, nil
		},
		func(in []*tensor.Tensor, p int) any {
			if p%2 == 0 {
				return in[0].Clamp(tensor.WithMin(num(p)))
			}
			return in[0].Clamp(tensor.WithMax(num(p)))
		}},
}

// fuzzGraph is a graph built from fuzz bytes with the eager value of each
// node (nil where eager failed).
type fuzzGraph struct {
	gm     *fx.GraphModule
	inputs []any
	nodes  []*fx.Node
	eager  []any
	failed bool // some node fails eagerly
	want   any  // the output's eager value
}

var fuzzShapes = [][]int{{2, 3}, {3}, {2, 1}, {1, 3}, {}}

func fuzzTensor(f *fuzzBytes, shape []int) *tensor.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	switch f.pick(3) {
	case 0:
		v := make([]float32, n)
		for k := range v {
			v[k] = float32(int8(f.next())) / 8
		}
		return tensor.FromSlice(v, shape...)
	case 1:
		v := make([]float64, n)
		for k := range v {
			v[k] = float64(int8(f.next())) / 16
		}
		return tensor.FromSlice(v, shape...)
	}
	v := make([]int64, n)
	for k := range v {
		v[k] = int64(int8(f.next()) % 7)
	}
	return tensor.FromSlice(v, shape...)
}

// eagerCall runs f, turning a *tensor.Error panic into failure.
func eagerCall(f func() any) (v any, ok bool) {
	err := tensor.Try(func() { v = f() })
	return v, err == nil
}

func buildFuzzGraph(f *fuzzBytes) *fuzzGraph {
	g := fx.New()
	fg := &fuzzGraph{gm: fx.NewGraphModule(g)}
	add := func(n *fx.Node, v any, ok bool) {
		fg.nodes = append(fg.nodes, n)
		if !ok {
			v = nil
			fg.failed = true
		}
		fg.eager = append(fg.eager, v)
	}
	for k, nph := 0, 1+f.pick(3); k < nph; k++ {
		x := fuzzTensor(f, fuzzShapes[f.pick(len(fuzzShapes))])
		fg.inputs = append(fg.inputs, x)
		add(g.Placeholder(fmt.Sprintf("arg%d_1", k)), x, true)
	}
	if f.pick(4) == 0 {
		c := fuzzTensor(f, []int{3})
		add(fg.gm.AddConstant(c), c, true)
	}
	for k, nops := 0, 1+f.pick(6); k < nops; k++ {
		o := fuzzOps[f.pick(len(fuzzOps))]
		p := f.next()
		in := make([]*fx.Node, o.arity)
		vals := make([]*tensor.Tensor, o.arity)
		ok := true
		for j := range in {
			s := f.pick(len(fg.nodes))
			in[j] = fg.nodes[s]
			vals[j], _ = fg.eager[s].(*tensor.Tensor)
			ok = ok && vals[j] != nil
		}
		args, kwargs := o.args(in, p)
		n := g.CallFunction(op(o.name), args, kwargs)
		var v any
		if ok {
			v, ok = eagerCall(func() any { return o.eager(vals, p) })
		}
		if o.name != "aten::max.dim" {
			add(n, v, ok)
			continue
		}
		fg.nodes = append(fg.nodes, n) // its value is a pair: no op's operand
		fg.eager = append(fg.eager, v)
		if !ok {
			fg.failed = true
		}
		i := p % 2
		item := g.CallFunction(fx.GetItem, []any{n, i}, nil)
		if ok {
			add(item, v.([]*tensor.Tensor)[i], true)
		} else {
			add(item, nil, true)
		}
	}
	// Return the last node, or a Tuple of the last ones.
	last := len(fg.nodes) - 1
	switch k := f.pick(3); {
	case k == 0 || last == 0:
		g.Output(fg.nodes[last])
		fg.want = fg.eager[last]
	default:
		fg.want = fx.Tuple{fg.eager[last-1], fg.eager[last]}
		g.Output(fx.Tuple{fg.nodes[last-1], fg.nodes[last]})
	}
	return fg
}

// substitute returns args with old replaced by new (nil: None) everywhere.
func substitute(args any, old, new *fx.Node) any {
	switch v := args.(type) {
	case *fx.Node:
		if v == old {
			if new == nil {
				return nil
			}
			return new
		}
	case []any:
		out := make([]any, len(v))
		for k, x := range v {
			out[k] = substitute(x, old, new)
		}
		return out
	case fx.Tuple:
		out := make(fx.Tuple, len(v))
		for k, x := range v {
			out[k] = substitute(x, old, new)
		}
		return out
	}
	return args
}

// checkRunError requires a failed run's error to be a *RunError whose
// message is not empty.
func checkRunError(t *testing.T, err error) {
	t.Helper()
	var re *fx.RunError
	if !errors.As(err, &re) || err.Error() == "" {
		t.Fatalf("error %T %v is not a RunError", err, err)
	}
}

// FuzzInterpreter builds a small valid graph from the bytes, checks that the
// interpreter computes what eager calls compute (and ShapeProp their
// metadata), then mutates the graph at random: Lint and Run may fail but
// must return, never panic.
func FuzzInterpreter(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 0, 0, 0, 0},
		{1, 1, 2, 3, 4, 5, 6, 7, 0, 3, 5, 1, 9, 2, 0, 6, 3},
		{2, 0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 0, 5, 16, 2, 0, 1, 17, 9, 0, 3, 1, 1, 2, 3, 4, 5, 6, 7, 8},
		{1, 4, 0, 200, 100, 50, 1, 3, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22},
		{0, 1, 1, 1, 1, 0, 5, 17, 7, 0, 18, 5, 1, 19, 9, 0, 2, 1, 3, 2, 1, 4, 0},
		{2, 2, 1, 9, 9, 9, 3, 0, 5, 0, 6, 14, 1, 0, 15, 2, 1, 12, 4, 1, 11, 3, 0, 0, 7, 1, 2},
		[]byte("the quick brown fox jumps over the lazy dog"),
		{255, 254, 253, 252, 251, 250, 249, 248, 247, 246, 245, 244, 243, 242, 241, 240},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fb := &fuzzBytes{b: data}
		fg := buildFuzzGraph(fb)
		gm := fg.gm
		if err := gm.Lint(); err != nil {
			t.Fatalf("the unmutated graph fails lint: %v\n%s", err, gm.Graph)
		}
		in := fx.NewInterpreter(gm)
		// Wrong input counts first: errors, and the interpreter stays usable.
		if _, err := in.Run(fg.inputs[:len(fg.inputs)-1]...); err == nil {
			t.Fatal("ran with an input missing")
		} else {
			checkRunError(t, err)
		}
		if _, err := in.Run(append(append([]any(nil), fg.inputs...), 1)...); err == nil {
			t.Fatal("ran with an input too many")
		}
		got, err := in.Run(fg.inputs...)
		switch {
		case err != nil && !fg.failed:
			t.Fatalf("Run failed where eager succeeds: %v\n%s", err, gm.Graph)
		case err == nil && fg.failed:
			t.Fatalf("Run succeeded where eager fails\n%s", gm.Graph)
		case err != nil:
			checkRunError(t, err)
		default:
			if e := sameValue(got, fg.want); e != nil {
				t.Fatalf("Run differs from eager: %v\n%s", e, gm.Graph)
			}
			meta, err := fx.NewShapeProp(gm).Propagate(fg.inputs...)
			if err != nil {
				t.Fatalf("ShapeProp: %v\n%s", err, gm.Graph)
			}
			if e := sameValue(meta, fx.ToMeta(fg.want)); e != nil {
				t.Fatalf("ShapeProp differs from eager: %v\n%s", e, gm.Graph)
			}
		}

		// Mutations.
		g := gm.Graph
		inputs := fg.inputs
		for m, nm := 0, 1+fb.pick(3); m < nm; m++ {
			nodes := g.Nodes()
			if len(nodes) < 2 {
				break
			}
			a, b := nodes[fb.pick(len(nodes))], nodes[fb.pick(len(nodes))]
			switch fb.pick(8) {
			case 0: // swap two nodes
				switch an := a.Next(); {
				case a == b:
				case an == b:
					b.MoveBefore(a)
				default:
					a.MoveBefore(b)
					if an != nil {
						b.MoveBefore(an)
					} else {
						b.MoveAfter(g.Last())
					}
				}
			case 1: // an argument refers to a later node
				if len(a.InputNodes()) > 0 && b != a {
					a.ReplaceInputWith(a.InputNodes()[0], b)
				}
			case 2: // drop a use: the argument becomes None
				if ins := a.InputNodes(); len(ins) > 0 {
					a.SetArgs(substitute(a.Args(), ins[fb.pick(len(ins))], nil).([]any)...)
				}
			case 3: // erase a node, its users now using another or the erased one
				if a.Op != fx.OpOutput && a != b {
					users := a.Users()
					a.ReplaceAllUsesWith(b)
					if err := g.EraseNode(a); err == nil && len(users) > 0 && fb.pick(2) == 0 && !users[0].Erased() {
						users[0].SetArgs(substitute(users[0].Args(), b, a).([]any)...) // an erased node
					}
				}
			case 4: // another target
				if a.Op == fx.OpCallFunction {
					switch fb.pick(5) {
					case 0:
						a.Target = op(fuzzOps[fb.pick(len(fuzzOps))].name)
					case 1:
						a.Target = &fx.Function{Name: "cond", Qualified: "torch.ops.higher_order.cond"}
					case 2:
						a.Target = schemaOp("mylib::foo(Tensor x, int y=0) -> Tensor")
					case 3:
						a.Target = (*tensor.Op)(nil)
					default:
						a.Target = fx.GetItem
					}
				}
			case 5: // a second output
				if fb.pick(2) == 0 {
					restore := g.InsertingBefore(g.OutputNode())
					g.Output(b)
					restore()
				} else {
					g.Output(b)
				}
			case 6: // wrong input count
				if fb.pick(2) == 0 && len(inputs) > 0 {
					inputs = inputs[:len(inputs)-1]
				} else {
					inputs = append(append([]any(nil), inputs...), fg.inputs[0])
				}
			case 7: // another opcode or kwargs
				switch fb.pick(3) {
				case 0:
					a.Op = fx.Opcode(fb.pick(5))
				case 1:
					a.SetKwargs(fx.Kwargs{{Name: "alpha", Value: b}})
				default:
					a.Target = "weight"
				}
			}
			_ = gm.Lint() // may fail; must return
			if _, err := fx.NewInterpreter(gm).Run(inputs...); err != nil {
				checkRunError(t, err)
			}
		}
	})
}
