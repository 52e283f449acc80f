package compile

import (
	"errors"
	"fmt"
	"log"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Backend turns a traced graph into something that runs it. The inputs are
// the call's (example) inputs.
type Backend func(gm *fx.GraphModule, inputs []*tensor.Tensor) (Runnable, error)

// Runnable runs a compiled graph on inputs that pass its guards.
type Runnable func(inputs []*tensor.Tensor) (any, error)

// Eager is the backend that runs a graph with the FX Interpreter through
// the dispatcher: every registered device runs compiled code with no code
// of its own (a device that gives only conversions and core lowerings gets
// compile for free).
//
// The graph is flattened once into a program (program.go) that runs the
// same dispatcher calls without the Interpreter's per-node work (a
// higher-order op's node calls the op, which keeps its sub-graphs compiled);
// graphs with nodes it does not handle run on fx.Interpreter itself.
func Eager(gm *fx.GraphModule, _ []*tensor.Tensor) (Runnable, error) {
	if p, ok := compileProgram(gm); ok {
		return p.run, nil
	}
	return func(inputs []*tensor.Tensor) (any, error) {
		in := make([]any, len(inputs))
		for i, x := range inputs {
			in[i] = x
		}
		return fx.NewInterpreter(gm).Run(in...)
	}, nil
}

// cpuBackend is the backend RegisterCPUBackend set (compile/cpu's).
var cpuBackend atomic.Pointer[Backend]

// RegisterCPUBackend makes b the backend DefaultBackend compiles graphs of
// CPU tensors with. Package compile/cpu registers its Backend when it is
// initialized (compile cannot import it: it imports compile), and package
// goaten imports compile/cpu, so every program using goaten's ops has it.
func RegisterCPUBackend(b Backend) {
	if b == nil {
		cpuBackend.Store(nil)
		return
	}
	cpuBackend.Store(&b)
}

// DefaultBackend is the backend Compile uses when Options.Backend is nil:
// the registered CPU backend (RegisterCPUBackend: compile/cpu's fused tile
// programs) when every input is a CPU tensor, Eager otherwise (inputs on
// another device, or no CPU backend linked into the program). A graph
// compiled without example inputs (AOT autograd's backward graph) gets the
// CPU backend, which runs each call whose inputs are not all CPU tensors
// as Eager does.
func DefaultBackend(gm *fx.GraphModule, inputs []*tensor.Tensor) (Runnable, error) {
	b := cpuBackend.Load()
	if b == nil {
		return Eager(gm, inputs)
	}
	for _, x := range inputs {
		if x == nil || x.Device() != tensor.CPU {
			return Eager(gm, inputs)
		}
	}
	return (*b)(gm, inputs)
}

// DefaultRecompileLimit is how many graphs a compiled function keeps before
// it stops compiling (PyTorch's cache_size_limit).
const DefaultRecompileLimit = 8

// Options configure Compile.
type Options struct {
	// Backend runs the traced graphs. The default (nil) is the CPU
	// backend of package compile/cpu for graphs whose inputs are CPU
	// tensors, when a program links it (package goaten imports it), and
	// Eager for the others (see DefaultBackend).
	Backend Backend
	// Fullgraph makes every failure to compile an error: hitting the
	// recompile limit, or a trace that fails.
	Fullgraph bool
	// RecompileLimit bounds the graphs kept (default DefaultRecompileLimit);
	// past it the function runs eagerly (or fails, with Fullgraph).
	RecompileLimit int
	// Dynamic lists input dimensions to treat as dynamic from the first
	// call (PyTorch's mark_dynamic): Dynamic[i] are dims of input i.
	Dynamic map[int][]int
	// Decompositions are applied while tracing.
	Decompositions Decompositions
	// Logf receives the recompilation and fallback log (default log.Printf
	// for fallbacks only).
	Logf func(format string, args ...any)
}

// Compiled is a Go function compiled to graphs (torch.compile's result):
// calling it traces on a guard miss and runs the cached graph otherwise.
type Compiled struct {
	fn     any
	opts   Options
	name   string
	arity  int   // fn's number of inputs (-1: variadic)
	sigErr error // what checkSignature says of fn for arity inputs

	mu         sync.Mutex
	entries    []*entry
	segmented  bool                    // fn reads data: it runs in segments (segments.go)
	segments   map[string]Runnable     // compiled segments by their guards
	tapes      []*tape                 // the last call's trace of each segment (replay.go)
	segHint    int                     // how many traced tensors the last call in segments made
	stepMisses int                     // calls in a row that compiled a segment with an optimizer step
	dynamic    map[int]map[int]bool    // input -> dims found dynamic
	objDyn     map[string]map[int]bool // "input/path" of a tensor in an object's state -> dims found dynamic
	last       []inputSpec             // inputs of the last trace, for automatic dynamic dims
	stats      Stats
}

// Stats counts what a Compiled did.
type Stats struct {
	// Frames is how many graphs were compiled (PyTorch's frame_count).
	Frames int
	// Calls, Hits: calls, and those served by a cached graph.
	Calls, Hits int
	// Eager counts calls run eagerly after the recompile limit was hit.
	Eager int
	// Recompiles lists the reason of each compile after the first: the
	// guard each cached graph failed, newest graph first.
	Recompiles []string
	// Segments counts the segments compiled for a function that reads
	// tensor data or has effects (see segments.go), SegmentHits the
	// segment runs served from the cache, and SegmentReplays those of
	// them whose trace followed the last call's to the end (replay.go: no
	// graph was built).
	Segments, SegmentHits, SegmentReplays int
}

// entry is one compiled graph with its guards.
type entry struct {
	guards   []inputSpec
	gradMode bool
	gm       *fx.GraphModule
	joint    *Joint // the forward and backward graphs of a training graph
	run      Runnable
	runArgs  func([]any) (any, error) // a graph with script object inputs (CallArgs)
	attrs    []attrGuard              // the script objects fn closed over
}

// inputSpec is what a graph assumes of one input.
type inputSpec struct {
	name         string
	dtype        tensor.DType
	device       tensor.Device
	sizes        []int
	strides      []int
	requiresGrad bool
	dynamic      map[int]bool // dims whose size may vary
	obj          *objectSpec  // a script object input (CallArgs): its class and state
}

// Compile compiles fn, a Go function of *tensor.Tensor parameters and
// *tensor.Tensor or []*tensor.Tensor results (see Trace). The result's Call
// runs it; Fn1, Fn2 and Fn3 give back a function of fn's own type.
//
// fn may be a whole training step: a Backward, a write to a .grad or an
// optimizer step in it is a graph break (effects.go), after which fn runs
// in segments, its Go code on every call, with the gradients and the
// optimizer's state real tensors afterwards; with Fullgraph it is an error
// in PyTorch's words ("Unsupported Tensor.backward() call"). Grad-mode
// switches inside fn (NoGrad around an in-place parameter update) are
// recorded in the graph.
func Compile(fn any, opts ...Options) *Compiled {
	c := &Compiled{fn: fn, dynamic: map[int]map[int]bool{}, objDyn: map[string]map[int]bool{}}
	if len(opts) > 0 {
		c.opts = opts[0]
	}
	if c.opts.Backend == nil {
		c.opts.Backend = DefaultBackend
	}
	if c.opts.RecompileLimit == 0 {
		c.opts.RecompileLimit = DefaultRecompileLimit
	}
	for i, dims := range c.opts.Dynamic {
		for _, d := range dims {
			c.markDynamic(i, d)
		}
	}
	fv := reflect.ValueOf(fn)
	if fv.Kind() == reflect.Func {
		c.name = fv.Type().String()
		c.arity = fv.Type().NumIn()
		if fv.Type().IsVariadic() {
			c.arity = -1
		}
	}
	c.sigErr = checkSignature(fv, c.arity)
	return c
}

func (c *Compiled) markDynamic(input, dim int) {
	if c.dynamic[input] == nil {
		c.dynamic[input] = map[int]bool{}
	}
	c.dynamic[input][dim] = true
}

// Stats returns a copy of the counters.
func (c *Compiled) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Recompiles = slices.Clone(s.Recompiles)
	return s
}

