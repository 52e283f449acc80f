package export

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

var (
	scriptObjectType = reflect.TypeFor[tensor.ScriptObject]()
	anyType          = reflect.TypeFor[any]()
)

// ExportArgs is Export over inputs that may include script objects
// (TorchBind objects, tensor.ScriptObject) beside tensors, as seed 001's
// modules take a TensorQueue: Forward's parameter for an object is
// tensor.ScriptObject, its results may include objects. An object input is
// a USER_INPUT whose argument is a CustomObjArgument; Forward runs on its
// fake (its flattened state fakified, the fake class's __obj_unflatten__),
// so the real object is untouched. Method calls (torchbind.Call) and custom
// ops taking the object are effectful: a TOKEN input and output thread
// them (see Options.NewerEffects for how they print). Objects Forward reads
// from the module's fields are lifted to CUSTOM_OBJ inputs, named after the
// field (obj_attr for a field Attr), and kept in the program's CustomObjs.
//
// With tensor inputs only it is Export. Dynamic dimensions are not
// supported with object inputs.
func ExportArgs(m nn.Module, args []any, opts ...Options) (*ExportedProgram, error) {
	tensors := make([]*tensor.Tensor, len(args))
	objects := false
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x == nil {
				return nil, fmt.Errorf("export: input %d is nil", i)
			}
			tensors[i] = x
		case tensor.ScriptObject:
			if x == nil || reflect.ValueOf(x).Kind() == reflect.Pointer && reflect.ValueOf(x).IsNil() {
				return nil, fmt.Errorf("export: input %d is nil", i)
			}
			objects = true
		default:
			return nil, fmt.Errorf("export: input %d is a %T, not a tensor or a script object", i, a)
		}
	}
	if !objects {
		return Export(m, tensors, opts...)
	}
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	mod, fwd, err := moduleForward(m)
	if err != nil {
		return nil, err
	}
	if err := checkForwardArgs(fwd.Type(), args); err != nil {
		return nil, fmt.Errorf("export: %T.Forward: %w", m, err)
	}
	for _, d := range o.DynamicShapes {
		if len(d) > 0 {
			return nil, fmt.Errorf("export: dynamic dimensions are not supported with script object inputs yet")
		}
	}
	names, err := userInputNames(o.InputNames, len(args))
	if err != nil {
		return nil, err
	}
	dims, err := resolveDims(tensors, nil, names)
	if err != nil {
		return nil, err
	}
	state := collectState(mod)
	fn, inputs, topts := forwardArgsFn(fwd, state, args, o.Decompositions)
	raw, err := compile.TraceArgs(fn, inputs, topts)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return lift(raw, mod, state, names, dims, o)
}

// checkForwardArgs checks Forward's signature against inputs with objects.
func checkForwardArgs(ft reflect.Type, args []any) error {
	if ft.IsVariadic() {
		return fmt.Errorf("a variadic Forward cannot take script objects")
	}
	if ft.NumIn() != len(args) {
		return fmt.Errorf("it takes %d arguments, %d inputs given", ft.NumIn(), len(args))
	}
	for i, a := range args {
		in := ft.In(i)
		if _, isObj := a.(tensor.ScriptObject); isObj {
			if in.Kind() != reflect.Interface || !scriptObjectType.Implements(in) {
				return fmt.Errorf("argument %d is %s; a script object input needs tensor.ScriptObject", i, in)
			}
			continue
		}
		if in != tensorType {
			return fmt.Errorf("argument %d is %s, not *tensor.Tensor", i, in)
		}
	}
	if ft.NumOut() == 0 {
		return fmt.Errorf("it returns nothing")
	}
	for i := range ft.NumOut() {
		if t := ft.Out(i); t != tensorType && t != reflect.TypeOf([]*tensor.Tensor(nil)) && t != scriptObjectType {
			return fmt.Errorf("result %d is %s, not *tensor.Tensor, []*tensor.Tensor or tensor.ScriptObject", i, t)
		}
	}
	return nil
}

