package compile

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/goaten/goaten/autograd"
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
	var sizes map[int][]int
	if tr.probe != nil {
		sizes = tr.probe.objSizes[o]
	}
	k := 0
	f := r.FakeForTrace(func(t *tensor.Tensor) *tensor.Tensor {
		m := metaOf(t)
		if s, ok := sizes[k]; ok {
			m = tensor.NewMetaContiguous(s, t.DType(), tensor.Meta)
		}
		tr.objLeaf[m] = k
		k++
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
// node; another result (an int from size()) is returned as it is. In a
// fake trace an int result is symbolic: the trace finds where the graph
// uses it (symbolizeMethods) and reads it from the node at run time;
// TraceOptions.ConstantMethodResults burns it in as a constant, as PyTorch
// does.
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
		if k, ok := tr.objLeaf[t]; ok {
			n.Meta[metaStateLeaf] = k
		}
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
	return tr.methodInt(n, res)
}

// metaStateLeaf is the meta key of a method call whose result is a tensor
// of its object's state as it was when the trace began: the index of that
// tensor among the state's (a dynamic size of it is read from the call's
// result).
const metaStateLeaf = "torchbind_state_leaf"

// StatefulObject is a script object whose state compile.Compile guards on
// (package torchbind's *Object): StateLeaves is its flattened state
// (__obj_flatten__) as leaves, the tensors in the order FakeForTrace
// fakifies them.
type StatefulObject interface {
	tensor.ScriptObject
	StateLeaves() []StateLeaf
}

// StateLeaf is one leaf of an object's flattened state: a tensor (guarded
// as a tensor input is: dtype, device, requires_grad, sizes, strides, with
// automatic dynamic sizes), the length of a list (Len), or another value
// (compared with ==). Path names it from the state's names, "queue[3]".
type StateLeaf struct {
	Path  string
	Len   bool
	Value any
}

// leafName is how a guard names a leaf of input in.
func leafName(in string, l StateLeaf) string {
	if l.Len {
		return "len(" + in + "." + l.Path + ")"
	}
	return in + "." + l.Path
}

// objectSpec is what a graph assumes of a script object input: its class
// and each leaf of its flattened state.
type objectSpec struct {
	class  string
	leaves []leafSpec
}

// leafSpec is one leaf's guard: a tensor's spec, or the value.
type leafSpec struct {
	path   string
	len    bool
	tensor *inputSpec
	value  any
}

// methodSentinels are the values int results of methods take in the probe
// trace that finds which ints of a graph are those results (primes apart
// from the dims' sentinels, so that the two never mix).
var methodSentinels = []int{2003, 2011, 2017, 2027, 2029, 2039, 2053, 2063, 2069, 2081, 2083, 2087, 2089, 2099, 2111, 2113}

// objSentinels are the sizes dynamic dims of tensors in objects' states
// take in the probe trace.
var objSentinels = []int{1063, 1069, 1087, 1091, 1093, 1097, 1103, 1109}

// probeHooks make a trace a probe: the sizes of tensors in objects'
// states (by object, then leaf index among its tensors) and the values of
// the int results of methods (by order of the call).
type probeHooks struct {
	objSizes map[tensor.ScriptObject]map[int][]int
	ints     []int
}

// methodInt records the int result v of call_torchbind node n in a fake
// trace and returns the value fn computes with: v, or its sentinel in a
// probe trace. Other results and real traces are left alone.
func (tr *tracer) methodInt(n *fx.Node, v any) any {
	if tr.mode != Fake || tr.constMethods {
		return v
	}
	rv := reflect.ValueOf(v)
	if v == nil || rv.Kind() < reflect.Int || rv.Kind() > reflect.Int64 {
		return v
	}
	k := len(tr.methodInts)
	tr.methodInts = append(tr.methodInts, n)
	if tr.probe != nil && tr.probe.ints != nil {
		if k < len(tr.probe.ints) {
			return reflect.ValueOf(tr.probe.ints[k]).Convert(rv.Type()).Interface()
		}
	}
	return v
}

// symbolizeMethods makes the ints of gm that came from methods' int
// results computed from their call_torchbind nodes: probe traces fn again
// with the k-th result at methodSentinels[k], and the ints that differ are
// decoded as in symbolize. ok is false when they cannot be (fn branched on
// a result, or more results than sentinels): the ints stay constants.
func symbolizeMethods(gm *fx.GraphModule, nodes []*fx.Node, probe func(ints []int) (*fx.GraphModule, error)) (*fx.GraphModule, bool) {
	if len(nodes) > len(methodSentinels) {
		return nil, false
	}
	dims := make([]symDim, len(nodes))
	for k, n := range nodes {
		v := reflect.ValueOf(n.Meta[fx.MetaVal])
		if !v.IsValid() || !v.CanInt() {
			return nil, false
		}
		dims[k] = symDim{input: -1, dim: -1, real: int(v.Int()), probe: methodSentinels[k], name: fmt.Sprintf("u%d", k), node: n}
	}
	other, err := probe(methodSentinels[:len(nodes)])
	if err != nil || sameAttrs(gm, other) != nil {
		return nil, false
	}
	// On a copy: a failed attempt may leave nodes behind.
	gm, nodes = copyGraph(gm, nodes)
	for k, n := range nodes {
		dims[k].node = n
	}
	s := newSymbolizer(gm.Graph, dims)
	if !s.graphs(gm.Graph, other.Graph) {
		return nil, false
	}
	out := renamed(gm)
	if out.Lint() != nil {
		return nil, false
	}
	return out, true
}

// callObjects is CallArgs for inputs with script objects: Call's
// guard-check, compile and run, with the objects' states guarded.
func (c *Compiled) callObjects(inputs []any) (any, error) {
	if err := checkArgsSignature(reflect.ValueOf(c.fn), inputs); err != nil {
		return nil, err
	}
	states := make([][]StateLeaf, len(inputs))
	for i, a := range inputs {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x == nil {
				return nil, fmt.Errorf("compile: %s: input %d is nil", c.name, i)
			}
		case tensor.ScriptObject:
			if x.IsFake() {
				return nil, fmt.Errorf("compile: %s: input %d is a fake script object (%s); compiled functions take real ones", c.name, i, x.QualifiedClassName())
			}
			so, ok := x.(StatefulObject)
			if !ok {
				return nil, fmt.Errorf("compile: %s: input %d (%T, %s) has no flattened state (__obj_flatten__) to guard on", c.name, i, x, x.QualifiedClassName())
			}
			if err := tensor.Try(func() { states[i] = so.StateLeaves() }); err != nil {
				return nil, fmt.Errorf("compile: %s: input %d: %w", c.name, i, err)
			}
		}
	}
	if err := checkStateAliasing(inputs, states); err != nil {
		return nil, err
	}
	grad := autograd.IsGradEnabled()
	c.mu.Lock()
	c.stats.Calls++
	var reasons []string
	for _, e := range c.entries {
		var why string
		c.unlockOnPanic(func() { why = e.checkArgs(inputs, states, grad) })
		if why == "" {
			c.stats.Hits++
			c.mu.Unlock()
			return plain(e.runArgs(inputs))
		}
		reasons = append(reasons, why)
	}
	if len(c.entries) >= c.opts.RecompileLimit {
		c.stats.Eager++
		c.mu.Unlock()
		if err := c.recompileLimitHit(reasons); err != nil {
			return nil, err
		}
		return c.eagerArgs(inputs)
	}
	specs := c.argSpecs(inputs, states)
	var e *entry
	var err error
	c.unlockOnPanic(func() { e, err = c.compileArgs(inputs, specs, grad) })
	if err != nil {
		return c.failed(err, func() (any, error) { return c.eagerArgs(inputs) })
	}
	c.admit(e, reasons, specs)
	return plain(e.runArgs(inputs))
}

