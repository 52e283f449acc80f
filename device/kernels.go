package device

import (
	"fmt"
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// The kernels the framework registers for a backend. Each runs the core
// meta function for the output metadata, then the backend's lowering (or the
// framework's own path: views, constructors, device moves), and wraps the
// raw results.

var (
	cloneOp  = core.Op("aten::clone.default")
	copyInto = core.Op("aten::copy_")
)

// metadataKernel answers sym_size, sym_stride, ... from metadata.
func metadataKernel(op *tensor.Op, a []any) any { return core.RunMeta(op, a) }

// outTensors lists the tensors of a meta result (nil for a number).
func outTensors(m any) []*tensor.Tensor {
	switch x := m.(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{x}
	case []*tensor.Tensor:
		return x
	}
	return nil
}

// keys is the dispatch key set the device's outputs carry, given the call's
// arguments: tensor.KeyFunctionalize on a functionalized device when an
// input tensor on the device carries it, or when no input is on the device
// (a constructor). Outputs computed from unwrapped ("inner") tensors of the
// functionalization layer carry no key.
func (be *backend) keys(list []any) tensor.KeySet {
	if !be.functionalize {
		return 0
	}
	seen, keyed := false, false
	see := func(t *tensor.Tensor) {
		if t != nil && t.Device() == be.dev {
			seen = true
			keyed = keyed || t.Keys.Has(tensor.KeyFunctionalize)
		}
	}
	for _, a := range list {
		switch x := a.(type) {
		case *tensor.Tensor:
			see(x)
		case []*tensor.Tensor:
			for _, t := range x {
				see(t)
			}
		}
	}
	if !seen || keyed {
		return tensor.KeySet(0).With(tensor.KeyFunctionalize)
	}
	return 0
}

// checkDType rejects a dtype the device does not hold.
func (be *backend) checkDType(d tensor.DType) {
	if !be.dtypeOK[d] {
		tensor.Panicf("device %q does not support dtype %s", be.Name, d)
	}
}

func (be *backend) checkDTypes(list []any, outs []*tensor.Tensor) {
	for _, a := range list {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil {
				be.checkDType(x.DType())
			}
		case []*tensor.Tensor:
			for _, t := range x {
				if t != nil {
					be.checkDType(t.DType())
				}
			}
		}
	}
	for _, t := range outs {
		if t != nil {
			be.checkDType(t.DType())
		}
	}
}

// prepare returns list with every CPU tensor (the 0-d ones the dispatcher
// lets through as scalars) moved to the device. list itself is not changed.
func (be *backend) prepare(list []any) []any {
	var out []any
	for i, a := range list {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil && x.Device() == tensor.CPU {
				if out == nil {
					out = append([]any(nil), list...)
				}
				out[i] = be.scalarToDevice(x)
			}
		case []*tensor.Tensor:
			var l []*tensor.Tensor
			for j, t := range x {
				if t != nil && t.Device() == tensor.CPU {
					if l == nil {
						l = append([]*tensor.Tensor(nil), x...)
					}
					l[j] = be.scalarToDevice(t)
				}
			}
			if l != nil {
				if out == nil {
					out = append([]any(nil), list...)
				}
				out[i] = l
			}
		}
	}
	if out == nil {
		return list
	}
	return out
}

// scalarToDevice moves a 0-d CPU tensor to the device (an inner tensor: no
// dispatch keys), keeping its wrapped-number mark.
func (be *backend) scalarToDevice(t *tensor.Tensor) *tensor.Tensor {
	be.checkDType(t.DType())
	d := tensor.NewMeta(t.Sizes(), t.Strides(), 0, t.DType(), be.dev).WithRaw(be.rawFromCPU(t))
	if !be.NativeViews {
		tensor.ContiguousStridesInto(d.Strides(), d.Sizes())
	}
	d.SetWrappedNumber(t.IsWrappedNumber())
	return d
}