// Explain describes the compiled graphs and why each recompile happened
// (torch._dynamo.explain).
func (c *Compiled) Explain() string {
	s := c.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "%d graph(s) compiled, %d call(s), %d cache hit(s), %d eager fallback(s)\n", s.Frames, s.Calls, s.Hits, s.Eager)
	for i, r := range s.Recompiles {
		fmt.Fprintf(&b, "recompile %d: %s\n", i+1, r)
	}
	return b.String()
}

// Joints returns the forward/backward splits of the cached training graphs
// (nil for inference graphs), in the order of Graphs.
func (c *Compiled) Joints() []*Joint {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Joint
	for _, e := range c.entries {
		out = append(out, e.joint)
	}
	return out
}

// Graphs returns the cached graphs, oldest first.
func (c *Compiled) Graphs() []*fx.GraphModule {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*fx.GraphModule
	for _, e := range c.entries {
		out = append(out, e.gm)
	}
	return out
}

// Call runs the compiled function on inputs and returns its results (a
// *tensor.Tensor, or a []any of them for several results).
func (c *Compiled) Call(inputs ...*tensor.Tensor) (any, error) {
	if c.arity != len(inputs) || c.sigErr != nil {
		if err := checkSignature(reflect.ValueOf(c.fn), len(inputs)); err != nil {
			return nil, err
		}
	}
	for i, x := range inputs {
		if x == nil {
			return nil, fmt.Errorf("compile: %s: input %d is nil", c.name, i)
		}
	}
	grad := autograd.IsGradEnabled()
	c.mu.Lock()
	c.stats.Calls++
	if c.segmented {
		c.mu.Unlock()
		return c.callSegments(inputs)
	}
	var reasons []string
	for _, e := range c.entries {
		var why string
		c.unlockOnPanic(func() { why = e.check(inputs, grad) }) // (the state of the objects fn closed over)
		if why == "" {
			c.stats.Hits++
			c.mu.Unlock()
			return plain(e.run(inputs))
		} else {
			reasons = append(reasons, why)
		}
	}
	if len(c.entries) >= c.opts.RecompileLimit {
		c.stats.Eager++
		c.mu.Unlock()
		if err := c.recompileLimitHit(reasons); err != nil {
			return nil, err
		}
		return c.eager(inputs)
	}
	specs := c.specs(inputs)
	var e *entry
	var err error
	c.unlockOnPanic(func() { e, err = c.compile(inputs, specs, grad) })
	if err != nil {
		if IsDataDependent(err) && !c.opts.Fullgraph {
			c.segmented = true
			c.mu.Unlock()
			c.logf("compile: %s reads tensor data; it runs in segments: %v", c.name, err)
			return c.callSegments(inputs)
		}
		if isGraphBreak(err) && !c.opts.Fullgraph {
			// A Backward, a .grad write or an optimizer step (effects.go):
			// the Go code runs on every call, in segments.
			c.segmented = true
			c.mu.Unlock()
			if c.opts.Logf != nil {
				c.opts.Logf("compile: %s: graph break; it runs in segments: %v", c.name, err)
			}
			return c.callSegments(inputs)
		}
		return c.failed(err, func() (any, error) { return c.eager(inputs) })
	}
	c.admit(e, reasons, specs)
	return plain(e.run(inputs))
}

