package core

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the reduction family: sum, mean, prod, amax/amin, any,
// argmax/argmin, max/min along a dim, var, cumsum and _local_scalar_dense.
// Rules that hold on every device (dim wrapping, repeated dims, empty
// reductions, mean's and var's float-only rule) are checked here; gaps of
// one backend's kernels (prod of float16 on the CPU, ...) are the backend's.

// ReductionMask wraps and validates a reduction dim list for a tensor of the
// given rank, as PyTorch's dim_list_to_bitset does: each dim must be in range
// (a 0-d tensor accepts 0 and -1) and may appear once. An empty or nil list
// reduces every dim. The mask has one entry per dim of the tensor.
func ReductionMask(dims []int, rank int) []bool {
	mask := make([]bool, rank)
	if len(dims) == 0 {
		for i := range mask {
			mask[i] = true
		}
		return mask
	}
	checkMaskRank(rank)
	seen := make([]bool, max(rank, 1))
	for _, d := range dims {
		w := tensor.WrapDim(d, rank)
		if seen[w] {
			tensor.Panicf("dim %d appears multiple times in the list of dims", w)
		}
		seen[w] = true
		if rank > 0 {
			mask[w] = true
		}
	}
	return mask
}

// DimMask is the mask of a single-dim reduction over dim (already wrapped
// or not); a 0-d tensor reduces nothing.
func DimMask(dim, rank int) []bool {
	w := tensor.WrapDim(dim, rank)
	mask := make([]bool, rank)
	if rank > 0 {
		mask[w] = true
	}
	return mask
}

// reduceDimMask is DimMask for a reduction along dim, which 1.13 builds as
// a bitset like a dim list.
func reduceDimMask(dim, rank int) []bool {
	checkMaskRank(rank)
	return DimMask(dim, rank)
}

// checkMaskRank is dim_list_to_bitset's limit: a reduction or flip that
// names its dims takes a 64-bit mask of them.
func checkMaskRank(rank int) {
	tensor.Check(rank <= 64, "only tensors with up to 64 dims are supported")
}

// ReducedNumel is the number of input elements reduced into each output.
func ReducedNumel(sizes []int, mask []bool) int {
	n := 1
	for i, s := range sizes {
		if mask[i] {
			n *= s
		}
	}
	return n
}

// MidSplit reads a reduction over the dims of mask of a tensor of the
// given sizes as a middle reduction: reduced outer dims (outer elements),
// then kept dims (c), then reduced inner dims (inner), size-1 dims
// anywhere, with outer and c above 1 and rows of at least 16 elements: a
// sum of NCHW over (0, 2, 3). device/cpu sums such a reduction row by row
// (asm.SumF32, in float64) and adds the rows block after block, and
// compile/cpu fuses it the same way, so both read the shape here.
func MidSplit(sizes []int, mask []bool) (outer, c, inner int, ok bool) {
	outer, c, inner = 1, 1, 1
	part := 0 // 0: the outer reduced dims, 1: the kept ones, 2: the inner reduced ones
	for i, m := range mask {
		n := sizes[i]
		switch {
		case n == 1:
		case m && part == 0:
			outer *= n
		case m:
			part = 2
			inner *= n
		case part == 2:
			return 0, 0, 0, false // a kept dim after the inner rows
		default:
			part = 1
			c *= n
		}
	}
	if outer <= 1 || c <= 1 || inner < 16 {
		return 0, 0, 0, false
	}
	return outer, c, inner, true
}

// SumDType is the result dtype of sum, prod and cumsum: dtype when given,
// else int64 for integral and bool inputs, else the input's dtype.
func SumDType(in tensor.DType, dtype args.Opt[tensor.DType]) tensor.DType {
	if dtype.Ok {
		return dtype.V
	}
	if in.IsIntegral(true) {
		return tensor.Int64
	}
	return in
}

// reduceOut is the contiguous output of a reduction of x over mask.
func reduceOut(op *tensor.Op, a []any, x *tensor.Tensor, mask []bool, keepdim bool, dt tensor.DType) *tensor.Tensor {
	return tensor.NewMetaContiguous(ReducedShape(x.Sizes(), mask, keepdim), dt, op.DeviceOf(a))
}

// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)
func sumMeta(op *tensor.Op, a []any) any {
	p := args.SumOf(a)
	x := p.Self
	mask := ReductionMask(p.Dim, x.Dim())
	return reduceOut(op, a, x, mask, p.Keepdim, SumDType(x.DType(), p.Dtype))
}

