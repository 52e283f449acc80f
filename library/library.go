package library

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/tensor"
)

// Kind says which of PyTorch's registration blocks a Library stands for.
type Kind uint8

// The kinds of Library.
const (
	KindDef      Kind = iota // TORCH_LIBRARY: defines the ops of a namespace, once
	KindFragment             // TORCH_LIBRARY_FRAGMENT: defines more ops of a namespace
	KindImpl                 // TORCH_LIBRARY_IMPL: registers kernels for one dispatch key
)

func (k Kind) String() string {
	return [...]string{"TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL"}[k]
}

// Library is a registration block for one namespace (torch::Library, or
// torch.library.Library from Python): New is TORCH_LIBRARY, NewFragment
// TORCH_LIBRARY_FRAGMENT, NewImpl TORCH_LIBRARY_IMPL. Create libraries
// and register through them in init functions, as the macros' static
// initialisers do. Misuse panics with a *tensor.Error in PyTorch's words
// (tensor.Try turns it into an error).
type Library struct {
	kind  Kind
	ns    string   // "_" for an IMPL block of every namespace
	key   *implKey // an IMPL block's dispatch key
	where string   // file:line of the block
}

var (
	regMu sync.Mutex
	// libraries holds, per namespace, where its TORCH_LIBRARY block was
	// created. Goaten's own ops are aten's.
	libraries = map[string]string{"aten": "registered at goaten's core op table (aten/core)"}
	defs      = map[*tensor.Op]*opDef{}
	// pyImpls are the (namespace, op, key) triples with a kernel, as
	// torch.library keeps them to refuse a second one.
	pyImpls = map[string]string{}
)

// opDef is what the package knows of an op it defined.
type opDef struct {
	op     *tensor.Op
	handle *Op
	debug  string // "registered at file:line"
	// trivialFake: the op mutates its inputs and returns nothing, so its
	// fake impl is trivial and need not be registered (PyTorch's
	// can_generate_trivial_fake_impl).
	trivialFake bool
	fake        atomic.Pointer[fakeImpl]
	metaImpl    bool   // the fake kernel came from Impl(..., "Meta")
	composite   string // the key of the composite kernel, if any
	autograd    *autogradInfo
}

type fakeImpl struct {
	k     Kernel
	where string
}

func errorf(kind tensor.ErrorKind, format string, args ...any) *tensor.Error {
	return &tensor.Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func fail(kind tensor.ErrorKind, format string, args ...any) {
	tensor.Raise(errorf(kind, format, args...))
}

// raise panics with err, a *tensor.Error from checkSchema or parseKey.
func raise(err error) {
	if e, ok := err.(*tensor.Error); ok {
		tensor.Raise(e)
	}
	panic(err)
}

// caller is the file:line of the first caller outside this package.
func caller() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/goaten/goaten/library.") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
	}
}

func (l *Library) errorContext() string {
	return fmt.Sprintf("(Error occurred while processing %s block at %s)", l.kind, l.where)
}

func checkReserved(ns string, kind Kind) {
	if ns == "_" {
		fail(tensor.RuntimeError, "%s: cannot define %s with the wildcard namespace _ (every %s defines operators for a distinct namespace!) Did you mean to use TORCH_LIBRARY_IMPL instead?  (Error occurred while processing %s block at %s)",
			kind, kind, kind, kind, caller())
	}
	if ns == "prim" {
		fail(tensor.ValueError, "%s is a reserved namespace. Please try creating a library with another name.", ns)
	}
}

// New creates the TORCH_LIBRARY block of namespace ns: the one place that
// defines its ops. A second block for the same namespace panics with
// PyTorch's message (use NewFragment to define a namespace's ops in
// several places).
func New(ns string) *Library {
	where := caller()
	checkReserved(ns, KindDef)
	regMu.Lock()
	defer regMu.Unlock()
	if prev, ok := libraries[ns]; ok {
		fail(tensor.RuntimeError, "Only a single TORCH_LIBRARY can be used to register the namespace %s; please put all of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to define operators for a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY was %s; latest registration was registered at %s",
			ns, prev, where)
	}
	libraries[ns] = "registered at " + where
	return &Library{kind: KindDef, ns: ns, where: where}
}

