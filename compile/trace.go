package compile

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// Mode says what a trace computes while it records.
type Mode uint8

const (
	// Real runs every op on the real inputs as it records it (make_fx's
	// tracing_mode="real"): the example values are real tensors.
	Real Mode = iota
	// Fake runs every op on meta tensors (make_fx's tracing_mode="fake",
	// PyTorch's FakeTensor): shapes, strides and dtypes are propagated and
	// nothing is computed. The traced tensors keep their devices (a fake
	// CPU tensor is a CPU tensor with no data), so they mix with the
	// tensors the function closes over as real ones do. A data-dependent
	// read is an error.
	Fake
)

func (m Mode) String() string {
	if m == Fake {
		return "fake"
	}
	return "real"
}

// Decompositions maps ops to Go functions that compute them from other ops
// (PyTorch's decomposition_table): while tracing, a call of such an op runs
// the function instead, so the graph records the ops it calls.
type Decompositions map[*tensor.Op]tensor.Kernel

// TraceOptions configure Trace.
type TraceOptions struct {
	Mode Mode
	// Decompositions replace ops by the ops they are written in.
	Decompositions Decompositions
	// ArgNames name the inputs; a placeholder is named name + "_1", as
	// make_fx names the proxies of a function's parameters. Default: arg0,
	// arg1, ...
	ArgNames []string
	// Functionalize traces fn functionalized (make_fx(functionalize(fn))):
	// the graph has no in-place ops and no aliasing between the values it
	// computes; an input fn writes into gets its new value by a copy_ at
	// the end. Views stay view ops (PyTorch's remove='mutations').
	Functionalize bool
	// Remove is functionalize's remove argument: "mutations" (the default
	// when Functionalize is set) or "mutations_and_views", which also
	// replaces every view by its copy (view_copy, select_copy, ...). A
	// non-empty Remove implies Functionalize.
	Remove string
	// AutoFunctionalizedV2 records calls of mutable custom ops in a
	// functionalized trace in the newer form, auto_functionalized_v2 (the
	// written arguments passed as _all_bases with a _x_base_index per
	// argument), instead of auto_functionalized (PyTorch uses v2 outside
	// export, inductor's enable_auto_functionalized_v2).
	AutoFunctionalizedV2 bool
	// ConstantMethodResults burns the non-tensor results of script object
	// methods (tq.size()) into the graph as constants, as PyTorch does
	// (S5's graph). By default a fake trace keeps an int result symbolic:
	// the graph reads it from its call_torchbind node at run time, so
	// the graph is right for objects of any state. Finding where the
	// graph uses the ints runs fn a second time, on fresh fakes; ints fn
	// branches on, and other results, stay constants.
	ConstantMethodResults bool

	// compiled: the trace is Compile's (effects.go): grad-mode switches
	// are recorded, and effects on Go objects are graph breaks.
	compiled bool
}

// functionalMode is the functional layer's mode for o, and whether fn is
// functionalized at all.
func (o *TraceOptions) functionalMode() (functional.Mode, bool, error) {
	switch o.Remove {
	case "":
		return functional.ReapplyViews, o.Functionalize, nil
	case "mutations":
		return functional.ReapplyViews, true, nil
	case "mutations_and_views":
		return functional.CopyViews, true, nil
	}
	return 0, false, fmt.Errorf("compile.Trace: functionalize(f, remove='mutations'): received invalid argument for remove=%s. Valid options are:\n"+
		"     remove='mutations': all inplace and out= operators will be removed from the program, and replaced with their out-of-place equivalents.\n"+
		"     remove='mutations_and_views': In addition to the above, all aliasing operators {view} will be replaced with their non-aliasing counterparts, {view}_copy.\n", o.Remove)
}

// tracerKey is where the tracing goroutine keeps its tracer (a per-goroutine
// mode value: factory calls with no traced argument find it there).
var tracerKey = new(byte)

func init() { tensor.SetKeyFallback(tensor.KeyTrace, traceKernel) }