// CallArgs is Call for a function that takes script objects
// (tensor.ScriptObject parameters: package torchbind's objects) beside
// tensors, as torch.compile takes TorchBind objects. A graph is traced
// with each object's fake (its flattened state fakified, as TraceArgs)
// and runs the real methods on the real objects, so the call changes them
// as calling fn would. The graph is guarded on each object's flattened
// state (__obj_flatten__, compile.StatefulObject): its class, the length
// of each list, and each tensor's dtype, device, requires_grad, sizes and
// strides, with automatic dynamic sizes as for tensor inputs (a size that
// changes between calls becomes dynamic when the graph does not depend on
// it); any change recompiles, as PyTorch's guards on __obj_flatten__ do.
// A tensor input that is also in an object's state is an error (PyTorch's
// "is alising"). Graphs with object inputs run on the Eager backend's
// program (a Backend takes tensors only) and are not split for training:
// autograd records their ops as they run. Without objects CallArgs is
// Call.
func (c *Compiled) CallArgs(inputs ...any) (any, error) {
	objects := false
	for _, a := range inputs {
		if _, ok := a.(tensor.ScriptObject); ok {
			objects = true
		}
	}
	if objects {
		return c.callObjects(inputs)
	}
	ts := make([]*tensor.Tensor, len(inputs))
	for i, a := range inputs {
		t, ok := a.(*tensor.Tensor)
		if !ok && a != nil {
			return nil, fmt.Errorf("compile: %s: input %d is a %T, not a tensor or a script object", c.name, i, a)
		}
		ts[i] = t
	}
	return c.Call(ts...)
}

// plain gives several results as a []any (a graph returns a Tuple).
func plain(res any, err error) (any, error) {
	if t, ok := res.(fx.Tuple); ok {
		return []any(t), err
	}
	return res, err
}

