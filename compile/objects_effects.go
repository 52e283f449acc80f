package compile

import (
	"fmt"
	"reflect"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// objEscape is a tensor that a method call of a functionalized trace handed
// to a script object: the object may keep it (push), so an in-place write
// into it afterwards is a write into the object's state too, which a
// functional graph cannot show.
type objEscape struct {
	t         *tensor.Tensor // the (functional) tensor fn passed
	mutations uint64         // its storage's mutation count at the call
	where     string         // "MyCustomClass.TensorQueue.push"
}

// CallMethodEffectful records a method call of script object o in a
// functionalized trace as PyTorch's functionalization does
// (handle_effects): one node withEffects(token, method, obj, 'name', *args)
// taking the trace's effect token and returning the next one first, then
// the method's result (getitem nodes read them), so that calls on objects
// keep their program order. call computes the method on the object the
// trace computes with (its fake in fake mode), as in CallMethod.
//
// Tensors fn passes are the functional tensors' values. A tensor result
// that is a tensor an earlier call handed to an object (pop giving back
// what push received) is that same tensor again, as eager Go gives the same
// pointer (seed 001's "is" case), and from then on its graph value is the
// call's result. A tensor handed to an object and then
// written in place before the next call on an object is refused: the
// object's copy in the graph would not see the write (seed 001's aliasing
// hazard, where PyTorch's graph silently returns another value).
//
// A non-tensor result (size()'s int) is returned as it is: the graph uses it
// as a constant. A script object result is refused.
func (h *HOPTracer) CallMethodEffectful(withEffects, method fx.Target, o tensor.ScriptObject, name string, args []any, call func(o tensor.ScriptObject, args []any) any) any {
	tr := h.tr
	tok, ok := h.Token()
	if !ok {
		tensor.Panicf("compile: CallMethodEffectful outside a functionalized trace")
	}
	where := o.QualifiedClassName() + "." + name
	if len(where) > len(tensor.ClassPrefix) && where[:len(tensor.ClassPrefix)] == tensor.ClassPrefix {
		where = where[len(tensor.ClassPrefix):]
	}
	tr.checkEscapes(where)
	on, co := tr.objectNode(o)
	nargs := []any{tr.argNode(tok), method, on, name}
	cargs := make([]any, len(args))
	devs := map[*tensor.Tensor]tensor.Device{}
	given := map[*tensor.Tensor]objGiven{} // the computed-with tensor -> the tensor fn passed
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x == nil {
				nargs = append(nargs, nil)
				continue
			}
			v := x
			if functional.IsFunctional(x) {
				functional.Sync(x)
				v = functional.Unwrap(x)
			}
			nargs = append(nargs, tr.argNode(v))
			cargs[i] = v
			if tr.mode == Fake {
				m := metaOf(v)
				devs[m] = v.Device()
				cargs[i] = m
			}
			given[cargs[i].(*tensor.Tensor)] = objGiven{x, v}
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
		defer tensor.ExcludeKey(tensor.KeyFunctionalize)()
		res = call(co, cargs)
	}()
	if _, isObj := res.(tensor.ScriptObject); isObj {
		tensor.Panicf("compile: %s returns a script object, which a functionalized trace cannot thread through with_effects yet", where)
	}
	results := []*tensor.Tensor{tensor.Empty(tensor.Float32, 0), nil}
	var same objGiven // the tensor fn passed earlier, when res is it
	if t, isT := res.(*tensor.Tensor); isT && t != nil {
		same = tr.objIdentity[t]
		if tr.mode == Fake {
			dev, ok := devs[t]
			if !ok {
				if dev, ok = tr.objDevice[t]; !ok {
					dev = tensor.CPU
				}
			}
			t = fakeOf(t, dev)
		} else if _, traced := tr.nodeOf(t); traced || isArg(t, cargs) {
			a := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw()).ShareVersion(t)
			a.Keys = t.Keys
			t = a
		}
		results[1] = t
	}
	n := tr.gm.Graph.CallFunction(withEffects, nargs, nil)
	n.Meta[fx.MetaStackTrace] = fx.StackTrace(2)
	out := tr.track(n, results, nil).([]*tensor.Tensor)
	var symInt *fx.Node
	if results[1] == nil {
		// PyTorch tracks the (token, None) result element by element: the
		// getitem of the None is made and dropped, its name stays used.
		g := tr.gm.Graph.CallFunction(fx.GetItem, []any{n, 1}, nil)
		if v := reflect.ValueOf(res); res != nil && v.CanInt() && tr.mode == Fake && !tr.constMethods {
			g.Meta[fx.MetaVal] = res
			symInt = g
		} else if err := tr.gm.Graph.EraseNode(g); err != nil {
			panic(asTensorError(err))
		}
	}
	tr.token = out[0]
	for c, x := range given {
		tr.gave(c, x)
		tr.objEscapes = append(tr.objEscapes, objEscape{t: x.passed, mutations: functional.Mutations(x.passed), where: where})
	}
	switch {
	case same.passed != nil:
		// The same tensor comes back: fn gets its own pointer again, and
		// from here on its value is the one the call returns at run time
		// (equal to it whenever the object is in the state it was traced
		// in, which Compile guards; export specializes on it as it does
		// on size()).
		if g, ok := tr.nodeOf(out[1]); ok {
			tr.setNode(same.traced, g)
		}
		return same.passed
	case out[1] != nil:
		return functional.Wrap(out[1])
	case symInt != nil:
		return tr.methodInt(symInt, res)
	}
	return res
}

