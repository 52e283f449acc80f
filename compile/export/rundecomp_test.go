package export_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// fooLinear: a linear layer (addmm), a custom op taking the _Foo it holds
// (an effect token), a gelu.
type fooLinear struct {
	nn.Base
	Attr *torchbind.Object
	W, B *tensor.Tensor
	fwd  func(m *fooLinear, x *tensor.Tensor) *tensor.Tensor
}

func newFooLinear(fwd func(m *fooLinear, x *tensor.Tensor) *tensor.Tensor) *fooLinear {
	m := &fooLinear{Attr: fooClass.New(10, 20), fwd: fwd}
	m.SetName("FooLinear")
	m.W = m.RegisterParameter("weight", seq(-0.4, 3, 3).MulScalar(0.5))
	m.B = m.RegisterParameter("bias", seq(0.2, 3))
	return m
}

func (m *fooLinear) Forward(x *tensor.Tensor) *tensor.Tensor { return m.fwd(m, x) }

func fooLinearS4(m *fooLinear, x *tensor.Tensor) *tensor.Tensor {
	h := tensor.Linear(x, m.W, tensor.WithBias(m.B))
	h = takesFoo.Call(m.Attr, h).(*tensor.Tensor)
	return h.Gelu()
}

// printNet prints around a linear layer (S9's _print, a with_effects call
// of an op that returns nothing).
type printNet struct {
	nn.Base
	W, B *tensor.Tensor
}

func (m *printNet) Forward(x *tensor.Tensor) *tensor.Tensor {
	hop.Print("moo")
	y := tensor.Linear(x, m.W, tensor.WithBias(m.B)).Softmax(-1)
	hop.Print("moo")
	return y
}

// sizeNet reshapes with the sizes it reads, after a softmax.
type sizeNet struct{ nn.Base }

func (*sizeNet) Forward(x *tensor.Tensor) *tensor.Tensor {
	return x.Softmax(1).Reshape([]int{x.Size(0) * x.Size(1)}).Gelu()
}

