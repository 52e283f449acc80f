package export_test

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// hopNet runs one higher-order op in its Forward, around a linear layer
// whose parameters the sub-programs close over (lifted to operands).
type hopNet struct {
	nn.Base
	FC  *linear
	run func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor
}

func newHopNet(run func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor) *hopNet {
	n := &hopNet{run: run}
	n.SetName("HopNet")
	n.FC = newLinear(4, 4, 0.1)
	n.RegisterModule("fc", n.FC)
	return n
}

func (n *hopNet) Forward(x *tensor.Tensor) []*tensor.Tensor { return n.run(n, x) }

var hopCases = []struct {
	name string
	run  func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor
	ins  []*tensor.Tensor // example inputs; the first is exported with
}{
	{"cond", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		return hop.Cond(x.SumAll().GtScalar(2.0),
			func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{n.FC.Forward(a[0]).Relu()} },
			func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{a[0].MulScalar(3.0)} },
			[]*tensor.Tensor{x})
	}, []*tensor.Tensor{seq(0.3, 2, 4), seq(-2, 2, 4)}},
	// Beyond PyTorch (#137520): branches of different sizes, an unbacked
	// size in the program.
	{"cond_unbacked", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		y := hop.Cond(x.SumAll().GtScalar(2.0),
			func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{n.FC.Forward(a[0]).Relu()} },
			func(a ...*tensor.Tensor) []*tensor.Tensor {
				return []*tensor.Tensor{a[0].Narrow(0, 0, 1).MulScalar(3.0)}
			},
			[]*tensor.Tensor{x})
		return []*tensor.Tensor{y[0].Exp()}
	}, []*tensor.Tensor{seq(0.3, 2, 4), seq(-2, 2, 4)}},
	{"while_loop", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		i := tensor.FromSlice([]int64{0}).Reshape([]int{}).ToDevice(x.Device())
		return hop.WhileLoop(
			func(a ...*tensor.Tensor) *tensor.Tensor { return a[0].LtScalar(3) },
			func(a ...*tensor.Tensor) []*tensor.Tensor {
				return []*tensor.Tensor{a[0].AddScalar(1), n.FC.Forward(a[1]).Tanh()}
			},
			[]*tensor.Tensor{i, x}, nil)
	}, []*tensor.Tensor{seq(0.3, 2, 4), seq(-1, 2, 4)}},
	{"map", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		return hop.Map(func(a ...*tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{n.FC.Forward(a[0]).Sigmoid()}
		}, []*tensor.Tensor{x}, nil)
	}, []*tensor.Tensor{seq(0.3, 3, 4), seq(-1, 3, 4)}},
	{"scan", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		carry, ys := hop.Scan(func(c, xs, add []*tensor.Tensor) ([]*tensor.Tensor, []*tensor.Tensor) {
			nc := n.FC.Forward(c[0].Add(xs[0])).Tanh()
			return []*tensor.Tensor{nc}, []*tensor.Tensor{nc.MulScalar(2.0)}
		}, []*tensor.Tensor{tensor.ZerosOf([]int{4}).ToDevice(x.Device())}, []*tensor.Tensor{x}, 0, false)
		return append(carry, ys...)
	}, []*tensor.Tensor{seq(0.3, 3, 4), seq(-1, 3, 4)}},
}

// moreHOPCases are the higher-order ops TestHOPRoundTrip does not cover.
var moreHOPCases = []struct {
	name string
	run  func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor
	ins  []*tensor.Tensor
}{
	{"wrap", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		return hop.Wrap(func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{n.FC.Forward(a[0]).Sin()} }, x)
	}, []*tensor.Tensor{seq(0.3, 2, 4), seq(-1, 2, 4)}},
	{"checkpoint", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		return hop.Checkpoint(func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{n.FC.Forward(a[0]).Tanh()} }, x)
	}, []*tensor.Tensor{seq(0.3, 2, 4), seq(-1, 2, 4)}},
	{"invoke_subgraph", func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		block := func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{n.FC.Forward(a[0]).Relu()} }
		y := hop.InvokeSubgraph(block, "subgraph_0", x)
		return hop.InvokeSubgraph(block, "subgraph_0", y[0])
	}, []*tensor.Tensor{seq(0.3, 2, 4), seq(-1, 2, 4)}},
}

// TestHOPEagerCompiledExported: each higher-order op, in a module on the
// CPU and on the gonum device, gives the same results eagerly, compiled
// (fullgraph) and exported, saved and loaded, bit for bit, on inputs
// taking each path.
func TestHOPEagerCompiledExported(t *testing.T) {
	cases := append([]struct {
		name string
		run  func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor
		ins  []*tensor.Tensor
	}(nil), hopCases...)
	cases = append(cases, moreHOPCases...)
	for _, dev := range []tensor.Device{tensor.CPU, newdevice.Device} {
		for _, c := range cases {
			t.Run(dev.String()+"/"+c.name, func(t *testing.T) {
				net := newHopNet(c.run)
				net.To(dev)
				ins := make([]*tensor.Tensor, len(c.ins))
				for i, x := range c.ins {
					ins[i] = x.ToDevice(dev)
				}
				compiled := compile.Compile(net.Forward, compile.Options{Fullgraph: true})
				ep, err := export.Export(net, ins[:1])
				if err != nil {
					t.Fatal(err)
				}
				m := loadBytes(t, saveBytes(t, ep)).Module()
				m.To(dev)
				for _, x := range ins {
					want := net.Forward(x)
					res, err := compiled.Call(x)
					if err != nil {
						t.Fatal(err)
					}
					got := flat(res)
					loaded, err := m.Forward(x)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) || len(loaded) != len(want) {
						t.Fatalf("%d compiled and %d loaded outputs, want %d", len(got), len(loaded), len(want))
					}
					for i := range want {
						if want[i].Device() != dev || loaded[i].Device() != dev {
							t.Errorf("output %d on %s (loaded: %s), want %s", i, want[i].Device(), loaded[i].Device(), dev)
						}
						if err := sameBits(got[i].ToDevice(tensor.CPU), want[i].ToDevice(tensor.CPU)); err != nil {
							t.Errorf("compiled output %d: %v", i, err)
						}
						if err := sameBits(loaded[i].ToDevice(tensor.CPU), want[i].ToDevice(tensor.CPU)); err != nil {
							t.Errorf("loaded output %d: %v", i, err)
						}
					}
				}
				if s := compiled.Stats(); s.Frames != 1 {
					t.Errorf("compiled: %+v", s)
				}
			})
		}
	}
}

