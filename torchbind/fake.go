package torchbind

import (
	"fmt"
	"reflect"
	"sort"
	"sync"

	_ "github.com/goaten/goaten/device/meta" // fake tensors live on the meta device
	"github.com/goaten/goaten/tensor"
)

// FakeClass is the fake counterpart of a registered class, used while
// tracing (torch._library.register_fake_class): the classmethod
// __obj_unflatten__ builds a fake object from the class's flattened,
// fakified state, and fake methods simulate the real ones on it the way
// meta kernels simulate ops.
type FakeClass struct {
	// Unflatten is __obj_unflatten__, a func(torchbind.Flat) F for the
	// fake type F (usually a pointer to a struct).
	Unflatten any
	// Methods are the fake methods by name: each a func(F, args...)
	// results, usually a method expression such as (*FakeQueue).Push.
	Methods map[string]any
}

type fakeClass struct {
	cls       *Class
	goType    reflect.Type
	unflatten reflect.Value
	methods   map[string]*Method
	where     string
}

var fakes = struct {
	sync.RWMutex
	byName map[string]*fakeClass       // qualified name
	byType map[reflect.Type]*fakeClass // the fake Go type
}{byName: map[string]*fakeClass{}, byType: map[reflect.Type]*fakeClass{}}

var flatType = reflect.TypeFor[Flat]()

// RegisterFakeClass registers the fake class of the class "ns::Name". It
// panics in PyTorch's words when the class does not exist ("Tried to
// instantiate class"), when Unflatten is missing ("doesn't define a
// classmethod __obj_unflatten__") or is a method of the fake type rather
// than a constructor ("is not a classmethod"), and when a fake method
// names no method of the class or takes no fake object first.
func RegisterFakeClass(qualname string, fc FakeClass) {
	c := mustLookup(qualname)
	if fc.Unflatten == nil {
		fail(tensor.RuntimeError, "fake class of %s doesn't define a classmethod __obj_unflatten__.", c.QualifiedName())
	}
	u := reflect.ValueOf(fc.Unflatten)
	ut := u.Type()
	if ut.Kind() == reflect.Func && ut.NumIn() == 2 && ut.NumOut() == 1 && ut.In(0) == ut.Out(0) && ut.In(1) == flatType {
		// A method expression (*Fake).Unflatten needs an instance: an
		// instance method, not a classmethod.
		fail(tensor.RuntimeError, "__obj_unflatten__ method is not a classmethod.")
	}
	if ut.Kind() != reflect.Func || ut.NumIn() != 1 || ut.In(0) != flatType || ut.NumOut() != 1 {
		fail(tensor.TypeError, "fake class of %s: __obj_unflatten__ must be a func(torchbind.Flat) F, got %s", c.QualifiedName(), ut)
	}
	f := &fakeClass{cls: c, goType: ut.Out(0), unflatten: u, methods: map[string]*Method{}, where: caller(1)}
	for name, fn := range fc.Methods {
		v := reflect.ValueOf(fn)
		ft := v.Type()
		if ft.Kind() != reflect.Func || ft.NumIn() == 0 || ft.In(0) != f.goType || ft.IsVariadic() {
			fail(tensor.TypeError, "fake class of %s: fake method %s must be a func(%s, ...), got %s", c.QualifiedName(), name, f.goType, ft)
		}
		if !c.HasMethod(name) {
			fail(tensor.RuntimeError, "fake class of %s defines method %s, which %s doesn't define", c.QualifiedName(), name, c.QualifiedName())
		}
		sch := ""
		if m := c.Method(name); m != nil {
			sch = m.schema
		}
		f.methods[name] = &Method{Name: name, fn: v, self: true, schema: sch}
	}
	fakes.Lock()
	defer fakes.Unlock()
	if prev, ok := fakes.byName[c.QualifiedName()]; ok {
		fail(tensor.RuntimeError, "a fake class of %s is already registered at %s", c.QualifiedName(), prev.where)
	}
	if prev, ok := fakes.byType[f.goType]; ok {
		fail(tensor.RuntimeError, "the Go type %s is already the fake class of %s", f.goType, prev.cls.QualifiedName())
	}
	fakes.byName[c.QualifiedName()] = f
	fakes.byType[f.goType] = f
}

// HasFakeClass reports whether the class "ns::Name" has a fake class.
func HasFakeClass(qualname string) bool {
	c, ok := Lookup(qualname)
	if !ok {
		return false
	}
	return findFake(c) != nil
}