func mustTable(t *testing.T, names ...string) compile.Decompositions {
	t.Helper()
	table, err := compile.GetDecompositions(names...)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// allCode is the code of gm and of its sub-graphs.
func allCode(gm *fx.GraphModule) string {
	var b strings.Builder
	b.WriteString(gm.Code())
	for _, name := range gm.AttrNames() {
		if v, _ := gm.Attr(name); v != nil {
			if sub, ok := v.(*fx.GraphModule); ok {
				b.WriteString("\n# " + name + "\n" + allCode(sub))
			}
		}
	}
	return b.String()
}

// snapshot copies the program's state tensors, to put them back between
// runs (a run applies buffer mutations to the shared buffers).
func snapshot(ep *export.ExportedProgram) func() {
	saved := map[*tensor.Tensor]*tensor.Tensor{}
	for _, m := range []map[string]*tensor.Tensor{ep.StateDict, ep.Constants} {
		for _, v := range m {
			saved[v] = v.Clone()
		}
	}
	return func() {
		autograd.NoGrad(func() {
			for v, c := range saved {
				v.Copy_(c)
			}
		})
	}
}

// runState runs p on args, then gives back its user outputs (tensors) and
// its buffers after the run, by name.
func runState(t *testing.T, p *export.ExportedProgram, args []any) ([]*tensor.Tensor, map[string]*tensor.Tensor) {
	t.Helper()
	res, err := p.Module().ForwardArgs(args...)
	if err != nil {
		t.Fatal(err)
	}
	var outs []*tensor.Tensor
	for _, r := range res {
		if x, ok := r.(*tensor.Tensor); ok {
			outs = append(outs, x.Clone())
		}
	}
	bufs := map[string]*tensor.Tensor{}
	for _, s := range p.GraphSignature.InputSpecs {
		if s.Kind == export.Buffer {
			if b := p.StateDict[s.Target]; b != nil {
				bufs[s.Target] = b.Clone()
			} else if b := p.Constants[s.Target]; b != nil {
				bufs[s.Target] = b.Clone()
			}
		}
	}
	return outs, bufs
}

func closeTo(what string, got, want *tensor.Tensor) error {
	if got.DType() != want.DType() || fmt.Sprint(got.Sizes()) != fmt.Sprint(want.Sizes()) {
		return fmt.Errorf("%s: %s%v, want %s%v", what, got.DType(), got.Sizes(), want.DType(), want.Sizes())
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range w {
		// The decompositions compute in other steps than the kernels
		// (gelu's erf form, softmax's exp/sum): float32 rounding.
		if math.Abs(g[i]-w[i]) > 1e-5*(1+math.Abs(w[i])) {
			return fmt.Errorf("%s: element %d is %v, want %v", what, i, g[i], w[i])
		}
	}
	return nil
}

// specKinds prints a signature's kinds and targets (not the output names,
// which follow the new graph's values).
func specKinds(s *export.ExportGraphSignature, skip func(export.InputSpec) bool) string {
	var b strings.Builder
	for _, in := range s.InputSpecs {
		if skip != nil && skip(in) {
			continue
		}
		fmt.Fprintf(&b, "%s %T %s %q %v; ", in.Kind, in.Arg, in.Arg.ArgName(), in.Target, in.Persistent)
	}
	b.WriteString("-> ")
	for _, o := range s.OutputSpecs {
		fmt.Fprintf(&b, "%s %T %q; ", o.Kind, o.Arg, o.Target)
	}
	return b.String()
}

// TestRunDecompositionsPrograms: RunDecompositions on programs holding
// custom objects, effect tokens, higher-order ops, buffer mutations and
// dynamic dims. The decomposed program keeps its signature, has no call of
// a decomposed op left (in its sub-graphs neither) and keeps its
// with_effects calls; it runs as the original does, and it saves and loads
// back to the same code and results.
func TestRunDecompositionsPrograms(t *testing.T) {
	var printed bytes.Buffer
	defer hop.SetPrintWriter(&printed)()
	type program struct {
		ep   *export.ExportedProgram
		args func() [][]any // argument lists to run on (fresh objects each call)
	}
	x23 := func() [][]any { return [][]any{{seq(-0.2, 2, 3)}, {seq(0.7, 2, 3)}} }
	cases := []struct {
		name    string
		make    func(t *testing.T) program
		table   compile.Decompositions
		gone    []string // ops that must be gone from every graph
		kept    []string // text that must still be in the code
		effects int      // with_effects calls, before and after
	}{
		{"object and token (S3), addmm and gelu", func(t *testing.T) program {
			m := newFooLinear(fooLinearS4)
			return program{exportCode(t, m, []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}}), x23}
		}, mustTable(t, "aten::addmm", "aten::gelu"), []string{"aten.addmm", "aten.gelu"}, []string{"aten.erf", "aten.mm"}, 1},
		{"object and token (S3), newer spelling", func(t *testing.T) program {
			m := newFooLinear(fooLinearS4)
			return program{exportCode(t, m, []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}, NewerEffects: true}), x23}
		}, mustTable(t, "aten::addmm", "aten::gelu"), []string{"aten.addmm", "aten.gelu"}, []string{"torch.ops.higher_order.with_effects("}, 1},
		{"S4 token chain", func(t *testing.T) program {
			m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
				return x.Add(takesFoo.Call(m.Attr, takesFoo.Call(m.Attr, x)).(*tensor.Tensor))
			})
			return program{exportCode(t, m, []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}}), x23}
		}, customAddTable(), []string{"aten.add.Tensor"}, []string{"with_effects_1 = torch._higher_order_ops.effects.with_effects(getitem, "}, 2},
		{"S2 method call on an object", func(t *testing.T) program {
			m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
				return x.Add(torchbind.Call(m.Attr, "add_tensor", x).(*tensor.Tensor)).Gelu()
			})
			return program{exportCode(t, m, []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}}), x23}
		}, mustTable(t, "aten::gelu"), []string{"aten.gelu"}, []string{"call_torchbind(obj_attr, 'add_tensor', x)"}, 0},
		{"S2 newer, method call under with_effects", func(t *testing.T) program {
			m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
				return x.Add(torchbind.Call(m.Attr, "add_tensor", x).(*tensor.Tensor)).Gelu()
			})
			return program{exportCode(t, m, []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}, NewerEffects: true}), x23}
		}, mustTable(t, "aten::gelu"), []string{"aten.gelu"}, nil, 1},
		{"object user input", func(t *testing.T) program {
			m := &fooScale{}
			m.SetName("FooScale")
			m.W = m.RegisterParameter("w", tensor.FromSlice([]float32{1, 2, 3}))
			ep := exportCode(t, m, []any{fooClass.New(1, 2), tensor.OnesOf([]int{3})}, export.Options{InputNames: []string{"f", "x"}})
			return program{ep, func() [][]any {
				return [][]any{{fooClass.New(5, 5), seq(0.1, 3)}, {fooClass.New(2, 7), seq(-1, 3)}}
			}}
		}, customAddTable(), nil, nil, 1},
		{"S9 _print effects", func(t *testing.T) program {
			m := &printNet{}
			m.SetName("PrintNet")
			m.W = m.RegisterParameter("w", seq(-0.3, 3, 3))
			m.B = m.RegisterParameter("b", seq(0.1, 3))
			return program{mustExport(t, m, []*T{seq(0, 2, 3)}), x23}
		}, mustTable(t, "aten::addmm", "aten::_softmax"), []string{"aten.addmm", "aten._softmax"}, []string{"torch.ops.aten._print.default, 'moo'", "aten.amax"}, 2},
		{"batch norm in training: buffer mutations", func(t *testing.T) program {
			n := newNet()
			return program{mustExport(t, n, []*T{seq(0, 5, 4)}), func() [][]any {
				return [][]any{{seq(-0.5, 5, 4)}, {seq(1, 5, 4).MulScalar(0.3)}}
			}}
		}, customAddTable(), []string{"aten.add.Tensor"}, []string{"aten.sub.Tensor", "aten.neg"}, 0},
		{"dynamic batch", func(t *testing.T) program {
			m := &geluNet{W: seq(-0.3, 3, 3)}
			ep := mustExport(t, m, []*T{seq(0, 4, 3)}, export.Options{InputNames: []string{"x"},
				DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 2, 64)}}})
			return program{ep, func() [][]any { return [][]any{{seq(0, 4, 3)}, {seq(-1, 7, 3)}, {seq(0.5, 2, 3)}} }}
		}, mustTable(t, "aten::gelu"), []string{"aten.gelu"}, nil, 0},
		{"dynamic sizes read by the program", func(t *testing.T) program {
			m := &sizeNet{}
			m.SetName("SizeNet")
			ep := mustExport(t, m, []*T{seq(0, 4, 3)}, export.Options{InputNames: []string{"x"},
				DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 2, 64), 1: export.Dim("feat", 2, 64)}}})
			return program{ep, func() [][]any { return [][]any{{seq(0, 4, 3)}, {seq(-1, 7, 5)}} }}
		}, mustTable(t, "aten::_softmax", "aten::gelu"), []string{"aten._softmax", "aten.gelu"}, []string{"sym_size_int"}, 0},
		{"dynamic sizes in a decomposition", func(t *testing.T) program {
			m := &geluNet{W: seq(-0.3, 3, 3)}
			ep := mustExport(t, m, []*T{seq(0, 4, 3)}, export.Options{InputNames: []string{"x"},
				DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 2, 64)}}})
			return program{ep, func() [][]any { return [][]any{{seq(0, 4, 3)}, {seq(-1, 7, 3)}} }}
		}, flatGeluTable(), []string{"aten.gelu"}, []string{"sym_size_int", "aten.view.default(", "aten.erf"}, 0},
	}
	cases = append(cases, []struct {
		name    string
		make    func(t *testing.T) program
		table   compile.Decompositions
		gone    []string
		kept    []string
		effects int
	}{
		{"effectful op in the table stays whole", func(t *testing.T) program {
			m := newFooLinear(fooLinearS4)
			return program{exportCode(t, m, []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}}), x23}
		}, withTakesFoo(mustTable(t, "aten::gelu")), []string{"aten.gelu"}, []string{"_TorchScriptTesting.takes_foo.default, obj_attr, addmm"}, 1},
		{"unbacked size", func(t *testing.T) program {
			c := hopCases[1]
			return program{mustExport(t, newHopNet(c.run), c.ins[:1]), func() [][]any { return [][]any{{c.ins[0]}, {c.ins[1]}} }}
		}, expTable(), []string{"aten.exp"}, []string{"aten.sigmoid"}, 0},
		{"auto_functionalized", func(t *testing.T) program {
			net := newHopNet(func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
				h := n.FC.Forward(x)
				r := afFoo.Call(h, x).(*tensor.Tensor)
				return []*tensor.Tensor{r, h}
			})
			return program{mustExport(t, net, []*T{seq(0.3, 2, 4)}), func() [][]any { return [][]any{{seq(0.3, 2, 4)}, {seq(-1, 2, 4)}} }}
		}, customAddTable(), []string{"aten.add.Tensor"}, []string{"auto_functionalized(torch.ops.hopexp.foo.default, x = sub, y = args_0)"}, 0},
		{"hop cond, dynamic batch", func(t *testing.T) program {
			c := hopCases[0]
			ep := mustExport(t, newHopNet(c.run), []*T{seq(0.3, 3, 4)}, export.Options{
				DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 2, 64)}}})
			return program{ep, func() [][]any { return [][]any{{seq(0.3, 3, 4)}, {seq(-2, 5, 4)}, {seq(0.3, 2, 4)}} }}
		}, customAddTable(), []string{"aten.add.Tensor"}, []string{"aten.neg"}, 0},
		{"constant made by a decomposition", func(t *testing.T) program {
			m := &geluNet{W: seq(-0.3, 3, 3)}
			return program{mustExport(t, m, []*T{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}}), x23}
		}, constGeluTable(), []string{"aten.gelu"}, []string{"def forward(self, c_w, c_lifted_tensor_0, x):"}, 0},
	}...)
	for _, c := range append(hopCases, moreHOPCases...) {
		c := c
		cases = append(cases, struct {
			name    string
			make    func(t *testing.T) program
			table   compile.Decompositions
			gone    []string
			kept    []string
			effects int
		}{"hop " + c.name, func(t *testing.T) program {
			net := newHopNet(c.run)
			ep := mustExport(t, net, c.ins[:1])
			return program{ep, func() [][]any {
				var out [][]any
				for _, x := range c.ins {
					out = append(out, []any{x})
				}
				return out
			}}
		}, customAddTable(), []string{"aten.add.Tensor"}, []string{"aten.neg"}, 0})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			ep := p.ep
			nConsts := len(ep.Constants)
			dec, err := ep.RunDecompositions(c.table)
			if err != nil {
				t.Fatal(err)
			}
			before, after := allCode(ep.GraphModule), allCode(dec.GraphModule)
			if testing.Verbose() {
				t.Logf("before:%s\nafter:%s", before, after)
			}
			for _, op := range c.gone {
				if !strings.Contains(before, op) {
					t.Errorf("the program has no %s to decompose:\n%s", op, before)
				}
				if strings.Contains(after, op) {
					t.Errorf("%s left after decomposing:\n%s", op, after)
				}
			}
			for _, s := range c.kept {
				if !strings.Contains(after, s) {
					t.Errorf("no %q after decomposing:\n%s", s, after)
				}
			}
			if n, m := strings.Count(before, "with_effects("), strings.Count(after, "with_effects("); n != c.effects || m != c.effects {
				t.Errorf("%d with_effects calls before, %d after, want %d", n, m, c.effects)
			}
			// A constant a decomposition made is a new CONSTANT_TENSOR
			// input; the original program is left as it was.
			added := func(in export.InputSpec) bool {
				return in.Kind == export.ConstantTensor && ep.Constants[in.Target] == nil && dec.Constants[in.Target] != nil
			}
			if got, want := specKinds(dec.GraphSignature, added), specKinds(ep.GraphSignature, nil); got != want {
				t.Errorf("signature\n%s\nwant\n%s", got, want)
			}
			if got, want := fmt.Sprint(dec.RangeConstraints), fmt.Sprint(ep.RangeConstraints); got != want {
				t.Errorf("range constraints %s, want %s", got, want)
			}
			if len(ep.Constants) != nConsts {
				t.Errorf("RunDecompositions changed the original program's constants")
			}
			// The decomposed program saves and loads back as it is; a
			// loaded program decomposes to it too.
			loaded := loadBytes(t, saveBytes(t, dec))
			decLoaded, err := loadBytes(t, saveBytes(t, ep)).RunDecompositions(c.table)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := allCode(loaded.GraphModule), allCode(decLoaded.GraphModule); got != want {
				t.Errorf("loaded:\n%s\ndecomposed after loading:\n%s", got, want)
			}
			if got, want := loaded.GraphSignature.String(), dec.GraphSignature.String(); got != want {
				t.Errorf("loaded signature:%s\nsaved:%s", got, want)
			}
			if got, want := loaded.String(), decLoaded.String(); got != want {
				t.Errorf("loaded program:\n%s\ndecomposed after loading:\n%s", got, want)
			}
			restores := []func(){snapshot(ep), snapshot(dec), snapshot(loaded)}
			restore := func() {
				for _, r := range restores {
					r()
				}
			}
			for k, args := range p.args() {
				wantOut, wantBufs := runState(t, ep, args)
				for stage, q := range []*export.ExportedProgram{dec, loaded} {
					restore()
					gotOut, gotBufs := runState(t, q, p.args()[k])
					if len(gotOut) != len(wantOut) {
						t.Fatalf("run %d stage %d: %d outputs, want %d", k, stage, len(gotOut), len(wantOut))
					}
					for i := range wantOut {
						if err := closeTo(fmt.Sprintf("run %d stage %d output %d", k, stage, i), gotOut[i], wantOut[i]); err != nil {
							t.Error(err)
						}
					}
					for name, w := range wantBufs {
						if err := closeTo(fmt.Sprintf("run %d stage %d buffer %s", k, stage, name), gotBufs[name], w); err != nil {
							t.Error(err)
						}
					}
				}
				restore()
			}
		})
	}
}

