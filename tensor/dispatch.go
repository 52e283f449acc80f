package tensor

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// DispatchKey orders the layers an op call passes through, lowest first.
//
// Trace sits just above the backend, where PyTorch's Python dispatch key
// (and so make_fx's proxy mode) sits: a traced call has passed Autograd,
// which records the backward on the proxies, and Functionalize, which turns
// views and mutations into functional ops, before the tracer records it.
// (DESIGN.md's first map put Trace on top; graphs printed as PyTorch's need
// it here.)
type DispatchKey uint8

// Dispatch keys, from lowest to highest priority.
const (
	KeyCompositeImplicit DispatchKey = iota // a decomposition into other ops
	KeyBackend                              // the device's own kernel
	KeyTrace                                // graph capture (compile.Trace)
	KeyFunctionalize
	KeyAutograd
	numKeys
)

func (k DispatchKey) String() string {
	return [...]string{"CompositeImplicit", "Backend", "Trace", "Functionalize", "Autograd"}[k]
}

// KeySet is a set of dispatch keys.
type KeySet uint8

// Has reports whether k is in the set.
func (s KeySet) Has(k DispatchKey) bool { return s&(1<<k) != 0 }

// With returns the set with k added.
func (s KeySet) With(k DispatchKey) KeySet { return s | 1<<k }

// Without returns the set with k removed.
func (s KeySet) Without(k DispatchKey) KeySet { return s &^ (1 << k) }

// Kernel is a boxed kernel: it receives the op and its complete, canonical
// argument list (see Bind) and returns *Tensor, []*Tensor (tuples and lists),
// Scalar, int or bool. Backends, decompositions and meta functions are
// Kernels.
type Kernel func(op *Op, args []any) any

// Dispatch is what the dispatcher works out once per call: the call's keys
// (the arguments' keys, the armed keys and the calling goroutine's included
// keys, less its excluded ones) and its device. The kernels of the keys
// above the backend receive it and pass it down to Redispatch, as PyTorch's
// kernels pass their DispatchKeySet, so a call walks its arguments once.
type Dispatch struct {
	Keys   KeySet
	Device Device
}

// KeyKernel is the kernel of a key above the backend (Autograd,
// Functionalize, Trace) or a key's fallback.
type KeyKernel func(op *Op, d Dispatch, args []any) any

// Op is one operator overload: its schema, its meta function and its kernels.
type Op struct {
	Name string // qualified, e.g. "aten::add.Tensor"
	// Schema is the op's parsed schema. A registered op's schema is in
	// the registry's arena and must never be modified (see regArena).
	Schema *Schema
	// Core marks the ops of the core ATen opset.
	Core bool
	// Explicit marks a non-core op that PyTorch gives a kernel of its own
	// (CompositeExplicitAutograd or per backend) rather than implementing
	// it as a decomposition (CompositeImplicitAutograd): a graph records a
	// call of it whole.
	Explicit bool
	// Meta computes output metadata (sizes, strides, dtype, device) from the
	// arguments without touching data; view ops also return the view's offset.
	Meta Kernel

	// tab holds the dispatcher's tables, in the registry's arena, which
	// the garbage collector does not scan (see regArena); nil in an Op
	// made outside RegisterOp until a kernel is registered on it.
	tab     *opTables
	variant atomic.Pointer[variant] // see Functional
}

// zeroTables are the tables of an Op without any: no kernels, no tensor
// arguments.
var zeroTables opTables

// tables returns op's tables for reading.
func (op *Op) tables() *opTables {
	if t := op.tab; t != nil {
		return t
	}
	return &zeroTables
}

// tablesLocked returns op's tables for writing, made in the arena for an
// Op made outside RegisterOp. regMu must be held.
func (op *Op) tablesLocked() *opTables {
	if op.tab == nil {
		op.tab = arenaNew[opTables](&arena)
	}
	return op.tab
}

// opTables is the part of an Op the dispatcher reads on every call. It
// lives in the registry's arena: every kernel stored in it is also kept
// in regArena.kernels, and its slices point into the arena.
type opTables struct {
	keyKernels [numKeys]KeyKernel
	composite  Kernel
	// backends holds the devices' kernels by device index, as long as the
	// highest device with one.
	backends   []Kernel
	tensorArgs []int // indices of tensor-like arguments
	deviceArg  int   // index of a Device argument, or -1
	mutates    []int
	isView     bool
}