// tracer records the calls that reach the Trace key into a graph.
type tracer struct {
	gm      *fx.GraphModule
	mode    Mode
	decomps Decompositions
	proxies map[*tensor.Tensor]*fx.Node // traced tensors and the nodes that made them
	aliases map[aliasKey]*fx.Node       // the same, by data and layout (see nodeOf)
	consts  map[*tensor.Tensor]*fx.Node // closed-over tensors and their get_attr nodes
	seg     *segmenter                  // set when fn runs in segments (segments.go)
	lift    bool                        // closed-over tensors that require grad become inputs (aot.go)
	lifted  []*tensor.Tensor
	inputs  []*tensor.Tensor // the traced stand-ins of the inputs
	outer   *tracer          // the enclosing trace of a higher-order op's sub-trace (subgraph.go)

	// Int results of script objects' methods (objects.go): burned in as
	// constants, or recorded (the call_torchbind nodes that returned them,
	// in order); probe makes this trace a probe of a symbolic one.
	constMethods bool
	methodInts   []*fx.Node
	probe        *probeHooks
	objLeaf      map[*tensor.Tensor]int // a fake of a tensor in an object's state -> its index there

	// Effect tokens of a functionalized trace (see HOPTracer.Token): the
	// token placeholder, made when the first effectful op is met, and the
	// token the last one returned, which the graph returns first.
	functional bool
	afV2       bool             // TraceOptions.AutoFunctionalizedV2
	unbacked   int              // unbacked symbols made (unbacked.go)
	symNodes   map[int]*fx.Node // hint -> the int node standing for the unbacked symbol (symint.go)
	tokenIn    *fx.Node
	token      *tensor.Tensor

	// Script objects (objects.go): the node standing for each object (real
	// and fake), the fake of each real one, the device of each tensor in a
	// fake's state, and the count of closed-over objects.
	objNodes  map[tensor.ScriptObject]*fx.Node
	objFakes  map[tensor.ScriptObject]tensor.ScriptObject
	objDevice map[*tensor.Tensor]tensor.Device
	nobj      int
	// In a functionalized trace (objects_effects.go): the tensors method
	// calls handed to objects, and each computed-with tensor's original.
	objEscapes  []objEscape
	objIdentity map[*tensor.Tensor]objGiven

	// Grad mode (effects.go): whether switches are recorded, the mode the
	// graph starts in, and the mode its last node runs in.
	recordGrad          bool
	gradStart, gradMode bool
}

// newTracer starts a trace into an empty graph.
func newTracer(mode Mode, decomps Decompositions) *tracer {
	return &tracer{
		gm:      fx.NewGraphModule(fx.New()),
		mode:    mode,
		decomps: decomps,
		proxies: map[*tensor.Tensor]*fx.Node{},
		aliases: map[aliasKey]*fx.Node{},
		consts:  map[*tensor.Tensor]*fx.Node{},

		objNodes:  map[tensor.ScriptObject]*fx.Node{},
		objFakes:  map[tensor.ScriptObject]tensor.ScriptObject{},
		objDevice: map[*tensor.Tensor]tensor.Device{},
		objLeaf:   map[*tensor.Tensor]int{},
	}
}

// aliasKey identifies a traced tensor's value by its data and layout, so
// that another tensor object with both — autograd's detached copy of a
// traced tensor, which it makes without an op — is the same graph value.
// A fake tensor's data is a fakeStorage of its own.
type aliasKey struct {
	raw    any
	offset int
	dtype  tensor.DType
	rank   int
	dims   [2 * aliasDims]int // the sizes, then the strides, of a rank up to aliasDims
	layout string             // those of a higher rank (layoutString)
}

// aliasDims is the highest rank whose layout an aliasKey holds inline
// (keyOf runs for every value a segment-mode call traces: no allocation).
const aliasDims = 4

func keyOf(t *tensor.Tensor) (aliasKey, bool) {
	if t.Raw() == nil || !reflect.TypeOf(t.Raw()).Comparable() {
		return aliasKey{}, false // no data, or a device's data value that is no map key
	}
	k := aliasKey{raw: t.Raw(), offset: t.StorageOffset(), dtype: t.DType(), rank: t.Dim()}
	if k.rank <= aliasDims {
		copy(k.dims[:], t.Sizes())
		copy(k.dims[aliasDims:], t.Strides())
	} else {
		k.layout = layoutString(t.Sizes(), t.Strides())
	}
	return k, true
}

// layoutString encodes sizes and strides in one string, "2,3;3,1".
func layoutString(sizes, strides []int) string {
	var buf [96]byte
	b := buf[:0]
	for _, n := range sizes {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ',')
	}
	b = append(b, ';')
	for _, n := range strides {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ',')
	}
	return string(b)
}

// fakeStorage is the data of a fake tensor: nothing, but its own. Reading
// it (Float64s, Item on an untraced path) is the data-dependent error.
type fakeStorage struct{ _ byte }

// FakeData names the tensor in tensor.CPUView's refusal.
func (*fakeStorage) FakeData() string { return "a fake tensor of a trace" }