// customAddTable replaces add.Tensor by self - (alpha * other).neg()... as
// a user's own table does: a decomposition written in other ops.
func customAddTable() compile.Decompositions {
	return compile.Decompositions{tensor.MustOp("aten::add.Tensor"): func(op *tensor.Op, a []any) any {
		x, y := a[0].(*tensor.Tensor), a[1].(*tensor.Tensor)
		if len(a) > 2 && a[2] != nil {
			if s, ok := a[2].(tensor.Scalar); ok && s.Float64() != 1 {
				y = y.Mul(tensor.WrappedNumber(s))
			}
		}
		return x.Sub(y.Neg())
	}}
}

// flatGeluTable replaces gelu by gelu over the flattened tensor: a
// decomposition that computes with its input's sizes.
func flatGeluTable() compile.Decompositions {
	gelu := tensor.MustOp("aten::gelu")
	return compile.Decompositions{gelu: func(op *tensor.Op, a []any) any {
		x := a[0].(*tensor.Tensor)
		n := x.Size(0) * x.Size(1)
		return x.Reshape([]int{n}).Mul(num(0.5)).Mul(x.Reshape([]int{n}).Mul(num(0.70710678118654752440)).Erf().AddScalar(1)).Reshape(x.Sizes())
	}}
}

// S4's program with a linear layer: addmm and gelu decomposed around the
// custom op that takes the object under its effect token.
func TestRunDecompositionsObjectTokenCode(t *testing.T) {
	ep := exportCode(t, newFooLinear(fooLinearS4), []any{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}})
	dec, err := ep.RunDecompositions(mustTable(t, "aten::addmm", "aten::gelu"))
	if err != nil {
		t.Fatal(err)
	}
	checkCode(t, "decomposed", dec, `
def forward(self, token, p_weight, p_bias, obj_attr, x):
    permute = torch.ops.aten.permute.default(p_weight, [1, 0]);  p_weight = None
    mm = torch.ops.aten.mm.default(x, permute);  x = permute = None
    mul = torch.ops.aten.mul.Tensor(mm, 1);  mm = None
    mul_1 = torch.ops.aten.mul.Tensor(p_bias, 1);  p_bias = None
    add = torch.ops.aten.add.Tensor(mul_1, mul);  mul_1 = mul = None
    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops._TorchScriptTesting.takes_foo.default, obj_attr, add);  token = obj_attr = add = None
    getitem = with_effects[0]
    getitem_1 = with_effects[1];  with_effects = None
    mul_2 = torch.ops.aten.mul.Tensor(getitem_1, 0.5)
    mul_3 = torch.ops.aten.mul.Tensor(getitem_1, 0.7071067811865476);  getitem_1 = None
    erf = torch.ops.aten.erf.default(mul_3);  mul_3 = None
    add_1 = torch.ops.aten.add.Tensor(erf, 1);  erf = None
    mul_4 = torch.ops.aten.mul.Tensor(mul_2, add_1);  mul_2 = add_1 = None
    return (getitem, mul_4)`)
	want := "\n# inputs\ntoken: TOKEN\np_weight: PARAMETER target='weight'\np_bias: PARAMETER target='bias'\nobj_attr: CUSTOM_OBJ target='attr'\nx: USER_INPUT\n\n# outputs\ngetitem: TOKEN\nmul_4: USER_OUTPUT\n"
	if got := dec.GraphSignature.String(); got != want {
		t.Errorf("signature:%s\nwant:%s", got, want)
	}
	if dec.CustomObjs["attr"] != ep.CustomObjs["attr"] || dec.StateDict["weight"] != ep.StateDict["weight"] {
		t.Errorf("the decomposed program does not share the state")
	}
}