// checkStateAliasing refuses a tensor that is both an input (or in one
// object's state) and in an object's state, in Dynamo's words: the graph
// would see two values where the program has one.
func checkStateAliasing(inputs []any, states [][]StateLeaf) error {
	seen := map[*tensor.Tensor]string{}
	for i, a := range inputs {
		if t, ok := a.(*tensor.Tensor); ok {
			seen[t] = fmt.Sprintf("inputs[%d]", i)
		}
	}
	for i, st := range states {
		for _, l := range st {
			t, ok := l.Value.(*tensor.Tensor)
			if !ok || l.Len || t == nil {
				continue
			}
			name := leafName(fmt.Sprintf("inputs[%d]", i), l)
			if prev, dup := seen[t]; dup {
				return &tensor.Error{Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
					"%s is alising %s. This is not supported. Please do a clone for corresponding input.", prev, name)}
			}
			seen[t] = name
		}
	}
	return nil
}

// eagerArgs runs fn itself on inputs with objects.
func (c *Compiled) eagerArgs(inputs []any) (res any, err error) {
	fv := reflect.ValueOf(c.fn)
	in := make([]reflect.Value, len(inputs))
	for i, x := range inputs {
		in[i] = reflect.ValueOf(x)
	}
	err = tensor.Try(func() { res = results(fv.Call(in)) })
	return res, err
}