// rawFromCPU converts a CPU tensor with the backend's FromCPU: as is on a
// device with native views, else made contiguous first.
func (be *backend) rawFromCPU(t *tensor.Tensor) any {
	if !be.NativeViews && !(t.IsContiguous() && t.StorageOffset() == 0) {
		t = cloneOp.RunBackend(tensor.CPU, []any{t, tensor.ContiguousFormat}).(*tensor.Tensor)
	}
	return be.FromCPU(t)
}

// toCPU converts a device tensor (not a functionalization wrapper) to a CPU
// tensor with its values, checking what the backend returns.
func (be *backend) toCPU(t *tensor.Tensor) *tensor.Tensor {
	if be.ToCPU == nil {
		if be.dev == tensor.Meta {
			tensor.Panicf("Cannot copy out of meta tensor; no data!")
		}
		tensor.Panicf("device %q cannot copy its data to the CPU", be.Name)
	}
	c := be.ToCPU(t.Raw(), t)
	if c == nil || c.Device() != tensor.CPU || c.DType() != t.DType() || !slices.Equal(c.Sizes(), t.Sizes()) {
		desc := "nil"
		if c != nil {
			desc = fmt.Sprintf("%s %s tensor of shape %v", c.Device(), c.DType(), c.Sizes())
		}
		tensor.Panicf("device %q: ToCPU returned a %s for a %s tensor of shape %v", be.Name, desc, t.DType(), t.Sizes())
	}
	return c
}

// toCPUExact is toCPU with t's strides and storage offset kept: the CPU
// tensor an op on the CPU would have seen.
func (be *backend) toCPUExact(t *tensor.Tensor) *tensor.Tensor {
	c := be.toCPU(t)
	if slices.Equal(c.Strides(), t.Strides()) && c.StorageOffset() == t.StorageOffset() {
		return c
	}
	dst := tensor.Materialize(tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.CPU))
	copyInto.RunBackend(tensor.CPU, args.Copy_{Self: dst, Src: c}.Box())
	return dst
}

// fromCPUHook is the device's tensor.DeviceHooks.FromCPU: a device tensor
// with the values and the metadata (sizes, strides, offset) of t.
func (be *backend) fromCPUHook(t *tensor.Tensor) *tensor.Tensor {
	if t.Device() != tensor.CPU {
		tensor.Panicf("device %q: FromCPU needs a CPU tensor, got one on %s", be.Name, t.Device())
	}
	be.checkDType(t.DType())
	d := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), be.dev).WithRaw(be.rawFromCPU(t))
	d.SetWrappedNumber(t.IsWrappedNumber())
	d.Keys = be.keys(nil)
	return d
}

// toCPUHook is the device's tensor.DeviceHooks.ToCPU. A tensor carrying
// KeyFunctionalize may be a wrapper of the functionalization layer, so it
// goes through _to_copy, which that layer unwraps.
func (be *backend) toCPUHook(t *tensor.Tensor) *tensor.Tensor {
	if t.Keys.Has(tensor.KeyFunctionalize) {
		op := core.Op("aten::_to_copy.default")
		a := op.Bind([]any{t}, map[string]any{"device": tensor.CPU})
		return op.InvokeBelow(tensor.KeyAutograd, a).(*tensor.Tensor)
	}
	return be.toCPU(t)
}

// wrap gives the meta result m the raw values res returned by a lowering.
func (be *backend) wrap(op *tensor.Op, m any, res any, keys tensor.KeySet) any {
	switch x := m.(type) {
	case *tensor.Tensor:
		be.finish(x, res, keys)
		return x
	case []*tensor.Tensor:
		rs, ok := res.([]any)
		if !ok || len(rs) != len(x) {
			tensor.Panicf("device %q: the lowering of %s returned %T; want []any with %d raw values", be.Name, op.Name, res, len(x))
		}
		for i, t := range x {
			be.finish(t, rs[i], keys)
		}
		return x
	}
	return res
}

func (be *backend) finish(t *tensor.Tensor, raw any, keys tensor.KeySet) {
	if t == nil {
		return // an output the op does not compute (output_mask)
	}
	t.SetDevice(be.dev)
	t.WithRaw(raw)
	t.Keys |= keys
}