// RunDecompositions gives the graph that exporting with the table gives
// (PyTorch's run_decompositions re-traces: the same ops, the same names).
func TestRunDecompositionsAsExportWithTable(t *testing.T) {
	addmmGelu := mustTable(t, "aten::addmm", "aten::gelu", "aten::_softmax")
	type mk func(o export.Options) (*export.ExportedProgram, error)
	cases := []struct {
		name  string
		make  mk
		table compile.Decompositions
	}{
		{"object and token", func(o export.Options) (*export.ExportedProgram, error) {
			o.InputNames = []string{"x"}
			return export.ExportArgs(newFooLinear(fooLinearS4), []any{seq(0, 2, 3)}, o)
		}, addmmGelu},
		{"S9 _print", func(o export.Options) (*export.ExportedProgram, error) {
			m := &printNet{}
			m.W = m.RegisterParameter("w", seq(-0.3, 3, 3))
			m.B = m.RegisterParameter("b", seq(0.1, 3))
			return export.Export(m, []*T{seq(0, 2, 3)}, o)
		}, addmmGelu},
		{"batch norm", func(o export.Options) (*export.ExportedProgram, error) {
			return export.Export(newNet(), []*T{seq(0, 5, 4)}, o)
		}, customAddTable()},
		{"dynamic sizes", func(o export.Options) (*export.ExportedProgram, error) {
			o.DynamicShapes = []map[int]*export.Dimension{{0: export.Dim("batch", 2, 64), 1: export.Dim("feat", 2, 64)}}
			return export.Export(&sizeNet{}, []*T{seq(0, 4, 3)}, o)
		}, addmmGelu},
		{"hop cond", func(o export.Options) (*export.ExportedProgram, error) {
			return export.Export(newHopNet(hopCases[0].run), hopCases[0].ins[:1], o)
		}, customAddTable()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep, err := c.make(export.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dec, err := ep.RunDecompositions(c.table)
			if err != nil {
				t.Fatal(err)
			}
			direct, err := c.make(export.Options{Decompositions: c.table})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := allCode(dec.GraphModule), allCode(direct.GraphModule); got != want {
				t.Errorf("decomposed:\n%s\nexported with the table:\n%s", got, want)
			}
			if got, want := dec.String(), direct.String(); got != want {
				t.Errorf("decomposed:\n%s\nexported with the table:\n%s", got, want)
			}
		})
	}
}