// nodeOf is the node that made traced tensor t, if t is one.
func (tr *tracer) nodeOf(t *tensor.Tensor) (*fx.Node, bool) {
	if n, ok := tr.proxies[t]; ok {
		return n, true
	}
	if k, ok := keyOf(t); ok && t.Keys.Has(tensor.KeyTrace) {
		n, ok := tr.aliases[k]
		return n, ok
	}
	return nil, false
}

// setNode records that node n made traced tensor t.
func (tr *tracer) setNode(t *tensor.Tensor, n *fx.Node) {
	tr.proxies[t] = n
	if k, ok := keyOf(t); ok {
		tr.aliases[k] = n
	}
	if tr.seg != nil && n.Op == fx.OpCallFunction {
		tr.seg.made = append(tr.seg.made, t)
	}
}

// Trace runs fn on traced stand-ins of inputs and returns the graph of the
// ATen ops it called (PyTorch's make_fx). fn is a Go function whose
// parameters are *tensor.Tensor (one per input, or variadic) and whose
// results are *tensor.Tensor values, one []*tensor.Tensor, or any (holding
// a tensor, a list of them, or a constant the graph returns as is).
//
// The ops are recorded below Autograd and Functionalize, where PyTorch's
// proxy mode sits: composite ops appear as the core ops they run, a
// Backward inside fn records the backward ops, and a functionalized fn
// records functional ops. Tensors fn closes over become "_tensor_constantN"
// attributes; factory calls inside fn are recorded too (they reach the
// tracer through the calling goroutine's modes, so another goroutine's
// eager ops and traces are never mixed in).
func Trace(fn any, inputs []*tensor.Tensor, opts ...TraceOptions) (gm *fx.GraphModule, err error) {
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	return TraceArgs(fn, args, opts...)
}

// TraceArgs is Trace over inputs that may include script objects
// (tensor.ScriptObject: package torchbind's objects) beside tensors. fn's
// parameter for an object is tensor.ScriptObject (or another interface
// the object implements). In fake mode an object input is replaced by its
// fake before fn runs (its flattened state fakified, the fake class's
// __obj_unflatten__ called; torchbind.ToFake), so fn never touches the
// real object. fn calls its methods with torchbind.Call(obj, "push", x),
// which a trace records as a call_torchbind node; custom ops taking the
// object run their fake kernels on the fake and are recorded with the
// object's placeholder as their argument. An object fn closes over
// becomes a "_torchbind_objN" attribute. A method's int result (size())
// stays symbolic in a fake trace (see TraceOptions.ConstantMethodResults);
// other non-tensor results are constants in the graph. An object fn
// returns is returned by the graph.
func TraceArgs(fn any, inputs []any, opts ...TraceOptions) (gm *fx.GraphModule, err error) {
	var o TraceOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return traceArgs(fn, inputs, o, nil)
}