// gave records that a method call computed with c for the tensor x fn
// passed.
func (tr *tracer) gave(c *tensor.Tensor, x objGiven) {
	if tr.objIdentity == nil {
		tr.objIdentity = map[*tensor.Tensor]objGiven{}
	}
	tr.objIdentity[c] = x
}

// givenBack is the tensor fn passed to an earlier method call when res,
// the result of the call just recorded as the graph's last node, is what
// that call computed with (pop giving back what push received): fn gets
// its own pointer again (seed 001's "is" case: eager Go gives the same
// pointer), and from then on the tensor's graph value is the call's
// result, equal to it whenever the object is in the state it was traced
// in (which Compile guards; export specializes on it as on size()).
func (tr *tracer) givenBack(res any) (*tensor.Tensor, bool) {
	t, ok := res.(*tensor.Tensor)
	if !ok || t == nil {
		return nil, false
	}
	same, ok := tr.objIdentity[t]
	if !ok {
		return nil, false
	}
	n := tr.gm.Graph.Nodes()[len(tr.gm.Graph.Nodes())-1]
	tr.setNode(same.traced, n)
	n.Meta[fx.MetaVal] = tr.exampleValue(same.traced)
	return same.passed, true
}

// objGiven is a tensor fn handed to an object: as fn passed it (a
// functional tensor in a functionalized trace) and the traced tensor of its
// value.
type objGiven struct{ passed, traced *tensor.Tensor }

// CheckObjectEscapes refuses a call on script objects (what: the op or
// method) after a tensor handed to an object was written in place: the
// object holds that tensor, so it changed too, and a functional graph
// cannot show the object the write. A custom op taking an object calls it
// before it is recorded.
func (h *HOPTracer) CheckObjectEscapes(what string) { h.tr.checkEscapes(what) }

func (tr *tracer) checkEscapes(what string) {
	for _, e := range tr.objEscapes {
		if functional.Mutations(e.t) != e.mutations {
			panic(escapeError(e, "before "+what))
		}
	}
}

func escapeError(e objEscape, when string) *tensor.Error {
	return &tensor.Error{Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
		"compile.Trace: a tensor passed to %s was written in place %s; the object holds that tensor, and a functionalized graph cannot show the object the write "+
			"(its result would differ from eager). Pass a clone (x.Clone()) to %s, or write the tensor before the call", e.where, when, e.where)}
}
