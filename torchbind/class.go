package torchbind

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goaten/goaten/tensor"
)

// Class is a registered custom class (torch::class_<T>): its constructor,
// its methods with their schemas, __obj_flatten__ and pickle state.
type Class struct {
	ns, name string
	goType   reflect.Type
	where    string

	mu       sync.RWMutex
	init     *Method
	methods  map[string]*Method
	flatten  reflect.Value // func(T) Flat
	getstate reflect.Value // func(T) map[string]*tensor.Tensor
	setstate reflect.Value // func(map[string]*tensor.Tensor) T
}

// Method is one method of a class: a Go function whose first parameter is
// the object, with the schema PyTorch generates from its signature.
type Method struct {
	Name      string
	schema    string
	annotated string
	fn        reflect.Value
	self      bool // the first parameter is the object

	// What the method does to aliasing (MethodOption): it changes the
	// object's state, the arguments it keeps in the state (by schema
	// position: 1 is _1), its tensor results may alias the state.
	mutates  bool
	stores   map[int]bool
	retAlias bool
}

// Schema is the method's schema in PyTorch's words, e.g.
// "push(__torch__.torch.classes.MyCustomClass.TensorQueue _0, Tensor _1) -> NoneType _0".
// It carries no alias annotations, as PyTorch prints a method's schema;
// AnnotatedSchema has them.
func (m *Method) Schema() string { return m.schema }

// AnnotatedSchema is Schema with the alias annotations the method's
// options declare: the object (a!) when the method mutates it, a tensor
// argument the object keeps Tensor(b -> *) (it may alias the state
// afterwards, as list.append's element), tensor results that may alias the
// state Tensor(*):
//
//	push(__torch__.torch.classes.MyCustomClass.TensorQueue(a!) _0, Tensor(b -> *) _1) -> NoneType _0
//	pop(__torch__.torch.classes.MyCustomClass.TensorQueue(a!) _0) -> Tensor(*) _0
func (m *Method) AnnotatedSchema() string { return m.annotated }

// Mutates reports whether the method changes the object's state (the
// object is (a!) in AnnotatedSchema).
func (m *Method) Mutates() bool { return m.mutates }

// Stores reports whether the object keeps argument i (1 for _1, the first
// after the object): after the call the argument may alias the state.
func (m *Method) Stores(i int) bool { return m.stores[i] }

// ReturnsAlias reports whether the method's tensor results may alias the
// object's state (Tensor(*)): a tensor it holds, not a fresh one.
func (m *Method) ReturnsAlias() bool { return m.retAlias }

// A MethodOption declares what a method does to aliasing; Def takes them.
// They are what tracing and functionalization know of a method beyond its
// Go signature, and they appear in AnnotatedSchema.
type MethodOption func(*Method)

// Mutates declares that the method changes the object's state.
func Mutates() MethodOption { return func(m *Method) { m.mutates = true } }

// Stores declares that the object keeps the tensor arguments at schema
// positions args (1 is _1, the first argument after the object).
func Stores(args ...int) MethodOption {
	return func(m *Method) {
		if m.stores == nil {
			m.stores = map[int]bool{}
		}
		for _, i := range args {
			m.stores[i] = true
		}
	}
}

// ReturnsAlias declares that the method's tensor results may be tensors
// the object holds (Tensor(*)), not fresh ones.
func ReturnsAlias() MethodOption { return func(m *Method) { m.retAlias = true } }

func (m *Method) String() string { return m.schema }

var registry = struct {
	sync.RWMutex
	byName map[string]*Class       // "ns::Name"
	byType map[reflect.Type]*Class // the Go type T
}{byName: map[string]*Class{}, byType: map[reflect.Type]*Class{}}

func init() { tensor.SetClassBoxer(box) }

// box makes a bare Go value of a registered class (or of a registered fake
// class) the ScriptObject a schema argument holds.
func box(v any) (tensor.ScriptObject, bool) {
	if c := classOfValue(v); c != nil {
		return &Object{cls: c, v: v}, true
	}
	if f := fakeClassOfValue(v); f != nil {
		return &FakeObject{cls: f.cls, fake: f, v: v}, true
	}
	return nil, false
}

