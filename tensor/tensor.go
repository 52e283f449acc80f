package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Tensor is metadata plus an opaque raw value owned by the tensor's device.
// On the CPU, raw is a *Storage; on the meta device it is nil.
type Tensor struct {
	sizes   []int
	strides []int
	offset  int
	dtype   DType
	device  Device
	flags   uint8
	// Keys holds the dispatch keys this tensor carries above its backend
	// (Autograd, Functionalize, ...). Set by the layers that own them.
	Keys KeySet
	raw  any
	// Version counts in-place writes to the storage this tensor views; views
	// share it with their base. Autograd reads it.
	version atomic.Pointer[atomic.Uint64]
	// AutogradMeta belongs to the autograd layer.
	AutogradMeta any
}

const (
	flagWrapped uint8 = 1 << iota
	flagBlock         // t is the first field of a tensorBlock
)

const inlineDims = 4

// inlineBytes is the data a tensorBlock holds in place, so that a small
// tensor is one allocation.
const inlineBytes = 16

// tensorBlock is how NewMeta allocates a tensor of rank <= inlineDims: its
// sizes, strides and, once materialised, a small storage in one object.
type tensorBlock struct {
	t     Tensor
	dims  [2 * inlineDims]int
	st    Storage
	small [inlineBytes / 8]uint64
}

// NewMeta makes a tensor with the given metadata and no raw data. sizes and
// strides are copied.
func NewMeta(sizes, strides []int, offset int, dtype DType, device Device) *Tensor {
	n := len(sizes)
	var t *Tensor
	if n <= inlineDims {
		b := &tensorBlock{}
		t = &b.t
		t.flags = flagBlock
		t.sizes = b.dims[:n:n]
		t.strides = b.dims[inlineDims : inlineDims+n : inlineDims+n]
	} else {
		t = &Tensor{}
		d := make([]int, 2*n)
		t.sizes = d[:n:n]
		t.strides = d[n:]
	}
	copy(t.sizes, sizes)
	copy(t.strides, strides)
	t.offset = offset
	t.dtype = dtype
	t.device = device
	return t
}

// NewMetaContiguous makes a metadata-only tensor with contiguous strides.
func NewMetaContiguous(sizes []int, dtype DType, device Device) *Tensor {
	t := NewMeta(sizes, nil, 0, dtype, device)
	ContiguousStridesInto(t.strides, sizes)
	return t
}

// WithRaw returns a tensor with t's metadata and the given raw value.
// When base is non-nil the new tensor is a view of base and shares its version counter.
func (t *Tensor) WithRaw(raw any) *Tensor {
	t.raw = raw
	return t
}

// ShareVersion makes t share base's version counter (t is a view of base).
func (t *Tensor) ShareVersion(base *Tensor) *Tensor {
	t.version.Store(base.counter())
	return t
}

// counter is t's version counter, made on first use. Views of one tensor
// may be taken, and written, from several goroutines at once: the counter
// is made and bumped atomically (PyTorch's VariableVersion is atomic too).
func (t *Tensor) counter() *atomic.Uint64 {
	if c := t.version.Load(); c != nil {
		return c
	}
	c := new(atomic.Uint64)
	if t.version.CompareAndSwap(nil, c) {
		return c
	}
	return t.version.Load()
}

// Version is the number of in-place writes to t's storage (through any of
// the tensors sharing its counter).
func (t *Tensor) Version() uint64 {
	if c := t.version.Load(); c != nil {
		return c.Load()
	}
	return 0
}

// BumpVersion records an in-place write.
func (t *Tensor) BumpVersion() { t.counter().Add(1) }

// Sizes returns the shape. The slice must not be modified.
func (t *Tensor) Sizes() []int { return t.sizes }

// Shape is Sizes copied.
func (t *Tensor) Shape() []int { return append([]int(nil), t.sizes...) }

// Strides returns the strides in elements. The slice must not be modified.
func (t *Tensor) Strides() []int { return t.strides }

// StorageOffset is the offset of element 0 in the storage, in elements.
func (t *Tensor) StorageOffset() int { return t.offset }

// DType is the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Device is where the data lives.
func (t *Tensor) Device() Device { return t.device }

// Raw is the device's data (a *Storage on the CPU).
func (t *Tensor) Raw() any { return t.raw }

// Storage returns the CPU storage, or nil if t is not a CPU tensor.
func (t *Tensor) Storage() *Storage {
	s, _ := t.raw.(*Storage)
	return s
}

// Dim is the number of dimensions.
func (t *Tensor) Dim() int { return len(t.sizes) }