// traceArgs is TraceArgs; probe, when set, makes the trace a probe
// (objects.go). A fake trace whose methods returned ints is probed once
// more to make them symbolic.
func traceArgs(fn any, inputs []any, o TraceOptions, probe *probeHooks) (gm *fx.GraphModule, err error) {
	fv := reflect.ValueOf(fn)
	if err := checkArgsSignature(fv, inputs); err != nil {
		return nil, err
	}
	fmode, functionalize, err := o.functionalMode()
	if err != nil {
		return nil, err
	}
	tr := newTracer(o.Mode, o.Decompositions)
	tr.functional = functionalize
	tr.afV2 = o.AutoFunctionalizedV2
	tr.constMethods = o.ConstantMethodResults
	tr.probe = probe
	tr.recordGrad = o.compiled
	tr.gradStart = autograd.IsGradEnabled()
	tr.gradMode = tr.gradStart
	// What fn does to Go objects (effects.go): in a fake trace, a .grad
	// write is undone when the trace ends; in Compile's trace, it is a
	// graph break. A real trace runs fn for real.
	var writes gradWrites
	var hooks *autograd.EffectHooks
	switch {
	case o.compiled:
		hooks = cachedHooks()
	case o.Mode == Fake:
		hooks = traceHooks(&writes)
		defer writes.undo(true)
	}
	in := make([]reflect.Value, len(inputs))
	for i, a := range inputs {
		name := fmt.Sprintf("arg%d", i)
		if i < len(o.ArgNames) {
			name = o.ArgNames[i]
		}
		if obj, ok := a.(tensor.ScriptObject); ok {
			var f tensor.ScriptObject
			if err := tensor.Try(func() { f = tr.objectInput(obj, name+"_1") }); err != nil {
				return nil, fmt.Errorf("compile.Trace: input %d (%s): %w", i, name, err)
			}
			in[i] = reflect.ValueOf(f)
			continue
		}
		x, _ := a.(*tensor.Tensor)
		if x == nil {
			return nil, fmt.Errorf("compile.Trace: input %d (%s) is nil", i, name)
		}
		p := tr.proxyInput(x)
		n := tr.gm.Graph.Placeholder(name + "_1")
		n.Meta[fx.MetaVal] = tr.exampleValue(p)
		tr.setNode(p, n)
		tr.inputs = append(tr.inputs, p)
		if functionalize {
			p = functional.WrapFor(p, fmode)
		}
		in[i] = reflect.ValueOf(p)
	}
	var out []reflect.Value
	err = tensor.Try(func() {
		defer tensor.IncludeKey(tensor.KeyTrace)()
		defer tensor.SetModeValue(tracerKey, tr)()
		if hooks != nil {
			defer autograd.SetEffectHooks(hooks)()
		}
		if functionalize {
			defer functional.Enable(fmode)()
		}
		out = fv.Call(in)
		if functionalize {
			out = tr.unwrapFunctional(in, out)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("compile.Trace: %w", err)
	}
	if err := tr.nameToken(len(o.ArgNames) == 0); err != nil {
		return nil, err
	}
	tr.endGradMode()
	if err := tr.output(out); err != nil {
		return nil, err
	}
	if err := tr.gm.Lint(); err != nil {
		return nil, fmt.Errorf("compile.Trace: the recorded graph is malformed: %w", err)
	}
	if err := checkUnbacked(tr.gm, tr.unbacked); err != nil {
		return nil, fmt.Errorf("compile.Trace: %w", err)
	}
	if len(tr.methodInts) > 0 && (probe == nil || probe.ints == nil) {
		sym, ok := symbolizeMethods(tr.gm, tr.methodInts, func(ints []int) (*fx.GraphModule, error) {
			p := &probeHooks{ints: ints}
			if probe != nil {
				p.objSizes = probe.objSizes
			}
			return traceArgs(fn, inputs, o, p)
		})
		if ok {
			return sym, nil
		}
	}
	return tr.gm, nil
}

var (
	tensorType = reflect.TypeOf((*tensor.Tensor)(nil))
	anyType    = reflect.TypeOf((*any)(nil)).Elem()

	scriptObjectType = reflect.TypeFor[tensor.ScriptObject]()
)

// checkSignature checks fn for n tensor inputs (n < 0: a variadic fn,
// whatever the count).
func checkSignature(fv reflect.Value, n int) error {
	return checkArgsSignature(fv, make([]any, max(n, 0)))
}

// checkArgsSignature checks fn against inputs: tensors, and script
// objects where fn takes tensor.ScriptObject.
func checkArgsSignature(fv reflect.Value, inputs []any) error {
	if fv.Kind() != reflect.Func {
		return fmt.Errorf("compile.Trace: fn is a %T, not a function", fv.Interface())
	}
	ft := fv.Type()
	n := len(inputs)
	if ft.IsVariadic() {
		if ft.NumIn() != 1 || ft.In(0).Elem() != tensorType {
			return fmt.Errorf("compile.Trace: a variadic fn must be func(...*tensor.Tensor), not %s", ft)
		}
		for i, a := range inputs {
			if _, ok := a.(tensor.ScriptObject); ok {
				return fmt.Errorf("compile.Trace: input %d is a script object, which a variadic fn cannot take", i)
			}
		}
	} else {
		if ft.NumIn() != n {
			return fmt.Errorf("compile.Trace: fn takes %d arguments, %d inputs given", ft.NumIn(), n)
		}
		for i := range ft.NumIn() {
			if _, ok := inputs[i].(tensor.ScriptObject); ok {
				if ft.In(i).Kind() != reflect.Interface || !scriptObjectType.Implements(ft.In(i)) {
					return fmt.Errorf("compile.Trace: argument %d of fn is %s; a script object input needs tensor.ScriptObject", i, ft.In(i))
				}
				continue
			}
			if ft.In(i) != tensorType {
				return fmt.Errorf("compile.Trace: argument %d of fn is %s, not *tensor.Tensor", i, ft.In(i))
			}
		}
	}
	for i := range ft.NumOut() {
		if t := ft.Out(i); t != tensorType && t != reflect.TypeOf([]*tensor.Tensor(nil)) && t != anyType && t != scriptObjectType {
			return fmt.Errorf("compile.Trace: result %d of fn is %s, not *tensor.Tensor, []*tensor.Tensor or any", i, t)
		}
	}
	return nil
}

// proxyInput makes the traced stand-in of an input: a meta tensor of the
// same layout in fake mode, an alias of the input in real mode (the input
// itself is not marked: other goroutines may be using it).
func (tr *tracer) proxyInput(x *tensor.Tensor) *tensor.Tensor {
	var p *tensor.Tensor
	if tr.mode == Fake {
		p = fakeOf(x, x.Device())
	} else {
		p = tensor.NewMeta(x.Sizes(), x.Strides(), x.StorageOffset(), x.DType(), x.Device()).WithRaw(x.Raw()).ShareVersion(x)
		p.SetWrappedNumber(x.IsWrappedNumber())
		p.Keys = x.Keys.Without(tensor.KeyAutograd).With(tensor.KeyTrace)
	}
	if x.RequiresGrad() {
		autograd.SetRequiresGrad(p, true)
	}
	return p
}

// fakeOf is a fake tensor with t's metadata on device dev: no data, the
// Trace key (PyTorch's FakeTensor).
func fakeOf(t *tensor.Tensor, dev tensor.Device) *tensor.Tensor {
	f := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), dev).WithRaw(&fakeStorage{})
	f.SetWrappedNumber(t.IsWrappedNumber())
	f.Keys = f.Keys.With(tensor.KeyTrace)
	return f
}

