package export_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// foo is PyTorch's _TorchScriptTesting._Foo: add_tensor(z) = (x+y)*z.
type foo struct{ X, Y int }

func (f *foo) AddTensor(z *tensor.Tensor) *tensor.Tensor { return z.MulScalar(float64(f.X + f.Y)) }

func (f *foo) flatten() torchbind.Flat {
	return torchbind.Flat{{Name: "x", Value: f.X}, {Name: "y", Value: f.Y}}
}

// fakeFoo is _Foo's fake class.
type fakeFoo struct{ X, Y int }

func (f *fakeFoo) AddTensor(z *tensor.Tensor) *tensor.Tensor { return z.MulScalar(float64(f.X + f.Y)) }

var (
	fooClass torchbind.ClassOf[*foo]
	takesFoo *library.Op
)

func init() {
	fooClass = torchbind.Register[*foo]("_TorchScriptTesting::_Foo").
		Init(func(x, y int) *foo { return &foo{x, y} }).
		Def("add_tensor", (*foo).AddTensor).
		Flatten((*foo).flatten).
		Pickle(func(f *foo) map[string]*tensor.Tensor {
			return map[string]*tensor.Tensor{"x": tensor.FromSlice([]int64{int64(f.X)}), "y": tensor.FromSlice([]int64{int64(f.Y)})}
		}, func(s map[string]*tensor.Tensor) *foo {
			return &foo{int(s["x"].Item().Int64()), int(s["y"].Item().Int64())}
		})
	torchbind.RegisterFakeClass("_TorchScriptTesting::_Foo", torchbind.FakeClass{
		Unflatten: func(f torchbind.Flat) *fakeFoo { return &fakeFoo{f.Get("x").(int), f.Get("y").(int)} },
		Methods:   map[string]any{"add_tensor": (*fakeFoo).AddTensor},
	})
	takesFoo = library.Define("_TorchScriptTesting::takes_foo(__torch__.torch.classes._TorchScriptTesting._Foo foo, Tensor x) -> Tensor")
	takesFoo.Impl("CPU", func(a library.Args) any {
		return torchbind.Call(a.Object("foo"), "add_tensor", a.Tensor("x"))
	})
	takesFoo.RegisterFake(func(a library.Args) any {
		return torchbind.Call(a.Object("foo"), "add_tensor", a.Tensor("x"))
	})
}

// attrMod holds a _Foo(10, 20) as attribute attr and runs fwd.
type attrMod struct {
	nn.Base
	Attr *torchbind.Object
	fwd  func(m *attrMod, x *tensor.Tensor) *tensor.Tensor
}

func newAttrMod(fwd func(m *attrMod, x *tensor.Tensor) *tensor.Tensor) *attrMod {
	m := &attrMod{Attr: fooClass.New(10, 20), fwd: fwd}
	m.SetName("M")
	return m
}

func (m *attrMod) Forward(x *tensor.Tensor) *tensor.Tensor { return m.fwd(m, x) }

func exportCode(t *testing.T, m nn.Module, args []any, o export.Options) *export.ExportedProgram {
	t.Helper()
	ep, err := export.ExportArgs(m, args, o)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func checkCode(t *testing.T, what string, ep *export.ExportedProgram, want string) {
	t.Helper()
	if got := strings.TrimSpace(ep.GraphModule.Code()); got != strings.TrimSpace(want) {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, strings.TrimSpace(want))
	}
}

// runFoo runs the exported module on ones(2,3) and checks x + add_tensor(x) = 31.
func runFoo(t *testing.T, what string, ep *export.ExportedProgram, want float64) {
	t.Helper()
	out, err := ep.Module().Forward(tensor.OnesOf([]int{2, 3}))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(out) != 1 {
		t.Fatalf("%s: %d outputs", what, len(out))
	}
	for _, v := range out[0].Float64s() {
		if v != want {
			t.Fatalf("%s: got %v, want %v", what, out[0], want)
		}
	}
}