func classOfValue(v any) *Class {
	if v == nil {
		return nil
	}
	registry.RLock()
	defer registry.RUnlock()
	return registry.byType[reflect.TypeOf(v)]
}

// ClassOf is a registered class whose objects are Go values of type T
// (usually a pointer, *MyQueue): the typed handle Register and Fragment
// return, with the registration methods.
type ClassOf[T any] struct{ *Class }

func splitName(qualname string) (ns, name string) {
	ns, name, ok := strings.Cut(qualname, "::")
	if !ok || ns == "" || name == "" || strings.ContainsAny(name, ".:") {
		fail(tensor.RuntimeError, "torchbind: class name %q must be \"namespace::Name\"", qualname)
	}
	return ns, name
}

func caller(skip int) string {
	_, file, line, ok := runtime.Caller(skip + 1)
	if !ok {
		return "unknown"
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// Register registers the Go type T as the custom class "ns::Name"
// (TORCH_LIBRARY(ns, m) { m.class_<T>("Name") }), qualified name
// __torch__.torch.classes.ns.Name. Registering a name or a Go type twice
// panics; use Fragment to add methods to a registered class.
func Register[T any](qualname string) ClassOf[T] {
	ns, name := splitName(qualname)
	t := reflect.TypeFor[T]()
	c := &Class{ns: ns, name: name, goType: t, where: caller(1), methods: map[string]*Method{}}
	registry.Lock()
	defer registry.Unlock()
	if prev, ok := registry.byName[qualname]; ok {
		fail(tensor.RuntimeError, "Tried to register class %s twice: registered at %s and at %s", c.QualifiedName(), prev.where, c.where)
	}
	if prev, ok := registry.byType[t]; ok {
		fail(tensor.RuntimeError, "torchbind: Go type %s is already the class %s (registered at %s)", t, prev.QualifiedName(), prev.where)
	}
	registry.byName[qualname] = c
	registry.byType[t] = c
	tensor.RegisterClassType(c.QualifiedName())
	return ClassOf[T]{c}
}

// Fragment is the registered class "ns::Name" for adding methods to it
// later (TORCH_LIBRARY_FRAGMENT(ns, m) { m.class_<T>("Name").def(...) }).
// T must be the class's Go type.
func Fragment[T any](qualname string) ClassOf[T] {
	c := mustLookup(qualname)
	if t := reflect.TypeFor[T](); t != c.goType {
		fail(tensor.TypeError, "torchbind: class %s holds Go values of type %s, not %s", qualname, c.goType, t)
	}
	return ClassOf[T]{c}
}

// Lookup is the registered class "ns::Name".
func Lookup(qualname string) (*Class, bool) {
	registry.RLock()
	defer registry.RUnlock()
	c, ok := registry.byName[qualname]
	return c, ok
}

func mustLookup(qualname string) *Class {
	ns, name := splitName(qualname)
	c, ok := Lookup(qualname)
	if !ok {
		fail(tensor.RuntimeError, "Tried to instantiate class '%s.%s', but it does not exist! Ensure that it is registered via torchbind.Register", ns, name)
	}
	return c
}

// Classes lists the registered classes, sorted by name.
func Classes() []*Class {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]*Class, 0, len(registry.byName))
	for _, c := range registry.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Name is "ns::Name".
func (c *Class) Name() string { return c.ns + "::" + c.name }

// QualifiedName is "__torch__.torch.classes.ns.Name", the class's type in
// schemas.
func (c *Class) QualifiedName() string { return tensor.ClassPrefix + c.ns + "." + c.name }

// GoType is the Go type of the class's objects.
func (c *Class) GoType() reflect.Type { return c.goType }

func (c *Class) String() string { return c.QualifiedName() }

// Init registers the constructor (torch::init<Args...>()): fn is a
// func(args...) T. Its schema is __init__(Class _0, args...) -> NoneType _0.
func (c ClassOf[T]) Init(fn any) ClassOf[T] {
	v := reflect.ValueOf(fn)
	ft := v.Type()
	if ft.Kind() != reflect.Func || ft.NumOut() != 1 || ft.Out(0) != c.goType {
		fail(tensor.TypeError, "torchbind: %s.Init wants a func(...) %s, got %s", c.Name(), c.goType, typeString(fn))
	}
	m := &Method{Name: "__init__", fn: v}
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		in[i] = ft.In(i)
	}
	m.schema, _ = c.schemaText(m, in, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.init != nil {
		fail(tensor.RuntimeError, "torchbind: %s already has a constructor", c.Name())
	}
	c.init = m
	return c
}

// Def registers a method (m.class_<T>(...).def(name, &T::method)): fn is a
// func(T, args...) results, usually a method expression such as
// (*MyQueue).Push. Its schema is generated from the signature; opts
// declare what it does to aliasing (Mutates, Stores, ReturnsAlias), for
// its AnnotatedSchema. Defining a name twice panics.
func (c ClassOf[T]) Def(name string, fn any, opts ...MethodOption) ClassOf[T] {
	v := reflect.ValueOf(fn)
	ft := v.Type()
	if ft.Kind() != reflect.Func || ft.NumIn() == 0 || ft.In(0) != c.goType || ft.IsVariadic() {
		fail(tensor.TypeError, "torchbind: %s.Def(%q) wants a func(%s, ...), got %s", c.Name(), name, c.goType, typeString(fn))
	}
	in := make([]reflect.Type, ft.NumIn()-1)
	for i := range in {
		in[i] = ft.In(i + 1)
	}
	out := make([]reflect.Type, ft.NumOut())
	for i := range out {
		out[i] = ft.Out(i)
	}
	m := &Method{Name: name, fn: v, self: true}
	for _, o := range opts {
		o(m)
	}
	m.schema, m.annotated = c.schemaText(m, in, out)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.methods[name]; ok {
		fail(tensor.RuntimeError, "torchbind: method '%s' of %s is already defined", name, c.QualifiedName())
	}
	c.methods[name] = m
	return c
}

// Flatten registers __obj_flatten__: the object's state as (name, value)
// pairs, which tracing fakifies, guards on and hands to the fake class's
// unflatten constructor.
func (c ClassOf[T]) Flatten(fn func(T) Flat) ClassOf[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flatten = reflect.ValueOf(fn)
	return c
}

// Pickle registers the pickle state (def_pickle): getstate returns the
// object's state as named tensors (__getstate__), setstate builds an
// object from it (__setstate__).
func (c ClassOf[T]) Pickle(getstate func(T) map[string]*tensor.Tensor, setstate func(map[string]*tensor.Tensor) T) ClassOf[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.getstate = reflect.ValueOf(getstate)
	c.setstate = reflect.ValueOf(setstate)
	return c
}

// Wrap boxes a Go value of the class as its script object.
func (c ClassOf[T]) Wrap(v T) *Object { return &Object{cls: c.Class, v: v} }

// Method is the named method, or nil. __init__ is the constructor;
// __obj_flatten__, __getstate__ and __setstate__ are methods when
// registered.
func (c *Class) Method(name string) *Method {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if name == "__init__" {
		return c.init
	}
	return c.methods[name]
}

// HasMethod reports whether the class defines the named method, the
// special ones included.
func (c *Class) HasMethod(name string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch name {
	case "__init__":
		return c.init != nil
	case "__obj_flatten__":
		return c.flatten.IsValid()
	case "__getstate__", "__setstate__":
		return c.getstate.IsValid()
	}
	_, ok := c.methods[name]
	return ok
}

// MethodNames lists the names of the methods defined with Def, sorted.
func (c *Class) MethodNames() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.methods))
	for n := range c.methods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New constructs an object through the registered constructor, the
