package decomp

import (
	"math"
	"slices"
	"sort"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Reductions: overloads of the core reductions, statistics and norms.

func init() {
	def("aten::sum", sumDefault)
	def("aten::max", maxAll)
	def("aten::min", minAll)
	def("aten::std", stdDefault)
	def("aten::std.dim", stdDim)
	def("aten::std.correction", stdCorrection)
	def("aten::var", varDefault)
	def("aten::var_mean", varMeanDefault)
	def("aten::var_mean.dim", varMeanDim)
	def("aten::var_mean.correction", varMeanCorrection)
	def("aten::std_mean", stdMeanDefault)
	def("aten::std_mean.dim", stdMeanDim)
	def("aten::std_mean.correction", stdMeanCorrection)
	def("aten::logsumexp", checked(kernelDTypes("exp_vml_cpu", floatsBF|realsBF|dtypeSet(tensor.Bool)), logsumexp))
	def("aten::norm.Scalar", normScalar)
	def("aten::norm.ScalarOpt_dim", normScalarOptDim)
	def("aten::norm.ScalarOpt_dim_dtype", normScalarOptDimDtype)
	def("aten::norm.ScalarOpt_dtype", normScalarOptDtype)
	def("aten::linalg_vector_norm", linalgVectorNorm)
	def("aten::frobenius_norm.dim", frobeniusNorm)
	def("aten::aminmax", aminmax)
	def("aten::all", allDefault)
	def("aten::all.dim", allDim)
	def("aten::count_nonzero", countNonzero)
	def("aten::count_nonzero.dim_IntList", countNonzeroDims)
	def("aten::nansum", nansum)
	def("aten::cumprod", checked(cumprodCheck, cumprod))
	def("aten::sort.stable", sortStable)
	def("aten::argsort", argsort)
	def("aten::msort", msort)
	def("aten::trace", trace)
}

func sumDefault(op *tensor.Op, a []any) any {
	p := args.SumAllOf(a)
	return invoke("aten::sum.dim_IntList", args.Sum{Self: p.Self, Dtype: p.Dtype}.Box())
}

func maxAll(op *tensor.Op, a []any) any {
	x := args.MaxOf(a).Self
	tensor.Check(x.Numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
	return x.Amax()
}

func minAll(op *tensor.Op, a []any) any {
	x := args.MinOf(a).Self
	tensor.Check(x.Numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
	return x.Amin()
}

// variance is var.correction with an integer correction (dims nil: all).
func variance(x *T, dims []int, correction args.Opt[int], keepdim bool) *T {
	var c any // None
	if correction.Ok {
		c = correction.V
	}
	return callKw("aten::var.correction", []any{x, dims}, map[string]any{"correction": c, "keepdim": keepdim})
}

// unbiased is the correction an unbiased argument stands for.
func unbiased(b bool) args.Opt[int] {
	if b {
		return args.Some(1)
	}
	return args.Some(0)
}

// stdOf is the square root of variance(x, ...), taken in float64 and then
// rounded to x's dtype, as 1.13's std kernels project their double
// accumulators: rounding the variance first differs in the last bit in about
// one case in eight (checked on float32, float16 and bfloat16) and
// overflows once |x| passes 1.8e19 in float32.
func stdOf(x *T, dims []int, correction args.Opt[int], keepdim bool) *T {
	if d := x.DType(); d.IsFloat() && d != tensor.Float64 {
		return variance(x.To(tensor.Float64), dims, correction, keepdim).Sqrt().To(d)
	}
	return variance(x, dims, correction, keepdim).Sqrt()
}

func stdDefault(op *tensor.Op, a []any) any {
	p := args.StdAllOf(a)
	return stdOf(p.Self, nil, unbiased(p.Unbiased), false)
}

func stdDim(op *tensor.Op, a []any) any {
	p := args.StdDimOf(a)
	return stdOf(p.Self, p.Dim, unbiased(p.Unbiased), p.Keepdim)
}

func stdCorrection(op *tensor.Op, a []any) any {
	p := args.StdOf(a)
	return stdOf(p.Self, p.Dim, p.Correction, p.Keepdim)
}

func varDefault(op *tensor.Op, a []any) any {
	p := args.VarAllOf(a)
	return variance(p.Self, nil, unbiased(p.Unbiased), false)
}

// varMean is (var, mean) over dims; the mean check wording is var_mean's.
func varMean(x *T, dims []int, correction args.Opt[int], keepdim bool, name string, sqrt bool) []*T {
	if !x.DType().IsFloat() {
		tensor.Panicf("%s only support floating point and complex dtypes", name)
	}
	var v *T
	if sqrt {
		v = stdOf(x, dims, correction, keepdim)
	} else {
		v = variance(x, dims, correction, keepdim)
	}
	return []*T{v, tensor.Call("aten::mean.dim", x, dims, keepdim).(*T)}
}

func varMeanDefault(op *tensor.Op, a []any) any {
	p := args.VarMeanAllOf(a)
	return varMean(p.Self, nil, unbiased(p.Unbiased), false, "var_mean", false)
}

func varMeanDim(op *tensor.Op, a []any) any {
	p := args.VarMeanDimOf(a)
	return varMean(p.Self, p.Dim, unbiased(p.Unbiased), p.Keepdim, "var_mean", false)
}

func varMeanCorrection(op *tensor.Op, a []any) any {
	p := args.VarMeanOf(a)
	return varMean(p.Self, p.Dim, p.Correction, p.Keepdim, "var_mean", false)
}

func stdMeanDefault(op *tensor.Op, a []any) any {
	p := args.StdMeanAllOf(a)
	return varMean(p.Self, nil, unbiased(p.Unbiased), false, "std_mean", true)
}

func stdMeanDim(op *tensor.Op, a []any) any {
	p := args.StdMeanDimOf(a)
	return varMean(p.Self, p.Dim, unbiased(p.Unbiased), p.Keepdim, "std_mean", true)
}

func stdMeanCorrection(op *tensor.Op, a []any) any {
	p := args.StdMeanOf(a)
	return varMean(p.Self, p.Dim, p.Correction, p.Keepdim, "std_mean", true)
}

// logsumexp is log(sum(exp(x - m))) + m with m = amax(x) where finite
// (0 where infinite, so an all -inf slice gives -inf and not NaN).
func logsumexp(op *tensor.Op, a []any) any {
	p := args.LogsumexpOf(a)
	x, dims, keepdim := p.Self, p.Dim, p.Keepdim
	if !x.DType().IsFloat() {
		x = x.To(tensor.DefaultFloat)
	}
	if x.Numel() == 0 {
		return x.Exp().Sum(dims, tensor.WithKeepdim(keepdim)).Log()
	}
	m := x.Amax(tensor.WithDim(dims), tensor.WithKeepdim(true))
	m = tensor.Where(m.Abs().EqScalar(math.Inf(1)), zero0(m), m)
	r := x.Sub(m).Exp().Sum(dims, tensor.WithKeepdim(keepdim)).Log()
	if !keepdim && len(dims) > 0 {
		m = m.SqueezeDims(normDims(dims, x.Dim()))
	}
	// 1.13 adds the maxima in place (result.add_) after squeezing the listed
	// dims, so dims = [] (every dim) without keepdim raises there.
	out := r.Add(m)
	core.CheckInplaceResult(r, out)
	return out
}

// normDims wraps dims; an empty list means every dim.
func normDims(dims []int, rank int) []int {
	if len(dims) == 0 {
		return iota(rank)
	}
	out := make([]int, len(dims))
	for i, d := range dims {
		out[i] = wrapDim(d, rank)
	}
	return out
}

// vectorNorm computes the p-norm over dims (nil or empty: all) in x's
// dtype. float16 and bfloat16 follow 1.13's CPU kernel (halfNorm) where it
// sums in the dtype; the ±inf norms (exact either way), bfloat16's 2-norm
// over one dense innermost block (1.13 sums it in float32 vectors) and sums
// of more than halfNormTerms terms per output run through float32.
func vectorNorm(x *T, p float64, dims []int, keepdim bool) *T {
	if x.DType().IsReduced() && !math.IsInf(p, 0) {
		mask := core.ReductionMask(dims, x.Dim())
		bf16Vec := x.DType() == tensor.BFloat16 && p == 2 && denseInnerReduction(x, mask)
		if !bf16Vec && core.ReducedNumel(x.Sizes(), mask) <= halfNormTerms {
			return halfNorm(x, p, mask, keepdim)
		}
	}
	return inOpmath(x, func(x *T) *T { return pNorm(x, p, dims, keepdim) })
}

// halfNormTerms bounds the terms per output halfNorm adds one by one (one
// op per term); longer float16/bfloat16 norms sum in float32, more
// accurately than 1.13 and without its float16 overflow past 65504.
const halfNormTerms = 1 << 14

// halfNorm is 1.13's norm of a float16 or bfloat16 x (NormOps and friends
// with the scalar type as accumulator): per output, the terms (x ≠ 0 for
// p = 0, |x| for p = 1, x·x rounded for p = 2, and for other p |x|^p in
// float32 with p rounded to the dtype, the power itself rounded for
// bfloat16, whose pow returns bfloat16) are added one by one in the
// reduction's memory order, each sum rounded to the dtype; then √acc for
// p = 2, or acc^(1/p) with 1/p rounded to the dtype. So a float16 count of
// non-zeros stops at 2048.
func halfNorm(x *T, p float64, mask []bool, keepdim bool) *T {
	d := x.DType()
	rows, kept := reductionRows(x, mask)
	var terms *T // float32 where a term is not a d value
	switch p {
	case 0:
		terms = rows.NeScalar(0).To(d)
	case 1:
		terms = rows.Abs()
	case 2:
		terms = rows.Mul(rows) // rounded to d like c10's Half·Half
	default:
		terms = rows.To(tensor.Float32).Abs().PowScalar(roundTo(p, d))
		if d == tensor.BFloat16 {
			terms = terms.To(d)
		}
	}
	acc := fullOn(x, kept, 0, d)
	if x.Device() != tensor.Meta { // the meta device has only the shape
		for i := range rows.Size(-1) {
			// d + d rounds once to d; d + float32 gives float32, rounded
			// again as C++ assigns it to the accumulator.
			acc = acc.Add(terms.Select(-1, i)).To(d)
		}
	}
	switch p {
	case 0, 1:
	case 2:
		acc = acc.To(tensor.Float32).Sqrt().To(d)
	default:
		inv := roundTo(float64(float32(1)/float32(roundTo(p, d))), d)
		acc = acc.To(tensor.Float32).PowScalar(inv).To(d)
	}
	if keepdim {
		acc = acc.Reshape(core.ReducedShape(x.Sizes(), mask, true))
	}
	return acc
}

// reductionRows lays x out as [kept dims..., reduced elements] with the
// reduced elements of each output in TensorIterator's order: the reduced
// dims by decreasing stride, so memory order for any layout. kept is the
// shape of the kept dims.
func reductionRows(x *T, mask []bool) (rows *T, kept []int) {
	var keptDims, redDims []int
	for i := range x.Dim() {
		if mask[i] {
			redDims = append(redDims, i)
		} else {
			keptDims = append(keptDims, i)
			kept = append(kept, x.Size(i))
		}
	}
	sort.SliceStable(redDims, func(a, b int) bool { return x.Stride(redDims[a]) > x.Stride(redDims[b]) })
	shape := append(slices.Clone(kept), core.ReducedNumel(x.Sizes(), mask))
	return x.Permute(append(keptDims, redDims...)).Reshape(shape), kept
}

// denseInnerReduction reports whether the reduced dims of x (those of size
// above 1) coalesce into one dense block of unit stride: 1.13's
// is_reduce_lastdim, which TensorIterator decides after moving the reduced
// dims innermost and merging them.
func denseInnerReduction(x *T, mask []bool) bool {
	var red []int
	for i, m := range mask {
		if m && x.Size(i) > 1 {
			red = append(red, i)
		}
	}
	sort.Slice(red, func(a, b int) bool { return x.Stride(red[a]) < x.Stride(red[b]) })
	want := 1
	for _, i := range red {
		if x.Stride(i) != want {
			return false
		}
		want *= x.Size(i)
	}
	return len(red) > 0
}

// roundTo rounds v to dtype d (through float32, as C++ converts a double).
func roundTo(v float64, d tensor.DType) float64 {
	switch d {
	case tensor.Float16:
		return float64(tensor.HalfToFloat32(tensor.Float32ToHalf(float32(v))))
	case tensor.BFloat16:
		return float64(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(v))))
	}
	return v
}

func pNorm(x *T, p float64, dims []int, keepdim bool) *T {
	var r *T
	switch {
	case math.IsInf(p, 0):
		mask := core.ReductionMask(dims, x.Dim())
		if x.Numel() == 0 {
			// at::norm's max and min start from 0 on an empty reduction.
			r = fullOn(x, core.ReducedShape(x.Sizes(), mask, keepdim), 0, x.DType())
		} else if p > 0 {
			r = x.Abs().Amax(tensor.WithDim(dims), tensor.WithKeepdim(keepdim))
		} else {
			r = x.Abs().Amin(tensor.WithDim(dims), tensor.WithKeepdim(keepdim))
		}
	case p == 0:
		r = sumDType(x.NeScalar(0), dims, keepdim, x.DType())
	case p == 1:
		r = x.Abs().Sum(dims, tensor.WithKeepdim(keepdim))
	case p == 2:
		r = x.Mul(x).Sum(dims, tensor.WithKeepdim(keepdim)).Sqrt()
	default:
		r = x.Abs().PowScalar(p).Sum(dims, tensor.WithKeepdim(keepdim)).PowScalar(1 / p)
	}
	return r
}

// norm is at::norm: the vector norm with p (None: 2) and an optional dtype.
func norm(x *T, p args.Opt[tensor.Scalar], dims []int, keepdim bool, dtype args.Opt[tensor.DType]) *T {
	if !x.DType().IsFloat() {
		tensor.Panicf("norm(): input dtype should be either floating point or complex. Got %s instead.", core.CTypeName(x.DType()))
	}
	if dtype.Ok {
		d := dtype.V
		if !d.IsFloat() {
			tensor.Panicf("norm(): the desired output dtype should be either floating point or complex. Got %s instead.", core.CTypeName(d))
		}
		x = x.To(d)
	}
	pv := 2.0
	if p.Ok {
		pv = p.V.Float64()
	}
	return vectorNorm(x, pv, dims, keepdim)
}

func normScalar(op *tensor.Op, a []any) any {
	p := args.NormAllOf(a)
	return norm(p.Self, args.Some(p.P), nil, false, args.Opt[tensor.DType]{})
}

func normScalarOptDim(op *tensor.Op, a []any) any {
	p := args.NormOf(a)
	return norm(p.Self, p.P, p.Dim, p.Keepdim, args.Opt[tensor.DType]{})
}

func normScalarOptDimDtype(op *tensor.Op, a []any) any {
	p := args.NormScalarOptDimDtypeOf(a)
	return norm(p.Self, p.P, p.Dim, p.Keepdim, args.Some(p.Dtype))
}

func normScalarOptDtype(op *tensor.Op, a []any) any {
	p := args.NormScalarOptDtypeOf(a)
	return norm(p.Self, p.P, nil, false, args.Some(p.Dtype))
}

func linalgVectorNorm(op *tensor.Op, a []any) any {
	p := args.LinalgVectorNormOf(a)
	x, ord, keepdim := p.Self, p.Ord.Float64(), p.Keepdim
	dims := p.Dim
	if !x.DType().IsFloat() {
		tensor.Panicf("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", core.CTypeName(x.DType()))
	}
	if x.Numel() == 0 && (ord < 0 || math.IsInf(ord, 1)) {
		if len(dims) <= 0 {
			tensor.Panicf("linalg.vector_norm cannot compute the %s norm on an empty tensor because the operation does not have an identity", p.Ord)
		}
		for _, d := range dims {
			if x.Size(d) == 0 {
				tensor.Panicf("linalg.vector_norm cannot compute the %s norm on the dimension %dbecause this dimension is empty and the operation does not have an identity", p.Ord, d)
			}
		}
	}
	if p.Dtype.Ok {
		d := p.Dtype.V
		if !d.IsFloat() {
			tensor.Panicf("linalg.vector_norm: dtype should be floating point or complex, but got %s", core.CTypeName(d))
		}
		if tensor.PromoteTypes(x.DType(), d) != d {
			tensor.Panicf("linalg.vector_norm: the dtype of the input (%s) should be convertible without narrowing to the specified dtype (%s)", core.CTypeName(x.DType()), core.CTypeName(d))
		}
		x = x.To(d)
	}
	return vectorNorm(x, ord, dims, keepdim)
}

func frobeniusNorm(op *tensor.Op, a []any) any {
	p := args.FrobeniusNormOf(a)
	x, dims, keepdim := p.Self, p.Dim, p.Keepdim
	if len(dims) > 2 {
		tensor.Panicf("Expected at most 2 dimensions, but got %d dimensions instead.", len(dims))
	}
	if len(dims) <= 1 {
		return norm(x, args.Some(tensor.Float(2)), dims, keepdim, args.Opt[tensor.DType]{})
	}
	w := normDims(dims, x.Dim())
	if w[0] == w[1] {
		tensor.Panicf("Expected dims to be different, got %s instead", tensor.ShapeString(dims))
	}
	return x.Mul(x).Sum(w, tensor.WithKeepdim(keepdim)).Sqrt()
}

func aminmax(op *tensor.Op, a []any) any {
	p := args.AminmaxOf(a)
	x, keepdim := p.Self, p.Keepdim
	var dims []int
	if p.Dim.Ok {
		dims = []int{p.Dim.V}
		if x.Dim() == 0 {
			wrapDim(p.Dim.V, 0)
			dims = nil
		}
	}
	if dims == nil {
		tensor.Check(x.Numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
	} else {
		tensor.Check(x.Size(dims[0]) > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
	}
	return []*T{x.Amin(tensor.WithDim(dims), tensor.WithKeepdim(keepdim)), x.Amax(tensor.WithDim(dims), tensor.WithKeepdim(keepdim))}
}

// all is not(any(not x)); uint8 inputs give uint8, as in 1.13.
func allOf(x *T, r *T) *T {
	if x.DType() == tensor.Uint8 {
		return r.To(tensor.Uint8)
	}
	return r
}

func allDefault(op *tensor.Op, a []any) any {
	x := args.AllOf(a).Self
	return allOf(x, x.LogicalNot().Any().LogicalNot())
}

func allDim(op *tensor.Op, a []any) any {
	p := args.AllDimOf(a)
	x := p.Self
	return allOf(x, x.LogicalNot().AnyDim(p.Dim, tensor.WithKeepdim(p.Keepdim)).LogicalNot())
}

func countNonzero(op *tensor.Op, a []any) any {
	p := args.CountNonzeroOf(a)
	x := p.Self
	var dims []int
	if p.Dim.Ok {
		dims = []int{p.Dim.V}
	}
	return sumDType(x.NeScalar(0), dims, false, tensor.Int64)
}

func countNonzeroDims(op *tensor.Op, a []any) any {
	p := args.CountNonzeroDimsOf(a)
	return sumDType(p.Self.NeScalar(0), p.Dim, false, tensor.Int64)
}

// nansum is sum with NaN read as 0 (nansum's arguments are sum's).
func nansum(op *tensor.Op, a []any) any {
	p := args.NansumOf(a)
	if x := p.Self; x.DType().IsFloat() {
		p.Self = tensor.Where(x.Isnan(), zero0(x), x)
	}
	return invoke("aten::sum.dim_IntList", args.Sum(p).Box())
}

func cumprodDType(x *T, dtype args.Opt[tensor.DType]) tensor.DType {
	if dtype.Ok {
		return dtype.V
	}
	if x.DType().IsIntegral(true) {
		return tensor.Int64
	}
	return x.DType()
}

func cumprodCheck(a []any) {
	p := args.CumprodOf(a)
	need("cumprod_out_cpu", cumprodDType(p.Self, p.Dtype), realsBF)
}

// cumprod is a parallel prefix product (log2(n) shifted multiplies),
// accumulated like the CPU kernel: double for float32 and float64, float
// for the 16-bit floats, int64 for integers.
func cumprod(op *tensor.Op, a []any) any {
	p := args.CumprodOf(a)
	x := p.Self
	d := cumprodDType(x, p.Dtype)
	acc := tensor.Int64
	switch {
	case d == tensor.Float32 || d == tensor.Float64:
		acc = tensor.Float64
	case d.IsReduced():
		acc = tensor.Float32
	}
	y := x.To(d).To(acc)
	if y.Dim() == 0 {
		wrapDim(p.Dim, 0)
		return y.Clone().To(d)
	}
	dim := wrapDim(p.Dim, y.Dim())
	n := y.Size(dim)
	for shift := 1; shift < n; shift *= 2 {
		head := y.Slice(tensor.WithDim(dim), tensor.WithStart(0), tensor.WithEnd(shift))
		tail := y.Slice(tensor.WithDim(dim), tensor.WithStart(shift), tensor.WithEnd(n)).Mul(y.Slice(tensor.WithDim(dim), tensor.WithStart(0), tensor.WithEnd(n-shift)))
		y = tensor.Cat([]*T{head, tail}, tensor.WithDim(dim))
	}
	if y == x {
		y = y.Clone()
	}
	return y.To(d)
}

func sortStable(op *tensor.Op, a []any) any {
	p := args.SortStableOf(a)
	v, i := p.Self.Sort(tensor.WithDim(p.Dim), tensor.WithDescending(p.Descending))
	return []*T{v, i}
}

func argsort(op *tensor.Op, a []any) any {
	p := args.ArgsortOf(a)
	_, i := p.Self.Sort(tensor.WithDim(p.Dim), tensor.WithDescending(p.Descending))
	return i
}

func msort(op *tensor.Op, a []any) any {
	v, _ := args.MsortOf(a).Self.Sort(tensor.WithDim(0))
	return v
}

func trace(op *tensor.Op, a []any) any {
	x := args.TraceOf(a).Self
	if x.Dim() != 2 {
		tensor.Panicf("trace: expected a matrix, but got tensor with dim %d", x.Dim())
	}
	return sumAll(x.Diagonal())
}