// tensorSpec is the guard of one tensor, named name.
func tensorSpec(name string, x *tensor.Tensor) inputSpec {
	return inputSpec{
		name:         name,
		dtype:        x.DType(),
		device:       x.Device(),
		sizes:        slices.Clone(x.Sizes()),
		strides:      slices.Clone(x.Strides()),
		requiresGrad: x.RequiresGrad(),
	}
}

// argSpecs is specs for inputs with objects: each tensor, in an input or
// in an object's state, is guarded with automatic dynamic sizes (a size
// that differs from the last trace's at the same place becomes dynamic).
func (c *Compiled) argSpecs(inputs []any, states [][]StateLeaf) []inputSpec {
	out := make([]inputSpec, len(inputs))
	auto := func(s *inputSpec, prev *inputSpec, dyn map[int]bool, mark func(d int)) {
		if prev != nil && prev.obj == nil && prev.dtype == s.dtype && prev.device == s.device && len(prev.sizes) == len(s.sizes) {
			for d := range s.sizes {
				if prev.sizes[d] != s.sizes[d] {
					mark(d)
				}
			}
		}
		s.dynamic = map[int]bool{}
		for d := range dyn {
			if d < len(s.sizes) {
				s.dynamic[d] = true
			}
		}
	}
	for i, a := range inputs {
		name := fmt.Sprintf("inputs[%d]", i)
		var prev *inputSpec
		if i < len(c.last) {
			prev = &c.last[i]
		}
		if x, ok := a.(*tensor.Tensor); ok {
			s := tensorSpec(name, x)
			if prev != nil && prev.obj != nil {
				prev = nil
			}
			auto(&s, prev, nil, func(d int) { c.markDynamic(i, d) })
			for d := range c.dynamic[i] {
				if d < len(s.sizes) {
					s.dynamic[d] = true
				}
			}
			out[i] = s
			continue
		}
		o := a.(tensor.ScriptObject)
		spec := &objectSpec{class: o.QualifiedClassName()}
		var before map[string]*inputSpec
		if prev != nil && prev.obj != nil && prev.obj.class == spec.class {
			before = map[string]*inputSpec{}
			for _, l := range prev.obj.leaves {
				if l.tensor != nil {
					before[l.path] = l.tensor
				}
			}
		}
		for _, l := range states[i] {
			ls := leafSpec{path: l.Path, len: l.Len, value: snapshotLeaf(l.Value)}
			if t, ok := l.Value.(*tensor.Tensor); ok && t != nil && !l.Len {
				ts := tensorSpec(leafName(name, l), t)
				key := fmt.Sprintf("%d/%s", i, l.Path)
				auto(&ts, before[l.Path], nil, func(d int) {
					if c.objDyn[key] == nil {
						c.objDyn[key] = map[int]bool{}
					}
					c.objDyn[key][d] = true
				})
				for d := range c.objDyn[key] {
					if d < len(ts.sizes) {
						ts.dynamic[d] = true
					}
				}
				ls.tensor, ls.value = &ts, nil
			}
			spec.leaves = append(spec.leaves, ls)
		}
		out[i] = inputSpec{name: name, obj: spec}
	}
	return out
}