// NewFragment creates a TORCH_LIBRARY_FRAGMENT block: more definitions
// (and kernels) for namespace ns, which may have any number of them.
func NewFragment(ns string) *Library {
	where := caller()
	checkReserved(ns, KindFragment)
	return &Library{kind: KindFragment, ns: ns, where: where}
}

// NewImpl creates a TORCH_LIBRARY_IMPL block: kernels for the ops of
// namespace ns ("_" for any namespace) at one dispatch key or device (see
// Library.Impl for the keys). It cannot define ops.
func NewImpl(ns string, key any) *Library {
	where := caller()
	k, err := parseKey(key)
	if err != nil {
		raise(err)
	}
	return &Library{kind: KindImpl, ns: ns, key: &k, where: where}
}

// Namespace is the library's namespace.
func (l *Library) Namespace() string { return l.ns }

// Kind is the library's kind.
func (l *Library) Kind() Kind { return l.kind }

// Define defines an op from its schema, as m.def(schema) in a
// TORCH_LIBRARY block: "foo(Tensor x, *, float alpha=1.) -> Tensor" in the
// library's namespace, or "mylib::foo(...)" naming it. The schema is
// PyTorch's: alias annotations say what the op writes (Tensor(a!)) and
// which results alias which arguments (Tensor(a) -> Tensor(a)). A
// malformed schema panics with PyTorch's parse error, pointing at the
// column; a second definition of a name with PyTorch's redefinition error.
func (l *Library) Define(schema string) *Op { return l.define(schema, caller()) }