// arguments converted as a boxed call's.
func (c *Class) New(args ...any) *Object {
	c.mu.RLock()
	m := c.init
	c.mu.RUnlock()
	if m == nil {
		fail(tensor.RuntimeError, "Tried to instantiate class '%s.%s' but it has no constructor: register one with Init", c.ns, c.name)
	}
	res := m.invoke(c.QualifiedName(), reflect.Value{}, args)
	return &Object{cls: c, v: res[0].Interface()}
}

// SetState builds an object from its pickle state (__setstate__).
func (c *Class) SetState(state map[string]*tensor.Tensor) *Object {
	c.mu.RLock()
	set := c.setstate
	c.mu.RUnlock()
	if !set.IsValid() {
		fail(tensor.RuntimeError, "%s does not define __setstate__: register it with Pickle", c.QualifiedName())
	}
	out := set.Call([]reflect.Value{reflect.ValueOf(state)})
	return &Object{cls: c, v: out[0].Interface()}
}

// schemaText is PyTorch's generated method schema: the object is _0, the
// arguments _1, _2, ...; the result NoneType _0 when there is none. It
// returns the plain text and the text with m's alias annotations.
func (c *Class) schemaText(m *Method, in, out []reflect.Type) (plain, annotated string) {
	name := m.Name
	var p, a strings.Builder
	both := func(s string) { p.WriteString(s); a.WriteString(s) }
	set := 'a'
	both(name + "(" + c.QualifiedName())
	if m.mutates {
		a.WriteString("(a!)")
		set++
	}
	both(" _0")
	for i, t := range in {
		st := schemaType(t, c, name)
		both(", ")
		p.WriteString(st)
		if m.stores[i+1] {
			if !isTensorType(t) {
				fail(tensor.TypeError, "torchbind: method %s of %s keeps argument _%d, a %s; only tensors can be kept", name, c.QualifiedName(), i+1, st)
			}
			a.WriteString(withAlias(st, fmt.Sprintf("(%c -> *)", set)))
			set++
		} else {
			a.WriteString(st)
		}
		both(fmt.Sprintf(" _%d", i+1))
	}
	for i := range m.stores {
		if i < 1 || i > len(in) {
			fail(tensor.TypeError, "torchbind: method %s of %s keeps argument _%d, but it has %d argument(s)", name, c.QualifiedName(), i, len(in))
		}
	}
	both(") -> ")
	ret := func(t reflect.Type) {
		st := schemaType(t, c, name)
		p.WriteString(st)
		if m.retAlias && isTensorType(t) {
			a.WriteString(withAlias(st, "(*)"))
		} else {
			a.WriteString(st)
		}
	}
	if m.retAlias && !slices.ContainsFunc(out, isTensorType) {
		fail(tensor.TypeError, "torchbind: method %s of %s returns no tensor that could alias its state", name, c.QualifiedName())
	}
	switch len(out) {
	case 0:
		both("NoneType _0")
	case 1:
		ret(out[0])
		both(" _0")
	default:
		both("(")
		for i, t := range out {
			if i > 0 {
				both(", ")
			}
			ret(t)
			both(fmt.Sprintf(" _%d", i))
		}
		both(")")
	}
	return p.String(), a.String()
}

