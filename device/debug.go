package device

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goaten/goaten/tensor"
)

// DebugOptions configures Debug.
type DebugOptions struct {
	// Trace, when set, receives one line per op the device runs: the op,
	// its arguments (dtype and shape for tensors), its results and the time
	// it took, e.g.
	//   [gonum] aten::add.Tensor(f32[2, 3], f32[3], alpha=1) -> f32[2, 3]  4.1µs
	Trace io.Writer

	// CompareWithCPU reruns every op on the CPU, with the device's inputs
	// copied there, and compares sizes, dtypes and values of every result
	// (and of every argument the op mutates). Ops that draw random numbers
	// are not compared.
	CompareWithCPU bool

	// RTol and ATol are the tolerances of the float comparison; zero means a
	// default per dtype (float32: 1.3e-6 and 1e-5, float64: 1e-7 and 1e-7,
	// float16: 1e-3 and 1e-5, bfloat16: 1.6e-2 and 1e-5). Integers and bools
	// must be equal; NaN matches NaN.
	RTol, ATol float64

	// OnMismatch is called for every op whose results differ. The
	// mismatches are also kept (Debugger.First, Debugger.Mismatches) and
	// written to Trace when it is set.
	OnMismatch func(*Mismatch)
}

// Mismatch describes an op whose results on the device differ from the CPU's.
type Mismatch struct {
	Device tensor.Device
	Op     string // qualified op name
	Args   string // the arguments, as the trace prints them
	Output string // which result differs: "out", "out[1]", "mutated[0]"
	Detail string // what differs
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("device %s: %s(%s): %s differs from the CPU: %s", m.Device, m.Op, m.Args, m.Output, m.Detail)
}

// Debugger is an active Debug session on one device.
type Debugger struct {
	be   *backend
	opts DebugOptions
	mu   sync.Mutex
	mism []*Mismatch
	ops  atomic.Int64
}

type debugSlot struct{ p atomic.Pointer[Debugger] }

// Debug turns on tracing and/or CPU comparison for every op dev runs, until
// Close. dev must be a device registered with Register. A new Debug on the
// same device replaces the previous one.
func Debug(dev tensor.Device, opts DebugOptions) *Debugger {
	be := lookup(dev)
	if be == nil {
		tensor.Panicf("device.Debug: %s is not a device registered with device.Register", dev)
	}
	d := &Debugger{be: be, opts: opts}
	be.debug.p.Store(d)
	return d
}

// Close turns debugging off.
func (d *Debugger) Close() { d.be.debug.p.CompareAndSwap(d, nil) }

// First returns the first mismatch seen, or nil.
func (d *Debugger) First() *Mismatch {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.mism) == 0 {
		return nil
	}
	return d.mism[0]
}

// Mismatches returns every mismatch seen, in order.
func (d *Debugger) Mismatches() []*Mismatch {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*Mismatch(nil), d.mism...)
}

// Ops is the number of ops run while debugging.
func (d *Debugger) Ops() int { return int(d.ops.Load()) }

// traced wraps a device kernel with the debugging hooks; without a Debug
// session it costs one atomic load.
func (be *backend) traced(k tensor.Kernel) tensor.Kernel {
	return func(op *tensor.Op, args []any) any {
		d := be.debug.p.Load()
		if d == nil {
			return k(op, args)
		}
		return d.run(op, args, k)
	}
}

// randomOps draw random numbers: their values are not compared.
var randomOps = map[string]bool{
	"aten::rand": true, "aten::randn": true, "aten::randperm": true, "aten::native_dropout": true,
	"aten::empty.memory_format": true, "aten::empty_strided": true,
}

func (d *Debugger) run(op *tensor.Op, args []any, k tensor.Kernel) any {
	d.ops.Add(1)
	var ref []any
	var refRes any
	compare := d.opts.CompareWithCPU && !randomOps[op.Name] && !metadataOps[op.Name]
	var argText string
	if d.opts.Trace != nil || compare {
		argText = formatArgs(op, args)
	}
	if compare {
		// Copy the inputs before the op runs: it may write into them.
		ref = d.cpuArgs(args)
	}
	start := time.Now()
	res := k(op, args)
	took := time.Since(start)
	if d.opts.Trace != nil {
		d.write(fmt.Sprintf("[%s] %s(%s) -> %s  %s\n", d.be.dev, op.Name, argText, formatValue(res), took))
	}
	if compare {
		func() {
			defer func() {
				if r := recover(); r != nil {
					tensor.Caught(r)
					d.report(&Mismatch{Device: d.be.dev, Op: op.Name, Args: argText, Output: "out",
						Detail: fmt.Sprintf("the op failed on the CPU: %v", r)})
				}
			}()
			refRes = op.RunBackend(tensor.CPU, ref)
		}()
		if refRes != nil {
			if path, detail := d.diff("out", res, refRes); path != "" {
				d.report(&Mismatch{Device: d.be.dev, Op: op.Name, Args: argText, Output: path, Detail: detail})
			} else {
				for _, i := range op.Schema.Mutates() {
					if path, detail := d.diff(fmt.Sprintf("mutated[%d]", i), args[i], ref[i]); path != "" {
						d.report(&Mismatch{Device: d.be.dev, Op: op.Name, Args: argText, Output: path, Detail: detail})
						break
					}
				}
			}
		}
	}
	return res
}

func (d *Debugger) write(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	io.WriteString(d.opts.Trace, s)
}

func (d *Debugger) report(m *Mismatch) {
	d.mu.Lock()
	d.mism = append(d.mism, m)
	d.mu.Unlock()
	if d.opts.Trace != nil {
		d.write("MISMATCH " + m.Error() + "\n")
	}
	if d.opts.OnMismatch != nil {
		d.opts.OnMismatch(m)
	}
}

