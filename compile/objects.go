package compile

import (
	"fmt"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// ObjectFaker is a real script object a fake trace can replace by its fake
// (package torchbind's *Object): FakeForTrace flattens the object, makes
// each tensor of the state a fake with fakify, and builds the fake class's
// object from it (PyTorch's to_fake_obj). The real object is not changed.
type ObjectFaker interface {
	tensor.ScriptObject
	FakeForTrace(fakify func(*tensor.Tensor) *tensor.Tensor) tensor.ScriptObject
}

// fakeObject is the object a trace computes with in place of o: o's fake
// in fake mode (made once per object and trace), o itself in real mode or
// when o is already fake.
func (tr *tracer) fakeObject(o tensor.ScriptObject) tensor.ScriptObject {
	if tr.mode != Fake || o.IsFake() {
		return o
	}
	if f, ok := tr.objFakes[o]; ok {
		return f
	}
	r, ok := o.(ObjectFaker)
	if !ok {
		tensor.Panicf("compile.Trace: %T (%s) is expected to be a FakeScriptObject or a torchbind object that can be faked", o, o.QualifiedClassName())
	}
	f := r.FakeForTrace(func(t *tensor.Tensor) *tensor.Tensor {
		m := metaOf(t)
		tr.objDevice[m] = t.Device()
		return m
	})
	tr.objFakes[o] = f
	return f
}

// objectInput makes the placeholder of a script object input.
func (tr *tracer) objectInput(o tensor.ScriptObject, name string) tensor.ScriptObject {
	f := tr.fakeObject(o)
	n := tr.gm.Graph.Placeholder(name)
	n.Meta[fx.MetaVal] = f
	tr.objNodes[f] = n
	tr.objNodes[o] = n
	return f
}

// objectNode is the node standing for script object o in a recorded call
// and the object the call computes with: an input's placeholder, or for an
// object fn closed over a "_torchbind_objN" get_attr (its fake in fake
// mode; the real object stays the module's attribute).
func (tr *tracer) objectNode(o tensor.ScriptObject) (*fx.Node, tensor.ScriptObject) {
	if n, ok := tr.objNodes[o]; ok {
		return n, tr.fakeObject(o)
	}
	if tr.outer != nil {
		n, f := tr.outer.objectNode(o)
		_ = n
		tensor.Panicf("compile.Trace: a script object used inside a higher-order op's sub-program is not supported yet (%s)", f.QualifiedClassName())
	}
	name := fmt.Sprintf("_torchbind_obj%d", tr.nobj)
	tr.nobj++
	tr.gm.SetAttr(name, o)
	n := tr.gm.Graph.GetAttr(name)
	f := tr.fakeObject(o)
	n.Meta[fx.MetaVal] = f
	tr.objNodes[o] = n
	tr.objNodes[f] = n
	return n, f
}

// Object returns the node standing for script object o in a recorded call
// and the object to compute with (o's fake in a fake trace).
func (h *HOPTracer) Object(o tensor.ScriptObject) (*fx.Node, tensor.ScriptObject) {
	return h.tr.objectNode(o)
}

// CallMethod records a call of a script object's method as one node,
// target(obj, method, *args), and computes it with call on the object the
// trace computes with (the fake in fake mode, on meta copies of the
// tensor arguments). A tensor result becomes a traced tensor made by the
// node; another result (an int from size()) is returned as it is, and
// the graph uses it as a constant (PyTorch's constant burning-in).
func (h *HOPTracer) CallMethod(target fx.Target, o tensor.ScriptObject, method string, args []any, call func(o tensor.ScriptObject, args []any) any) any {
	tr := h.tr
	on, co := tr.objectNode(o)
	nargs := []any{on, method}
	cargs := make([]any, len(args))
	devs := map[*tensor.Tensor]tensor.Device{}
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x == nil {
				nargs = append(nargs, nil)
				continue
			}
			nargs = append(nargs, tr.argNode(x))
			cargs[i] = x
			if tr.mode == Fake {
				m := metaOf(x)
				devs[m] = x.Device()
				cargs[i] = m
			}
			tr.gave(cargs[i].(*tensor.Tensor), objGiven{x, x})
		case tensor.ScriptObject:
			n, c := tr.objectNode(x)
			nargs = append(nargs, n)
			cargs[i] = c
		default:
			nargs = append(nargs, a)
			cargs[i] = a
		}
	}
	var res any
	func() {
		defer tensor.ExcludeKey(tensor.KeyTrace)()
		res = call(co, cargs)
	}()
	n := tr.gm.Graph.CallFunction(target, nargs, nil)
	n.Meta[fx.MetaStackTrace] = fx.StackTrace(2)
	if same, ok := tr.givenBack(res); ok {
		return same
	}
	if t, ok := res.(*tensor.Tensor); ok && t != nil {
		if tr.mode == Fake {
			dev, ok := devs[t]
			if !ok {
				if dev, ok = tr.objDevice[t]; !ok {
					dev = tensor.CPU
				}
			}
			t = fakeOf(t, dev)
		} else if _, traced := tr.nodeOf(t); traced || isArg(t, args) {
			a := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw()).ShareVersion(t)
			a.Keys = t.Keys
			t = a
		}
		return tr.track(n, t, nil)
	}
	n.Meta[fx.MetaVal] = res
	return res
}
