// Package device is goaten's "new device" API: a backend registers a name,
// a conversion from CPU tensors to its own raw data and back, and lowerings
// of the core ATen ops over raw values. The framework does everything else:
//
//   - output metadata (sizes, strides, dtype) comes from the core meta
//     functions, so a lowering returns raw data only;
//   - non-core ops decompose into core ops (package decomp) unless the
//     backend lowers them itself;
//   - constructors (full, arange, rand, ...) the backend does not lower run on
//     the CPU and are moved with FromCPU;
//   - on a backend without native views or in-place ops, the tensors it makes
//     carry tensor.KeyFunctionalize so that the functionalization layer turns
//     views and mutation into functional ops before they reach it, and the
//     view ops it does not lower run through its as_strided lowering;
//   - t.ToDevice(dev) and t.ToDevice(tensor.CPU) move data with the two
//     conversions; a 0-d CPU tensor mixed into an op on the device acts as a
//     scalar (it is moved before the lowering runs);
//   - an op the backend lacks fails at call time with
//     `aten::X has no lowering on device "D" and no decomposition`.
//
// Debug adds a per-op trace and a mode that reruns every op on the CPU and
// reports the first one whose results differ.
package device

import (
	"fmt"
	"sort"
	"sync"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// A Lowering computes one op over raw values. It returns what the op returns
// with every output tensor replaced by its raw value: one raw value for an op
// returning a Tensor, a []any with one raw value per tensor for tuples and
// Tensor[], and the value itself (tensor.Scalar, int, bool) for the ops
// returning a number. The framework wraps raw values with the output
// metadata in c.Out.
type Lowering func(c *Call) any

// Backend is what a device supplies. Name, FromCPU, ToCPU and Lowerings are
// all a device needs; the rest is optional.
type Backend struct {
	// Name is the device's name, as tensor.LookupDevice and printing know it.
	Name string

	// FromCPU converts a CPU tensor to the device's raw data. Unless
	// NativeViews is set, the tensor is contiguous with storage offset 0: its
	// values in row-major order are all there is.
	FromCPU func(cpu *tensor.Tensor) any

	// ToCPU converts raw data back to a CPU tensor with t's sizes and dtype
	// (t is the device tensor holding raw; read its metadata only). Unless
	// NativeViews is set, raw holds t's values in row-major order and the
	// result may be any CPU tensor with those values (contiguous is usual).
	// nil means the data cannot be read back (the meta device).
	ToCPU func(raw any, t *tensor.Tensor) *tensor.Tensor

	// Lowerings maps op names ("aten::add.Tensor", "aten::exp.default") to
	// lowerings. Core ops are expected; a lowering of a non-core op wins over
	// its decomposition (its output metadata then comes from running the
	// decomposition on the meta device). Constructors (full, arange, rand, ...)
	// are optional: without a lowering they run on the CPU and are moved.
	// In-place and out= ops may appear only when Inplace is set; view ops
	// only when NativeViews is not set.
	Lowerings map[string]Lowering

	// NativeViews says the raw data is a strided storage that views share,
	// as on the CPU: the framework then runs the core view ops itself (the
	// meta function's sizes, strides and offset over the same raw value) and
	// every lowering must read its inputs through their sizes, strides and
	// storage offset. Without it, raw values are dense row-major, a tensor's
	// strides and offset are bookkeeping only, and a view op runs as a copy:
	// through the backend's lowering of that op if it has one, else through
	// its as_strided lowering.
	NativeViews bool

	// Inplace says raw data is mutable and Lowerings may hold in-place ops
	// (add_, copy_, resize_, ...) that write into their first argument. An
	// in-place op without a lowering then runs as its functional op followed
	// by the copy_ lowering.
	Inplace bool

	// DTypes lists the dtypes the device supports; nil means all of them.
	// Ops whose inputs or outputs use another dtype fail with a clear error.
	DTypes []tensor.DType
}

// backend is a registered Backend with its lookups resolved.
type backend struct {
	Backend
	dev     tensor.Device
	lower   map[*tensor.Op]Lowering
	dtypeOK [16]bool
	// functionalize is true when the device lacks native views or in-place
	// ops: its tensors carry tensor.KeyFunctionalize.
	functionalize bool
	debug         debugSlot
}

var (
	regMu    sync.RWMutex
	backends = map[tensor.Device]*backend{}
)

// Register adds the device b describes and returns its handle. It registers
// a kernel for every core op the backend can run (and for its non-core
// lowerings) and nothing else, so that a missing lowering is reported at
// call time. Registering a name twice panics; "meta" names the built-in
// meta device, which package device/meta registers this way.
func Register(b Backend) tensor.Device {
	if b.Name == "" {
		panic("device: Register needs a name")
	}
	if b.FromCPU == nil {
		panic("device: backend " + b.Name + " has no FromCPU")
	}
	be := &backend{Backend: b, lower: map[*tensor.Op]Lowering{}}
	be.functionalize = !(b.NativeViews && b.Inplace)
	if b.DTypes == nil {
		for i := range be.dtypeOK {
			be.dtypeOK[i] = true
		}
	}
	for _, d := range b.DTypes {
		be.dtypeOK[d] = true
	}
	for name, l := range b.Lowerings {
		op, ok := tensor.LookupOp(name)
		if !ok {
			panic(fmt.Sprintf("device: backend %s lowers unknown op %q", b.Name, name))
		}
		if l == nil {
			panic(fmt.Sprintf("device: backend %s has a nil lowering for %s", b.Name, name))
		}
		if isMutating(op) && !b.Inplace && returnedArg(op) >= 0 {
			panic(fmt.Sprintf("device: backend %s lowers the in-place op %s but does not set Inplace", b.Name, name))
		}
		if op.Schema.IsView() && b.NativeViews {
			panic(fmt.Sprintf("device: backend %s has native views; the framework runs the view op %s itself", b.Name, name))
		}
		if _, dup := be.lower[op]; dup {
			panic(fmt.Sprintf("device: backend %s lowers %s twice", b.Name, op.Name))
		}
		be.lower[op] = l
	}
	hooks := tensor.DeviceHooks{FromCPU: be.fromCPUHook, ToCPU: be.toCPUHook, Functionalize: be.functionalize}

	regMu.Lock()
	if d, ok := tensor.LookupDevice(b.Name); ok {
		if d != tensor.Meta || backends[d] != nil {
			regMu.Unlock()
			panic("device: device " + b.Name + " registered twice")
		}
		be.dev = d
		tensor.SetDeviceHooks(d, hooks)
	} else {
		be.dev = tensor.RegisterDevice(b.Name, hooks)
	}
	backends[be.dev] = be
	regMu.Unlock()

	be.registerKernels()
	return be.dev
}

func lookup(dev tensor.Device) *backend {
	regMu.RLock()
	defer regMu.RUnlock()
	return backends[dev]
}

// Registered reports whether dev was registered with Register.
func Registered(dev tensor.Device) bool { return lookup(dev) != nil }

// SupportsDType reports whether dev can hold tensors of dtype d. Devices not
// registered through this package (the CPU) support every dtype.
func SupportsDType(dev tensor.Device, d tensor.DType) bool {
	be := lookup(dev)
	return be == nil || be.dtypeOK[d]
}

// Lowered lists the ops dev has a lowering for, sorted by name.
func Lowered(dev tensor.Device) []string {
	be := lookup(dev)
	if be == nil {
		return nil
	}
	var out []string
	for op := range be.lower {
		out = append(out, op.Name)
	}
	sort.Strings(out)
	return out
}

// metadataOps are answered from metadata alone on every device.
var metadataOps = map[string]bool{
	"aten::sym_size.int": true, "aten::sym_stride.int": true, "aten::sym_numel": true,
	"aten::sym_storage_offset": true, "aten::sym_is_contiguous": true,
}

// isMutating reports whether op writes into an argument (in-place, out=).
func isMutating(op *tensor.Op) bool { return len(op.Schema.Mutates()) > 0 }

// isConstructor reports whether op makes a tensor from no tensor data: no
// tensor arguments and a device argument (full, arange, rand, ...), or a
// *_like op, whose input gives metadata only.
func isConstructor(op *tensor.Op) bool {
	s := op.Schema
	if deviceArg(op) < 0 {
		return false
	}
	for _, a := range s.Args {
		if a.Type.IsTensorLike() {
			return len(s.Name) > 5 && s.Name[len(s.Name)-5:] == "_like"
		}
	}
	return true
}

// deviceArg is the index of op's Device argument, or -1.
func deviceArg(op *tensor.Op) int {
	for i, a := range op.Schema.Args {
		if a.Type.Base().Kind == tensor.TDevice {
			return i
		}
	}
	return -1
}

var asStridedOp = core.Op("aten::as_strided.default")

// registerKernels installs the device's kernel for every op it can run.
func (be *backend) registerKernels() {
	dev := be.dev
	set := func(op *tensor.Op, k tensor.Kernel) { op.ImplBackend(dev, be.traced(k)) }
	ops := append(append([]string(nil), core.Names...), core.InplaceNames...)
	for _, name := range ops {
		op := core.Op(name)
		l := be.lower[op]
		switch {
		case metadataOps[op.Name]:
			set(op, metadataKernel)
		case op.Name == "aten::_to_copy":
			set(op, be.toCopyKernel(l))
		case isConstructor(op):
			if l != nil {
				set(op, be.functionalKernel(l))
			} else {
				set(op, be.constructKernel)
			}
		case isMutating(op):
			if !be.Inplace && (returnedArg(op) >= 0 || l == nil) {
				continue
			}
			if l != nil {
				set(op, be.mutatingKernel(l))
			} else if k := be.derivedInplaceKernel(op); k != nil {
				set(op, k)
			}
		case op.Schema.IsView():
			switch {
			case be.NativeViews:
				set(op, be.nativeViewKernel)
			case op == asStridedOp && l != nil:
				set(op, be.asStridedKernel(l))
			case l != nil:
				set(op, be.functionalKernel(l))
			case be.lower[asStridedOp] != nil:
				set(op, be.derivedViewKernel)
			}
		case l != nil && op == nonzeroOp:
			set(op, be.nonzeroKernel(l))
		case l != nil && (op == indexOp || op == indexPutOp):
			set(op, be.indexKernel(l))
		case l != nil:
			set(op, be.functionalKernel(l))
		}
	}
	for op, l := range be.lower {
		if !op.Core && !isCoreInplace(op) {
			set(op, be.extraKernel(op, l))
		}
	}
}

var coreInplace = func() map[*tensor.Op]bool {
	m := map[*tensor.Op]bool{}
	for _, n := range core.InplaceNames {
		m[core.Op(n)] = true
	}
	return m
}()

func isCoreInplace(op *tensor.Op) bool { return coreInplace[op] }