// cpuArgs copies a call's arguments to the CPU: device tensors with their
// metadata, the device itself named as the CPU.
func (d *Debugger) cpuArgs(args []any) []any {
	be := d.be
	conv := func(t *tensor.Tensor) *tensor.Tensor {
		if t == nil || t.Device() != be.dev {
			return t
		}
		c := be.toCPUExact(t)
		c.SetWrappedNumber(t.IsWrappedNumber())
		return c
	}
	out := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			out[i] = conv(x)
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				l[j] = conv(t)
			}
			out[i] = l
		case tensor.Device:
			if x == be.dev {
				out[i] = tensor.CPU
			} else {
				out[i] = a
			}
		default:
			out[i] = a
		}
	}
	return out
}

// diff compares a device result with the CPU's; it returns the path of the
// first difference and what differs, or "" when they agree.
func (d *Debugger) diff(path string, got, want any) (string, string) {
	switch w := want.(type) {
	case *tensor.Tensor:
		g, ok := got.(*tensor.Tensor)
		if !ok || g == nil {
			return path, fmt.Sprintf("got %T, the CPU gave a tensor", got)
		}
		if det := d.diffTensor(g, w); det != "" {
			return path, det
		}
		return "", ""
	case []*tensor.Tensor:
		g, ok := got.([]*tensor.Tensor)
		if !ok || len(g) != len(w) {
			return path, fmt.Sprintf("got %T, the CPU gave %d tensors", got, len(w))
		}
		for i := range w {
			if p, det := d.diff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); p != "" {
				return p, det
			}
		}
		return "", ""
	case tensor.Scalar:
		g, ok := got.(tensor.Scalar)
		if !ok {
			return path, fmt.Sprintf("got %T, the CPU gave a Scalar", got)
		}
		if !d.close(g.Float64(), w.Float64(), tensor.Float64) || g.IsFloat() != w.IsFloat() {
			return path, fmt.Sprintf("got %v, the CPU gave %v", g, w)
		}
		return "", ""
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return path, fmt.Sprintf("got %v, the CPU gave %v", got, want)
	}
	return "", ""
}

// diffTensor returns "" when g (on the device) agrees with w (on the CPU).
func (d *Debugger) diffTensor(g, w *tensor.Tensor) string {
	if g.DType() != w.DType() {
		return fmt.Sprintf("dtype %s, the CPU gave %s", g.DType(), w.DType())
	}
	if !slices.Equal(g.Sizes(), w.Sizes()) {
		return fmt.Sprintf("shape %v, the CPU gave %v", g.Sizes(), w.Sizes())
	}
	gc := g
	if g.Device() == d.be.dev {
		gc = d.be.toCPU(g)
	}
	if g.DType().IsFloat() {
		gv, wv := gc.Float64s(), w.Float64s()
		for i := range wv {
			if !d.close(gv[i], wv[i], g.DType()) {
				return fmt.Sprintf("element %d (of %d) is %v, the CPU gave %v", i, len(wv), gv[i], wv[i])
			}
		}
		return ""
	}
	gv, wv := gc.Int64s(), w.Int64s()
	for i := range wv {
		if gv[i] != wv[i] {
			return fmt.Sprintf("element %d (of %d) is %v, the CPU gave %v", i, len(wv), gv[i], wv[i])
		}
	}
	return ""
}

func (d *Debugger) close(g, w float64, dt tensor.DType) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	if g == w {
		return true
	}
	if math.IsInf(g, 0) || math.IsInf(w, 0) {
		return false
	}
	rtol, atol := d.opts.RTol, d.opts.ATol
	if rtol == 0 && atol == 0 {
		switch dt {
		case tensor.Float64:
			rtol, atol = 1e-7, 1e-7
		case tensor.Float16:
			rtol, atol = 1e-3, 1e-5
		case tensor.BFloat16:
			rtol, atol = 1.6e-2, 1e-5
		default:
			rtol, atol = 1.3e-6, 1e-5
		}
	}
	return math.Abs(g-w) <= atol+rtol*math.Abs(w)
}

// formatArgs prints a call's arguments as the trace shows them: tensors as
// dtype and shape, keyword-only arguments by name when they differ from
// their default.
func formatArgs(op *tensor.Op, args []any) string {
	var b strings.Builder
	for i, a := range args {
		arg := &op.Schema.Args[i]
		if arg.KwargOnly && (a == nil || (arg.HasDefault && fmt.Sprint(a) == fmt.Sprint(arg.Default))) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if arg.KwargOnly {
			b.WriteString(arg.Name + "=")
		}
		b.WriteString(formatValue(a))
	}
	return b.String()
}

var shortDType = map[tensor.DType]string{
	tensor.Bool: "b8", tensor.Uint8: "u8", tensor.Int8: "i8", tensor.Int16: "i16", tensor.Int32: "i32",
	tensor.Int64: "i64", tensor.Float16: "f16", tensor.BFloat16: "bf16", tensor.Float32: "f32", tensor.Float64: "f64",
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *tensor.Tensor:
		if x == nil {
			return "None"
		}
		s := shortDType[x.DType()] + tensor.ShapeString(x.Sizes())
		if x.Device() == tensor.CPU {
			s += "@cpu"
		}
		return s
	case []*tensor.Tensor:
		parts := make([]string, len(x))
		for i, t := range x {
			parts[i] = formatValue(t)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case []int:
		if len(x) > 8 {
			return fmt.Sprintf("%v...(%d)", x[:8], len(x))
		}
		return tensor.ShapeString(x)
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}