var (
	regMu sync.RWMutex
	// ops finds the registered ops by name (see opIndex).
	ops opIndex
	// arena holds the registered ops' schemas and tables (see regArena).
	arena regArena
	// fallbacks run for a key when an op has no kernel of its own there.
	keyFallbacks     [numKeys]KeyKernel
	backendFallbacks [64]Kernel
)

// RegisterOp parses schema and adds the op. Registering a name twice panics.
func RegisterOp(schema string) *Op {
	regMu.Lock()
	text := arena.text(schema)
	regMu.Unlock()
	s := MustParseSchema(text)
	op := &Op{Name: qualifiedName(s)}
	var tensorArgs []int
	for i, a := range s.Args {
		if a.Type.IsTensorLike() {
			tensorArgs = append(tensorArgs, i)
		}
	}
	regMu.Lock()
	defer regMu.Unlock()
	if ops.lookup(op.Name) != nil {
		panic("tensor: op " + op.Name + " registered twice")
	}
	op.Schema = arena.schema(s, text)
	t := op.tablesLocked()
	t.deviceArg = -1
	for i, a := range s.Args {
		if a.Type.Base().Kind == TDevice {
			t.deviceArg = i
		}
	}
	t.tensorArgs = arenaSlice(&arena, tensorArgs)
	t.mutates = arenaSlice(&arena, s.Mutates())
	t.isView = s.IsView()
	ops.add(op, false)
	if s.Overload == "default" {
		ops.add(op, true)
	}
	return op
}

// qualifiedName is s.QualifiedName(), sharing the schema's text where
// the text begins with it.
func qualifiedName(s *Schema) string {
	q := s.QualifiedName()
	if strings.HasPrefix(s.text, q) {
		return s.text[:len(q)]
	}
	return q
}

// LookupOp finds an op by qualified name. "aten::add" and "aten::add.default"
// both name the default overload; the "aten::" prefix may be left out.
func LookupOp(name string) (*Op, bool) {
	if !strings.Contains(name, "::") {
		name = "aten::" + name
	}
	regMu.RLock()
	defer regMu.RUnlock()
	op := ops.lookup(name)
	if op == nil && strings.HasSuffix(name, ".default") {
		op = ops.lookup(strings.TrimSuffix(name, ".default"))
	}
	return op, op != nil
}

// MustOp is LookupOp that panics with a *Error when the op is unknown.
func MustOp(name string) *Op {
	op, ok := LookupOp(name)
	if !ok {
		Raise(&Error{Kind: RuntimeError, Msg: fmt.Sprintf("unknown operator %q", name)})
	}
	return op
}

