package library

import (
	"fmt"
	"reflect"
	"strings"

	_ "github.com/goaten/goaten/device/meta" // the meta device fake kernels run on
	"github.com/goaten/goaten/tensor"
)

// metaKernel is every defined op's kernel on the meta device, registered
// by Define: the fake kernel when there is one, else the composite kernel
// (run on meta tensors), else the trivial fake impl of an op that mutates
// its inputs and returns nothing, else PyTorch 2's error.
func (d *opDef) metaKernel(op *tensor.Op, args []any) any {
	fakeObj := d.checkScriptObjects(args)
	if f := d.fake.Load(); f != nil {
		return d.runFake(f, args)
	}
	if c := op.Composite(); c != nil {
		return c(op, args)
	}
	if fakeObj != "" {
		fail(tensor.RuntimeError, "Torchbind op %s received a FakeScriptObject input when dispatching Meta. but no python implementation is found. "+
			"Please file an issue on this when you encounter this error. This error can happen when you export or compile the model. "+
			"It can still happen even if a kernel for a device has been registered. That's because a FakeScriptObject only works "+
			"with a fake impl: register one with library.RegisterFake(%q, ...) (argument '%s').", op.Name, op.Name, fakeObj)
	}
	if d.trivialFake {
		return nil
	}
	tensor.Raise(&tensor.Error{Kind: tensor.RuntimeError, Op: op.Name, Msg: noFakeMessage(op.Name)})
	return nil
}

// checkScriptObjects checks the custom-class arguments of a call on the
// meta device: each must be a fake object (tracing fakifies real ones with
// torchbind.ToFake), as PyTorch's schema matching under fake mode wants.
// It returns the name of the first fake object argument, "" when none.
func (d *opDef) checkScriptObjects(args []any) string {
	first := ""
	for i, a := range d.op.Schema.Args {
		if a.Type.Base().Kind != tensor.TClass || i >= len(args) || args[i] == nil {
			continue
		}
		o, ok := args[i].(tensor.ScriptObject)
		if !ok {
			continue
		}
		if !o.IsFake() {
			fail(tensor.RuntimeError, "%s() Expected a value of type '%s' for argument '%s' but instead found type '%T'.\n"+
				"Cast error details: %s is expected to be a FakeScriptObject of %s",
				d.op.Name, a.Type.Base().Name, a.Name, args[i], a.Name, a.Type.Base().Name)
		}
		if first == "" {
			first = a.Name
		}
	}
	return first
}

// noFakeMessage is PyTorch 2's error for tracing a custom op without a fake
// impl, naming the Go function that registers one.
func noFakeMessage(name string) string {
	return fmt.Sprintf("There was no fake impl registered for %s.\n"+
		"This is necessary for compile.Compile/compile.Trace (fake mode) to work.\n"+
		"Please use `library.RegisterFake(%q, ...)` to add an fake impl.", name, name)
}

// runFake runs the fake kernel and checks its results against the schema.
func (d *opDef) runFake(f *fakeImpl, args []any) any {
	res := f.k(Args{d, args})
	who := fmt.Sprintf("the fake impl (registered at %s)", f.where)
	if msg := d.checkReturns(res); msg != "" {
		fail(tensor.RuntimeError, "%s: %s returned %s", d.op.Name, who, msg)
	}
	for _, t := range flatTensors(res) {
		if t != nil && t.Device() != tensor.Meta {
			fail(tensor.RuntimeError, "%s: %s returned a tensor on device %s: a fake impl gets meta tensors and returns meta tensors (make them with ops on its inputs, e.g. x.EmptyLike(), or with tensor.NewMeta)",
				d.op.Name, who, t.Device())
		}
	}
	if msg := d.checkAliasing(args, res, f.where, who); msg != "" {
		fail(tensor.RuntimeError, "%s", msg)
	}
	// Fresh results made with tensor.NewMeta get a meta storage of their
	// own, as the meta device's tensors have.
	ins := flatArgTensors(args)
	for _, t := range flatTensors(res) {
		if t != nil && t.Raw() == nil && !aliasesAny(t, ins) {
			if h := tensor.DeviceHooksOf(tensor.Meta); h.FromCPU != nil {
				t.WithRaw(h.FromCPU(tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.CPU)).Raw())
			}
		}
	}
	return res
}

// flatTensors lists the tensors of a result (nil entries kept).
func flatTensors(res any) []*tensor.Tensor {
	switch r := res.(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{r}
	case []*tensor.Tensor:
		return r
	case []any:
		var out []*tensor.Tensor
		for _, v := range r {
			out = append(out, flatTensors(v)...)
		}
		return out
	}
	return nil
}

