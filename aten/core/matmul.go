package core

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the matrix products (mm, bmm, addmm) and the distance
// ops (_cdist_forward, _pdist_forward). PyTorch 1.13 CPU semantics:
//
//   - mm and addmm run "addmm_impl_cpu_", bmm runs "bmm": every integer dtype,
//     float32, float64 and bfloat16; not bool, not float16. Those checks and the
//     dtype-mismatch check ("expected scalar type Float but found Double") only
//     happen when there is something to multiply (a non-empty result and a
//     non-zero contraction), as in PyTorch, where they come from the kernel's
//     dispatch and data_ptr<T>() calls.
//   - mm's result has self's dtype, bmm's has batch2's (its meta uses
//     batch2.options()); with matching dtypes it makes no difference.

// linLegacyTypeName is the legacy tensor type name ("torch.FloatTensor") PyTorch
// prints in some messages.
func linLegacyTypeName(d tensor.DType) string {
	switch d {
	case tensor.Float16:
		return "torch.HalfTensor"
	}
	return "torch." + CTypeName(d) + "Tensor"
}

// linNotImplemented panics with PyTorch's dispatch error for an unsupported dtype.
func linNotImplemented(name string, d tensor.DType) {
	tensor.Panicf("%q not implemented for '%s'", name, CTypeName(d))
}

// linCheckScalarType is the check data_ptr<T>() makes: found must be expected.
func linCheckScalarType(expected, found tensor.DType) {
	if expected != found {
		tensor.Panicf("expected scalar type %s but found %s", CTypeName(expected), CTypeName(found))
	}
}

// linGemmDType reports whether PyTorch's CPU gemm ("addmm_impl_cpu_", "bmm") supports d.
func linGemmDType(d tensor.DType) bool {
	return d != tensor.Bool && d != tensor.Float16
}

func mmMeta(op *tensor.Op, in []any) any {
	v := args.MmOf(in)
	a, b := v.Self, v.Mat2
	tensor.Check(a.Dim() == 2, "self must be a matrix")
	tensor.Check(b.Dim() == 2, "mat2 must be a matrix")
	linCheckMatShapes(a, b)
	n, k, p := a.Size(0), a.Size(1), b.Size(1)
	if n*p > 0 && k > 0 {
		if !linGemmDType(a.DType()) {
			linNotImplemented("addmm_impl_cpu_", a.DType())
		}
		linCheckScalarType(a.DType(), b.DType())
	}
	return Contig(op, in, a.DType(), n, p)
}

func linCheckMatShapes(a, b *tensor.Tensor) {
	if a.Size(1) != b.Size(0) {
		tensor.Panicf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", a.Size(0), a.Size(1), b.Size(0), b.Size(1))
	}
}

func bmmMeta(op *tensor.Op, in []any) any {
	v := args.BmmOf(in)
	a, b := v.Self, v.Mat2
	tensor.Check(a.Dim() == 3, "batch1 must be a 3D tensor")
	tensor.Check(b.Dim() == 3, "batch2 must be a 3D tensor")
	bs, n, k := a.Size(0), a.Size(1), a.Size(2)
	if b.Size(0) != bs || b.Size(1) != k {
		tensor.Panicf("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].", bs, k, b.Size(0), b.Size(1))
	}
	p := b.Size(2)
	if bs*n*p > 0 && k > 0 {
		if !linGemmDType(a.DType()) {
			linNotImplemented("bmm", a.DType())
		}
		linCheckScalarType(a.DType(), b.DType())
	}
	return Contig(op, in, b.DType(), bs, n, p)
}

func addmmMeta(op *tensor.Op, in []any) any {
	v := args.AddmmOf(in)
	self, a, b := v.Self, v.Mat1, v.Mat2
	tensor.Check(self.DType() == b.DType(), "self and mat2 must have the same dtype")
	tensor.Check(a.DType() == b.DType(), "mat1 and mat2 must have the same dtype")
	if a.Dim() != 2 {
		tensor.Panicf("mat1 must be a matrix, got %d-D tensor", a.Dim())
	}
	if b.Dim() != 2 {
		tensor.Panicf("mat2 must be a matrix, got %d-D tensor", b.Dim())
	}
	linCheckMatShapes(a, b)
	n, k, p := a.Size(0), a.Size(1), b.Size(1)
	linCheckExpand(self, []int{n, p})
	dt := a.DType()
	if n*p > 0 && k > 0 {
		if !linGemmDType(dt) {
			linNotImplemented("addmm_impl_cpu_", dt)
		}
		if !dt.IsFloat() {
			GemmIntScalar(v.Beta, dt)
			GemmIntScalar(v.Alpha, dt)
		}
	}
	return Contig(op, in, dt, n, p)
}