// metaOf is the meta tensor a fake or closed-over tensor computes as in
// fake mode.
func metaOf(t *tensor.Tensor) *tensor.Tensor {
	m := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
	m.SetWrappedNumber(t.IsWrappedNumber())
	return m
}

// exampleValue is what a node's "val" holds: the value itself in real
// mode, a fake (metadata-only) copy in fake mode.
func (tr *tracer) exampleValue(t *tensor.Tensor) *tensor.Tensor {
	if _, fake := t.Raw().(*fakeStorage); tr.mode == Real || fake {
		return t
	}
	return fakeOf(t, t.Device())
}

// unwrapFunctional ends a functionalized trace as functorch's functionalize
// does: the results are unwrapped (each applies its storage's pending
// updates and regenerates), then every input is synced, then each input fn
// wrote into is given its final value by a copy_, in input order.
func (tr *tracer) unwrapFunctional(in, out []reflect.Value) []reflect.Value {
	res := make([]reflect.Value, len(out))
	for i, v := range out {
		res[i] = reflect.Zero(v.Type())
		if u := unwrapAll(v.Interface()); u != nil {
			res[i] = reflect.ValueOf(u).Convert(v.Type())
		}
	}
	var tin []*tensor.Tensor // the tensor inputs (script objects are not functionalized)
	for _, v := range in {
		if t, ok := v.Interface().(*tensor.Tensor); ok {
			functional.Sync(t)
			tin = append(tin, t)
		}
	}
	// The copy_ (and resize_) run on the traced inputs through the
	// dispatcher, so the tracer records them as any other call, and a real
	// trace writes the final values into the inputs, as make_fx does.
	for i, w := range tin {
		if functional.Mutations(w) == 0 {
			continue
		}
		final := functional.Unwrap(w)
		x := tr.inputs[i]
		// An input an out= op resized is resized first, as functorch's
		// _propagate_functional_input_mutation does when the sizes in
		// bytes differ.
		if tensor.StorageExtent(x.Sizes(), x.Strides(), x.StorageOffset()) != final.Numel() {
			x.Resize_(append([]int(nil), final.Sizes()...))
		}
		x.Copy_(final)
	}
	return res
}

// unwrapAll is v with each functional tensor replaced by its value, inside
// lists and Tuples too.
func unwrapAll(v any) any {
	switch x := v.(type) {
	case *tensor.Tensor:
		return functional.Unwrap(x)
	case []*tensor.Tensor:
		l := make([]*tensor.Tensor, len(x))
		for j, t := range x {
			l[j] = functional.Unwrap(t)
		}
		return l
	case fx.Tuple:
		return fx.Tuple(unwrapAll([]any(x)).([]any))
	case []any:
		l := make([]any, len(x))
		for j, e := range x {
			l[j] = unwrapAll(e)
		}
		return l
	}
	return v
}

func (tr *tracer) output(out []reflect.Value) error {
	vals := make([]any, len(out))
	if tr.tokenIn != nil {
		// The output token comes first (aot_export's output_tokens).
		tok, err := tr.outputNode(tr.token)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			vals = nil
		}
		vals = append([]any{tok}, vals...)
		if len(vals) == 1 {
			tr.gm.Graph.Output(fx.Tuple(vals))
			return nil
		}
		for i, v := range out {
			var err error
			if vals[i+1], err = tr.outputValue(v.Interface()); err != nil {
				return err
			}
		}
		tr.gm.Graph.Output(fx.Tuple(vals))
		return nil
	}
	for i, v := range out {
		var err error
		if vals[i], err = tr.outputValue(v.Interface()); err != nil {
			return err
		}
	}
	switch len(vals) {
	case 0:
		tr.gm.Graph.Output(nil)
	case 1:
		tr.gm.Graph.Output(vals[0])
	default:
		tr.gm.Graph.Output(fx.Tuple(vals))
	}
	return nil
}