// lastOf joins the guard failures of the cached graphs, newest first (as
// PyTorch lists a recompile's guard failures).
func lastOf(s []string) string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return strings.Join(r, "; ")
}

func (c *Compiled) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// failed answers a call whose trace failed with err, c.mu held (and
// released): Fullgraph's error, or else the function run eagerly.
func (c *Compiled) failed(err error, eager func() (any, error)) (any, error) {
	c.mu.Unlock()
	if c.opts.Fullgraph {
		return nil, err
	}
	c.logf("compile: %s: %v; running eagerly", c.name, err)
	c.mu.Lock()
	c.stats.Eager++
	c.mu.Unlock()
	return eager()
}

// unlockOnPanic runs f, which traces fn, compiles a graph or reads the
// state of objects with c.mu held: a panic out of it (a Go panic out of fn
// or out of an object's StateLeaves, a backend's *tensor.Error)
// releases c.mu before it goes on, so that a caller that recovers (or
// segment mode's tensor.Try) can call c again.
func (c *Compiled) unlockOnPanic(f func()) {
	defer func() {
		if r := recover(); r != nil {
			c.mu.Unlock()
			panic(r)
		}
	}()
	f()
}

// admit adds e, traced for specs after a miss for reasons, to the cache,
// c.mu held (and released).
func (c *Compiled) admit(e *entry, reasons []string, specs []inputSpec) {
	if len(c.entries) > 0 {
		c.stats.Recompiles = append(c.stats.Recompiles, lastOf(reasons))
		if c.opts.Logf != nil {
			c.opts.Logf("compile: %s: recompiling: %s", c.name, lastOf(reasons))
		}
	}
	c.entries = append(c.entries, e)
	c.stats.Frames++
	c.last = specs
	c.mu.Unlock()
}

// eager runs fn itself.
func (c *Compiled) eager(inputs []*tensor.Tensor) (res any, err error) {
	fv := reflect.ValueOf(c.fn)
	in := make([]reflect.Value, len(inputs))
	for i, x := range inputs {
		in[i] = reflect.ValueOf(x)
	}
	err = tensor.Try(func() {
		out := fv.Call(in)
		res = results(out)
	})
	return res, err
}

func results(out []reflect.Value) any {
	if len(out) == 1 {
		return out[0].Interface()
	}
	l := make([]any, len(out))
	for i, v := range out {
		l[i] = v.Interface()
	}
	return l
}

// specs describes the inputs of a new trace. A dim whose size differs from
// the last trace's (same rank, everything else equal) becomes dynamic, as
// PyTorch's automatic dynamic shapes.
func (c *Compiled) specs(inputs []*tensor.Tensor) []inputSpec {
	out := make([]inputSpec, len(inputs))
	for i, x := range inputs {
		s := inputSpec{
			name:         fmt.Sprintf("inputs[%d]", i),
			dtype:        x.DType(),
			device:       x.Device(),
			sizes:        slices.Clone(x.Sizes()),
			strides:      slices.Clone(x.Strides()),
			requiresGrad: x.RequiresGrad(),
		}
		if i < len(c.last) {
			p := c.last[i]
			if p.dtype == s.dtype && p.device == s.device && len(p.sizes) == len(s.sizes) {
				for d := range s.sizes {
					if p.sizes[d] != s.sizes[d] {
						c.markDynamic(i, d)
					}
				}
			}
		}
		s.dynamic = map[int]bool{}
		for d := range c.dynamic[i] {
			if d < len(s.sizes) {
				s.dynamic[d] = true
			}
		}
		out[i] = s
	}
	return out
}