// lower runs lowering l on a call whose output metadata is m.
func (be *backend) lower1(op *tensor.Op, a []any, m any, l Lowering) any {
	outs := outTensors(m)
	largs := be.prepare(a)
	be.checkDTypes(largs, outs)
	res := l(&Call{Op: op, Args: largs, Out: outs})
	return be.wrap(op, m, res, be.keys(a))
}

// functionalKernel runs a lowering of a functional op.
func (be *backend) functionalKernel(l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		return be.lower1(op, a, core.RunMeta(op, a), l)
	}
}

// extraKernel runs the lowering of a non-core op, whose output metadata
// comes from its meta function if it has one, else from its decomposition
// run on the meta device.
func (be *backend) extraKernel(op *tensor.Op, l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		return be.lower1(op, a, be.metaOf(op, a), l)
	}
}

func (be *backend) metaOf(op *tensor.Op, list []any) any {
	if op.Meta != nil {
		return op.Meta(op, list)
	}
	k := op.Composite()
	if k == nil {
		tensor.Panicf("device %q lowers %s, but it has no meta function or decomposition to compute its output metadata", be.Name, op.Name)
	}
	margs := make([]any, len(list))
	toMeta := func(t *tensor.Tensor) *tensor.Tensor {
		if t == nil || t.Device() != be.dev {
			return t
		}
		m := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
		m.SetWrappedNumber(t.IsWrappedNumber())
		return m
	}
	for i, a := range list {
		switch x := a.(type) {
		case *tensor.Tensor:
			margs[i] = toMeta(x)
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				l[j] = toMeta(t)
			}
			margs[i] = l
		case tensor.Device:
			if x == be.dev {
				margs[i] = tensor.Meta
			} else {
				margs[i] = a
			}
		default:
			margs[i] = a
		}
	}
	res := k(op, margs)
	// Fresh metadata-only tensors: the decomposition's outputs may alias its
	// inputs (a view, self returned as is), which must not be shared.
	switch x := res.(type) {
	case *tensor.Tensor:
		return tensor.NewMeta(x.Sizes(), x.Strides(), x.StorageOffset(), x.DType(), be.dev)
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(x))
		for i, t := range x {
			if t == nil {
				continue
			}
			out[i] = tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), be.dev)
		}
		return out
	}
	return res
}

// nativeViewKernel runs a view op on a device with native views: the
// meta function's metadata over the base's raw value, sharing its version
// counter.
func (be *backend) nativeViewKernel(op *tensor.Op, a []any) any {
	m := core.RunMeta(op, a)
	base := args.Self(a) // every view op views its first argument
	be.checkDType(base.DType())
	keys := be.keys(a)
	for _, t := range outTensors(m) {
		if t == nil {
			continue
		}
		t.SetDevice(be.dev)
		t.WithRaw(base.Raw()).ShareVersion(base)
		t.Keys |= keys
	}
	return m
}

// derivedViewKernel runs a view op on a device without native views and
// without a lowering of it: a dense copy through the as_strided lowering,
// with the view's geometry computed over the input's dense layout.
func (be *backend) derivedViewKernel(op *tensor.Op, a []any) any {
	m := core.RunMeta(op, a)
	base := args.Self(a) // every view op views its first argument
	dense := tensor.NewMetaContiguous(base.Sizes(), base.DType(), be.dev)
	a2 := append([]any(nil), a...)
	a2[0] = dense
	geo := outTensors(core.RunMeta(op, a2))
	outs := outTensors(m)
	be.checkDTypes(a[:1], outs)
	l := be.lower[asStridedOp]
	keys := be.keys(a)
	for i, g := range geo {
		raw := be.asStrided(l, base, g.Sizes(), g.Strides(), g.StorageOffset(), outs[i])
		be.finish(outs[i], raw, keys)
	}
	return m
}