// withTakesFoo adds a decomposition of _TorchScriptTesting::takes_foo,
// which the program calls under with_effects: effectful, it stays whole.
func withTakesFoo(table compile.Decompositions) compile.Decompositions {
	op := tensor.MustOp("_TorchScriptTesting::takes_foo")
	table[op] = func(op *tensor.Op, a []any) any {
		panic("takes_foo decomposed under with_effects")
	}
	return table
}

// expTable writes exp(x) as sigmoid(x) / (1 - sigmoid(x)).
func expTable() compile.Decompositions {
	return compile.Decompositions{tensor.MustOp("aten::exp"): func(op *tensor.Op, a []any) any {
		s := a[0].(*tensor.Tensor).Sigmoid()
		return s.Div(s.Neg().AddScalar(1))
	}}
}

// constGeluTable's gelu multiplies by a constant tensor it makes, which
// the decomposed program lifts to an input.
func constGeluTable() compile.Decompositions {
	return compile.Decompositions{tensor.MustOp("aten::gelu"): func(op *tensor.Op, a []any) any {
		x := a[0].(*tensor.Tensor)
		half := tensor.FromSlice([]float32{0.5})
		return x.Mul(half).Mul(x.Mul(num(0.70710678118654752440)).Erf().AddScalar(1))
	}}
}