// MeanDType checks mean's dtype rule and returns its result dtype.
func MeanDType(in tensor.DType, dtype args.Opt[tensor.DType]) tensor.DType {
	dt, what := in, "Input"
	if dtype.Ok {
		dt, what = dtype.V, "Optional"
	}
	if !dt.IsFloat() {
		tensor.Panicf("mean(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. Got: %s",
			what, CTypeName(dt))
	}
	return dt
}

// mean(Tensor self, *, ScalarType? dtype=None)
func meanMeta(op *tensor.Op, a []any) any {
	p := args.MeanOf(a)
	x := p.Self
	dt := MeanDType(x.DType(), p.Dtype)
	return reduceOut(op, a, x, ReductionMask(nil, x.Dim()), false, dt)
}

// mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)
func meanDimMeta(op *tensor.Op, a []any) any {
	p := args.MeanDimOf(a)
	x := p.Self
	dt := MeanDType(x.DType(), p.Dtype)
	mask := ReductionMask(p.Dim, x.Dim())
	return reduceOut(op, a, x, mask, p.Keepdim, dt)
}

// prod(Tensor self, *, ScalarType? dtype=None)
func prodMeta(op *tensor.Op, a []any) any {
	p := args.ProdOf(a)
	x := p.Self
	return reduceOut(op, a, x, ReductionMask(nil, x.Dim()), false, SumDType(x.DType(), p.Dtype))
}

// prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None)
func prodDimMeta(op *tensor.Op, a []any) any {
	p := args.ProdDimOf(a)
	x := p.Self
	mask := reduceDimMask(p.Dim, x.Dim())
	return reduceOut(op, a, x, mask, p.Keepdim, SumDType(x.DType(), p.Dtype))
}

// zeroNumelCheck is PyTorch's zero_numel_check_dims for an empty input: the
// reduction must name its dims, and none of them may be empty. Messages
// print the dims as given.
func zeroNumelCheck(x *tensor.Tensor, dims []int, fn string) {
	if x.Numel() != 0 {
		return
	}
	if len(dims) == 0 {
		tensor.Panicf("%s: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.", fn)
	}
	for _, d := range dims {
		zeroNumelCheckDim(x, d, fn)
	}
}

func zeroNumelCheckDim(x *tensor.Tensor, d int, fn string) {
	if x.Numel() != 0 || x.Dim() == 0 {
		return
	}
	if x.Size(d) == 0 {
		tensor.IndexPanicf("%s: Expected reduction dim %d to have non-zero size.", fn, d)
	}
}

// amax/amin(Tensor self, int[1] dim=[], bool keepdim=False); of reads the
// op's view (amin's converts to amax's).
func aminmaxMeta(fn string, of func([]any) args.Amax) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x := p.Self
		dims := p.Dim
		zeroNumelCheck(x, dims, fn)
		mask := ReductionMask(dims, x.Dim())
		return reduceOut(op, a, x, mask, p.Keepdim, x.DType())
	}
}

// AnyDType is any's result dtype: uint8 for uint8 inputs (PyTorch 1.13), else bool.
func AnyDType(in tensor.DType) tensor.DType {
	if in == tensor.Uint8 {
		return tensor.Uint8
	}
	return tensor.Bool
}

// any(Tensor self)
func anyMeta(op *tensor.Op, a []any) any {
	x := args.AnyOf(a).Self
	return reduceOut(op, a, x, ReductionMask(nil, x.Dim()), false, AnyDType(x.DType()))
}

// any.dim(Tensor self, int dim, bool keepdim=False)
func anyDimMeta(op *tensor.Op, a []any) any {
	p := args.AnyDimOf(a)
	x := p.Self
	return reduceOut(op, a, x, reduceDimMask(p.Dim, x.Dim()), p.Keepdim, AnyDType(x.DType()))
}

// any.dims(Tensor self, int[]? dim=None, bool keepdim=False)
func anyDimsMeta(op *tensor.Op, a []any) any {
	p := args.AnyDimsOf(a)
	x := p.Self
	mask := ReductionMask(p.Dim, x.Dim())
	return reduceOut(op, a, x, mask, p.Keepdim, AnyDType(x.DType()))
}