// Numel is the number of elements.
func (t *Tensor) Numel() int { return Numel(t.sizes) }

// IsWrappedNumber reports whether t is a 0-d tensor made from a Go number
// where the schema wants a Tensor (PyTorch's wrapped number).
func (t *Tensor) IsWrappedNumber() bool { return t.flags&flagWrapped != 0 }

// SetWrappedNumber marks t as a wrapped number.
func (t *Tensor) SetWrappedNumber(v bool) {
	if v {
		t.flags |= flagWrapped
	} else {
		t.flags &^= flagWrapped
	}
}

// Size returns the size of dimension d; negative d counts from the end.
// A 0-d tensor has none (PyTorch's IndexError).
func (t *Tensor) Size(d int) int { return t.sizes[dimIndex(d, len(t.sizes))] }

// Stride returns the stride of dimension d; negative d counts from the end.
func (t *Tensor) Stride(d int) int { return t.strides[dimIndex(d, len(t.strides))] }

// dimIndex is WrapDim for reading sizes and strides, where a 0-d tensor,
// which WrapDim lets dims 0 and -1 through for, has no dimension at all.
func dimIndex(d, rank int) int {
	if rank == 0 {
		IndexPanicf("Dimension specified as %d but tensor has no dimensions", d)
	}
	return WrapDim(d, rank)
}

// IsContiguous reports whether t is laid out row-major without gaps.
func (t *Tensor) IsContiguous() bool { return IsContiguousStrides(t.sizes, t.strides) }

// SetMeta overwrites t's sizes, strides and offset in place (resize_, as_strided_).
func (t *Tensor) SetMeta(sizes, strides []int, offset int) {
	t.sizes = append([]int(nil), sizes...)
	t.strides = append([]int(nil), strides...)
	t.offset = offset
}

// SetData makes t hold src's data and layout in place (PyTorch's
// t.data = src): t keeps its identity, its autograd state and the keys
// that come with it; its data, metadata, device and other keys become
// src's. Modules move their parameters to another device with it.
func (t *Tensor) SetData(src *Tensor) {
	t.SetMeta(src.sizes, src.strides, src.offset)
	t.dtype, t.device, t.raw = src.dtype, src.device, src.raw
	t.Keys = src.Keys.Without(KeyAutograd) | t.Keys&(KeySet(0).With(KeyAutograd))
	t.BumpVersion()
}

// SetDType overwrites the dtype (used by constructors only).
func (t *Tensor) SetDType(d DType) { t.dtype = d }

// SetDevice overwrites the device (used by device conversion).
func (t *Tensor) SetDevice(d Device) { t.device = d }

// ShapeString prints sizes as PyTorch's messages do: [2, 3].
func ShapeString(sizes []int) string {
	b := make([]byte, 0, 2+4*len(sizes))
	b = append(b, '[')
	for i, v := range sizes {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return string(append(b, ']'))
}

// Numel multiplies sizes.
func Numel(sizes []int) int {
	n := 1
	for _, s := range sizes {
		n *= s
	}
	return n
}

// ContiguousStrides returns row-major strides for sizes, as PyTorch computes
// them (a size-0 or size-1 dim still gets the product of the later sizes, with
// 0 sizes counted as 1).
func ContiguousStrides(sizes []int) []int {
	s := make([]int, len(sizes))
	ContiguousStridesInto(s, sizes)
	return s
}

// ContiguousStridesInto writes row-major strides for sizes into dst.
func ContiguousStridesInto(dst, sizes []int) {
	acc := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		dst[i] = acc
		acc *= max(sizes[i], 1)
	}
}

// IsContiguousStrides reports whether strides are row-major for sizes
// (ignoring dims of size 1, and anything when an extent is 0).
func IsContiguousStrides(sizes, strides []int) bool {
	exp := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		if sizes[i] == 0 {
			return true
		}
		if sizes[i] != 1 {
			if strides[i] != exp {
				return false
			}
			exp *= sizes[i]
		}
	}
	return true
}

// WrapDim turns a possibly negative dim into an index in [0, rank), panicking
// with PyTorch's IndexError when out of range. A 0-d tensor accepts -1 and 0.
func WrapDim(d, rank int) int {
	r := rank
	if r == 0 {
		r = 1
	}
	if d < -r || d >= r {
		IndexPanicf("Dimension out of range (expected to be in range of [%d, %d], but got %d)", -r, r-1, d)
	}
	if d < 0 {
		d += r
	}
	return d
}