// outputValue is what the output node returns for a result of fn: tensors
// become their nodes, lists and tuples keep their shape, other values are
// constants (a metadata query's int, a Scalar).
func (tr *tracer) outputValue(v any) (any, error) {
	switch x := v.(type) {
	case *tensor.Tensor:
		return tr.outputNode(x)
	case tensor.ScriptObject:
		var n *fx.Node
		err := tensor.Try(func() { n, _ = tr.objectNode(x) })
		return n, err
	case SymValue:
		return x.TraceValue(), nil
	case []*tensor.Tensor:
		l := make([]any, len(x))
		for i, t := range x {
			n, err := tr.outputNode(t)
			if err != nil {
				return nil, err
			}
			l[i] = n
		}
		return l, nil
	case fx.Tuple:
		l, err := tr.outputValue([]any(x))
		if err != nil {
			return nil, err
		}
		return fx.Tuple(l.([]any)), nil
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			var err error
			if l[i], err = tr.outputValue(e); err != nil {
				return nil, err
			}
		}
		return l, nil
	}
	return v, nil
}

func (tr *tracer) outputNode(t *tensor.Tensor) (any, error) {
	if t == nil {
		return nil, nil // an undefined tensor (a backward's masked-out gradient): None
	}
	if n, ok := tr.nodeOfWrapped(t); ok {
		return n, nil
	}
	return tr.constant(t), nil
}

// nodeOfWrapped is nodeOf, also for a functional wrapper of a traced
// tensor (a device without native views wraps every op's result: the
// gonum example).
func (tr *tracer) nodeOfWrapped(t *tensor.Tensor) (*fx.Node, bool) {
	if n, ok := tr.nodeOf(t); ok {
		return n, true
	}
	if functional.IsFunctional(t) {
		return tr.nodeOf(functional.Unwrap(t))
	}
	return nil, false
}

// constant is the get_attr node of a tensor fn closed over.
func (tr *tracer) constant(t *tensor.Tensor) *fx.Node {
	if n, ok := tr.consts[t]; ok {
		return n
	}
	if tr.outer != nil {
		return tr.liftOuter(t)
	}
	if tr.seg != nil {
		return tr.seg.lift(tr, t)
	}
	if tr.lift && t.RequiresGrad() {
		return tr.liftParam(t)
	}
	n := tr.gm.AddConstant(t)
	n.Meta[fx.MetaVal] = tr.exampleValue(t)
	tr.consts[t] = n
	return n
}

// dataDependent lists the ops whose result (or result shape) depends on
// tensor values, which fake tracing cannot know.
var dataDependent = map[string]bool{
	"aten::_local_scalar_dense":      true,
	"aten::nonzero":                  true,
	"aten::masked_select":            true,
	"aten::repeat_interleave.Tensor": true,
	"aten::unique_consecutive":       true,
	"aten::_unique2":                 true,
	"aten::equal":                    true,
	"aten::is_nonzero":               true,
}

// traceKernel is the Trace key's fallback: it computes the call below the
// Trace key (on meta tensors in fake mode) and records it.
func traceKernel(op *tensor.Op, d tensor.Dispatch, args []any) any {
	tr, _ := tensor.ModeValue(tracerKey).(*tracer)
	if tr == nil {
		// A traced tensor outside its trace (the trace has ended, or the
		// tensor went to another goroutine): it computes as a plain tensor.
		return op.Redispatch(d, tensor.KeyTrace, args)
	}
	if tr.seg != nil && tr.seg.passthrough {
		return tr.seg.eager(op, args)
	}
	if k := tr.decomps[op]; k != nil {
		return k(op, args)
	}
	if tr.mode == Fake && (dataDependent[op.Name] || isBoolMaskIndex(op, args)) {
		if tr.seg != nil {
			return tr.seg.breakAt(tr, op, d, args)
		}
		tensor.Raise(&tensor.Error{Kind: tensor.RuntimeError, Op: op.Name, Msg: fmt.Sprintf(
			"%s %s (%s): the value is data-dependent; trace in real mode or leave the read out of the traced function",
			op.Name, tensor.DataDependentMsg, tensor.CallerLine())})
	}
	if tr.seg != nil && tr.seg.rep != nil {
		if res, ok := tr.seg.replayCall(tr, op, args); ok {
			return res
		}
		tr.seg.leaveReplay(tr)
	}
	nargs, cargs, back := tr.nodeArgs(op, args)
	cd := d
	if tr.mode == Fake {
		cd.Device = tensor.Meta
	}
	res := tr.compute(op, cd, cargs)
	if tr.mode == Fake {
		res = fakeResults(res, back, resultDevice(op, args, d.Device))
	}
	pargs, kwargs := normalize(op, nargs)
	tr.recordGradMode()
	n := tr.gm.Graph.CallFunction(op, pargs, kwargs)
	if tr.seg == nil {
		// (A segment's graph is run, never shown: a call in segment mode,
		// re-traced every time, does without the stack walks.)
		n.Meta[fx.MetaStackTrace] = fx.StackTrace(1)
	} else {
		tr.seg.noteCall(n, res, args, nargs)
	}
	return tr.track(n, res, args)
}

