package core

import (
	"math"
	"strconv"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Factories (empty, empty_strided, full, full_like, scalar_tensor, arange)
// and the metadata queries sym_size/sym_stride/sym_numel/
// sym_storage_offset/sym_is_contiguous.

// ---------------------------------------------------------------------------
// empty, empty_strided

func emptyMeta(op *tensor.Op, a []any) any {
	p := args.EmptyOfOf(a)
	size := p.Size
	checkSizesNonNegative(size)
	dt := p.Dtype.Or(tensor.DefaultFloat)
	m := p.MemoryFormat.Or(tensor.ContiguousFormat)
	if m == tensor.PreserveFormat {
		tensor.Panicf("unsupported memory format %s", memoryFormatName(m))
	}
	return tensor.NewMeta(size, FormatStrides(size, m), 0, dt, op.DeviceOf(a))
}

func emptyStridedMeta(op *tensor.Op, a []any) any {
	p := args.EmptyStridedOf(a)
	size, stride := p.Size, p.Stride
	checkSizesNonNegative(size)
	if len(size) != len(stride) {
		tensor.Panicf("dimensionality of sizes (%d) must match dimensionality of strides (%d)", len(size), len(stride))
	}
	dt := p.Dtype.Or(tensor.DefaultFloat)
	StorageNBytes(size, stride, dt.ItemSize(), 0)
	return tensor.NewMeta(size, stride, 0, dt, op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// full, full_like, scalar_tensor

// FullDType is the dtype full() infers from its fill value when none is
// given. As aten::full.default is called through the dispatcher in 1.13
// (torch.ops, which the golden records use), a bool fill value arrives as an
// integer Scalar, so it gives int64 like any integer; floats give the default
// float dtype.
func FullDType(v tensor.Scalar) tensor.DType {
	if v.IsFloat() {
		return tensor.DefaultFloat
	}
	return tensor.Int64
}

func fullMeta(op *tensor.Op, a []any) any {
	p := args.FullOf(a)
	size := p.Size
	v := p.FillValue
	checkSizesNonNegative(size)
	dt := p.Dtype.Or(FullDType(v))
	CheckScalarFits(v, dt)
	return tensor.NewMetaContiguous(size, dt, op.DeviceOf(a))
}

func fullLikeMeta(op *tensor.Op, a []any) any {
	p := args.FullLikeOf(a)
	self := p.Self
	v := p.FillValue
	dt := p.Dtype.Or(self.DType())
	dev := p.Device.Or(self.Device())
	CheckScalarFits(v, dt)
	return likeMeta(self, dt, p.MemoryFormat.Or(tensor.PreserveFormat), dev)
}

func scalarTensorMeta(op *tensor.Op, a []any) any {
	p := args.ScalarTensorOf(a)
	v := p.S
	dt := p.Dtype.Or(tensor.DefaultFloat)
	CheckScalarFits(v, dt)
	return tensor.NewMetaContiguous(nil, dt, op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// arange

// ArangeDType is the dtype arange gives when none is asked for: int64 when
// start, end and step are all integers (bools count), else the default float.
func ArangeDType(start, end, step tensor.Scalar) tensor.DType {
	if start.IsFloat() || end.IsFloat() || step.IsFloat() {
		return tensor.DefaultFloat
	}
	return tensor.Int64
}

// ArangeParams validates an arange call for dtype dt and returns its length
// and, for the values start + step*i, start and step in the accumulation
// type: exact int64 for integer dtypes (with fstart/fstep unused), float64
// otherwise (float16/bfloat16 go through float32 as c10's acc_type does).
func ArangeParams(start, end, step tensor.Scalar, dt tensor.DType) (n int, istart, istep int64, fstart, fstep float64) {
	tensor.Check(dt != tensor.Bool, "\"arange_cpu\" not implemented for 'Bool'")
	var fend float64
	if dt.IsFloat() {
		acc := tensor.Float64
		if dt.IsReduced() {
			acc = tensor.Float32
		}
		for _, v := range []tensor.Scalar{start, end, step} {
			CheckScalarFits(v, acc)
		}
		fstart, fend, fstep = start.Float64(), end.Float64(), step.Float64()
		if acc == tensor.Float32 {
			fstart, fend, fstep = float64(float32(fstart)), float64(float32(fend)), float64(float32(fstep))
		}
	} else {
		for _, v := range []tensor.Scalar{start, end, step} {
			CheckScalarFits(v, tensor.Int64)
		}
		istart, istep = scalarInt(start), scalarInt(step)
		fstart, fend, fstep = float64(istart), float64(scalarInt(end)), float64(istep)
	}
	tensor.Check(fstep > 0 || fstep < 0, "step must be nonzero")
	if math.IsInf(fstart, 0) || math.IsNaN(fstart) || math.IsInf(fend, 0) || math.IsNaN(fend) {
		tensor.Panicf("unsupported range: %s -> %s", accString(fstart, dt), accString(fend, dt))
	}
	tensor.Check((fstep > 0 && fend >= fstart) || (fstep < 0 && fend <= fstart), "upper bound and larger bound inconsistent with step sign")
	var size float64
	if dt == tensor.Int64 {
		iend := scalarInt(end)
		sgn := int64(1)
		if istep < 0 {
			sgn = -1
		}
		size = float64((iend - istart + istep - sgn) / istep)
	} else {
		size = math.Ceil((end.Float64() - start.Float64()) / step.Float64())
	}
	tensor.Check(size >= 0 && size <= float64(math.MaxInt64), "invalid size, possible overflow?")
	n = int(size)
	if !dt.IsFloat() {
		return n, istart, istep, 0, 0
	}
	return n, 0, 0, fstart, fstep
}

// scalarInt converts a Scalar to int64 the way Scalar::to<int64_t> does (truncating floats).
func scalarInt(v tensor.Scalar) int64 {
	if v.IsFloat() {
		return int64(v.Float64())
	}
	return v.Int64()
}

// accString prints an accumulation-type value as C++'s ostream does.
func accString(f float64, dt tensor.DType) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if !dt.IsFloat() {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func arangeMeta(op *tensor.Op, a []any) any {
	p := args.ArangeOf(a)
	start, end, step := p.Start, p.End, p.Step
	dt := p.Dtype.Or(ArangeDType(start, end, step))
	n, _, _, _, _ := ArangeParams(start, end, step, dt)
	tensor.Check(n <= tensor.MaxElements, "invalid size, possible overflow?")
	return tensor.NewMetaContiguous([]int{n}, dt, op.DeviceOf(a))
}

// ---------------------------------------------------------------------------
// sym_* metadata queries: the same function serves as meta and as every
// device's kernel.

// symDim wraps the dim of a size/stride query; a 0-d tensor has none.
func symDim(t *tensor.Tensor, d int) int {
	if t.Dim() == 0 {
		tensor.IndexPanicf("dimension specified as %d but tensor has no dimensions", d)
	}
	return tensor.WrapDim(d, t.Dim())
}

// SymSize is aten::sym_size.int.
func SymSize(op *tensor.Op, a []any) any {
	p := args.SymSizeOf(a)
	return p.Self.Sizes()[symDim(p.Self, p.Dim)]
}

// SymStride is aten::sym_stride.int.
func SymStride(op *tensor.Op, a []any) any {
	p := args.SymStrideOf(a)
	return p.Self.Strides()[symDim(p.Self, p.Dim)]
}

// SymNumel is aten::sym_numel.default.
func SymNumel(op *tensor.Op, a []any) any { return args.SymNumelOf(a).Self.Numel() }

// SymStorageOffset is aten::sym_storage_offset.default.
func SymStorageOffset(op *tensor.Op, a []any) any {
	return args.SymStorageOffsetOf(a).Self.StorageOffset()
}

// SymIsContiguous is aten::sym_is_contiguous.default.
func SymIsContiguous(op *tensor.Op, a []any) any {
	p := args.SymIsContiguousOf(a)
	return IsContiguousFormat(p.Self.Sizes(), p.Self.Strides(), p.MemoryFormat)
}

func init() {
	def("aten::empty.memory_format", emptyMeta)
	def("aten::empty_strided.default", emptyStridedMeta)
	def("aten::full.default", fullMeta)
	def("aten::full_like.default", fullLikeMeta)
	def("aten::scalar_tensor.default", scalarTensorMeta)
	def("aten::arange.start_step", arangeMeta)
	def("aten::sym_size.int", SymSize)
	def("aten::sym_stride.int", SymStride)
	def("aten::sym_numel.default", SymNumel)
	def("aten::sym_storage_offset.default", SymStorageOffset)
	def("aten::sym_is_contiguous.default", SymIsContiguous)
}
