package library

import (
	"fmt"

	"github.com/goaten/goaten/tensor"
)

// Kernel computes an op: it reads the call's arguments and returns what the
// schema declares — nil for "()", a *tensor.Tensor, a []*tensor.Tensor for
// Tensor[] or a tuple of tensors, an int, float64, bool, string or
// tensor.Scalar, or a []any for a tuple mixing other kinds. Kernels of
// devices, decompositions and fake kernels are all Kernels.
type Kernel func(a Args) any

// Args are the arguments of one call in schema order, defaults filled in
// (the op's canonical boxed list, see tensor.Op.Bind), read by name.
// Reading an argument as the wrong kind panics naming it.
type Args struct {
	def  *opDef
	vals []any
}

// Op is the handle of the op the call is of.
func (a Args) Op() *Op { return a.def.handle }

// Len is the number of arguments.
func (a Args) Len() int { return len(a.vals) }

// At is argument i, boxed (nil for None).
func (a Args) At(i int) any { return a.vals[i] }

// Values is the boxed argument list itself.
func (a Args) Values() []any { return a.vals }

func (a Args) index(name string) int {
	i := a.def.op.Schema.ArgIndex(name)
	if i < 0 {
		fail(tensor.RuntimeError, "library: %s has no argument '%s'", a.def.op.Name, name)
	}
	return i
}

// Get is the named argument, boxed (nil for None).
func (a Args) Get(name string) any { return a.vals[a.index(name)] }

// IsNone reports whether the named argument is None.
func (a Args) IsNone(name string) bool {
	v := a.Get(name)
	if t, ok := v.(*tensor.Tensor); ok {
		return t == nil
	}
	return v == nil
}

func get[T any](a Args, name, want string) T {
	i := a.index(name)
	v, ok := a.vals[i].(T)
	if !ok {
		var zero T
		if a.vals[i] == nil {
			return zero
		}
		fail(tensor.TypeError, "library: %s: argument '%s' is %s, not %s", a.def.op.Name, name, a.def.op.Schema.Args[i].Type, want)
	}
	return v
}

// Tensor is a Tensor (or Tensor?) argument; nil for None.
func (a Args) Tensor(name string) *tensor.Tensor { return get[*tensor.Tensor](a, name, "a Tensor") }

// Tensors is a Tensor[] (or Tensor?[]) argument.
func (a Args) Tensors(name string) []*tensor.Tensor {
	return get[[]*tensor.Tensor](a, name, "a Tensor[]")
}

// Int is an int (or SymInt) argument; 0 for None.
func (a Args) Int(name string) int { return get[int](a, name, "an int") }

// Ints is an int[] argument.
func (a Args) Ints(name string) []int { return get[[]int](a, name, "an int[]") }

// Float is a float argument; 0 for None.
func (a Args) Float(name string) float64 { return get[float64](a, name, "a float") }

// Floats is a float[] argument.
func (a Args) Floats(name string) []float64 { return get[[]float64](a, name, "a float[]") }

// Bool is a bool argument; false for None.
func (a Args) Bool(name string) bool { return get[bool](a, name, "a bool") }

// Str is a str argument; "" for None.
func (a Args) Str(name string) string { return get[string](a, name, "a str") }

// Scalar is a Scalar argument.
func (a Args) Scalar(name string) tensor.Scalar { return get[tensor.Scalar](a, name, "a Scalar") }

// Object is a custom class argument (a schema type
// __torch__.torch.classes.ns.Name): the real object, or in a fake kernel
// the fake one; nil for None. Package torchbind's Unwrap gives the Go
// value inside, and its Call calls a method of either by name.
func (a Args) Object(name string) tensor.ScriptObject {
	return get[tensor.ScriptObject](a, name, "a custom class object")
}

// DType is a ScalarType argument (tensor.Invalid for None).
func (a Args) DType(name string) tensor.DType { return get[tensor.DType](a, name, "a ScalarType") }

// Op is the handle of an op defined through this package: its
// registrations and typed ways to call it. tensor.Call("mylib::foo", ...)
// and goaten.Call reach it too.
type Op struct{ def *opDef }

// Name is the op's qualified name ("mylib::foo", "mylib::foo.out").
func (o *Op) Name() string { return o.def.op.Name }

// Schema is the op's parsed schema.
func (o *Op) Schema() *tensor.Schema { return o.def.op.Schema }

// TensorOp is the op in the dispatcher's registry.
func (o *Op) TensorOp() *tensor.Op { return o.def.op }

func (o *Op) String() string { return o.def.op.Schema.String() }

// Impl registers a kernel for a key or device; see Library.Impl.
func (o *Op) Impl(key any, k Kernel) *Op {
	where := caller()
	s := o.def.op.Schema
	(&Library{kind: KindFragment, ns: s.Namespace, where: where}).impl(o.def.op.Name, o.def.op.Name, key, k, where)
	return o
}

// RegisterFake registers the op's fake kernel; see Library.RegisterFake.
func (o *Op) RegisterFake(fake Kernel) *Op {
	registerFake(o.def.op.Name, fake, caller())
	return o
}

// RegisterAutograd registers the op's autograd formula; see
// Library.RegisterAutograd.
func (o *Op) RegisterAutograd(backward Backward, setupContext SetupContext) *Op {
	registerAutograd(o.def.op.Name, backward, setupContext, caller())
	return o
}

// Kw holds keyword arguments; given as the last argument of Op.Call, it
// passes arguments by name.
type Kw map[string]any

func splitKw(args []any) ([]any, map[string]any) {
	if n := len(args); n > 0 {
		if kw, ok := args[n-1].(Kw); ok {
			return args[:n-1], kw
		}
	}
	return args, nil
}

// Call runs the op through the dispatcher, as tensor.Call does: positional
// arguments in schema order, then optionally a Kw of keyword arguments.
// Misuse panics with a *tensor.Error.
func (o *Op) Call(args ...any) any {
	pos, kw := splitKw(args)
	op := o.def.op
	return op.Invoke(op.Bind(pos, kw))
}

// CallErr is Call returning an error instead of panicking.
func (o *Op) CallErr(args ...any) (res any, err error) {
	err = tensor.Try(func() { res = o.Call(args...) })
	return res, err
}

// CallAs is Op.Call with its result as a T (*tensor.Tensor,
// []*tensor.Tensor, int, ...): a typed Go call of a custom op.
//
//	y := library.CallAs[*tensor.Tensor](scaleAdd, x, y, library.Kw{"alpha": 2.0})
func CallAs[T any](o *Op, args ...any) T {
	res := o.Call(args...)
	v, ok := res.(T)
	if !ok && res != nil {
		var zero T
		fail(tensor.TypeError, "library: %s returned %T, not %T", o.Name(), res, zero)
	}
	return v
}

// kernel wraps a Kernel as the dispatcher's: its results are checked
// against the schema's returns, and a device's kernel runs below autograd
// (its tensors record no gradients, as PyTorch's backend kernels run under
// AutoDispatchBelowAutograd), while a composite one records the ops it
// calls (the dispatcher runs it at the Autograd layer when an argument
// requires grad).
func (d *opDef) kernel(k Kernel, key string, composite bool) tensor.Kernel {
	who := fmt.Sprintf("the %s kernel", key)
	return func(op *tensor.Op, args []any) any {
		if !composite && op.AnyRequiresGrad(args) {
			defer tensor.ExcludeKey(tensor.KeyAutograd)()
		}
		res := k(Args{d, args})
		if msg := d.checkReturns(res); msg != "" {
			fail(tensor.RuntimeError, "%s: %s returned %s", d.op.Name, who, msg)
		}
		return res
	}
}