// checkArgs is check for inputs with objects, whose flattened states are
// states.
func (e *entry) checkArgs(inputs []any, states [][]StateLeaf, grad bool) string {
	if e.runArgs == nil {
		return "the graph takes tensors only"
	}
	if len(inputs) != len(e.guards) {
		return fmt.Sprintf("expected %d inputs, got %d", len(e.guards), len(inputs))
	}
	if grad != e.gradMode {
		return fmt.Sprintf("grad_mode mismatch. expected %v, actual %v", pyBool(e.gradMode), pyBool(grad))
	}
	for i, a := range inputs {
		g := &e.guards[i]
		switch x := a.(type) {
		case *tensor.Tensor:
			if g.obj != nil {
				return fmt.Sprintf("%s is a tensor, not a script object", g.name)
			}
			if why := g.check(x); why != "" {
				return fmt.Sprintf("tensor '%s' %s", g.name, why)
			}
		case tensor.ScriptObject:
			if g.obj == nil {
				return fmt.Sprintf("%s is a script object, not a tensor", g.name)
			}
			if why := g.obj.check(g.name, x, states[i]); why != "" {
				return why
			}
		}
	}
	return e.checkAttrs()
}

// attrGuard guards a script object a graph holds as an attribute (one fn
// closed over) on its flattened state, as Dynamo guards the globals and
// closures a frame reads.
type attrGuard struct {
	name string
	obj  StatefulObject
	spec *objectSpec
}

// attrGuards are the guards of gm's script object attributes: their state
// when gm was traced.
func attrGuards(gm *fx.GraphModule) []attrGuard {
	var out []attrGuard
	for _, name := range gm.AttrNames() {
		v, _ := gm.Attr(name)
		o, ok := v.(StatefulObject)
		if !ok || o.IsFake() {
			continue
		}
		var leaves []StateLeaf
		if tensor.Try(func() { leaves = o.StateLeaves() }) != nil {
			continue
		}
		spec := &objectSpec{class: o.QualifiedClassName()}
		for _, l := range leaves {
			ls := leafSpec{path: l.Path, len: l.Len, value: snapshotLeaf(l.Value)}
			if t, ok := l.Value.(*tensor.Tensor); ok && t != nil && !l.Len {
				ts := tensorSpec(leafName(name, l), t)
				ls.tensor, ls.value = &ts, nil
			}
			spec.leaves = append(spec.leaves, ls)
		}
		out = append(out, attrGuard{name, o, spec})
	}
	return out
}

// checkAttrs checks the state of the objects the graph holds.
func (e *entry) checkAttrs() string {
	for _, a := range e.attrs {
		var leaves []StateLeaf
		if err := tensor.Try(func() { leaves = a.obj.StateLeaves() }); err != nil {
			return fmt.Sprintf("%s: %v", a.name, err)
		}
		if why := a.spec.check(a.name, a.obj, leaves); why != "" {
			return why
		}
	}
	return ""
}

