package tensor

import (
	"reflect"
	"sync"
)

// ClassPrefix begins the qualified name of every custom class type, as
// TorchScript names them: __torch__.torch.classes.<namespace>.<Name>.
const ClassPrefix = "__torch__.torch.classes."

// ScriptObject is a value of a custom class type (a TorchBind object, real
// or fake): what a schema argument typed
// __torch__.torch.classes.ns.Name holds once bound. Package torchbind's
// objects implement it.
type ScriptObject interface {
	// QualifiedClassName is the class's qualified name,
	// "__torch__.torch.classes.ns.Name".
	QualifiedClassName() string
	// IsFake reports whether the object is a fake one made for tracing
	// (PyTorch's FakeScriptObject).
	IsFake() bool
}

// A ClassBoxer turns a Go value of a registered class (a *MyQueue given
// where a schema wants the class) into its ScriptObject.
type ClassBoxer func(v any) (ScriptObject, bool)

var classTypes struct {
	sync.RWMutex
	names map[string]bool
	boxer ClassBoxer
}

// RegisterClassType makes a custom class type known to schemas: the
// qualified name ("__torch__.torch.classes.ns.Name") may then appear in
// op schemas. Package torchbind calls it; it is idempotent.
func RegisterClassType(qualname string) {
	classTypes.Lock()
	defer classTypes.Unlock()
	if classTypes.names == nil {
		classTypes.names = map[string]bool{}
	}
	classTypes.names[qualname] = true
}

// ClassTypeRegistered reports whether RegisterClassType registered qualname.
func ClassTypeRegistered(qualname string) bool {
	classTypes.RLock()
	defer classTypes.RUnlock()
	return classTypes.names[qualname]
}

// SetClassBoxer installs the function that boxes bare Go values of
// registered classes (package torchbind's).
func SetClassBoxer(b ClassBoxer) {
	classTypes.Lock()
	defer classTypes.Unlock()
	classTypes.boxer = b
}

// toScriptObject accepts v for a class-typed argument: a ScriptObject of
// that class, or a Go value the boxer maps to one.
func toScriptObject(qualname string, v any) (any, bool) {
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return nil, false
	}
	o, ok := v.(ScriptObject)
	if !ok {
		classTypes.RLock()
		b := classTypes.boxer
		classTypes.RUnlock()
		if b == nil {
			return nil, false
		}
		if o, ok = b(v); !ok {
			return nil, false
		}
	}
	return o, o.QualifiedClassName() == qualname
}