func (l *Library) define(schema, where string) *Op {
	d, err := checkSchema(schema)
	if err != nil {
		raise(err)
	}
	if !d.isSchema {
		fail(tensor.RuntimeError, "Tried to parse a function schema but only the operator name was given")
	}
	opName := d.name
	if d.overload != "" {
		opName += "." + d.overload
	}
	ns := d.ns
	if ns == "" {
		ns = l.ns
	}
	if l.kind == KindImpl {
		fail(tensor.RuntimeError, "def(\"%s::%s\"): Cannot define an operator inside of a %s block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.  %s",
			ns, opName, l.kind, l.errorContext())
	}
	if d.ns != "" && d.ns != l.ns {
		fail(tensor.RuntimeError, "Explicitly provided namespace (%s) in schema string does not match namespace of enclosing %s block (%s).  Move this definition to the (unique) TORCH_LIBRARY block corresponding to this namespace (and consider deleting the namespace from your schema string.)  %s",
			d.ns, l.kind, l.ns, l.errorContext())
	}
	text := schema
	if d.ns == "" {
		text = schema[:d.nameStart] + l.ns + "::" + schema[d.nameStart:]
	}
	text = strings.TrimSpace(text)
	s, err := tensor.ParseSchema(text)
	if err != nil {
		fail(tensor.RuntimeError, "library: goaten cannot represent the schema %q: %v", text, err)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if prev, ok := tensor.LookupOp(s.QualifiedName()); ok {
		orig := "registered at goaten's built-in op tables"
		if pd := defs[prev]; pd != nil {
			orig = pd.debug
		}
		fail(tensor.RuntimeError, "Tried to register an operator (%s) with the same name and overload name multiple times. Each overload's schema should only be registered with a single call to def(). Duplicate registration: registered at %s. Original registration: %s",
			text, where, orig)
	}
	op := tensor.RegisterOp(text)
	def := &opDef{op: op, debug: "registered at " + where}
	def.handle = &Op{def: def}
	def.trivialFake = canGenerateTrivialFakeImpl(s)
	op.ImplBackend(tensor.Meta, def.metaKernel)
	if s.IsView() {
		op.Impl(tensor.KeyFunctionalize, customViewKernel)
	}
	defs[op] = def
	if objectOpHook != nil && takesObject(s) {
		objectOpHook(op)
	}
	return def.handle
}

// objectOpHook is called with each op defined whose schema takes a custom
// class (see SetObjectOpHook).
var objectOpHook func(*tensor.Op)

// SetObjectOpHook installs f, which Define calls with every op it defines
// whose schema takes a custom class (a TorchBind object): package
// compile/hop's makes such ops effectful, as PyTorch treats an op with a
// ScriptObject argument. It is called once, from an init function.
func SetObjectOpHook(f func(*tensor.Op)) {
	regMu.Lock()
	defer regMu.Unlock()
	objectOpHook = f
}

// takesObject reports whether an argument of s is a custom class.
func takesObject(s *tensor.Schema) bool {
	for _, a := range s.Args {
		if a.Type.Base().Kind == tensor.TClass {
			return true
		}
	}
	return false
}

// customViewKernel is the Functionalize kernel of a custom op whose result
// aliases an input: PyTorch's functionalization refuses such ops.
func customViewKernel(op *tensor.Op, _ tensor.Dispatch, _ []any) any {
	fail(tensor.RuntimeError, "Found a custom (non-ATen) operator whose output has alias annotations: %s. We only support functionalizing operators whose outputs do not have alias annotations (e.g. 'Tensor(a)' is a Tensor with an alias annotation whereas 'Tensor' is a Tensor without. The '(a)' is the alias annotation). The alias annotation specifies that the output Tensor shares storage with an input that has the same annotation. Please check if (1) the output needs to be an output (if not, don't return it), (2) if the output doesn't share storage with any inputs, then delete the alias annotation. (3) if the output indeed shares storage with an input, then add a .clone() before returning it to prevent storage sharing and then delete the alias annotation. Otherwise, please file an issue on GitHub.",
		op.Schema)
	return nil
}

// canGenerateTrivialFakeImpl: a custom op that mutates its inputs and
// returns nothing has a trivial fake impl.
func canGenerateTrivialFakeImpl(s *tensor.Schema) bool {
	return !isBuiltin(s.Namespace) && len(s.Mutates()) > 0 && len(s.Returns) == 0
}

func isBuiltin(ns string) bool { return ns == "aten" || ns == "prim" || ns == "prims" }

// qualify resolves an op name given to a block: its namespace must be the
// block's (a "_" block takes any).
func (l *Library) qualify(name string) string {
	ns, rest, ok := strings.Cut(name, "::")
	if !ok {
		if l.ns == "_" {
			fail(tensor.RuntimeError, "impl(\"%s\", ...): the operator name needs a namespace in a TORCH_LIBRARY_IMPL block for every namespace (_).  %s", name, l.errorContext())
		}
		return l.ns + "::" + name
	}
	if l.ns != "_" && ns != l.ns {
		fail(tensor.RuntimeError, "impl(\"%s\", ...): Explicitly provided namespace (%s) in operator name does not match namespace of enclosing %s block (%s).  Move this definition to the %s block corresponding to this namespace (and consider deleting the namespace from your schema string.)  %s",
			name, ns, l.kind, l.ns, l.kind, l.errorContext())
	}
	return ns + "::" + rest
}

// lookupDef finds the op an impl names: it must exist and have been
// defined through this package.
func lookupDef(qname string) *opDef {
	op, ok := tensor.LookupOp(qname)
	if !ok {
		fail(tensor.RuntimeError, "operator %s does not exist", qname)
	}
	regMu.Lock()
	d := defs[op]
	regMu.Unlock()
	if d == nil {
		fail(tensor.RuntimeError, "library: %s was not defined with package library; goaten's own ops get their kernels from their packages (a device's from device.Register)", op.Name)
	}
	return d
}

// claim records a kernel for (op, key), refusing a second one as
// torch.library does.
func claim(d *opDef, key, where string) {
	s := d.op.Schema
	opName := s.Name
	if s.Overload != "" {
		opName += "." + s.Overload
	}
	k := s.Namespace + "/" + opName + "/" + key
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := pyImpls[k]; dup {
		fail(tensor.RuntimeError, "This is not allowed since there's already a kernel registered from python overriding %s's behavior for %s dispatch key and %s namespace.",
			opName, key, s.Namespace)
	}
	pyImpls[k] = where
}

// Impl registers kernel k of op name for a dispatch key or device, as
// m.impl(name, k) in a block (name may leave out the block's namespace).
// key is one of
//
//   - a device, as a tensor.Device or its name: "CPU" (or "cpu"), a
//     registered device such as "gonum"; the kernel gets the call's tensors
//     on that device and returns tensors on it;
//   - "Meta" (or tensor.Meta): the op's meta kernel, which is its fake
//     kernel (see RegisterFake);
//   - "CompositeImplicitAutograd": a decomposition written in other ops,
//     for every device; gradients flow through the ops it calls, graphs
//     record those ops, and no fake kernel is needed;
//   - "CompositeExplicitAutograd": a kernel for every device (and the meta
//     device, where it runs on meta tensors) that graphs record whole;
//   - nil or "": the block's key in a TORCH_LIBRARY_IMPL block, else
//     "CompositeImplicitAutograd" (PyTorch's catch-all).
//
// The autograd formula is registered with RegisterAutograd. A second
// kernel for the same key panics.
func (l *Library) Impl(name string, key any, k Kernel) {
	l.impl(l.qualify(name), name, key, k, caller())
}

func (l *Library) impl(qname, given string, key any, k Kernel, where string) {
	var ik implKey
	if key == nil || key == "" {
		if l.key != nil {
			ik = *l.key
		} else {
			ik = implKey{name: "CompositeImplicitAutograd", kind: keyComposite}
		}
	} else {
		var err error
		if ik, err = parseKey(key); err != nil {
			raise(err)
		}
	}
	if l.key != nil && ik != *l.key {
		fail(tensor.RuntimeError, "impl(\"%s\", ...): Explicitly provided dispatch key (%s) is inconsistent with the dispatch key of the enclosing %s block (%s).  Please declare a separate %s block for this dispatch key and move your impl() there.  %s",
			given, ik.name, l.kind, l.key.name, l.kind, l.errorContext())
	}
	if k == nil {
		fail(tensor.TypeError, "Input function is required to be a callable but found type <nil>")
	}
	d := lookupDef(qname)
	switch ik.kind {
	case keyAutograd:
		fail(tensor.RuntimeError, "library: %s: register the autograd formula with RegisterAutograd (it runs the op below autograd and records your backward)", d.op.Name)
	case keyMeta:
		claim(d, "Meta", where)
		regMu.Lock()
		d.metaImpl = true
		regMu.Unlock()
		d.fake.Store(&fakeImpl{k: k, where: where})
	case keyComposite, keyCompositeExplicit:
		claim(d, ik.name, where)
		regMu.Lock()
		prev := d.composite
		if prev == "" {
			d.composite = ik.name
		}
		regMu.Unlock()
		if prev != "" {
			fail(tensor.RuntimeError, "library: %s already has a %s kernel; goaten keeps one composite kernel per op", d.op.Name, prev)
		}
		if ik.kind == keyCompositeExplicit {
			d.op.Explicit = true
		}
		d.op.ImplComposite(d.kernel(k, ik.name, true))
	default:
		claim(d, ik.name, where)
		d.op.ImplBackend(ik.dev, d.kernel(k, ik.name, false))
	}
}

// RegisterFake registers the fake kernel of op name
// (torch.library.register_fake): it computes the op's results' metadata
// from its arguments' and runs on meta tensors — the meta device's
// kernel, and what compile.Trace and compile.Compile run while tracing
// (fake mode). It gets the call's arguments with its tensors on the meta
// device and returns meta tensors: made with ops on its inputs
// (x.EmptyLike()), or with tensor.NewMeta. Each run checks its results
// against the schema: the number and kind of the returns, and the
// aliasing the annotations declare (an unannotated result may not alias
// an input or another result; a Tensor(a) result must alias the Tensor(a)
// argument).
func (l *Library) RegisterFake(name string, fake Kernel) {
	registerFake(l.qualify(name), fake, caller())
}

func registerFake(qname string, fake Kernel, where string) {
	if fake == nil {
		fail(tensor.TypeError, "Input function is required to be a callable but found type <nil>")
	}
	d := lookupDef(qname)
	regMu.Lock()
	metaImpl, composite := d.metaImpl, d.composite
	regMu.Unlock()
	if f := d.fake.Load(); f != nil {
		if metaImpl {
			fail(tensor.RuntimeError, "register_fake(...): the operator %s already has a DispatchKey::Meta implementation via a pre-existing torch.library or TORCH_LIBRARY registration. Please either remove that registration or don't call register_fake.", qname)
		}
		fail(tensor.RuntimeError, "register_fake(...): the operator %s already has a fake impl registered at %s.", qname, f.where)
	}
	if composite == "CompositeImplicitAutograd" {
		fail(tensor.RuntimeError, "register_fake(...): the operator %s already has an implementation for this device type via a pre-existing registration to DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd operators do not need a fake impl; instead, the operator will decompose into its constituents and those can have fake impls defined on them.", qname)
	}
	claim(d, "Meta", where)
	d.fake.Store(&fakeImpl{k: fake, where: where})
}

// RegisterAutograd registers the autograd formula of op name, as
// torch.library.register_autograd: the op then runs below autograd (its
// kernels see no tensor that records gradients), setupContext (optional)
// saves what backward needs, and backward turns the gradients of the
// results into one gradient per argument. The op must be functional (no
// mutation, no aliasing result, at least one result).
func (l *Library) RegisterAutograd(name string, backward Backward, setupContext SetupContext) {
	registerAutograd(l.qualify(name), backward, setupContext, caller())
}

// fragmentOf is the FRAGMENT block the package-level functions register
// through: the namespace of a qualified name.
func fragmentOf(qname, where string) *Library {
	ns, _, ok := strings.Cut(qname, "::")
	if !ok {
		fail(tensor.ValueError, "Expected `qualname` to be of the form \"namespace::name\", but got %s. The qualname passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin", qname)
	}
	return &Library{kind: KindFragment, ns: ns, where: where}
}

// Define defines an op from a schema that names its namespace,
// "mylib::foo(Tensor x) -> Tensor" (torch.library.define), and returns
// its handle. See Library.Define.
func Define(schema string) *Op {
	where := caller()
	d, err := checkSchema(schema)
	if err != nil {
		raise(err)
	}
	if d.ns == "" {
		fail(tensor.ValueError, "Expected `qualname` to be of the form \"namespace::name\", but got %s. The qualname passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin", d.name)
	}
	checkReserved(d.ns, KindFragment)
	return (&Library{kind: KindFragment, ns: d.ns, where: where}).define(schema, where)
}

// Impl registers kernel k of op name ("mylib::foo") for a key or device
// (torch.library.impl). See Library.Impl for the keys.
func Impl(name string, key any, k Kernel) {
	where := caller()
	fragmentOf(name, where).impl(name, name, key, k, where)
}

// RegisterFake registers the fake kernel of op name ("mylib::foo"). See
// Library.RegisterFake.
func RegisterFake(name string, fake Kernel) {
	where := caller()
	fragmentOf(name, where)
	registerFake(name, fake, where)
}

// RegisterAutograd registers the autograd formula of op name
// ("mylib::foo"). See Library.RegisterAutograd.
func RegisterAutograd(name string, backward Backward, setupContext SetupContext) {
	where := caller()
	fragmentOf(name, where)
	registerAutograd(name, backward, setupContext, where)
}

// Lookup returns the handle of an op defined through this package.
func Lookup(name string) (*Op, bool) {
	op, ok := tensor.LookupOp(name)
	if !ok {
		return nil, false
	}
	regMu.Lock()
	defer regMu.Unlock()
	if d := defs[op]; d != nil {
		return d.handle, true
	}
	return nil, false
}

// keyKind sorts the keys Impl takes.
type keyKind uint8

const (
	keyBackend keyKind = iota
	keyMeta
	keyComposite
	keyCompositeExplicit
	keyAutograd
)

// implKey is a parsed dispatch key: its name as PyTorch prints it, and
// the device of a backend key.
type implKey struct {
	name string
	kind keyKind
	dev  tensor.Device
}

func parseKey(key any) (implKey, error) {
	switch k := key.(type) {
	case tensor.Device:
		switch k {
		case tensor.CPU:
			return implKey{name: "CPU", dev: tensor.CPU}, nil
		case tensor.Meta:
			return implKey{name: "Meta", kind: keyMeta, dev: tensor.Meta}, nil
		}
		return implKey{name: k.String(), dev: k}, nil
	case string:
		switch k {
		case "CPU":
			return implKey{name: "CPU", dev: tensor.CPU}, nil
		case "Meta":
			return implKey{name: "Meta", kind: keyMeta, dev: tensor.Meta}, nil
		case "CompositeImplicitAutograd":
			return implKey{name: k, kind: keyComposite}, nil
		case "CompositeExplicitAutograd":
			return implKey{name: k, kind: keyCompositeExplicit}, nil
		case "Autograd", "AutogradCPU":
			return implKey{name: k, kind: keyAutograd}, nil
		}
		if d, ok := tensor.LookupDevice(k); ok {
			return parseKey(d)
		}
		return implKey{}, errorf(tensor.RuntimeError, "could not parse dispatch key: %s", k)
	}
	return implKey{}, errorf(tensor.TypeError, "library: a dispatch key is a tensor.Device or a string, not %T", key)
}