// check is the guard on an object's class and flattened state.
func (s *objectSpec) check(name string, o tensor.ScriptObject, leaves []StateLeaf) string {
	if c := o.QualifiedClassName(); c != s.class {
		return fmt.Sprintf("%s class mismatch. expected %s, actual %s", name, s.class, c)
	}
	for k, l := range leaves {
		if k >= len(s.leaves) {
			return fmt.Sprintf("%s has more state than expected: %s", name, leafName(name, l))
		}
		g := &s.leaves[k]
		if g.path != l.Path || g.len != l.Len {
			return fmt.Sprintf("%s state mismatch. expected %s, actual %s", name, leafName(name, StateLeaf{Path: g.path, Len: g.len}), leafName(name, l))
		}
		t, isTensor := l.Value.(*tensor.Tensor)
		isTensor = isTensor && t != nil && !l.Len
		switch {
		case g.tensor != nil && !isTensor:
			return fmt.Sprintf("%s is a %T, not a tensor", g.tensor.name, l.Value)
		case g.tensor != nil:
			if why := g.tensor.check(t); why != "" {
				return fmt.Sprintf("tensor '%s' %s", g.tensor.name, why)
			}
		case isTensor || !sameLeaf(g.value, l.Value):
			return fmt.Sprintf("%s mismatch. expected %v, actual %v", leafName(name, l), g.value, l.Value)
		}
	}
	if len(leaves) < len(s.leaves) {
		return fmt.Sprintf("%s has less state than expected: no %s", name, leafName(name, StateLeaf{Path: s.leaves[len(leaves)].path, Len: s.leaves[len(leaves)].len}))
	}
	return ""
}

// snapshotLeaf is a non-tensor leaf as a guard keeps it: a slice is
// copied, so that a slice the object changes in place afterwards (state it
// returned without copying) fails the guard, as the graph baked in the
// values it had.
func snapshotLeaf(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.IsNil() {
		return v
	}
	c := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
	reflect.Copy(c, rv)
	return c.Interface()
}