// flat lists a compiled call's tensors.
func flat(v any) []*tensor.Tensor {
	switch x := v.(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{x}
	case []*tensor.Tensor:
		return x
	case []any:
		var out []*tensor.Tensor
		for _, e := range x {
			out = append(out, flat(e)...)
		}
		return out
	}
	return nil
}

// TestHOPRoundTrip exports a module calling each higher-order op, saves it,
// loads it and runs it on inputs that take each path, against eager.
func TestHOPRoundTrip(t *testing.T) {
	for _, c := range hopCases {
		t.Run(c.name, func(t *testing.T) {
			net := newHopNet(c.run)
			ep, err := export.Export(net, c.ins[:1])
			if err != nil {
				t.Fatal(err)
			}
			for stage, p := range []*export.ExportedProgram{ep, loadBytes(t, saveBytes(t, ep))} {
				m := p.Module()
				for _, x := range c.ins {
					want := net.Forward(x)
					got, err := m.Forward(x)
					if err != nil {
						t.Fatalf("stage %d: %v", stage, err)
					}
					if len(got) != len(want) {
						t.Fatalf("stage %d: %d outputs, want %d", stage, len(got), len(want))
					}
					for i := range want {
						if err := sameBits(got[i], want[i]); err != nil {
							t.Errorf("stage %d output %d: %v", stage, i, err)
						}
					}
				}
			}
		})
	}
}

// The unbacked size of a cond whose branches differ in size prints as
// PyTorch prints one (f32[u0, 4], u0: VR[0, int_oo]), is saved as the
// symbol without a hint, and loads back the same.
func TestHOPUnbackedSize(t *testing.T) {
	c := hopCases[1]
	if c.name != "cond_unbacked" {
		t.Fatalf("hopCases[1] is %s", c.name)
	}
	ep, err := export.Export(newHopNet(c.run), c.ins[:1])
	if err != nil {
		t.Fatal(err)
	}
	b := saveBytes(t, ep)
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var model []byte
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "models/model.json") {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			model, _ = io.ReadAll(r)
			r.Close()
		}
	}
	if !strings.Contains(string(model), `{"as_expr":{"expr_str":"u0","hint":null}}`) {
		t.Errorf("the saved program has no hintless u0 size")
	}
	for stage, p := range []*export.ExportedProgram{ep, loadBytes(t, b)} {
		s := p.String()
		if stage == 0 && testing.Verbose() {
			t.Log(s)
		}
		for _, want := range []string{`getitem: "f32[u0, 4]" = cond[0]`, `exp: "f32[u0, 4]" = torch.ops.aten.exp.default(getitem)`, "Range constraints: {u0: VR[0, int_oo]}"} {
			if !strings.Contains(s, want) {
				t.Errorf("stage %d: no %q in\n%s", stage, want, s)
			}
		}
	}
}

var afFoo = library.Define("hopexp::foo(Tensor(a!) x, Tensor y) -> Tensor")

func init() {
	afFoo.Impl("CPU", func(a library.Args) any {
		x, y := a.Tensor("x"), a.Tensor("y")
		x.Add_(y)
		return x.Mul(y)
	})
	afFoo.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
}

// A module calling a mutable custom op exports with an auto_functionalized
// node (PyTorch's export keeps v1), whose op is saved as_operator and its
// arguments as keyword inputs; the loaded program computes as eager. CPU
// only: the gonum device has no in-place ops for the kernel to write with.
func TestHOPAutoFunctionalizedRoundTrip(t *testing.T) {
	net := newHopNet(func(n *hopNet, x *tensor.Tensor) []*tensor.Tensor {
		h := n.FC.Forward(x)
		r := afFoo.Call(h, x).(*tensor.Tensor)
		return []*tensor.Tensor{r, h}
	})
	x := seq(0.3, 2, 4)
	ep, err := export.Export(net, []*tensor.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	line := "auto_functionalized = torch.ops.higher_order.auto_functionalized(torch.ops.hopexp.foo.default, x = add, y = args_0);  add = args_0 = None"
	for stage, p := range []*export.ExportedProgram{ep, loadBytes(t, saveBytes(t, ep))} {
		if !strings.Contains(p.String(), line) {
			t.Errorf("stage %d: no %q in\n%s", stage, line, p)
		}
	}
	l := loadBytes(t, saveBytes(t, ep))
	got, err := l.Module().Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	want := net.Forward(x)
	for i := range want {
		if err := sameBits(got[i], want[i]); err != nil {
			t.Error(err)
		}
	}
}