// S2: a method call on an attribute object, in both spellings.
func TestExportTorchbindAttributeS2(t *testing.T) {
	m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
		return x.Add(torchbind.Call(m.Attr, "add_tensor", x).(*tensor.Tensor))
	})
	x := tensor.OnesOf([]int{2, 3})
	ep := exportCode(t, m, []any{x}, export.Options{InputNames: []string{"x"}})
	checkCode(t, "S2 (seed-era)", ep, `
def forward(self, obj_attr, x):
    call_torchbind = torch.ops.higher_order.call_torchbind(obj_attr, 'add_tensor', x);  obj_attr = None
    add = torch.ops.aten.add.Tensor(x, call_torchbind);  x = call_torchbind = None
    return (add,)`)
	if got := ep.GraphSignature.String(); !strings.Contains(got, "obj_attr: CUSTOM_OBJ target='attr'") {
		t.Errorf("signature:%s", got)
	}
	if ep.CustomObjs["attr"] != m.Attr {
		t.Errorf("CustomObjs = %v", ep.CustomObjs)
	}
	runFoo(t, "S2 seed-era", ep, 31)

	ep = exportCode(t, m, []any{x}, export.Options{InputNames: []string{"x"}, NewerEffects: true})
	checkCode(t, "S2 (newer)", ep, `
def forward(self, token, obj_attr, x):
    with_effects = torch.ops.higher_order.with_effects(token, torch.ops.higher_order.call_torchbind, obj_attr, 'add_tensor', x);  token = obj_attr = None
    getitem = with_effects[0]
    getitem_1 = with_effects[1];  with_effects = None
    add = torch.ops.aten.add.Tensor(x, getitem_1);  x = getitem_1 = None
    return (getitem, add)`)
	sig := ep.GraphSignature
	if in, out := sig.InputTokens(), sig.OutputTokens(); len(in) != 1 || in[0] != "token" || len(out) != 1 || out[0] != "getitem" {
		t.Errorf("tokens %v %v", in, out)
	}
	if k := sig.InputSpecs[0].Kind; k != export.Token {
		t.Errorf("first input is %s", k)
	}
	if a, ok := sig.InputSpecs[1].Arg.(export.CustomObjArgument); !ok || a.ClassFQN != "__torch__.torch.classes._TorchScriptTesting._Foo" {
		t.Errorf("custom object arg %#v", sig.InputSpecs[1].Arg)
	}
	runFoo(t, "S2 newer", ep, 31)
}

// S3: a custom op taking the attribute object.
func TestExportTorchbindCustomOpS3(t *testing.T) {
	m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
		return x.Add(takesFoo.Call(m.Attr, x).(*tensor.Tensor))
	})
	ep := exportCode(t, m, []any{tensor.OnesOf([]int{2, 3})}, export.Options{InputNames: []string{"x"}})
	checkCode(t, "S3", ep, `
def forward(self, token, obj_attr, x):
    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops._TorchScriptTesting.takes_foo.default, obj_attr, x);  token = obj_attr = None
    getitem = with_effects[0]
    getitem_1 = with_effects[1];  with_effects = None
    add = torch.ops.aten.add.Tensor(x, getitem_1);  x = getitem_1 = None
    return (getitem, add)`)
	want := "\n# inputs\ntoken: TOKEN\nobj_attr: CUSTOM_OBJ target='attr'\nx: USER_INPUT\n\n# outputs\ngetitem: TOKEN\nadd: USER_OUTPUT\n"
	if got := ep.GraphSignature.String(); got != want {
		t.Errorf("signature:%s\nwant:%s", got, want)
	}
	runFoo(t, "S3", ep, 31)
}

// S4: the token chains through two effectful calls.
func TestExportTorchbindTokenChainS4(t *testing.T) {
	m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
		a := takesFoo.Call(m.Attr, x).(*tensor.Tensor)
		b := takesFoo.Call(m.Attr, a).(*tensor.Tensor)
		return x.Add(b)
	})
	ep := exportCode(t, m, []any{tensor.OnesOf([]int{2, 3})}, export.Options{InputNames: []string{"x"}})
	checkCode(t, "S4", ep, `
def forward(self, token, obj_attr, x):
    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops._TorchScriptTesting.takes_foo.default, obj_attr, x);  token = None
    getitem = with_effects[0]
    getitem_1 = with_effects[1];  with_effects = None
    with_effects_1 = torch._higher_order_ops.effects.with_effects(getitem, torch.ops._TorchScriptTesting.takes_foo.default, obj_attr, getitem_1);  getitem = obj_attr = getitem_1 = None
    getitem_2 = with_effects_1[0]
    getitem_3 = with_effects_1[1];  with_effects_1 = None
    add = torch.ops.aten.add.Tensor(x, getitem_3);  x = getitem_3 = None
    return (getitem_2, add)`)
	// x + 30*(30*x) with x = 1.
	runFoo(t, "S4", ep, 901)
}