// StorageExtent is the number of elements a view needs in its storage:
// offset + 1 + Σ(size-1)·stride, or 0 for an empty view.
func StorageExtent(sizes, strides []int, offset int) int {
	n := offset + 1
	for i, s := range sizes {
		if s == 0 {
			return 0
		}
		n += (s - 1) * strides[i]
	}
	return n
}

// Empty allocates an uninitialised (zeroed) contiguous CPU tensor.
func Empty(dtype DType, sizes ...int) *Tensor {
	for _, s := range sizes {
		if s < 0 {
			Panicf("Trying to create tensor with negative dimension %d: %s", s, ShapeString(sizes))
		}
	}
	return Materialize(NewMetaContiguous(sizes, dtype, CPU))
}

// MaxElements bounds one allocation, so that a small bad input cannot ask for
// an unbounded amount of memory.
var MaxElements = 1 << 33

func checkAllocSize(n int, dtype DType) {
	if n < 0 || n > MaxElements || n*dtype.ItemSize() < 0 {
		Panicf("refusing to allocate a tensor of %d elements of %s", n, dtype)
	}
}

// EmptyLike allocates a contiguous CPU tensor of the same shape and dtype.
func EmptyLike(t *Tensor) *Tensor { return Empty(t.dtype, t.sizes...) }

// checkedExtent is StorageExtent for an allocation: it panics, as PyTorch's
// storage size computation does, when a size, stride or the offset is
// negative or the extent overflows, instead of wrapping round to a small
// number that would pass the allocation cap.
func checkedExtent(sizes, strides []int, offset int) int {
	for _, s := range sizes {
		if s == 0 {
			return 0
		}
	}
	n := uint64(offset) + 1
	bad := offset < 0
	for i, s := range sizes {
		if s < 0 || strides[i] < 0 {
			bad = true
			break
		}
		hi, step := bits.Mul64(uint64(s-1), uint64(strides[i]))
		var carry uint64
		n, carry = bits.Add64(n, step, 0)
		if hi != 0 || carry != 0 || n > math.MaxInt64 {
			bad = true
			break
		}
	}
	if bad {
		if IsContiguousStrides(sizes, strides) && offset == 0 {
			Panicf("Storage size calculation overflowed with sizes=%s", ShapeString(sizes))
		}
		Panicf("Storage size calculation overflowed with sizes=%s and strides=%s", ShapeString(sizes), ShapeString(strides))
	}
	return int(n)
}

// Materialize gives a metadata-only CPU tensor fresh storage big enough for
// its view (the strides it has are kept).
func Materialize(t *Tensor) *Tensor { return materialize(t, NewStorage) }

// MaterializeUninit is Materialize with a storage whose contents are
// unspecified (NewStorageUninit): for an output its kernel overwrites
// entirely.
func MaterializeUninit(t *Tensor) *Tensor {
	materialize(t, NewStorageUninit)
	if poisonUninit { // the small tensors kept inline too
		poison(t.Storage().data)
	}
	return t
}

// MaterializeUninitFrom is MaterializeUninit with a's storage when it
// has one (Allocator.Storage), for a caller that plans its results' memory
// (compile/cpu) without making a its goroutine's Allocator for every
// kernel it calls (WithAllocator).
func MaterializeUninitFrom(t *Tensor, a Allocator) *Tensor {
	materialize(t, func(nbytes int) *Storage {
		if nbytes >= AllocatorMin {
			if s := a.Storage(nbytes, false); s != nil {
				if len(s.data) != nbytes {
					panic("tensor: an Allocator returned a storage of the wrong size")
				}
				return s
			}
		}
		return &Storage{data: newData(nbytes, false)}
	})
	if poisonUninit {
		poison(t.Storage().data)
	}
	return t
}

// materialize gives t a new storage. A small one stays in t's block, but
// a larger one is an object of its own: a Storage in the block would keep
// the block, and the autograd state it holds, alive as long as any view
// or detached alias of the storage is.
func materialize(t *Tensor, newStorage func(nbytes int) *Storage) *Tensor {
	n := checkedExtent(t.sizes, t.strides, t.offset)
	checkAllocSize(n, t.dtype)
	nb := n * t.dtype.ItemSize()
	if t.flags&flagBlock != 0 && nb <= inlineBytes {
		b := (*tensorBlock)(unsafe.Pointer(t))
		b.small = [inlineBytes / 8]uint64{}
		b.st.data = unsafe.Slice((*byte)(unsafe.Pointer(&b.small[0])), nb)
		t.raw = &b.st
		return t
	}
	t.raw = newStorage(nb)
	return t
}

