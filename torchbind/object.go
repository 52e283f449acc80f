package torchbind

import (
	"fmt"
	"reflect"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// Object is a script object: a Go value of a registered class, boxed with
// its class (PyTorch's torch.ScriptObject). It is what a class-typed
// argument of a custom op holds; the Go value itself is also accepted
// there and boxed on the way in.
type Object struct {
	cls *Class
	v   any
}

// QualifiedClassName is "__torch__.torch.classes.ns.Name".
func (o *Object) QualifiedClassName() string { return o.cls.QualifiedName() }

// IsFake is false: a real object.
func (o *Object) IsFake() bool { return false }

// Class is the object's class.
func (o *Object) Class() *Class { return o.cls }

// Value is the Go value inside.
func (o *Object) Value() any { return o.v }

func (o *Object) String() string {
	return fmt.Sprintf("<torch.ScriptObject object of %s>", o.cls.QualifiedName())
}

// Call calls the named method with boxed arguments, converted to the Go
// parameter types as a custom op's arguments are (an int where a float is
// wanted, a script object where its Go value is wanted). It returns nil
// for a method without results, the result for one, a []any for several;
// a result of a registered class comes back as its *Object.
func (o *Object) Call(method string, args ...any) any {
	m := o.cls.Method(method)
	if m == nil || method == "__init__" {
		switch method {
		case "__obj_flatten__":
			return o.Flatten()
		case "__getstate__":
			return o.GetState()
		}
		fail(tensor.RuntimeError, "Tried to access nonexistent attribute or method '%s' of type '%s'.", method, o.cls.QualifiedName())
	}
	return results(m.invoke(o.cls.QualifiedName(), reflect.ValueOf(o.v), args))
}

// Flatten is __obj_flatten__: the object's state as (name, value) pairs.
func (o *Object) Flatten() Flat {
	o.cls.mu.RLock()
	f := o.cls.flatten
	o.cls.mu.RUnlock()
	if !f.IsValid() {
		fail(tensor.RuntimeError, "%s does not define __obj_flatten__: register it with Flatten", o.cls.QualifiedName())
	}
	return f.Call([]reflect.Value{reflect.ValueOf(o.v)})[0].Interface().(Flat)
}

// FakeForTrace is ToFake(o, fakify) (compile.ObjectFaker): a fake trace
// replaces an object input or an object it closes over by it.
func (o *Object) FakeForTrace(fakify func(*tensor.Tensor) *tensor.Tensor) tensor.ScriptObject {
	return ToFake(o, fakify)
}

// GetState is __getstate__, the pickle state: named tensors.
func (o *Object) GetState() map[string]*tensor.Tensor {
	o.cls.mu.RLock()
	g := o.cls.getstate
	o.cls.mu.RUnlock()
	if !g.IsValid() {
		fail(tensor.RuntimeError, "%s does not define __getstate__: register it with Pickle", o.cls.QualifiedName())
	}
	return g.Call([]reflect.Value{reflect.ValueOf(o.v)})[0].Interface().(map[string]*tensor.Tensor)
}

// Call calls a method of a script object by name: a real object's
// registered method or a fake object's fake method. Kernels and fake
// kernels of custom ops use it on Args.Object.
//
// It is also how a traced Go function calls a method so that the trace
// records it: inside compile.Trace (and Compile, export) the call becomes
// a call_torchbind(obj, "method", args...) node and runs on the object's
// fake (PyTorch's call_torchbind). Calling the Go method directly
// (Unwrap[*Queue](obj).Push(x)) is not recorded.
func Call(o tensor.ScriptObject, method string, args ...any) any {
	if compile.ActiveTracer() != nil {
		return hop.CallTorchbind(o, method, args...)
	}
	switch x := o.(type) {
	case *Object:
		return x.Call(method, args...)
	case *FakeObject:
		return x.Call(method, args...)
	}
	fail(tensor.TypeError, "torchbind.Call: %T is not a torchbind object", o)
	return nil
}

// Unwrap is the Go value inside a script object (real or fake), as T.
func Unwrap[T any](o tensor.ScriptObject) T {
	var v any
	switch x := o.(type) {
	case *Object:
		v = x.v
	case *FakeObject:
		v = x.v
	default:
		v = o
	}
	t, ok := v.(T)
	if !ok {
		fail(tensor.TypeError, "torchbind.Unwrap: the object holds a %T, not a %s", v, reflect.TypeFor[T]())
	}
	return t
}

// Attr is one (name, value) pair of a flattened object.
type Attr struct {
	Name  string
	Value any // *tensor.Tensor, []*tensor.Tensor, int, float64, bool, string, ...
}

// Flat is an object's flattened state, __obj_flatten__'s tuple of
// (name, value) tuples.
type Flat []Attr

// Get is the named value, or nil.
func (f Flat) Get(name string) any {
	for _, a := range f {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

// Tensor is the named tensor value.
func (f Flat) Tensor(name string) *tensor.Tensor { t, _ := f.Get(name).(*tensor.Tensor); return t }

// Tensors is the named tensor-list value.
func (f Flat) Tensors(name string) []*tensor.Tensor {
	t, _ := f.Get(name).([]*tensor.Tensor)
	return t
}

// invoke calls the method with boxed arguments after self.
func (m *Method) invoke(qualname string, self reflect.Value, args []any) []reflect.Value {
	ft := m.fn.Type()
	first := 0
	if m.self {
		first = 1
	}
	want := ft.NumIn() - first
	if len(args) != want {
		tensor.TypePanicf("%s() expected %d argument(s) but received %d argument(s). Declaration: %s", m.Name, want+first, len(args)+first, m.schema)
	}
	in := make([]reflect.Value, 0, ft.NumIn())
	if m.self {
		in = append(in, self)
	}
	for i, a := range args {
		v, ok := convertIn(a, ft.In(first+i))
		if !ok {
			tensor.TypePanicf("%s() Expected a value of type '%s' for argument '_%d' but instead found type '%T'.\nDeclaration: %s",
				m.Name, ft.In(first+i), i+1, a, m.schema)
		}
		in = append(in, v)
	}
	_ = qualname
	return m.fn.Call(in)
}

// convertIn converts a boxed argument to the Go parameter type t.
func convertIn(a any, t reflect.Type) (reflect.Value, bool) {
	if a == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			return reflect.Zero(t), true
		}
		return reflect.Value{}, false
	}
	switch x := a.(type) {
	case *Object:
		if t != reflect.TypeOf(x) {
			a = x.v
		}
	case *FakeObject:
		if t != reflect.TypeOf(x) {
			a = x.v
		}
	}
	v := reflect.ValueOf(a)
	if v.Type().AssignableTo(t) {
		return v, true
	}
	num := func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }
	switch {
	case num(v.Kind()) && num(t.Kind()) && !(t.Kind() <= reflect.Uint64 && v.Kind() >= reflect.Float32):
		return v.Convert(t), true
	case v.Type() == reflect.TypeFor[tensor.Scalar]() && t.Kind() == reflect.Float64:
		return reflect.ValueOf(a.(tensor.Scalar).Float64()).Convert(t), true
	}
	return reflect.Value{}, false
}

// results boxes a method's results: nil, one value, or a []any.
func results(out []reflect.Value) any {
	box1 := func(v reflect.Value) any {
		x := v.Interface()
		if c := classOfValue(x); c != nil && !(v.Kind() == reflect.Pointer && v.IsNil()) {
			return &Object{cls: c, v: x}
		}
		return x
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return box1(out[0])
	}
	res := make([]any, len(out))
	for i, v := range out {
		res[i] = box1(v)
	}
	return res
}