// resultDevice is where a call's results live: its Device argument when it
// has one set (a factory call, _to_copy to a device), else the call's.
func resultDevice(op *tensor.Op, args []any, dev tensor.Device) tensor.Device {
	for i, a := range op.Schema.Args {
		if a.Type.Base().Kind == tensor.TDevice {
			if d, ok := args[i].(tensor.Device); ok {
				return d
			}
		}
	}
	return dev
}

// fakeResults turns the meta results of a fake-mode call into fake tensors
// on the call's device; a result that is one of the meta stand-ins of the
// arguments (an in-place op's self) is that argument again.
func fakeResults(res any, back map[*tensor.Tensor]*tensor.Tensor, dev tensor.Device) any {
	one := func(t *tensor.Tensor) *tensor.Tensor {
		if t == nil {
			return nil
		}
		if a, ok := back[t]; ok {
			return a
		}
		return fakeOf(t, dev)
	}
	switch r := res.(type) {
	case *tensor.Tensor:
		return one(r)
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(r))
		for i, t := range r {
			out[i] = one(t)
		}
		return out
	}
	return res
}

// compute runs the call below the Trace key. The ops it runs in turn (an
// Explicit op's decomposition at the backend) are part of this call, not
// calls of the traced function: the goroutine excludes the Trace key while
// it runs, as PyTorch's proxy mode runs a call with itself switched off.
func (tr *tracer) compute(op *tensor.Op, d tensor.Dispatch, args []any) any {
	defer tensor.ExcludeKey(tensor.KeyTrace)()
	return op.Redispatch(d, tensor.KeyTrace, args)
}

// IsDataDependent reports whether err is a fake trace's refusal of a
// data-dependent read (Item, nonzero, a boolean mask).
func IsDataDependent(err error) bool {
	var te *tensor.Error
	return errors.As(err, &te) && strings.Contains(te.Msg, tensor.DataDependentMsg)
}

// isBoolMaskIndex reports an index.Tensor call with a boolean index, whose
// result size is the number of true elements.
func isBoolMaskIndex(op *tensor.Op, a []any) bool {
	if op.Name != "aten::index.Tensor" {
		return false
	}
	for _, t := range args.IndexOf(a).Indices {
		if t != nil && (t.DType() == tensor.Bool || t.DType() == tensor.Uint8) {
			return true
		}
	}
	return false
}

// nodeArgs turns a call's arguments into a node's (tensors become the
// nodes that made them, wrapped numbers their Python numbers) and into the
// arguments the call computes with (meta stand-ins in fake mode, with the
// map back from each stand-in to its tensor).
func (tr *tracer) nodeArgs(op *tensor.Op, args []any) (nargs, cargs []any, back map[*tensor.Tensor]*tensor.Tensor) {
	nargs = make([]any, len(args))
	cargs = make([]any, len(args))
	if tr.mode == Fake {
		back = map[*tensor.Tensor]*tensor.Tensor{}
	}
	one := func(t *tensor.Tensor) (any, *tensor.Tensor) {
		if t == nil {
			return nil, nil
		}
		c := t
		if tr.mode == Fake {
			c = metaOf(t)
			back[c] = t
		}
		if n, ok := tr.nodeOf(t); ok {
			return n, c
		}
		if n, ok := tr.seg.input(tr, t); ok {
			return n, c
		}
		if _, fake := t.Raw().(*fakeStorage); t.IsWrappedNumber() && !fake {
			return wrappedValue(t), c
		}
		return tr.constant(t), c
	}
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			nargs[i], cargs[i] = one(x)
		case []*tensor.Tensor:
			nl := make([]any, len(x))
			cl := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				nl[j], cl[j] = one(t)
			}
			nargs[i], cargs[i] = nl, cl
		case tensor.ScriptObject:
			nargs[i], cargs[i] = tr.objectNode(x)
		case tensor.Device:
			nargs[i], cargs[i] = x, x
			if tr.mode == Fake {
				cargs[i] = tensor.Meta
			}
		default:
			nargs[i], cargs[i] = tr.symArg(a), a
		}
	}
	return nargs, cargs, back
}