// sameLeaf compares two non-tensor leaves.
func sameLeaf(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	// Value.Comparable, not Type's: a struct whose interface field holds a
	// slice has a comparable type, but == on it panics.
	if reflect.ValueOf(a).Comparable() && reflect.ValueOf(b).Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// compileArgs traces fn for inputs with objects. Dims marked dynamic (of
// inputs and of tensors in objects' states) become symbolic when a probe
// trace at sentinel sizes gives the same graph but for ints it can decode
// from the inputs' sizes; otherwise they stay static.
func (c *Compiled) compileArgs(inputs []any, specs []inputSpec, grad bool) (*entry, error) {
	// A Backward or an optimizer step is a graph break (effects.go): the
	// call runs eagerly, or fails with Fullgraph.
	opts := TraceOptions{Mode: Fake, Decompositions: c.opts.Decompositions, compiled: true}
	gm, err := traceArgs(c.fn, inputs, opts, nil)
	if err != nil {
		return nil, err
	}
	if argsDynamic(specs) {
		// On a copy: a failed attempt may leave nodes behind.
		if sym, err := c.symbolicArgs(renamed(gm), inputs, specs, opts); err == nil {
			gm = sym
		} else {
			for i := range specs {
				specs[i].dynamic = nil
				if specs[i].obj != nil {
					for _, l := range specs[i].obj.leaves {
						if l.tensor != nil {
							l.tensor.dynamic = nil
						}
					}
				}
			}
		}
	}
	_ = grad
	run := func(in []any) (any, error) { return fx.NewInterpreter(gm).Run(in...) }
	if p, ok := compileProgram(gm); ok {
		run = p.runArgs
	}
	if switchesGrad(gm) {
		inner := run
		run = func(in []any) (any, error) {
			defer autograd.SetGradEnabled(grad)()
			return inner(in)
		}
	}
	return &entry{guards: specs, gradMode: grad, gm: gm, runArgs: run, attrs: attrGuards(gm)}, nil
}

func argsDynamic(specs []inputSpec) bool {
	for _, s := range specs {
		if len(s.dynamic) > 0 {
			return true
		}
		if s.obj != nil {
			for _, l := range s.obj.leaves {
				if l.tensor != nil && len(l.tensor.dynamic) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// symbolicArgs is symbolic for inputs with objects: the probe trace has
// the tensor inputs' dynamic dims at the dims' sentinels and the dynamic
// dims of tensors in objects' states at objSentinels. The graph may not
// depend on the latter.
func (c *Compiled) symbolicArgs(gm *fx.GraphModule, inputs []any, specs []inputSpec, opts TraceOptions) (*fx.GraphModule, error) {
	tensors := make([]*tensor.Tensor, len(inputs))
	dynamic := map[int]map[int]int{}
	sym := 0
	hooks := &probeHooks{objSizes: map[tensor.ScriptObject]map[int][]int{}}
	next := 0
	for i, a := range inputs {
		if t, ok := a.(*tensor.Tensor); ok {
			tensors[i] = t
			for d := range specs[i].dynamic {
				if dynamic[i] == nil {
					dynamic[i] = map[int]int{}
				}
				dynamic[i][d] = sym
				sym++
			}
			continue
		}
		o := a.(tensor.ScriptObject)
		k := 0
		for _, l := range specs[i].obj.leaves {
			if l.tensor == nil {
				continue
			}
			if len(l.tensor.dynamic) > 0 {
				sizes := slices.Clone(l.tensor.sizes)
				for _, d := range slices.Sorted(maps.Keys(l.tensor.dynamic)) {
					if next == len(objSentinels) {
						return nil, fmt.Errorf("compile: more than %d dynamic sizes in objects' states", len(objSentinels))
					}
					sizes[d] = objSentinels[next]
					next++
				}
				if hooks.objSizes[o] == nil {
					hooks.objSizes[o] = map[int][]int{}
				}
				hooks.objSizes[o][k] = sizes
			}
			k++
		}
	}
	// A dim of a tensor in an object's state is read from the first call
	// that returned that tensor.
	var extra []symDim
	phs := gm.Graph.Placeholders()
	for i, a := range inputs {
		o, ok := a.(tensor.ScriptObject)
		if !ok || i >= len(phs) {
			continue
		}
		k := 0
		for _, l := range specs[i].obj.leaves {
			if l.tensor == nil {
				continue
			}
			var src *fx.Node
			for _, n := range gm.Graph.Nodes() {
				if leaf, ok := n.Meta[metaStateLeaf].(int); ok && leaf == k && len(n.Args()) > 0 && n.Args()[0] == phs[i] {
					src = n
					break
				}
			}
			for _, d := range slices.Sorted(maps.Keys(l.tensor.dynamic)) {
				if src != nil {
					extra = append(extra, symDim{input: i, dim: d, real: l.tensor.sizes[d], probe: hooks.objSizes[o][k][d],
						name: fmt.Sprintf("s%d", sym+len(extra)), src: src})
				}
			}
			k++
		}
	}
	probe := func(in []*tensor.Tensor) (*fx.GraphModule, error) {
		args := slices.Clone(inputs)
		for i, t := range in {
			if t != nil {
				args[i] = t
			}
		}
		return traceArgs(c.fn, args, opts, hooks)
	}
	return symbolize(gm, probe, tensors, dynamic, nil, extra)
}

// copyGraph copies gm, with the copies of nodes.
func copyGraph(gm *fx.GraphModule, nodes []*fx.Node) (*fx.GraphModule, []*fx.Node) {
	out := renamed(gm)
	idx := map[*fx.Node]int{}
	for i, n := range gm.Graph.Nodes() {
		idx[n] = i
	}
	all := out.Graph.Nodes()
	cp := make([]*fx.Node, len(nodes))
	for k, n := range nodes {
		cp[k] = all[idx[n]]
	}
	return out, cp
}