// asStrided calls the as_strided lowering l: elements of base's dense value
// at the given geometry, as a dense value with out's metadata.
func (be *backend) asStrided(l Lowering, base *tensor.Tensor, sizes, strides []int, offset int, out *tensor.Tensor) any {
	a := args.AsStrided{Self: base, Size: sizes, Stride: strides, StorageOffset: args.Some(offset)}.Box()
	return l(&Call{Op: asStridedOp, Args: a, Out: []*tensor.Tensor{out}})
}

// asStridedKernel runs as_strided on a device without native views. The
// geometry the caller gives indexes the input's storage; the device holds
// only the input's elements, densely, so the storage positions are mapped to
// positions in the dense value, which must themselves form a strided
// pattern.
func (be *backend) asStridedKernel(l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		m := core.RunMeta(op, a).(*tensor.Tensor)
		x := args.AsStridedOf(a).Self
		be.checkDTypes(a[:1], []*tensor.Tensor{m})
		sizes, strides, off, ok := denseGeometry(x, m.Sizes(), m.Strides(), m.StorageOffset())
		if !ok {
			tensor.Panicf("as_strided: device %q has no native views: it holds only the %d elements of the input (sizes %v, strides %v, offset %d), and sizes %v, strides %v, storage offset %d read other storage",
				be.Name, x.Numel(), x.Sizes(), x.Strides(), x.StorageOffset(), m.Sizes(), m.Strides(), m.StorageOffset())
		}
		be.finish(m, be.asStrided(l, x, sizes, strides, off, m), be.keys(a))
		return m
	}
}

// denseGeometry maps a strided window (sizes, strides, offset) over x's
// storage to one over x's dense row-major values. ok is false when the
// window reads a storage position that holds none of x's elements, or when
// the positions do not form a strided pattern in the dense value.
func denseGeometry(x *tensor.Tensor, sizes, strides []int, offset int) ([]int, []int, int, bool) {
	n := tensor.Numel(sizes)
	if n == 0 {
		return sizes, tensor.ContiguousStrides(sizes), 0, true
	}
	if x.IsContiguous() {
		off := offset - x.StorageOffset()
		if off < 0 || tensor.StorageExtent(sizes, strides, off) > x.Numel() {
			return nil, nil, 0, false
		}
		return sizes, strides, off, true
	}
	// Where each storage position of x's elements sits in its dense value.
	pos := map[int]int{}
	xs, xst := x.Sizes(), x.Strides()
	idx := make([]int, len(xs))
	p := x.StorageOffset()
	for k := 0; k < x.Numel(); k++ {
		if _, seen := pos[p]; !seen {
			pos[p] = k
		}
		for d := len(xs) - 1; d >= 0; d-- {
			idx[d]++
			p += xst[d]
			if idx[d] < xs[d] {
				break
			}
			p -= idx[d] * xst[d]
			idx[d] = 0
		}
	}
	at := func(i []int) (int, bool) {
		q := offset
		for d, v := range i {
			q += v * strides[d]
		}
		k, ok := pos[q]
		return k, ok
	}
	zero := make([]int, len(sizes))
	base, ok := at(zero)
	if !ok {
		return nil, nil, 0, false
	}
	dst := make([]int, len(sizes))
	for d := range sizes {
		if sizes[d] > 1 {
			zero[d] = 1
			k, ok := at(zero)
			zero[d] = 0
			if !ok {
				return nil, nil, 0, false
			}
			dst[d] = k - base
			if dst[d] < 0 {
				return nil, nil, 0, false
			}
		}
	}
	// Check every element against the strided pattern.
	idx = make([]int, len(sizes))
	for k := 0; k < n; k++ {
		got, ok := at(idx)
		want := base
		for d, v := range idx {
			want += v * dst[d]
		}
		if !ok || got != want {
			return nil, nil, 0, false
		}
		for d := len(sizes) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < sizes[d] {
				break
			}
			idx[d] = 0
		}
	}
	return sizes, dst, base, true
}

