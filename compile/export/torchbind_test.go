package export_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

var (
	fooClass = export.FooClass
	takesFoo = export.TakesFoo
)

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

// Save/Load of programs holding a _Foo: the object's pickle state is in the
// file, Load rebuilds it with the class's __setstate__, the tokens and the
// graph text survive, the loaded program runs and saves to the same bytes.
func TestSaveLoadRoundTripTorchbind(t *testing.T) {
	s2 := func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
		return x.Add(torchbind.Call(m.Attr, "add_tensor", x).(*tensor.Tensor))
	}
	s4 := func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
		return x.Add(takesFoo.Call(m.Attr, takesFoo.Call(m.Attr, x)).(*tensor.Tensor))
	}
	for _, c := range []struct {
		name   string
		fwd    func(m *attrMod, x *tensor.Tensor) *tensor.Tensor
		newer  bool
		want   float64
		tokens int
	}{
		{"S2 seed-era", s2, false, 31, 0},
		{"S2 newer", s2, true, 31, 1},
		{"S4", s4, false, 901, 1},
	} {
		m := newAttrMod(c.fwd)
		ep := exportCode(t, m, []any{tensor.OnesOf([]int{2, 3})}, export.Options{InputNames: []string{"x"}, NewerEffects: c.newer})
		b := saveBytes(t, ep)
		loaded := loadBytes(t, b)
		if got, want := loaded.GraphModule.Code(), ep.GraphModule.Code(); got != want {
			t.Errorf("%s: loaded code:\n%s\nexported:\n%s", c.name, got, want)
		}
		if got, want := loaded.GraphSignature.String(), ep.GraphSignature.String(); got != want {
			t.Errorf("%s: loaded signature:%s\nexported:%s", c.name, got, want)
		}
		if n := len(loaded.GraphSignature.InputTokens()); n != c.tokens || len(loaded.GraphSignature.OutputTokens()) != c.tokens {
			t.Errorf("%s: %d input tokens, %v output tokens, want %d", c.name, n, loaded.GraphSignature.OutputTokens(), c.tokens)
		}
		obj, ok := loaded.CustomObjs["attr"].(*torchbind.Object)
		if !ok || obj == m.Attr {
			t.Fatalf("%s: loaded CustomObjs = %v, want a rebuilt object", c.name, loaded.CustomObjs)
		}
		if f := torchbind.Unwrap[*export.Foo](obj); f.X != 10 || f.Y != 20 {
			t.Errorf("%s: rebuilt _Foo(%d, %d), want _Foo(10, 20)", c.name, f.X, f.Y)
		}
		runFoo(t, c.name+" loaded", loaded, c.want)
		if again := saveBytes(t, loaded); !bytes.Equal(again, b) {
			t.Errorf("%s: saving the loaded program gives other bytes (%d vs %d)", c.name, len(again), len(b))
		}
	}
}

// TestRoundTripTorchbindTestdata loads testdata/foo.pt2 (S4's program with
// its _Foo object, saved on amd64 by go test -update) and runs it: CI runs
// it on arm64 under qemu-aarch64 too.
func TestRoundTripTorchbindTestdata(t *testing.T) {
	path := filepath.Join("testdata", "foo.pt2")
	if *update {
		m := newAttrMod(func(m *attrMod, x *tensor.Tensor) *tensor.Tensor {
			return x.Add(takesFoo.Call(m.Attr, takesFoo.Call(m.Attr, x)).(*tensor.Tensor))
		})
		ep := exportCode(t, m, []any{tensor.OnesOf([]int{2, 3})}, export.Options{InputNames: []string{"x"}})
		if err := export.Save(ep, path); err != nil {
			t.Fatal(err)
		}
		golden(t, "foo.txt", ep.GraphModule.Code())
	}
	ep, err := export.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "foo.txt", ep.GraphModule.Code())
	runFoo(t, "foo.pt2", ep, 901)
}

// fooScale has a parameter and takes a _Foo as an input.
type fooScale struct {
	nn.Base
	W *tensor.Tensor
}

func (m *fooScale) Forward(f tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
	return takesFoo.Call(f, x.Mul(m.W)).(*tensor.Tensor)
}

// An object user input after a lifted parameter: the placeholders are
// token, parameter, user inputs; the saved program takes another object
// of the class at call time.
func TestExportObjectInputWithParameter(t *testing.T) {
	m := &fooScale{}
	m.SetName("FooScale")
	m.W = m.RegisterParameter("w", tensor.FromSlice([]float32{1, 2, 3}))
	ep := exportCode(t, m, []any{fooClass.New(1, 2), tensor.OnesOf([]int{3})}, export.Options{InputNames: []string{"f", "x"}})
	checkCode(t, "object input", ep, `
def forward(self, token, p_w, f, x):
    mul = torch.ops.aten.mul.Tensor(x, p_w);  x = p_w = None
    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops._TorchScriptTesting.takes_foo.default, f, mul);  token = f = mul = None
    getitem = with_effects[0]
    getitem_1 = with_effects[1];  with_effects = None
    return (getitem, getitem_1)`)
	loaded := loadBytes(t, saveBytes(t, ep))
	for _, p := range []*export.ExportedProgram{ep, loaded} {
		out, err := p.Module().ForwardArgs(fooClass.New(5, 5), tensor.OnesOf([]int{3}))
		if err != nil {
			t.Fatal(err)
		}
		if got := out[0].(*tensor.Tensor).Float64s(); got[0] != 10 || got[1] != 20 || got[2] != 30 {
			t.Errorf("got %v, want [10 20 30]", got)
		}
	}
}