// FromSlice copies a Go slice into a new CPU tensor of the given shape. The
// dtype follows the element type: float32, float64, int64, int32, int16,
// int8, uint8, bool. A nil shape means 1-d.
func FromSlice[T float32 | float64 | int64 | int32 | int16 | int8 | uint8 | bool](data []T, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	if Numel(shape) != len(data) {
		Panicf("shape %v is invalid for input of size %d", shape, len(data))
	}
	var d DType
	switch any(data).(type) {
	case []float32:
		d = Float32
	case []float64:
		d = Float64
	case []int64:
		d = Int64
	case []int32:
		d = Int32
	case []int16:
		d = Int16
	case []int8:
		d = Int8
	case []uint8:
		d = Uint8
	case []bool:
		d = Bool
	}
	t := Empty(d, shape...)
	copy(Elems[T](t.Storage()), data)
	return t
}

// FromScalar makes a 0-d CPU tensor holding v in dtype d.
func FromScalar(v Scalar, d DType) *Tensor {
	t := Empty(d)
	writeScalar(t.Storage(), d, 0, v)
	return t
}

// WrappedNumber makes the 0-d tensor PyTorch builds from a Go number passed
// where a Tensor is expected: int64, float64 or bool, marked wrapped.
func WrappedNumber(v Scalar) *Tensor {
	t := FromScalar(v, v.DType())
	t.flags |= flagWrapped
	return t
}

// CPUView returns t itself if it is on the CPU, else a CPU copy made by the
// device's ToCPU hook; a functional tensor (KeyFunctionalize) is read
// through its current value.
func (t *Tensor) CPUView() *Tensor {
	if t.Keys.Has(KeyFunctionalize) && functionalValue != nil {
		// A functional tensor (on a device without views, or functionalized
		// for graph capture): its current value.
		t = functionalValue(t)
	}
	if f, ok := t.raw.(interface{ FakeData() string }); ok {
		// A fake tensor of a trace (compile's FakeTensor) has no data.
		Panicf("%s %s (%s)", f.FakeData(), DataDependentMsg, CallerLine())
	}
	if t.device == CPU {
		return t
	}
	h := t.device.hooks()
	if h.ToCPU == nil {
		Panicf("device %q cannot copy its data to the CPU", t.device)
	}
	return h.ToCPU(t)
}

// HasData reports whether t's values can be read (CPUView, Item, Int64s):
// false on the meta device, for a fake tensor of a trace and on a device
// that cannot copy its data to the CPU. A kernel's check that reads data (an
// index in range) runs only where it is true, as PyTorch's meta kernels skip
// such checks.
func (t *Tensor) HasData() bool {
	if t.Keys.Has(KeyFunctionalize) && functionalValue != nil {
		t = functionalValue(t)
	}
	if _, ok := t.raw.(interface{ FakeData() string }); ok {
		return false
	}
	return t.device == CPU || t.device != Meta && t.device.hooks().ToCPU != nil
}

// DataDependentMsg is what a fake trace's refusal of a data read says
// (compile.IsDataDependent looks for it).
const DataDependentMsg = "reads tensor data, which fake tracing cannot"

// CallerLine is "at file:line" of the first caller outside goaten's own
// non-test, non-example packages: the user's line an error points at.
func CallerLine() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	if f, ok := userFrame(pcs[:n]); ok {
		return fmt.Sprintf("at %s:%d", f.File, f.Line)
	}
	return "at an unknown line"
}

// userFrame is the first frame of pcs outside goaten's own non-test,
// non-example packages (and the runtime's).
func userFrame(pcs []uintptr) (runtime.Frame, bool) {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		internal := strings.HasPrefix(f.Function, "github.com/goaten/goaten/") || strings.HasPrefix(f.Function, "runtime.") || strings.HasPrefix(f.Function, "reflect.")
		if f.Function != "" && (!internal || strings.HasSuffix(f.File, "_test.go") || strings.Contains(f.File, "/examples/")) {
			return f, true
		}
		if !more {
			return runtime.Frame{}, false
		}
	}
}

// Item returns the value of a one-element tensor.
func (t *Tensor) Item() Scalar {
	if t.Numel() != 1 {
		Panicf("a Tensor with %d elements cannot be converted to Scalar", t.Numel())
	}
	if (t.Keys.Has(KeyTrace) || t.device == CPU && t.Keys.Has(KeyFunctionalize)) && !KeyExcluded(KeyTrace) {
		// A traced tensor, or a CPU tensor functionalized for graph
		// capture: the read is an op the tracer sees (and, in fake mode,
		// refuses as data-dependent). The op's own kernel runs with the
		// Trace key excluded and reads the data here.
		return opLocalScalarDense.call(t).(Scalar)
	}
	c := t.CPUView()
	return c.At(make([]int, c.Dim())...)
}