// compile traces fn for these inputs. Dims marked dynamic become symbolic
// (symbolic.go) when a second trace at sentinel sizes shows how the graph's
// ints depend on them; otherwise they stay static.
func (c *Compiled) compile(inputs []*tensor.Tensor, specs []inputSpec, grad bool) (*entry, error) {
	// A fake trace: nothing runs while tracing, so the function's effects
	// (writes into its inputs) happen once, when the graph runs.
	// Effects on Go objects (a Backward, an optimizer step) are graph
	// breaks here (effects.go); grad-mode switches are recorded.
	gm, err := Trace(c.fn, inputs, TraceOptions{Mode: Fake, Decompositions: c.opts.Decompositions, compiled: true})
	if err != nil {
		return nil, err
	}
	if anyDynamic(specs) {
		if grad && needsGrad(gm, inputs) {
			clearDynamic(specs) // training graphs stay static for now
		} else if sym, ok := c.symbolic(gm, inputs, specs); ok {
			gm = sym
		} else {
			clearDynamic(specs)
		}
	}
	if grad && needsGrad(gm, inputs) && mutationsAOT(gm) && !outputsAlias(gm) {
		// Training: AOT autograd (aot.go) traces the backward too and
		// runs both graphs as an autograd function.
		// A backward that reads tensor data (a derivative formula with
		// a data-dependent step) cannot be traced in fake mode: autograd
		// then runs the backward over the compiled forward.
		// So does a function whose outputs need grad only through tensors
		// a higher-order op's sub-program closes over: the trace lifts them
		// to the op's operands below its autograd rule, so no traced output
		// requires grad; run under autograd, the op's node sees them among
		// its operands and differentiates.
		j, err := TraceJoint(c.fn, inputs, c.opts.Decompositions)
		if err != nil && !IsDataDependent(err) && !strings.Contains(err.Error(), noGradOutput) {
			return nil, err
		}
		if err == nil {
			run, err := compileJoint(j, c.fn, c.opts.Backend, inputs)
			if err != nil {
				return nil, fmt.Errorf("compile: backend: %w", err)
			}
			return &entry{guards: specs, gradMode: grad, gm: j.Graph, joint: j, run: run, attrs: attrGuards(gm)}, nil
		}
	}
	run, err := c.opts.Backend(gm, inputs)
	if err != nil {
		return nil, fmt.Errorf("compile: backend: %w", err)
	}
	return &entry{guards: specs, gradMode: grad, gm: gm, run: inGradMode(gm, grad, run), attrs: attrGuards(gm)}, nil
}

// needsGrad reports whether the graph computes with an input or a constant
// that requires grad.
func needsGrad(gm *fx.GraphModule, inputs []*tensor.Tensor) bool {
	for _, x := range inputs {
		if x.RequiresGrad() {
			return true
		}
	}
	for _, name := range gm.AttrNames() {
		if t, ok := gm.Attr(name); ok {
			if t, ok := t.(*tensor.Tensor); ok && t.RequiresGrad() {
				return true
			}
		}
	}
	return false
}

// outputsAlias reports whether an output of the graph is a view (a view
// op's result, or an element of a multi-output view such as split): AOT
// autograd leaves those to autograd over the interpreted graph.
func outputsAlias(gm *fx.GraphModule) bool {
	var walk func(a any) bool
	walk = func(a any) bool {
		switch v := a.(type) {
		case *fx.Node:
			if v.Target == fx.GetItem {
				if src, ok := v.Args()[0].(*fx.Node); ok {
					return walk(src)
				}
			}
			op, ok := v.Target.(*tensor.Op)
			return ok && op != nil && op.Schema.IsView()
		case fx.Tuple:
			for _, x := range v {
				if walk(x) {
					return true
				}
			}
		case []any:
			for _, x := range v {
				if walk(x) {
					return true
				}
			}
		}
		return false
	}
	out := gm.Graph.OutputNode()
	return out != nil && len(out.Args()) > 0 && walk(out.Args()[0])
}

func anyDynamic(specs []inputSpec) bool {
	for _, s := range specs {
		if len(s.dynamic) > 0 {
			return true
		}
	}
	return false
}

func clearDynamic(specs []inputSpec) {
	for i := range specs {
		specs[i].dynamic = nil
	}
}

