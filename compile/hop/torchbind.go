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

// PlainTorchbindCalls rewrites the with_effects(token, call_torchbind, obj,
// 'method', *args) nodes of a functionalized graph into plain
// call_torchbind(obj, 'method', *args) nodes, as PyTorch's export of seed
// 001's time left method calls (test_torchbind.py's test_attribute): the
// call keeps its place (it is impure, so dead-code elimination keeps it),
// its result is read directly, and the token it took goes to the next
// effectful call. When no effectful call is left, the token input and
// output are removed.
func PlainTorchbindCalls(gm *fx.GraphModule) error {
	g := gm.Graph
	for _, n := range g.Nodes() {
		if n.Op != fx.OpCallFunction || !IsWithEffects(n.Target) || len(n.Args()) < 4 || n.Args()[1] != CallTorchbindOp {
			continue
		}
		tok, ok := n.Args()[0].(*fx.Node)
		if !ok {
			return &fx.Error{Node: n, Msg: "hop.PlainTorchbindCalls: the token is not a value of the graph"}
		}
		restore := g.InsertingBefore(n)
		c := g.CreateNode(fx.OpCallFunction, CallTorchbindOp, append([]any(nil), n.Args()[2:]...), nil, "call_torchbind")
		restore()
		for k, v := range n.Meta {
			c.Meta[k] = v
		}
		c.Meta[fx.MetaVal] = nil
		if vals, ok := n.Meta[fx.MetaVal].([]*T); ok && len(vals) > 1 && vals[1] != nil {
			c.Meta[fx.MetaVal] = vals[1]
		}
		for _, u := range n.Users() {
			idx := -1
			if u.Target == fx.GetItem && len(u.Args()) == 2 {
				idx, _ = u.Args()[1].(int)
			}
			switch idx {
			case 0:
				u.ReplaceAllUsesWith(tok)
			case 1:
				if v, isInt := u.Meta[fx.MetaVal].(int); isInt {
					c.Meta[fx.MetaVal] = v // a method's int result, read at run time
				}
				u.ReplaceAllUsesWith(c)
			default:
				return &fx.Error{Node: u, Msg: "hop.PlainTorchbindCalls: with_effects' result is used other than by getitem"}
			}
			if err := g.EraseNode(u); err != nil {
				return err
			}
		}
		if err := g.EraseNode(n); err != nil {
			return err
		}
	}
	// A token that only flows from the input to the output is dropped.
	in := compile.TokenInput(gm)
	if in == nil {
		return gm.Lint()
	}
	out := g.OutputNode()
	res, ok := out.Args()[0].(fx.Tuple)
	if users := in.Users(); !ok || len(res) == 0 || res[0] != in || len(users) != 1 || users[0] != out {
		return gm.Lint()
	}
	out.SetArgs(fx.Tuple(append([]any(nil), res[1:]...)))
	if err := g.EraseNode(in); err != nil {
		return err
	}
	return gm.Lint()
}