// At returns the element at the given index of a CPU tensor.
func (t *Tensor) At(idx ...int) Scalar {
	if len(idx) != len(t.sizes) {
		Panicf("At: expected %d indices, got %d", len(t.sizes), len(idx))
	}
	s := t.Storage()
	if s == nil {
		Panicf("At: tensor on %s has no CPU storage", t.device)
	}
	off := t.offset
	for i, x := range idx {
		if x < 0 || x >= t.sizes[i] {
			IndexPanicf("index %d is out of bounds for dimension %d with size %d", x, i, t.sizes[i])
		}
		off += x * t.strides[i]
	}
	switch {
	case t.dtype == Bool:
		return BoolScalar(readInt(s, t.dtype, off) != 0)
	case t.dtype.IsFloat():
		return Float(readFloat(s, t.dtype, off))
	default:
		return Int(readInt(s, t.dtype, off))
	}
}

// SetAt writes one element of a CPU tensor.
func (t *Tensor) SetAt(v Scalar, idx ...int) {
	off := t.offset
	for i, x := range idx {
		off += x * t.strides[i]
	}
	writeScalar(t.Storage(), t.dtype, off, v)
}

// Float64s returns the elements in row-major order as float64.
func (t *Tensor) Float64s() []float64 {
	c := t.CPUView()
	out := make([]float64, 0, c.Numel())
	c.eachOffset(func(off int) { out = append(out, readFloat(c.Storage(), c.dtype, off)) })
	return out
}

// Float32s returns the elements in row-major order as float32 (other dtypes
// are read as float64 and rounded to float32).
func (t *Tensor) Float32s() []float32 {
	c := t.CPUView()
	out := make([]float32, 0, c.Numel())
	if c.dtype == Float32 {
		e := Elems[float32](c.Storage())
		c.eachOffset(func(off int) { out = append(out, e[off]) })
		return out
	}
	c.eachOffset(func(off int) { out = append(out, float32(readFloat(c.Storage(), c.dtype, off))) })
	return out
}

// Int64s returns the elements in row-major order as int64.
func (t *Tensor) Int64s() []int64 {
	c := t.CPUView()
	out := make([]int64, 0, c.Numel())
	c.eachOffset(func(off int) { out = append(out, readInt(c.Storage(), c.dtype, off)) })
	return out
}

// Scalars returns the elements in row-major order.
func (t *Tensor) Scalars() []Scalar {
	c := t.CPUView()
	out := make([]Scalar, 0, c.Numel())
	idx := make([]int, c.Dim())
	c.eachOffset(func(off int) {
		_ = idx
		switch {
		case c.dtype == Bool:
			out = append(out, BoolScalar(readInt(c.Storage(), c.dtype, off) != 0))
		case c.dtype.IsFloat():
			out = append(out, Float(readFloat(c.Storage(), c.dtype, off)))
		default:
			out = append(out, Int(readInt(c.Storage(), c.dtype, off)))
		}
	})
	return out
}

// eachOffset calls f with the storage offset of every element in row-major order.
func (t *Tensor) eachOffset(f func(off int)) {
	n := t.Numel()
	if n == 0 {
		return
	}
	rank := len(t.sizes)
	idx := make([]int, rank)
	off := t.offset
	for k := 0; k < n; k++ {
		f(off)
		for d := rank - 1; d >= 0; d-- {
			idx[d]++
			off += t.strides[d]
			if idx[d] < t.sizes[d] {
				break
			}
			off -= idx[d] * t.strides[d]
			idx[d] = 0
		}
	}
}

// String prints like PyTorch's repr.
func (t *Tensor) String() string { return Format(t) }

// Format implements fmt.Formatter so %v prints the repr.
func (t *Tensor) Format(f fmt.State, verb rune) {
	fmt.Fprint(f, Format(t))
}

// AllClose compares two tensors' values with PyTorch's allclose rule.
func AllClose(a, b *Tensor, rtol, atol float64) bool {
	x, y := a.Float64s(), b.Float64s()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			if math.IsNaN(x[i]) != math.IsNaN(y[i]) {
				return false
			}
			continue
		}
		if x[i] == y[i] {
			continue
		}
		if math.Abs(x[i]-y[i]) > atol+rtol*math.Abs(y[i]) {
			return false
		}
	}
	return true
}