func flatArgTensors(args []any) []*tensor.Tensor {
	var out []*tensor.Tensor
	for _, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil {
				out = append(out, x)
			}
		case []*tensor.Tensor:
			for _, t := range x {
				if t != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// storageKey identifies a tensor's storage when its device's raw data is a
// pointer (the CPU's *Storage, the meta device's fake storage); other raw
// data has no identity to compare.
func storageKey(t *tensor.Tensor) (any, bool) {
	r := t.Raw()
	if r == nil {
		return nil, false
	}
	if v := reflect.ValueOf(r); v.Kind() == reflect.Pointer {
		return v.Pointer(), true
	}
	return nil, false
}

// aliases reports whether two tensors are the same or share storage.
func aliases(a, b *tensor.Tensor) bool {
	if a == nil || b == nil {
		return false
	}
	if a == b {
		return true
	}
	ka, okA := storageKey(a)
	kb, okB := storageKey(b)
	return okA && okB && ka == kb
}

// mayAlias is aliases, or true when either tensor's storage has no
// identity to compare (a fake-mode stand-in has none).
func mayAlias(a, b *tensor.Tensor) bool {
	if aliases(a, b) {
		return true
	}
	_, okA := storageKey(a)
	_, okB := storageKey(b)
	return !okA || !okB
}

func aliasesAny(t *tensor.Tensor, ts []*tensor.Tensor) bool {
	for _, u := range ts {
		if aliases(t, u) {
			return true
		}
	}
	return false
}

// aliasSet is the alias set a type's annotation names ("a"), "" if none.
func aliasSet(t *tensor.Type) string {
	t = t.Base()
	if t.Alias == nil && t.Kind == tensor.TList {
		t = t.Elem.Base()
	}
	if t.Alias == nil {
		return ""
	}
	return t.Alias.Set
}

func sameSet(a, b string) bool {
	if a == b {
		return true
	}
	for _, x := range strings.Split(a, "|") {
		for _, y := range strings.Split(b, "|") {
			if x == y {
				return true
			}
		}
	}
	return false
}

// goType is the Go type a kernel returns for a schema type.
func goType(t *tensor.Type) string {
	if t.Kind == tensor.TOptional {
		return goType(t.Elem) + " or nil"
	}
	switch t.Kind {
	case tensor.TTensor:
		return "*tensor.Tensor"
	case tensor.TList:
		switch t.Elem.Base().Kind {
		case tensor.TTensor:
			return "[]*tensor.Tensor"
		case tensor.TInt:
			return "[]int"
		case tensor.TFloat:
			return "[]float64"
		case tensor.TBool:
			return "[]bool"
		}
	case tensor.TInt:
		return "int"
	case tensor.TFloat:
		return "float64"
	case tensor.TBool:
		return "bool"
	case tensor.TStr:
		return "string"
	case tensor.TScalar:
		return "tensor.Scalar"
	case tensor.TScalarType:
		return "tensor.DType"
	case tensor.TClass:
		return "tensor.ScriptObject"
	}
	return "any"
}

// matches reports whether v is a value of schema type t.
func matches(t *tensor.Type, v any) bool {
	if t.Kind == tensor.TOptional {
		if v == nil {
			return true
		}
		if x, ok := v.(*tensor.Tensor); ok && x == nil {
			return true
		}
		return matches(t.Elem, v)
	}
	switch t.Kind {
	case tensor.TTensor:
		x, ok := v.(*tensor.Tensor)
		return ok && x != nil
	case tensor.TList:
		switch t.Elem.Base().Kind {
		case tensor.TTensor:
			l, ok := v.([]*tensor.Tensor)
			if !ok {
				return false
			}
			if t.Elem.Kind != tensor.TOptional {
				for _, x := range l {
					if x == nil {
						return false
					}
				}
			}
			return true
		case tensor.TInt:
			_, ok := v.([]int)
			return ok
		case tensor.TFloat:
			_, ok := v.([]float64)
			return ok
		case tensor.TBool:
			_, ok := v.([]bool)
			return ok
		}
		return true
	case tensor.TInt:
		_, ok := v.(int)
		return ok
	case tensor.TFloat:
		_, ok := v.(float64)
		return ok
	case tensor.TBool:
		_, ok := v.(bool)
		return ok
	case tensor.TStr:
		_, ok := v.(string)
		return ok
	case tensor.TScalar:
		_, ok := v.(tensor.Scalar)
		return ok
	case tensor.TScalarType:
		_, ok := v.(tensor.DType)
		return ok
	case tensor.TClass:
		o, ok := v.(tensor.ScriptObject)
		return ok && o.QualifiedClassName() == t.Name
	}
	return true
}

// isTensorTuple: a tuple of tensors (Tensor or Tensor?) comes back as a
// []*tensor.Tensor, any other tuple as a []any.
func isTensorTuple(rets []tensor.Return) bool {
	for _, r := range rets {
		if r.Type.Base().Kind != tensor.TTensor {
			return false
		}
	}
	return true
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case *tensor.Tensor:
		if x == nil {
			return "a nil *tensor.Tensor"
		}
	case []*tensor.Tensor:
		return fmt.Sprintf("a []*tensor.Tensor of length %d", len(x))
	case []any:
		return fmt.Sprintf("a []any of length %d", len(x))
	}
	return fmt.Sprintf("a %T", v)
}

// checkReturns compares a kernel's result with the schema's returns; it
// says what is wrong, or "".
func (d *opDef) checkReturns(res any) string {
	s := d.op.Schema
	rets := s.Returns
	bad := func(want string) string {
		return fmt.Sprintf("%s, but the schema %s returns %s", describe(res), s, want)
	}
	switch {
	case len(rets) == 0:
		if res != nil {
			return bad("nothing: return nil")
		}
	case len(rets) == 1:
		if !matches(rets[0].Type, res) {
			return bad(fmt.Sprintf("%s: return a %s", rets[0].Type, goType(rets[0].Type)))
		}
	case isTensorTuple(rets):
		l, ok := res.([]*tensor.Tensor)
		if !ok || len(l) != len(rets) {
			return bad(fmt.Sprintf("%d tensors: return a []*tensor.Tensor of length %d", len(rets), len(rets)))
		}
		for i, r := range rets {
			if !matches(r.Type, l[i]) {
				return bad(fmt.Sprintf("%s as result %d", r.Type, i))
			}
		}
	default:
		l, ok := res.([]any)
		if !ok || len(l) != len(rets) {
			return bad(fmt.Sprintf("a tuple of %d: return a []any of length %d", len(rets), len(rets)))
		}
		for i, r := range rets {
			if !matches(r.Type, l[i]) {
				return bad(fmt.Sprintf("%s as result %d: return a %s there", r.Type, i, goType(r.Type)))
			}
		}
	}
	return ""
}

// resultTensors pairs each returned tensor with the index of its return.
func (d *opDef) resultTensors(res any) (ts []*tensor.Tensor, idx []int) {
	rets := d.op.Schema.Returns
	per := func(i int, v any) {
		for _, t := range flatTensors(v) {
			ts = append(ts, t)
			idx = append(idx, i)
		}
	}
	switch {
	case len(rets) == 1:
		per(0, res)
	case len(rets) > 1:
		switch r := res.(type) {
		case []*tensor.Tensor:
			for i, t := range r {
				per(i, t)
			}
		case []any:
			for i, v := range r {
				per(i, v)
			}
		}
	}
	return ts, idx
}

// checkAliasing checks the aliasing the schema declares: a result
// annotated Tensor(a) aliases the argument annotated Tensor(a); an
// unannotated one aliases no argument and no other result. where (for
// PyTorch's message) and who name the kernel.
func (d *opDef) checkAliasing(args []any, res any, where, who string) string {
	s := d.op.Schema
	outs, idx := d.resultTensors(res)
	for k, o := range outs {
		if o == nil {
			continue
		}
		set := aliasSet(s.Returns[idx[k]].Type)
		if set == "" {
			clash := false
			for i, a := range s.Args {
				if !a.Type.IsTensorLike() {
					continue
				}
				clash = clash || aliasesAny(o, flatArgTensors(args[i:i+1]))
			}
			clash = clash || aliasesAny(o, outs[:k])
			if clash {
				return fmt.Sprintf("%s (with implementation in %s): The output of this custom operator (1) must not also be an input to this custom operator and (2) may not alias any inputs to this custom operator or other returns. The most common way to trigger this error is if we have y = custom_op(x) and y and x are the same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. return x.clone()) or refactor the custom operator to not return y.",
					d.op.Name, where)
			}
			continue
		}
		found, declared := false, ""
		for i, a := range s.Args {
			if as := aliasSet(a.Type); as != "" && sameSet(as, set) {
				for _, in := range flatArgTensors(args[i : i+1]) {
					declared = a.Name
					found = found || mayAlias(o, in)
				}
			}
		}
		if declared != "" && !found {
			return fmt.Sprintf("%s: %s returned result %d, annotated %s, which does not alias argument '%s' as the schema %s says: return that argument or a view of it",
				d.op.Name, who, idx[k], s.Returns[idx[k]].Type, declared, s)
		}
	}
	return ""
}
