package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// _softmax / _log_softmax in three walks in memory order (see reduce.go):
// the max along dim (a NaN wins); the sum of exp(x - max); then x - max -
// log(sum) into the output, or, for softmax, exp(x - max) goes to the output
// in the second walk and the third scales it by 1/sum. Values are computed
// in float64 and rounded to the output dtype. of reads the op's view
// (_log_softmax's converts to _softmax's).
func softmaxKernel(log bool, of func([]any) args.InternalSoftmax) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		x := p.Self
		tensor.Check(!p.HalfToFloat, "softmax with half to float conversion is not supported on CPU")
		out := allocMetaUninit(op, a) // every element is written below
		if x.Numel() == 0 {
			return out
		}
		dim := tensor.WrapDim(p.Dim, x.Dim())
		switch x.DType() {
		case tensor.Float32, tensor.Float64, tensor.BFloat16:
		default:
			name := "softmax_kernel_impl"
			if x.Dim() == 0 || dim == x.Dim()-1 {
				name = "softmax_lastdim_kernel_impl"
				if log {
					name = "log_softmax_lastdim_kernel_impl"
				}
			}
			notImplementedFor(name, x.DType())
		}
		mask := core.DimMask(dim, x.Dim())
		if rows, n, ok := redRowsF32(x, mask); ok && out.DType() == tensor.Float32 && out.IsContiguous() {
			// Rows of float32 in float32, as PyTorch's vectorized kernel:
			// max, e^(x-max) and its sum, then the scaling (asm).
			f := asm.SoftmaxF32
			if log {
				f = asm.LogSoftmaxF32
			}
			od := data[float32](out)[out.StorageOffset():][:len(rows)]
			forRows(len(rows)/n, n, func(lo, hi int) {
				for i := lo * n; i < hi*n; i += n {
					f(od[i:i+n], rows[i:i+n])
				}
			})
			return out
		}
		if softmaxColumnsF32(x, out, dim, log) {
			return out
		}
		accSt := subStrides(x.Sizes(), mask, false)
		mx := extremeAcc(x, mask, true, math.Inf(-1))
		sum := make([]float64, len(mx))
		os, od := out.Storage(), out.DType()
		if log {
			walkRed(x, accSt, nil, func(a, as, _, _ int, v []float64) {
				for i, x := range v {
					sum[a+i*as] += math.Exp(x - mx[a+i*as])
				}
			})
			for i, s := range sum {
				sum[i] = math.Log(s)
			}
			walkRed(x, accSt, out.Strides(), func(a, as, b, bs int, v []float64) {
				for i, x := range v {
					p := a + i*as
					v[i] = x - mx[p] - sum[p]
				}
				storeRed(os, od, b, bs, v)
			})
			return out
		}
		// exp(x - max) goes to the output and into the sums, then the
		// output is scaled in place (as PyTorch's kernels do).
		walkRed(x, accSt, out.Strides(), func(a, as, b, bs int, v []float64) {
			for i, x := range v {
				p := a + i*as
				e := math.Exp(x - mx[p])
				sum[p] += e
				v[i] = e
			}
			storeRed(os, od, b, bs, v)
		})
		for i, s := range sum {
			sum[i] = 1 / s
		}
		walkRed(out, accSt, out.Strides(), func(a, as, b, bs int, v []float64) {
			for i := range v {
				v[i] *= sum[a+i*as]
			}
			storeRed(os, od, b, bs, v)
		})
		return out
	}
}

func init() {
	impl("aten::_softmax.default", softmaxKernel(false, args.InternalSoftmaxOf))
	impl("aten::_log_softmax.default", softmaxKernel(true, func(a []any) args.InternalSoftmax {
		return args.InternalSoftmax(args.InternalLogSoftmaxOf(a))
	}))
}

// softmaxColumnsF32 is softmax (log_softmax with log) over a dim that is not
// the last of a contiguous float32 x, in float32 as PyTorch's vectorized
// kernel for such dims: x seen as [outer, D, inner], each column of D
// elements reduced across the rows of inner elements with the SIMD
// kernels — the maximum, e^(x − max) and its sum, then the scaling by
// 1/sum (or x − max − log(sum)) — a block of columns at a time, blocks
// shared among the cores. It reports whether it could.
func softmaxColumnsF32(x, out *tensor.Tensor, dim int, log bool) bool {
	if x.DType() != tensor.Float32 || out.DType() != tensor.Float32 || !x.IsContiguous() || !out.IsContiguous() {
		return false
	}
	sh := x.Sizes()
	D, inner := sh[dim], tensor.Numel(sh[dim+1:])
	if inner < 8 || D == 0 {
		return false
	}
	outer := tensor.Numel(sh[:dim])
	xs := elems[float32](x)
	ys := elems[float32](out)
	const blk = 512 // columns at a time
	nb := (inner + blk - 1) / blk
	parallel.Range(outer*nb, max(1, grain/(D*min(blk, inner))), 1, func(lo, hi int) {
		var mx, sum, ex [blk]float32
		for it := lo; it < hi; it++ {
			o, c0 := it/nb, it%nb*blk
			c1 := min(inner, c0+blk)
			m, s, e := mx[:c1-c0], sum[:c1-c0], ex[:c1-c0]
			row := func(r int) (xr, yr []float32) {
				base := (o*D + r) * inner
				return xs[base+c0 : base+c1], ys[base+c0 : base+c1]
			}
			x0, _ := row(0)
			copy(m, x0)
			for r := 1; r < D; r++ {
				xr, _ := row(r)
				asm.MaximumF32(m, m, xr)
			}
			clear(s)
			for r := range D {
				xr, yr := row(r)
				asm.SubF32(yr, xr, m)
				if log { // yr keeps x − max; e^(x − max) is summed from e
					asm.ExpF32(e, yr)
					asm.AddF32(s, s, e)
					continue
				}
				asm.ExpF32(yr, yr)
				asm.AddF32(s, s, yr)
			}
			if log {
				asm.LogF32(s, s)
				for r := range D {
					_, yr := row(r)
					asm.SubF32(yr, yr, s)
				}
				continue
			}
			asm.ScalarDivF32(s, 1, s)
			for r := range D {
				_, yr := row(r)
				asm.MulF32(yr, yr, s)
			}
		}
	})
	return true
}