// constructKernel runs a constructor the backend does not lower: on the
// CPU, moved with FromCPU.
func (be *backend) constructKernel(op *tensor.Op, a []any) any {
	m := core.RunMeta(op, a)
	outs := outTensors(m)
	be.checkDTypes(nil, outs)
	a2 := append([]any(nil), a...)
	a2[deviceArg(op)] = tensor.CPU
	if op.Schema.Args[0].Type.Base().Kind == tensor.TTensor {
		// A *_like op reads its input's metadata only.
		if t := args.Self(a); t != nil && t.Device() == be.dev {
			a2[0] = tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.CPU)
		}
	}
	cpu := outTensors(op.RunBackend(tensor.CPU, a2))
	keys := be.keys(a)
	for i, t := range outs {
		if t != nil {
			be.finish(t, be.rawFromCPU(cpu[i]), keys)
		}
	}
	return m
}

// toCopyKernel runs _to_copy for a tensor on the device: to the CPU with
// ToCPU, to another device through the CPU, and a dtype or layout change on
// the device with the backend's lowering if it has one, else through the CPU.
func (be *backend) toCopyKernel(l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		m := core.RunMeta(op, a).(*tensor.Tensor)
		p := args.InternalToCopyOf(a)
		x := p.Self
		target := m.Device()
		if target == be.dev && l != nil {
			return be.lower1(op, a, m, l)
		}
		be.checkDType(x.DType())
		p.Self = be.toCPUExact(x)
		if target != be.dev {
			// To the CPU, or to another device through the CPU's hand-off.
			return op.RunBackend(tensor.CPU, p.Box())
		}
		be.checkDType(m.DType())
		p.Device = args.Some(tensor.CPU)
		c := op.RunBackend(tensor.CPU, p.Box()).(*tensor.Tensor)
		be.finish(m, be.rawFromCPU(c), be.keys(a))
		return m
	}
}

// returnedArg is the index of the argument an in-place or out= op returns,
// or -1 for an op that returns fresh tensors and updates some arguments as a
// side effect (_native_batch_norm_legit's running statistics).
func returnedArg(op *tensor.Op) int {
	s := op.Schema
	if len(s.Returns) == 1 {
		if a := s.Returns[0].Type.Alias; a != nil {
			for i, arg := range s.Args {
				if b := arg.Type.Alias; b != nil && b.Set == a.Set {
					return i
				}
			}
		}
	}
	return -1
}

// mutatingKernel runs the lowering of an op that writes into arguments.
//
// In-place and out= ops return the argument they write: the meta function
// describes it afterwards (resize_ and out= may change its sizes), and the
// lowering writes into its raw value or returns a new raw value for it (nil
// keeps the current one).
//
// An op that updates arguments as a side effect returns its results' raw
// values followed by one new raw value per updated argument (nil: unchanged,
// or written in place on an Inplace backend), which the framework rebinds.
func (be *backend) mutatingKernel(l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		m := core.RunMeta(op, a)
		largs := be.prepare(a)
		if i := returnedArg(op); i >= 0 {
			m := m.(*tensor.Tensor)
			self := a[i].(*tensor.Tensor)
			be.checkDTypes(largs, nil)
			if m != self {
				self.SetMeta(m.Sizes(), m.Strides(), m.StorageOffset())
			}
			if raw := l(&Call{Op: op, Args: largs, Out: []*tensor.Tensor{self}}); raw != nil {
				self.WithRaw(raw)
			}
			self.BumpVersion()
			return self
		}
		outs := outTensors(m)
		be.checkDTypes(largs, outs)
		res := l(&Call{Op: op, Args: largs, Out: outs})
		mut := op.Schema.Mutates()
		if rs, ok := res.([]any); ok && len(rs) == len(outs)+len(mut) {
			for j, i := range mut {
				if t, ok := a[i].(*tensor.Tensor); ok && t != nil {
					if rs[len(outs)+j] != nil {
						t.WithRaw(rs[len(outs)+j])
					}
					t.BumpVersion()
				}
			}
			res = rs[:len(outs)]
		}
		return be.wrap(op, m, res, be.keys(a))
	}
}