// wrappedValue is the Python number a wrapped-number tensor stands for.
func wrappedValue(t *tensor.Tensor) any {
	s := t.Item()
	switch {
	case s.IsBool():
		return s.Bool()
	case s.IsFloat():
		return s.Float64()
	}
	return int(s.Int64())
}

// normalize drops the arguments PyTorch leaves out when it hands a call to
// a dispatch mode (parseIValuesToPyArgsKwargs): trailing positional
// arguments equal to their defaults, and keyword-only ones equal to theirs.
func normalize(op *tensor.Op, nargs []any) ([]any, fx.Kwargs) {
	s := op.Schema
	last := -1
	for i, a := range s.Args {
		if !a.KwargOnly && !(a.HasDefault && sameValue(nargs[i], a.Default)) {
			last = i
		}
	}
	var pos []any
	var kw fx.Kwargs
	for i, a := range s.Args {
		switch {
		case !a.KwargOnly && i <= last:
			pos = append(pos, nargs[i])
		case a.KwargOnly && !(a.HasDefault && sameValue(nargs[i], a.Default)):
			kw = append(kw, fx.Kwarg{Name: a.Name, Value: nargs[i]})
		}
	}
	return pos, kw
}

// sameValue compares a bound argument with a schema default.
func sameValue(v, def any) bool {
	if _, isNode := v.(*fx.Node); isNode {
		return false
	}
	switch d := def.(type) {
	case float64:
		f, ok := v.(float64)
		return ok && math.Float64bits(f) == math.Float64bits(d)
	case tensor.Scalar:
		s, ok := v.(tensor.Scalar)
		if !ok {
			return false
		}
		switch {
		case d.IsBool():
			return s.IsBool() && s.Bool() == d.Bool()
		case d.IsFloat():
			return s.IsFloat() && math.Float64bits(s.Float64()) == math.Float64bits(d.Float64())
		}
		return !s.IsBool() && !s.IsFloat() && s.Int64() == d.Int64()
	}
	if v == nil || def == nil {
		return v == nil && def == nil
	}
	return reflect.DeepEqual(v, def)
}

// track records the results of node n: each tensor becomes (or, for an
// in-place op returning self, is again) a traced tensor made by n, and the
// elements of a tuple or list result come out through getitem nodes, as
// make_fx records them.
func (tr *tracer) track(n *fx.Node, res any, args []any) any {
	switch r := res.(type) {
	case *tensor.Tensor:
		if r == nil {
			n.Meta[fx.MetaVal] = nil
			return r
		}
		out := tr.mark(r, args)
		tr.setNode(out, n)
		n.Meta[fx.MetaVal] = tr.exampleValue(out)
		return out
	case []*tensor.Tensor:
		vals := make([]*tensor.Tensor, len(r))
		out := make([]*tensor.Tensor, len(r))
		for i, t := range r {
			if t == nil {
				continue
			}
			o := tr.mark(t, args)
			g := tr.gm.Graph.CallFunction(fx.GetItem, []any{n, i}, nil)
			g.Meta[fx.MetaVal] = tr.exampleValue(o)
			tr.setNode(o, g)
			out[i], vals[i] = o, tr.exampleValue(o)
		}
		n.Meta[fx.MetaVal] = vals
		return out
	}
	n.Meta[fx.MetaVal] = res
	return res
}

// mark makes t a traced tensor. A result that is one of the call's own
// untraced arguments (an in-place op on a tensor fn closed over) is aliased
// first, so the caller's tensor object is never marked.
func (tr *tracer) mark(t *tensor.Tensor, args []any) *tensor.Tensor {
	if _, ok := tr.nodeOf(t); !ok && isArg(t, args) {
		a := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw()).ShareVersion(t)
		a.Keys = t.Keys
		t = a
	}
	t.Keys = t.Keys.With(tensor.KeyTrace)
	return t
}

func isArg(t *tensor.Tensor, args []any) bool {
	for _, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x == t {
				return true
			}
		case []*tensor.Tensor:
			for _, y := range x {
				if y == t {
					return true
				}
			}
		}
	}
	return false
}