// argmax/argmin(Tensor self, int? dim=None, bool keepdim=False); of reads
// the op's view (argmin's converts to argmax's).
func argMeta(fn string, of func([]any) args.Argmax) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x := p.Self
		keepdim := p.Keepdim
		if !p.Dim.Ok {
			if x.Numel() == 0 {
				tensor.IndexPanicf("%s: Expected reduction dim to be specified for input.numel() == 0.", fn)
			}
			mask := ReductionMask(nil, x.Dim())
			return reduceOut(op, a, x, mask, keepdim, tensor.Int64)
		}
		d := tensor.WrapDim(p.Dim.V, x.Dim())
		zeroNumelCheckDim(x, d, fn)
		return reduceOut(op, a, x, reduceDimMask(d, x.Dim()), keepdim, tensor.Int64)
	}
}

// max.dim/min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices);
// of reads the op's view (min.dim's converts to max.dim's).
func minmaxDimMeta(fn string, of func([]any) args.MaxDim) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x := p.Self
		d := tensor.WrapDim(p.Dim, x.Dim())
		zeroNumelCheckDim(x, d, fn)
		mask := reduceDimMask(d, x.Dim())
		keepdim := p.Keepdim
		return []*tensor.Tensor{
			reduceOut(op, a, x, mask, keepdim, x.DType()),
			reduceOut(op, a, x, mask, keepdim, tensor.Int64),
		}
	}
}

// checkVarDType is std/var's dtype rule.
func checkVarDType(x *tensor.Tensor) {
	tensor.Check(x.DType().IsFloat(), "std and var only support floating point and complex dtypes")
}

// var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
func varCorrectionMeta(op *tensor.Op, a []any) any {
	p := args.VarOf(a)
	x := p.Self
	checkVarDType(x)
	mask := ReductionMask(p.Dim, x.Dim())
	return reduceOut(op, a, x, mask, p.Keepdim, x.DType())
}

// var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
func varDimMeta(op *tensor.Op, a []any) any {
	p := args.VarDimOf(a)
	x := p.Self
	checkVarDType(x)
	mask := ReductionMask(p.Dim, x.Dim())
	return reduceOut(op, a, x, mask, p.Keepdim, x.DType())
}

// VarCorrection is the correction of a var overload's arguments (1 when None).
func VarCorrection(op *tensor.Op, a []any) float64 {
	if op.Schema.Overload == "dim" {
		if args.VarDimOf(a).Unbiased {
			return 1
		}
		return 0
	}
	if c := args.VarOf(a).Correction; c.Ok {
		return c.V.Float64()
	}
	return 1
}

// cumsum(Tensor self, int dim, *, ScalarType? dtype=None)
func cumsumMeta(op *tensor.Op, a []any) any {
	p := args.CumsumOf(a)
	x := p.Self
	tensor.WrapDim(p.Dim, x.Dim())
	return Like(op, a, x, SumDType(x.DType(), p.Dtype))
}

// _local_scalar_dense(Tensor self) -> Scalar. The meta result is a zero of
// the right kind: the value is data-dependent.
func localScalarDenseMeta(op *tensor.Op, a []any) any {
	x := args.InternalLocalScalarDenseOf(a).Self
	if x.Numel() != 1 {
		tensor.Panicf("a Tensor with %d elements cannot be converted to Scalar", x.Numel())
	}
	switch {
	case x.DType() == tensor.Bool:
		return tensor.BoolScalar(false)
	case x.DType().IsFloat():
		return tensor.Float(0)
	}
	return tensor.Int(0)
}

func init() {
	def("aten::sum.dim_IntList", sumMeta)
	def("aten::mean.default", meanMeta)
	def("aten::mean.dim", meanDimMeta)
	def("aten::prod.default", prodMeta)
	def("aten::prod.dim_int", prodDimMeta)
	def("aten::amax.default", aminmaxMeta("amax()", args.AmaxOf))
	def("aten::amin.default", aminmaxMeta("amin()", func(a []any) args.Amax { return args.Amax(args.AminOf(a)) }))
	def("aten::any.default", anyMeta)
	def("aten::any.dim", anyDimMeta)
	def("aten::any.dims", anyDimsMeta)
	def("aten::argmax.default", argMeta("argmax()", args.ArgmaxOf))
	def("aten::argmin.default", argMeta("argmin()", func(a []any) args.Argmax { return args.Argmax(args.ArgminOf(a)) }))
	def("aten::max.dim", minmaxDimMeta("max()", args.MaxDimOf))
	def("aten::min.dim", minmaxDimMeta("min()", func(a []any) args.MaxDim { return args.MaxDim(args.MinDimOf(a)) }))
	def("aten::var.correction", varCorrectionMeta)
	def("aten::var.dim", varDimMeta)
	def("aten::cumsum.default", cumsumMeta)
	def("aten::_local_scalar_dense.default", localScalarDenseMeta)
}