// linCheckExpand panics with PyTorch's expand error unless t can be expanded to sizes.
func linCheckExpand(t *tensor.Tensor, sizes []int) {
	if t.Dim() > len(sizes) {
		tensor.Panicf("expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
			linLegacyTypeName(t.DType()), tensor.ShapeString(t.Sizes()), tensor.ShapeString(sizes), len(sizes), t.Dim())
	}
	off := len(sizes) - t.Dim()
	for i, s := range t.Sizes() {
		if s != 1 && s != sizes[off+i] {
			tensor.Panicf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
				sizes[off+i], s, off+i, tensor.ShapeString(sizes), tensor.ShapeString(t.Sizes()))
		}
	}
}

// GemmIntScalar converts addmm's beta or alpha to an integral dtype as
// Scalar::to<T>() does: floats truncate, and a value out of T's range (NaN
// included) is an error.
func GemmIntScalar(s tensor.Scalar, d tensor.DType) int64 {
	var lo, hi float64
	var name string
	switch d {
	case tensor.Uint8:
		lo, hi, name = -255, 255, "uint8_t"
	case tensor.Int8:
		lo, hi, name = math.MinInt8, math.MaxInt8, "int8_t"
	case tensor.Int16:
		lo, hi, name = math.MinInt16, math.MaxInt16, "int16_t"
	case tensor.Int32:
		lo, hi, name = math.MinInt32, math.MaxInt32, "int"
	default:
		lo, hi, name = -9.223372036854775808e18, 9.223372036854775807e18, "int64_t"
	}
	if s.IsFloat() {
		f := s.Float64()
		if !(f >= lo && f <= hi) || (d == tensor.Int64 && f >= hi) {
			tensor.Panicf("value cannot be converted to type %s without overflow", name)
		}
		return int64(f)
	}
	v := s.Int64()
	if float64(v) < lo || float64(v) > hi {
		tensor.Panicf("value cannot be converted to type %s without overflow", name)
	}
	return v
}

// CdistMode is _cdist_forward's compute_mode: 0 (None: the matrix-product
// formula for p=2 when either row count exceeds 25), 1 (always) or 2 (never).
func CdistMode(a []any) int { return args.InternalCdistForwardOf(a).ComputeMode.Or(0) }

func cdistMeta(op *tensor.Op, a []any) any {
	v := args.InternalCdistForwardOf(a)
	x1, x2 := v.X1, v.X2
	p := v.P
	if x1.Dim() < 2 {
		tensor.Panicf("cdist only supports at least 2D tensors, X1 got: %dD", x1.Dim())
	}
	if x2.Dim() < 2 {
		tensor.Panicf("cdist only supports at least 2D tensors, X2 got: %dD", x2.Dim())
	}
	c1, c2 := x1.Size(-1), x2.Size(-1)
	if c1 != c2 {
		tensor.Panicf("X1 and X2 must have the same number of columns. X1: %d X2: %d", c1, c2)
	}
	if !x1.DType().IsFloat() {
		tensor.Panicf("cdist only supports floating-point dtypes, X1 got: %s", CTypeName(x1.DType()))
	}
	if !x2.DType().IsFloat() {
		tensor.Panicf("cdist only supports floating-point dtypes, X2 got: %s", CTypeName(x2.DType()))
	}
	tensor.Check(p >= 0, "cdist only supports non-negative p values")
	mode := v.ComputeMode.Or(0)
	if mode < 0 || mode > 2 {
		tensor.Panicf("possible modes: 0, 1, 2, but was: %d", mode)
	}
	r1, r2 := x1.Size(-2), x2.Size(-2)
	batch := tensor.BroadcastShapes(x1.Sizes()[:x1.Dim()-2], x2.Sizes()[:x2.Dim()-2])
	out := append(append([]int(nil), batch...), r1, r2)
	if tensor.Numel(out) > 0 && c1 > 0 {
		d := x1.DType()
		if d != tensor.Float32 && d != tensor.Float64 {
			linNotImplemented("cdist", d)
		}
		linCheckScalarType(d, x2.DType())
	}
	return Contig(op, a, x1.DType(), out...)
}

func pdistMeta(op *tensor.Op, a []any) any {
	x := args.InternalPdistForwardOf(a).Self
	tensor.Check(x.IsContiguous(), "_pdist_forward requires contiguous input")
	if x.Dim() == 0 {
		tensor.IndexPanicf("Dimension specified as 0 but tensor has no dimensions")
	}
	n := x.Size(0)
	if n <= 1 {
		return Contig(op, a, x.DType(), 0)
	}
	m := x.Size(1)
	if m > 0 && x.DType() != tensor.Float32 && x.DType() != tensor.Float64 {
		linNotImplemented("pdist", x.DType())
	}
	return Contig(op, a, x.DType(), n*(n-1)/2)
}

func init() {
	def("aten::mm.default", mmMeta)
	def("aten::bmm.default", bmmMeta)
	def("aten::addmm.default", addmmMeta)
	def("aten::_cdist_forward.default", cdistMeta)
	def("aten::_pdist_forward.default", pdistMeta)
}