func findFake(c *Class) *fakeClass {
	fakes.RLock()
	defer fakes.RUnlock()
	return fakes.byName[c.QualifiedName()]
}

func fakeClassOfValue(v any) *fakeClass {
	fakes.RLock()
	defer fakes.RUnlock()
	return fakes.byType[reflect.TypeOf(v)]
}

// FakeObject is the fake of a script object made for tracing (PyTorch's
// FakeScriptObject): the fake class's object built from the real one's
// fakified state, the real object kept beside it and never touched.
type FakeObject struct {
	cls  *Class
	fake *fakeClass
	v    any
	real *Object
}

// QualifiedClassName is the real class's qualified name.
func (o *FakeObject) QualifiedClassName() string { return o.cls.QualifiedName() }

// IsFake is true.
func (o *FakeObject) IsFake() bool { return true }

// Class is the real class.
func (o *FakeObject) Class() *Class { return o.cls }

// Value is the fake Go value (the fake class's object).
func (o *FakeObject) Value() any { return o.v }

// Real is the real object the fake was made from (nil for a fake made
// from a bare fake value).
func (o *FakeObject) Real() *Object { return o.real }

func (o *FakeObject) String() string {
	return fmt.Sprintf("<FakeScriptObject of %s>", o.cls.QualifiedName())
}

// MethodNames lists the fake methods, sorted.
func (o *FakeObject) MethodNames() []string {
	out := make([]string, 0, len(o.fake.methods))
	for n := range o.fake.methods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Call calls a fake method by name, the arguments boxed as Object.Call's.
// A method the fake class lacks is PyTorch's "FakeScriptObject doesn't
// define method" error.
func (o *FakeObject) Call(method string, args ...any) any {
	m := o.fake.methods[method]
	if m == nil {
		fail(tensor.RuntimeError, "FakeScriptObject doesn't define method %s. (fake class of %s registered at %s)", method, o.cls.QualifiedName(), o.fake.where)
	}
	return fakeResults(m.invoke(o.cls.QualifiedName(), reflect.ValueOf(o.v), args))
}

func fakeResults(out []reflect.Value) any {
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0].Interface()
	}
	res := make([]any, len(out))
	for i, v := range out {
		res[i] = v.Interface()
	}
	return res
}

// ToFake makes the fake of a real object, as tracing does before it runs
// a program on it (PyTorch's to_fake_obj): the object is flattened
// (__obj_flatten__), each tensor in the state is fakified, and the fake
// class's __obj_unflatten__ builds the fake object. fakify makes the fake
// of one tensor (the tracer's fake tensors); nil means a meta tensor with
// the same sizes, strides, offset and dtype. The real object and its
// tensors are not changed.
func ToFake(o *Object, fakify func(*tensor.Tensor) *tensor.Tensor) *FakeObject {
	f := findFake(o.cls)
	if f == nil {
		fail(tensor.RuntimeError, "%s has no fake class: register one with torchbind.RegisterFakeClass(%q, ...) to trace programs that use it",
			o.cls.QualifiedName(), o.cls.Name())
	}
	if fakify == nil {
		fakify = MetaOf
	}
	flat := o.Flatten()
	ff := make(Flat, len(flat))
	for i, a := range flat {
		ff[i] = Attr{Name: a.Name, Value: fakifyValue(a.Value, fakify)}
	}
	v := f.unflatten.Call([]reflect.Value{reflect.ValueOf(ff)})[0].Interface()
	return &FakeObject{cls: o.cls, fake: f, v: v, real: o}
}

func fakifyValue(v any, fakify func(*tensor.Tensor) *tensor.Tensor) any {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x == nil {
			return x
		}
		return fakify(x)
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(x))
		for i, t := range x {
			if t != nil {
				out[i] = fakify(t)
			}
		}
		return out
	case Flat:
		out := make(Flat, len(x))
		for i, a := range x {
			out[i] = Attr{Name: a.Name, Value: fakifyValue(a.Value, fakify)}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fakifyValue(e, fakify)
		}
		return out
	}
	return v
}

// MetaOf is a fresh meta tensor with t's sizes, strides, storage offset
// and dtype, on a meta storage of its own: the default fakification.
func MetaOf(t *tensor.Tensor) *tensor.Tensor {
	m := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
	if h := tensor.DeviceHooksOf(tensor.Meta); h.FromCPU != nil {
		m.WithRaw(h.FromCPU(tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.CPU)).Raw())
	}
	m.SetWrappedNumber(t.IsWrappedNumber())
	return m
}