// check returns "" when inputs pass the entry's guards, else PyTorch's
// reason for the first that fails.
func (e *entry) check(inputs []*tensor.Tensor, grad bool) string {
	if len(inputs) != len(e.guards) {
		return fmt.Sprintf("expected %d inputs, got %d", len(e.guards), len(inputs))
	}
	if grad != e.gradMode {
		return fmt.Sprintf("grad_mode mismatch. expected %v, actual %v", pyBool(e.gradMode), pyBool(grad))
	}
	for i, x := range inputs {
		if why := e.guards[i].check(x); why != "" {
			return fmt.Sprintf("tensor '%s' %s", e.guards[i].name, why)
		}
	}
	if len(e.attrs) > 0 {
		return e.checkAttrs()
	}
	return ""
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// check is PyTorch's TensorCheck: dtype, device, requires_grad, rank, then
// each static size and stride.
func (s *inputSpec) check(x *tensor.Tensor) string {
	switch {
	case x.DType() != s.dtype:
		return fmt.Sprintf("dtype mismatch. expected %s, actual %s", scalarTypeName(s.dtype), scalarTypeName(x.DType()))
	case x.Device() != s.device:
		return fmt.Sprintf("device mismatch. expected %s, actual %s", s.device, x.Device())
	case x.RequiresGrad() != s.requiresGrad:
		return fmt.Sprintf("requires_grad mismatch. expected requires_grad=%d", b2i(s.requiresGrad))
	case x.Dim() != len(s.sizes):
		return fmt.Sprintf("rank mismatch. expected %d, actual %d", len(s.sizes), x.Dim())
	}
	for d, n := range x.Sizes() {
		if s.dynamic[d] {
			if n < 2 {
				// 0 and 1 are specialised, as PyTorch's dynamic shapes.
				return fmt.Sprintf("size mismatch at index %d. expected a dynamic size >= 2, actual %d", d, n)
			}
			continue
		}
		if n != s.sizes[d] {
			return fmt.Sprintf("size mismatch at index %d. expected %d, actual %d", d, s.sizes[d], n)
		}
	}
	if len(s.dynamic) == 0 {
		for d, st := range x.Strides() {
			if st != s.strides[d] && x.Sizes()[d] > 1 {
				return fmt.Sprintf("stride mismatch at index %d. expected %d, actual %d", d, s.strides[d], st)
			}
		}
	} else if !x.IsContiguous() {
		return "stride mismatch: a graph with dynamic dims expects contiguous inputs"
	}
	return ""
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scalarTypeName is c10's name of a dtype (Float, Double, Long, ...), as
// PyTorch's guard messages print it.
func scalarTypeName(d tensor.DType) string {
	switch d {
	case tensor.Float32:
		return "Float"
	case tensor.Float64:
		return "Double"
	case tensor.Float16:
		return "Half"
	case tensor.BFloat16:
		return "BFloat16"
	case tensor.Int64:
		return "Long"
	case tensor.Int32:
		return "Int"
	case tensor.Int16:
		return "Short"
	case tensor.Int8:
		return "Char"
	case tensor.Uint8:
		return "Byte"
	case tensor.Bool:
		return "Bool"
	}
	return d.String()
}

// Fn1 compiles a function of one tensor and returns a function of the same
// type. A failure panics with a *tensor.Error, as an eager op does.
func Fn1(fn func(*tensor.Tensor) *tensor.Tensor, opts ...Options) func(*tensor.Tensor) *tensor.Tensor {
	c := Compile(fn, opts...)
	return func(x *tensor.Tensor) *tensor.Tensor { return one(c.Call(x)) }
}

// Fn2 is Fn1 for functions of two tensors.
func Fn2(fn func(a, b *tensor.Tensor) *tensor.Tensor, opts ...Options) func(a, b *tensor.Tensor) *tensor.Tensor {
	c := Compile(fn, opts...)
	return func(a, b *tensor.Tensor) *tensor.Tensor { return one(c.Call(a, b)) }
}

// Fn3 is Fn1 for functions of three tensors.
func Fn3(fn func(a, b, c *tensor.Tensor) *tensor.Tensor, opts ...Options) func(a, b, c *tensor.Tensor) *tensor.Tensor {
	cc := Compile(fn, opts...)
	return func(a, b, c *tensor.Tensor) *tensor.Tensor { return one(cc.Call(a, b, c)) }
}

func one(res any, err error) *tensor.Tensor {
	if err != nil {
		var te *tensor.Error
		if errors.As(err, &te) {
			panic(te)
		}
		tensor.Raise(&tensor.Error{Kind: tensor.RuntimeError, Msg: err.Error()})
	}
	t, _ := res.(*tensor.Tensor)
	return t
}

// recompileLimitHit is what a call does once the recompile limit is
// reached (c.mu released): under Fullgraph it returns the error, else it
// logs that the call runs eagerly and returns nil. reasons are the guard
// failures of this call, the last one reported.
func (c *Compiled) recompileLimitHit(reasons []string) error {
	msg := fmt.Sprintf("compile: %s: recompile limit (%d) reached; last reason: %s", c.name, c.opts.RecompileLimit, lastOf(reasons))
	if c.opts.Fullgraph {
		return errors.New(msg + " (FailOnRecompileLimitHit: fullgraph=True)")
	}
	c.logf("%s; running eagerly", msg)
	return nil
}