// Ops lists every registered op, sorted by name.
func Ops() []*Op {
	regMu.RLock()
	defer regMu.RUnlock()
	seen := map[*Op]bool{}
	var out []*Op
	for _, e := range ops.entries {
		if op := ops.list[e.op]; !seen[op] {
			seen[op] = true
			out = append(out, op)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Impl registers the kernel of a key above the backend (Functionalize,
// Autograd, Trace). Registering a key twice panics; backends use
// ImplBackend and decompositions ImplComposite.
func (op *Op) Impl(key DispatchKey, k KeyKernel) *Op {
	if key <= KeyBackend {
		panic("tensor: use ImplBackend or ImplComposite for " + key.String() + " kernels")
	}
	if op.tables().keyKernels[key] != nil {
		panic(fmt.Sprintf("tensor: %s already has a %s kernel", op.Name, key))
	}
	regMu.Lock()
	defer regMu.Unlock()
	arena.keepKey(k)
	op.tablesLocked().keyKernels[key] = k
	return op
}

// ImplComposite registers op's decomposition (its CompositeImplicit
// kernel). Registering twice panics. Where it runs is the dispatcher's
// decision alone (see dispatch).
func (op *Op) ImplComposite(k Kernel) *Op {
	if op.tables().composite != nil {
		panic(fmt.Sprintf("tensor: %s already has a decomposition", op.Name))
	}
	regMu.Lock()
	defer regMu.Unlock()
	arena.keep(k)
	op.tablesLocked().composite = k
	return op
}

// ImplBackend registers the kernel of device dev. Registering twice panics.
func (op *Op) ImplBackend(dev Device, k Kernel) *Op {
	if op.BackendKernel(dev) != nil {
		panic(fmt.Sprintf("tensor: %s already has a kernel for device %s", op.Name, dev))
	}
	regMu.Lock()
	defer regMu.Unlock()
	arena.keep(k)
	t := op.tablesLocked()
	if n := int(dev) + 1; n > len(t.backends) {
		b := make([]Kernel, n)
		copy(b, t.backends)
		t.backends = arenaSlice(&arena, b)
	}
	t.backends[dev] = k
	return op
}

// SetMeta registers the meta function. Registering twice panics.
func (op *Op) SetMeta(k Kernel) *Op {
	if op.Meta != nil {
		panic("tensor: " + op.Name + " already has a meta function")
	}
	op.Meta = k
	return op
}

// HasKernel reports whether op has its own kernel for key.
func (op *Op) HasKernel(key DispatchKey) bool {
	if key == KeyCompositeImplicit {
		return op.tables().composite != nil
	}
	return key > KeyBackend && op.tables().keyKernels[key] != nil
}

// KernelFor returns op's kernel for a key above the backend (nil if none).
func (op *Op) KernelFor(key DispatchKey) KeyKernel { return op.tables().keyKernels[key] }

// Composite returns op's decomposition (nil if none).
func (op *Op) Composite() Kernel { return op.tables().composite }

// BackendKernel returns op's own kernel for dev (nil if none).
func (op *Op) BackendKernel(dev Device) Kernel {
	if t := op.tables(); int(dev) < len(t.backends) {
		return t.backends[dev]
	}
	return nil
}

// OutKernel computes an op's results into outs, for callers that plan the
// memory of many calls (compile/cpu's plans): outs holds one tensor per
// result of the op's schema, nil for a result the call leaves undefined
// (convolution_backward's output_mask), each on the backend's device with
// the dtype, sizes and strides the op gives for args (its meta function's,
// or its decomposition's where it has none), its storage allocated, not
// shared with any argument or other result, and its elements undefined.
// The kernel writes every element, the bits the op returns on that device
// for the same args (its backend kernel's, or its decomposition's where
// the device has no kernel of its own), and returns nothing: the caller
// checked the arguments when it planned (a meta function, a graph traced
// with them), and no key above the backend runs (no autograd, no
// functionalization).
type OutKernel func(outs []*Tensor, op *Op, args []any)

// outKernels are the ops' OutKernels by op and device, read when a caller
// plans (not per call), so they are kept outside the ops' tables.
var outKernels sync.Map // outKey -> OutKernel

type outKey struct {
	op  *Op
	dev Device
}

// ImplOut registers the OutKernel of a functional op on device dev (beside
// its kernel from ImplBackend, or for an op the device decomposes).
// Registering twice panics.
func (op *Op) ImplOut(dev Device, k OutKernel) *Op {
	ok := !op.Schema.IsView() && len(op.Schema.Mutates()) == 0 && len(op.Schema.Returns) > 0
	for _, r := range op.Schema.Returns {
		ok = ok && r.Type.Kind == TTensor
	}
	if !ok {
		panic("tensor: an out kernel is for a functional op whose results are tensors, not " + op.Name)
	}
	if _, dup := outKernels.LoadOrStore(outKey{op, dev}, k); dup {
		panic(fmt.Sprintf("tensor: %s already has an out kernel for device %s", op.Name, dev))
	}
	return op
}

// OutKernelFor returns op's OutKernel for dev, or nil.
func (op *Op) OutKernelFor(dev Device) OutKernel {
	k, _ := outKernels.Load(outKey{op, dev})
	f, _ := k.(OutKernel)
	return f
}

// SetKeyFallback sets the kernel used for key when an op has none there.
func SetKeyFallback(key DispatchKey, k KeyKernel) { keyFallbacks[key] = k }

// SetBackendFallback sets the kernel used on dev when an op has none there.
func SetBackendFallback(dev Device, k Kernel) { backendFallbacks[dev] = k }

// Dispatch computes the dispatch keys and the device of a call with these
// arguments, in the calling goroutine's modes.
func (op *Op) Dispatch(args []any) Dispatch {
	ks := KeySet(armedKeys.Load())
	var excluded KeySet
	if m := currentModes(); m != nil {
		ks |= m.include
		excluded = m.exclude
	}
	dev, found, scalarDev := CPU, false, false
	see := func(t *Tensor) {
		if t == nil {
			return
		}
		ks |= t.Keys
		if t.device == CPU && t.Dim() == 0 {
			// 0-d CPU tensors act as scalars on any device.
			scalarDev = true
			return
		}
		if !found {
			dev, found = t.device, true
		} else if t.device != dev {
			Panicf("Expected all tensors to be on the same device, but found at least two devices, %s and %s!", dev, t.device)
		}
	}
	t := op.tables()
	for _, i := range t.tensorArgs {
		switch x := args[i].(type) {
		case *Tensor:
			see(x)
		case []*Tensor:
			for _, t := range x {
				see(t)
			}
		}
	}
	if !found && !scalarDev && t.deviceArg >= 0 {
		if d, ok := args[t.deviceArg].(Device); ok {
			dev = d
		}
	}
	return Dispatch{Keys: ks &^ excluded, Device: dev}
}

// Invoke runs op on complete, canonical arguments through every dispatch key.
func (op *Op) Invoke(args []any) any {
	return op.dispatch(op.Dispatch(args), args, numKeys)
}

// Redispatch runs op starting below key, with the keys and device of the
// call its caller received (a key kernel calls this to fall through).
func (op *Op) Redispatch(d Dispatch, below DispatchKey, args []any) any {
	return op.dispatch(d, args, below)
}

// InvokeBelow runs op starting below key, with the keys and device its
// arguments give: for a key kernel that runs another op than its own below
// its layer (autograd's copy into self).
func (op *Op) InvokeBelow(below DispatchKey, args []any) any {
	return op.dispatch(op.Dispatch(args), args, below)
}

// RunBackend runs op's kernel for device dev directly.
func (op *Op) RunBackend(dev Device, args []any) any {
	return op.dispatch(Dispatch{Device: dev}, args, KeyBackend+1)
}

// decomposeAt is the one place that decides where a composite op without
// a kernel of its own at key k decomposes:
//   - at Autograd, when an argument requires grad, so that gradients flow
//     through the ops of the decomposition (PyTorch's
//     CompositeImplicitAutograd); otherwise the layer is skipped (nothing to
//     record) and the call goes on below, where a device may have a kernel
//     of its own for the op (the CPU's fused gelu_backward);
//   - at Functionalize, when the op is a view or mutates, or the device has
//     no kernel of its own for it, so that the views and mutations inside
//     the decomposition are functionalized too; except an Explicit op on a
//     device with native views (graph capture functionalizes CPU or fake
//     tensors), which reaches the functional layer whole, as PyTorch's
//     functionalization kernels see it: a view gets a view record of its
//     own (transpose, not the permute it decomposes into), an in-place op
//     runs its functional op whole, and any other op runs whole below,
//     where a trace records it and the composite then runs on the inner
//     values. On a device without views (DeviceHooks.Functionalize) the
//     composite could not run below the layer, so it runs above it;
//   - at Trace, unless the op is Explicit: a graph records the ops a
//     composite runs where PyTorch's op is CompositeImplicitAutograd, and
//     the call itself where PyTorch gives the op a kernel, as make_fx does;
//   - below the backend, when the device has no kernel for it.
//
// It returns (decompose, skip the layer).
func (op *Op) decomposeAt(k DispatchKey, d Dispatch, args []any) (bool, bool) {
	switch k {
	case KeyAutograd:
		if op.AnyRequiresGrad(args) {
			return true, false
		}
		return false, true
	case KeyFunctionalize:
		if op.Explicit && !d.Device.hooks().Functionalize {
			return false, false
		}
		t := op.tables()
		return t.isView || len(t.mutates) > 0 || op.BackendKernel(d.Device) == nil, false
	case KeyTrace:
		return !op.Explicit, false
	}
	return false, false
}

// AnyRequiresGrad reports whether a tensor argument of the call (a Tensor
// or an element of a Tensor[]) records gradients.
func (op *Op) AnyRequiresGrad(args []any) bool {
	h := autogradHooks
	if h == nil {
		return false
	}
	for _, i := range op.tables().tensorArgs {
		switch x := args[i].(type) {
		case *Tensor:
			if x != nil && x.AutogradMeta != nil && h.RequiresGrad(x) {
				return true
			}
		case []*Tensor:
			for _, t := range x {
				if t != nil && t.AutogradMeta != nil && h.RequiresGrad(t) {
					return true
				}
			}
		}
	}
	return false
}

// dispatch runs op from the key below `below` down. When a *Error unwinds
// through it (the op's own check, or one of the ops it calls), the
// innermost dispatch frame gives the error the op's name if it has none:
// the deferred call finds the goroutine's error in flight (Raise) without
// recovering it, so the panic goes on untouched and its trace shows each
// frame once.
func (op *Op) dispatch(d Dispatch, args []any, below DispatchKey) (res any) {
	done := false
	defer func() {
		if !done {
			nameInFlight(op)
		}
	}()
	t := op.tables()
	for k := below - 1; k > KeyBackend; k-- {
		if !d.Keys.Has(k) {
			continue
		}
		if kern := t.keyKernels[k]; kern != nil {
			res = kern(op, d, args)
			done = true
			return res
		}
		if t.composite != nil {
			decompose, skip := op.decomposeAt(k, d, args)
			if decompose {
				res = t.composite(op, args)
				done = true
				return res
			}
			if skip {
				continue
			}
		}
		if kern := keyFallbacks[k]; kern != nil {
			res = kern(op, d, args)
			done = true
			return res
		}
	}
	var kern Kernel
	if below > KeyBackend {
		kern = op.BackendKernel(d.Device)
	}
	if kern == nil {
		kern = t.composite
	}
	if kern == nil && below > KeyBackend {
		kern = backendFallbacks[d.Device]
	}
	if kern == nil {
		Raise(&Error{Op: op.Name, Kind: NotImplementedError,
			Msg: fmt.Sprintf("%s has no lowering on device %q and no decomposition", op.Name, d.Device.String())})
	}
	res = kern(op, args)
	done = true
	return res
}

// Call looks an op up by name, binds positional args (defaults filled from
// the schema) and runs it. It panics with *Error on misuse.
func Call(name string, args ...any) any {
	op := MustOp(name)
	return op.Invoke(op.Bind(args, nil))
}

// CallKw is Call with keyword arguments.
func CallKw(name string, args []any, kwargs map[string]any) any {
	op := MustOp(name)
	return op.Invoke(op.Bind(args, kwargs))
}

// CallErr is CallKw returning an error instead of panicking.
func CallErr(name string, args []any, kwargs map[string]any) (res any, err error) {
	err = Try(func() { res = CallKw(name, args, kwargs) })
	return res, err
}

// Bind turns positional and keyword arguments into the complete canonical
// argument list of the schema, converting Go values (int64 → int, numbers →
// Scalar, numbers where a Tensor is wanted → wrapped numbers, ...) and filling
// defaults. It panics with a TypeError on a wrong arity, name or type.
func (op *Op) Bind(args []any, kwargs map[string]any) []any {
	s := op.Schema
	npos := 0
	for _, a := range s.Args {
		if !a.KwargOnly {
			npos++
		}
	}
	if len(args) > npos {
		TypePanicf("%s() expected at most %d argument(s) but received %d argument(s)", op.Name, npos, len(args))
	}
	out := make([]any, len(s.Args))
	var setBits uint64
	var setMore []bool // schemas with more than 64 arguments
	if len(s.Args) > 64 {
		setMore = make([]bool, len(s.Args))
	}
	isSet := func(i int) bool {
		if setMore != nil {
			return setMore[i]
		}
		return setBits&(1<<i) != 0
	}
	mark := func(i int) {
		if setMore != nil {
			setMore[i] = true
		} else {
			setBits |= 1 << i
		}
	}
	for i, v := range args {
		out[i] = convertArg(op, &s.Args[i], v)
		mark(i)
	}
	for k, v := range kwargs {
		i := s.ArgIndex(k)
		if i < 0 {
			TypePanicf("Unknown keyword argument '%s' for operator '%s'", k, op.Name)
		}
		if isSet(i) {
			TypePanicf("Argument '%s' specified both as positional and keyword argument for operator '%s'", k, op.Name)
		}
		out[i] = convertArg(op, &s.Args[i], v)
		mark(i)
	}
	for i := range s.Args {
		if isSet(i) {
			continue
		}
		a := &s.Args[i]
		if !a.HasDefault {
			if a.Type.Kind == TOptional {
				continue
			}
			TypePanicf("%s() is missing value for argument '%s'", op.Name, a.Name)
		}
		out[i] = cloneDefault(a.Default)
	}
	return out
}

func cloneDefault(v any) any {
	switch x := v.(type) {
	case []int:
		return append([]int(nil), x...)
	case []float64:
		return append([]float64(nil), x...)
	case []bool:
		return append([]bool(nil), x...)
	}
	return v
}

func convertArg(op *Op, a *Argument, v any) any {
	r, ok := convertValue(a.Type, v)
	if !ok {
		TypePanicf("%s() Expected a value of type '%s' for argument '%s' but instead found type '%s'.",
			op.Name, a.Type, a.Name, goTypeName(v))
	}
	return r
}

func goTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case *Tensor:
		if x == nil {
			return "NoneType"
		}
		return "Tensor"
	case int, int64, int32:
		return "int"
	case float64, float32:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	case Scalar:
		return "Scalar"
	}
	return fmt.Sprintf("%T", v)
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case int32:
		return int(x), true
	case Scalar:
		if x.IsInt() {
			return int(x.i), true
		}
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// tensorItem is the value of a one-element tensor given for an int, float
// or bool argument, which torch.ops (1.13) accepts as Python's int(t),
// float(t) and bool(t); an int list accepts such tensors as its elements,
// though not one in place of the list, and a Scalar argument accepts none.
func tensorItem(v any) (Scalar, bool) {
	x, ok := v.(*Tensor)
	if !ok || x == nil || x.Numel() != 1 || (x.device != CPU && x.device.hooks().ToCPU == nil) {
		return Scalar{}, false
	}
	return x.Item(), true
}

// truncInt is int(s): a float is truncated and NaN or an infinity is not
// an int.
func truncInt(s Scalar) (any, bool) {
	if s.IsFloat() {
		f := s.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1<<63 {
			return nil, false
		}
	}
	return int(s.Int64()), true
}

// convertValue converts v to the canonical Go value of type t.
func convertValue(t *Type, v any) (any, bool) {
	if t.Kind == TOptional {
		if v == nil {
			return nil, true
		}
		if isTypedNil(v) {
			return nil, true
		}
		return convertValue(t.Elem, v)
	}
	switch t.Kind {
	case TTensor:
		switch x := v.(type) {
		case *Tensor:
			return x, x != nil
		default:
			if s, ok := ToScalar(v); ok {
				return WrappedNumber(s), true
			}
		}
	case TInt:
		if s, ok := tensorItem(v); ok {
			return truncInt(s)
		}
		return toInt(v)
	case TFloat:
		if s, ok := tensorItem(v); ok {
			return s.Float64(), true
		}
		switch x := v.(type) {
		case float64:
			return x, true
		case float32:
			return float64(x), true
		case Scalar:
			if !x.IsBool() {
				return x.Float64(), true
			}
		}
		if i, ok := toInt(v); ok {
			if _, isBool := v.(bool); !isBool {
				return float64(i), true
			}
		}
	case TBool:
		if s, ok := tensorItem(v); ok {
			return s.Bool(), true
		}
		switch x := v.(type) {
		case bool:
			return x, true
		case Scalar:
			if x.IsBool() {
				return x.Bool(), true
			}
		}
	case TStr:
		s, ok := v.(string)
		return s, ok
	case TScalar:
		if b, ok := v.(bool); ok {
			// torch.ops (1.13) reads a Python bool given for a Scalar as an
			// int: full([2], True) is int64. An explicit BoolScalar stays bool.
			if b {
				return Int(1), true
			}
			return Int(0), true
		}
		return ToScalar(v)
	case TScalarType:
		switch x := v.(type) {
		case DType:
			return x, x != Invalid
		case string:
			d, ok := ParseDType(x)
			return d, ok
		}
	case TMemoryFormat:
		switch x := v.(type) {
		case MemoryFormat:
			return x, true
		case string:
			for m := ContiguousFormat; m <= ChannelsLast3d; m++ {
				if m.String() == x {
					return m, true
				}
			}
		}
	case TLayout:
		switch x := v.(type) {
		case Layout:
			return x, true
		case string:
			return Strided, x == "strided"
		}
	case TDevice:
		switch x := v.(type) {
		case Device:
			return x, true
		case string:
			return LookupDevice(x)
		}
	case TGenerator:
		g, ok := v.(*Generator)
		return g, ok
	case TList:
		return convertList(t, v)
	case TClass:
		return toScriptObject(t.Name, v)
	default:
		return v, true
	}
	return nil, false
}

// ConvertValue converts v to the canonical Go value of schema type t, as
// Bind does for each argument; false when v is not a value of the type.
func ConvertValue(t *Type, v any) (any, bool) { return convertValue(t, v) }

// isTypedNil reports whether v is a nil *Tensor or nil slice passed as None
// by a typed wrapper.
func isTypedNil(v any) bool {
	switch x := v.(type) {
	case *Tensor:
		return x == nil
	case []int:
		return x == nil
	case []float64:
		return x == nil
	case []bool:
		return x == nil
	case []*Tensor:
		return x == nil
	}
	return false
}

func convertList(t *Type, v any) (any, bool) {
	e := t.Elem
	switch e.Base().Kind {
	case TInt:
		if e.Kind == TOptional {
			break
		}
		switch x := v.(type) {
		case []int:
			return x, true
		case []int64:
			out := make([]int, len(x))
			for i, y := range x {
				out[i] = int(y)
			}
			return out, true
		case []any:
			out := make([]int, len(x))
			for i, y := range x {
				n, ok := convertValue(e, y)
				if !ok {
					return nil, false
				}
				out[i] = n.(int)
			}
			return out, true
		}
		if n, ok := toInt(v); ok && t.Size > 0 {
			out := make([]int, t.Size)
			for i := range out {
				out[i] = n
			}
			return out, true
		}
	case TFloat:
		switch x := v.(type) {
		case []float64:
			return x, true
		case []any:
			out := make([]float64, len(x))
			for i, y := range x {
				f, ok := convertValue(e, y)
				if !ok {
					return nil, false
				}
				out[i] = f.(float64)
			}
			return out, true
		}
	case TBool:
		var out []bool
		switch x := v.(type) {
		case []bool:
			out = x
		case []any:
			out = make([]bool, len(x))
			for i, y := range x {
				b, ok := y.(bool)
				if !ok {
					return nil, false
				}
				out[i] = b
			}
		default:
			return nil, false
		}
		// bool[3] reaches a kernel as std::array<bool, 3>: any other length
		// is refused when the list is converted.
		if t.Size > 0 && len(out) != t.Size {
			Panicf("Tried to convert a List with %d elements to a fixed-size array of size %d", len(out), t.Size)
		}
		return out, true
	case TTensor:
		optional := e.Kind == TOptional
		switch x := v.(type) {
		case []*Tensor:
			if !optional {
				for _, y := range x {
					if y == nil {
						return nil, false
					}
				}
			}
			return x, true
		case []any:
			out := make([]*Tensor, len(x))
			for i, y := range x {
				if y == nil {
					if !optional {
						return nil, false
					}
					continue
				}
				tt, ok := convertValue(e.Base(), y)
				if !ok {
					return nil, false
				}
				out[i] = tt.(*Tensor)
			}
			return out, true
		}
	}
	return nil, false
}

// DeviceOf returns the device a call with these arguments runs on.
func (op *Op) DeviceOf(args []any) Device { return op.Dispatch(args).Device }