// forwardArgsFn is forwardFn for inputs with script objects: Forward as a
// function of the state tensors and the user inputs, returning its results
// flattened (tensors and objects) as one []any.
func forwardArgsFn(fwd reflect.Value, state []stateEntry, args []any, decomps compile.Decompositions) (any, []any, compile.TraceOptions) {
	ns := len(state)
	ft := fwd.Type()
	in := make([]reflect.Type, 0, ns+len(args))
	inputs := make([]any, 0, ns+len(args))
	names := make([]string, 0, ns+len(args))
	for i, s := range state {
		in = append(in, tensorType)
		inputs = append(inputs, s.t)
		names = append(names, "state"+strconv.Itoa(i))
	}
	for i, a := range args {
		in = append(in, ft.In(i))
		inputs = append(inputs, a)
		names = append(names, "arg"+strconv.Itoa(i))
	}
	fnType := reflect.FuncOf(in, []reflect.Type{anyType}, false)
	fn := reflect.MakeFunc(fnType, func(vals []reflect.Value) []reflect.Value {
		st := make([]*tensor.Tensor, ns)
		for i := range st {
			st[i] = vals[i].Interface().(*tensor.Tensor)
		}
		restore := swapIn(state, st)
		defer restore()
		var flat []any
		for _, r := range fwd.Call(vals[ns:]) {
			switch x := r.Interface().(type) {
			case *tensor.Tensor:
				flat = append(flat, stateStandIn(x, state, st))
			case []*tensor.Tensor:
				for _, t := range x {
					flat = append(flat, stateStandIn(t, state, st))
				}
			case tensor.ScriptObject:
				flat = append(flat, x)
			case nil:
				flat = append(flat, nil)
			}
		}
		var out any = flat
		return []reflect.Value{reflect.ValueOf(&out).Elem()}
	})
	return fn.Interface(), inputs, compile.TraceOptions{Mode: compile.Fake, Functionalize: true, Decompositions: decomps, ArgNames: names}
}

// stateStandIn is t, or the traced stand-in of the state tensor t is.
func stateStandIn(t *tensor.Tensor, state []stateEntry, in []*tensor.Tensor) *tensor.Tensor {
	for j, s := range state {
		if t != nil && t == s.t {
			return in[j]
		}
	}
	return t
}

// objectNames maps the script objects held in the fields of mod's modules
// to their dotted names: the field name in snake case ("Attr" -> "attr"),
// or its `export:"name"` tag.
func objectNames(mod stateful) map[tensor.ScriptObject]string {
	out := map[tensor.ScriptObject]string{}
	for _, nm := range mod.NamedModules() {
		v := reflect.ValueOf(nm.Module)
		if nm.Name == "" {
			v = reflect.ValueOf(mod)
		}
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				break
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		st := v.Type()
		for i := range st.NumField() {
			f := st.Field(i)
			fv := v.Field(i)
			if !f.IsExported() || !f.Type.Implements(scriptObjectType) {
				continue
			}
			if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil() {
				continue
			}
			obj := fv.Interface().(tensor.ScriptObject)
			name := f.Tag.Get("export")
			if name == "" {
				name = snakeCase(f.Name)
			}
			if nm.Name != "" {
				name = nm.Name + "." + name
			}
			if _, ok := out[obj]; !ok {
				out[obj] = name
			}
		}
	}
	return out
}

// argSpec is the argument spec of a graph value: a CustomObjArgument for a
// script object, a TensorArgument otherwise.
func argSpec(n *fx.Node) ArgumentSpec {
	if o, ok := n.Meta[fx.MetaVal].(tensor.ScriptObject); ok {
		return CustomObjArgument{Name: n.Name, ClassFQN: o.QualifiedClassName()}
	}
	return TensorArgument{n.Name}
}