// isTensorType reports whether a Go type is a schema Tensor or Tensor[].
func isTensorType(t reflect.Type) bool {
	return t == tensorType || t.Kind() == reflect.Slice && t.Elem() == tensorType
}

// withAlias puts an alias annotation after the base type of a schema type:
// Tensor(*), Tensor(*)[].
func withAlias(st, ann string) string {
	base, list := strings.CutSuffix(st, "[]")
	if list {
		return base + ann + "[]"
	}
	return st + ann
}

var tensorType = reflect.TypeFor[*tensor.Tensor]()

// schemaType is the schema type of a Go type.
func schemaType(t reflect.Type, self *Class, method string) string {
	switch t {
	case tensorType:
		return "Tensor"
	case reflect.TypeFor[tensor.Scalar]():
		return "Scalar"
	case reflect.TypeFor[tensor.DType]():
		return "ScalarType"
	case reflect.TypeFor[tensor.Device]():
		return "Device"
	case self.goType:
		return self.QualifiedName()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "int"
	case reflect.Float64, reflect.Float32:
		return "float"
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "str"
	case reflect.Slice:
		return schemaType(t.Elem(), self, method) + "[]"
	}
	registry.RLock()
	c := registry.byType[t]
	registry.RUnlock()
	if c != nil {
		return c.QualifiedName()
	}
	fail(tensor.TypeError, "torchbind: method %s of %s: the Go type %s has no schema type", method, self.QualifiedName(), t)
	return ""
}

func typeString(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

func fail(kind tensor.ErrorKind, format string, args ...any) {
	panic(&tensor.Error{Kind: kind, Msg: fmt.Sprintf(format, args...)})
}
