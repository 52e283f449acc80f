package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// Foo is the Go type of _Foo (for the external tests).
type Foo = foo

// foo is PyTorch's _TorchScriptTesting._Foo: add_tensor(z) = (x+y)*z.
type foo struct{ X, Y int }

func (f *foo) AddTensor(z *tensor.Tensor) *tensor.Tensor { return z.MulScalar(float64(f.X + f.Y)) }

func (f *foo) flatten() torchbind.Flat {
	return torchbind.Flat{{Name: "x", Value: f.X}, {Name: "y", Value: f.Y}}
}

// fakeFoo is _Foo's fake class.
type fakeFoo struct{ X, Y int }

func (f *fakeFoo) AddTensor(z *tensor.Tensor) *tensor.Tensor { return z.MulScalar(float64(f.X + f.Y)) }

// FooClass and TakesFoo are _TorchScriptTesting._Foo and takes_foo, for
// the tests of both packages (registered once per test binary).
var (
	FooClass torchbind.ClassOf[*foo]
	TakesFoo *library.Op
)

func init() {
	FooClass = torchbind.Register[*foo]("_TorchScriptTesting::_Foo").
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
	TakesFoo = library.Define("_TorchScriptTesting::takes_foo(__torch__.torch.classes._TorchScriptTesting._Foo foo, Tensor x) -> Tensor")
	TakesFoo.Impl("CPU", func(a library.Args) any {
		return torchbind.Call(a.Object("foo"), "add_tensor", a.Tensor("x"))
	})
	TakesFoo.RegisterFake(func(a library.Args) any {
		return torchbind.Call(a.Object("foo"), "add_tensor", a.Tensor("x"))
	})
}

// fooNet holds a _Foo(10, 20) and runs S4's program on it:
// takes_foo(attr, takes_foo(attr, x)) + x.
type fooNet struct {
	nn.Base
	Attr *torchbind.Object
}

func (m *fooNet) Forward(x *tensor.Tensor) *tensor.Tensor {
	a := TakesFoo.Call(m.Attr, x).(*tensor.Tensor)
	return x.Add(TakesFoo.Call(m.Attr, a).(*tensor.Tensor))
}

// fooArchive is the saved S4 program: a token, a lifted _Foo, tensors.
func fooArchive(t testing.TB) []byte {
	t.Helper()
	ep, err := Export(&fooNet{Attr: FooClass.New(10, 20)}, []*tensor.Tensor{tensor.OnesOf([]int{2, 3})}, Options{InputNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLoadTorchbindErrors: archives whose custom objects cannot be rebuilt
// are errors in PyTorch's words, never panics.
func TestLoadTorchbindErrors(t *testing.T) {
	valid := fooArchive(t)
	if _, err := Load(bytes.NewReader(valid), int64(len(valid))); err != nil {
		t.Fatal(err)
	}
	rename := func(e *entry) {
		e.data = bytes.ReplaceAll(e.data, []byte("_TorchScriptTesting._Foo"), []byte("_TorchScriptTesting._Nope"))
	}
	withoutObjects := func() []byte {
		var kept []entry
		for _, e := range unzip(t, valid) {
			if e.name != objectsPath {
				kept = append(kept, e)
			}
		}
		return rezip(t, kept)
	}()
	state := func(drop string) []byte {
		return withEntry(t, valid, objectsPath, func(e *entry) {
			f, err := safetensors.Parse(e.data)
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]*tensor.Tensor{}
			for _, n := range f.Names {
				if n != drop {
					m[n] = f.Tensors[n]
				}
			}
			if drop == "" {
				m["ghost/x"] = tensor.FromSlice([]int64{1})
			}
			if e.data, err = safetensors.Marshal(m, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, c := range []struct {
		name    string
		archive []byte
		want    string
	}{
		{"unregistered class", withEntry(t, valid, modelPath, rename),
			"Tried to instantiate class '_TorchScriptTesting._Nope', but it does not exist! Ensure that it is registered via torchbind.Register"},
		{"no object state file", withoutObjects, "the archive has no archive/data/custom_objs/model.safetensors for custom object attr"},
		{"state without x", state("attr/x"), "custom object attr: __torch__.torch.classes._TorchScriptTesting._Foo.__setstate__"},
		{"state of no object", state(""), `holds the state of "ghost", which no custom object input stands for`},
		{"object used as a tensor", withEntry(t, valid, modelPath, func(e *entry) {
			e.data = bytes.Replace(e.data, []byte(`{"as_custom_obj":{"name":"obj_attr","class_fqn":"__torch__.torch.classes._TorchScriptTesting._Foo"}}`), []byte(`{"as_tensor":{"name":"obj_attr"}}`), 1)
		}), "obj_attr"},
		{"token spec on an object", withEntry(t, valid, modelPath, func(e *entry) {
			e.data = bytes.Replace(e.data, []byte(`{"token":{"arg":{"name":"token"}}}`), []byte(`{"custom_obj":{"arg":{"name":"token","class_fqn":"__torch__.torch.classes._TorchScriptTesting._Foo"},"custom_obj_name":"t"}}`), 1)
		}), "disagree on whether it is a custom object"},
	} {
		_, err := Load(bytes.NewReader(c.archive), int64(len(c.archive)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
