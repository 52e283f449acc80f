package hop

import (
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// methodCaller is a script object whose methods can be called by name
// (package torchbind's *Object and *FakeObject).
type methodCaller interface {
	tensor.ScriptObject
	Call(method string, args ...any) any
}

// callTorchbind is the target of call_torchbind nodes:
// torch.ops.higher_order.call_torchbind(obj, 'method', *args), a method
// call on a script object. It is impure (the object's state may change)
// and runs in graphs by calling the method on the object the node is
// given.
type callTorchbind struct{}

// CallTorchbindOp is the call_torchbind target.
var CallTorchbindOp fx.Target = callTorchbind{}

func (callTorchbind) TargetName() string    { return "call_torchbind" }
func (callTorchbind) QualifiedName() string { return "torch.ops.higher_order.call_torchbind" }
func (callTorchbind) Impure() bool          { return true }
func (callTorchbind) String() string        { return "torch.ops.higher_order.call_torchbind" }

// Call implements fx.Callable: args are (obj, method, *method_args).
func (callTorchbind) Call(args []any, kwargs fx.Kwargs) (res any, err error) {
	if len(args) < 2 || len(kwargs) > 0 {
		return nil, tensor.Errorf("call_torchbind: expected (obj, method, *args), got %d arguments", len(args))
	}
	o, ok := args[0].(methodCaller)
	if !ok {
		return nil, tensor.Errorf("call_torchbind: %T is not a torchbind object", args[0])
	}
	m, ok := args[1].(string)
	if !ok {
		return nil, tensor.Errorf("call_torchbind: the method name must be a string, got %T", args[1])
	}
	err = tensor.Try(func() { res = o.Call(m, args[2:]...) })
	return res, err
}

// CallTorchbind calls method on script object o. Outside a trace it is
// the method call; inside one (compile.Trace, compile.Compile, export) it
// is recorded as a call_torchbind node and computed on the object's fake
// (PyTorch's call_torchbind higher-order op). In a functionalized trace
// the call is an ordered effect: with_effects(token, call_torchbind, obj,
// 'method', *args) (see compile.HOPTracer.CallMethodEffectful). Package
// torchbind's Call comes here while a trace runs.
func CallTorchbind(o tensor.ScriptObject, method string, args ...any) any {
	mc, ok := o.(methodCaller)
	if !ok {
		tensor.TypePanicf("call_torchbind: %T is not a torchbind object", o)
	}
	tr := compile.ActiveTracer()
	if tr == nil {
		return mc.Call(method, args...)
	}
	if _, ok := tr.Token(); ok {
		// Functionalized: an ordered effect (PyTorch registers
		// call_torchbind as EffectType.ORDERED), threaded by the token.
		return tr.CallMethodEffectful(WithEffectsOp, CallTorchbindOp, o, method, args, func(c tensor.ScriptObject, a []any) any {
			return c.(methodCaller).Call(method, a...)
		})
	}
	return tr.CallMethod(CallTorchbindOp, o, method, args, func(c tensor.ScriptObject, a []any) any {
		return c.(methodCaller).Call(method, a...)
	})
}