// derivedInplaceKernel runs an in-place op as its functional op followed by
// the backend's copy_ lowering, when both exist.
func (be *backend) derivedInplaceKernel(op *tensor.Op) tensor.Kernel {
	f, _, ok := op.Functional()
	cp := be.lower[copyInto]
	if !ok || cp == nil || op == copyInto || be.lower[f] == nil {
		return nil
	}
	copyK := be.mutatingKernel(cp)
	fk := be.functionalKernel(be.lower[f])
	return func(op *tensor.Op, a []any) any {
		self := args.Self(a) // every in-place op writes its first argument
		res := fk(f, a).(*tensor.Tensor)
		core.CheckInplaceResult(self, res)
		return copyK(copyInto, args.Copy_{Self: self, Src: res}.Box())
	}
}

// Shaped is what a lowering returns for an op whose output shape depends on
// the data (nonzero): the raw value and the output's sizes. The output is
// contiguous, of the dtype the op documents (int64 for nonzero).
type Shaped struct {
	Raw   any
	Sizes []int
}

// nonzeroKernel runs nonzero, whose meta function cannot know the output
// shape: the lowering returns a Shaped.
func (be *backend) nonzeroKernel(l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		x := args.NonzeroOf(a).Self
		be.checkDType(x.DType())
		be.checkDType(tensor.Int64)
		res := l(&Call{Op: op, Args: be.prepare(a)})
		s, ok := res.(Shaped)
		if !ok {
			tensor.Panicf("device %q: the lowering of %s returned %T; want device.Shaped (its output shape depends on the data)", be.Name, op.Name, res)
		}
		out := tensor.NewMetaContiguous(s.Sizes, tensor.Int64, be.dev)
		be.finish(out, s.Raw, be.keys(a))
		return out
	}
}

var (
	nonzeroOp  = core.Op("aten::nonzero.default")
	selectOp   = core.Op("aten::select.int")
	indexOp    = core.Op("aten::index.Tensor")
	indexPutOp = core.Op("aten::index_put.default")
)

// maskIndices rewrites the boolean (bool or uint8) masks of an index list
// as PyTorch does before indexing: a mask of k dims becomes the k columns of
// its nonzero(). The lowerings of index and index_put then see integer
// indices only. It returns a itself when there is no mask.
func (be *backend) maskIndices(op *tensor.Op, a []any) []any {
	var self *tensor.Tensor
	var indices []*tensor.Tensor
	var put args.IndexPut
	if op == indexPutOp {
		put = args.IndexPutOf(a)
		self, indices = put.Self, put.Indices
	} else {
		p := args.IndexOf(a)
		self, indices = p.Self, p.Indices
	}
	hasMask := false
	for _, ix := range indices {
		if ix != nil && ix.Dim() > 0 && (ix.DType() == tensor.Bool || ix.DType() == tensor.Uint8) {
			hasMask = true
		}
	}
	if !hasMask {
		return a
	}
	core.CheckIndices(self, indices)
	var out []*tensor.Tensor
	for _, ix := range indices {
		if ix == nil || ix.Dim() == 0 || (ix.DType() != tensor.Bool && ix.DType() != tensor.Uint8) {
			out = append(out, ix)
			continue
		}
		if ix.Device() == tensor.CPU {
			ix = be.scalarToDevice(ix)
		}
		nz := nonzeroOp.RunBackend(be.dev, args.Nonzero{Self: ix}.Box()).(*tensor.Tensor)
		for j := 0; j < ix.Dim(); j++ {
			out = append(out, selectOp.RunBackend(be.dev, args.Select{Self: nz, Dim: 1, Index: j}.Box()).(*tensor.Tensor))
		}
	}
	if op == indexPutOp {
		put.Indices = out
		return put.Box()
	}
	return args.Index{Self: self, Indices: out}.Box()
}

// indexKernel runs index.Tensor or index_put with boolean masks turned into
// integer indices first.
func (be *backend) indexKernel(l Lowering) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		if be.lower[nonzeroOp] != nil {
			a = be.maskIndices(op, a)
		}
		return be.lower1(op, a, core.RunMeta(op, a), l)
	}
}
