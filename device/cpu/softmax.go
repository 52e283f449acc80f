package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// _softmax / _log_softmax in three walks in memory order (see reduce.go):
// the max along dim (a NaN wins); the sum of exp(x - max); then x - max -
// log(sum) into the output, or, for softmax, exp(x - max) goes to the output
// in the second walk and the third scales it by 1/sum. Values are computed
// in float64 and rounded to the output dtype.
func softmaxKernel(log bool) tensor.Kernel {
	return func(op *tensor.Op, args []any) any {
		x := args[0].(*tensor.Tensor)
		tensor.Check(!args[2].(bool), "softmax with half to float conversion is not supported on CPU")
		out := allocMetaUninit(op, args) // every element is written below
		if x.Numel() == 0 {
			return out
		}
		dim := tensor.WrapDim(args[1].(int), x.Dim())
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
	impl("aten::_softmax.default", softmaxKernel(false))
	impl("aten::_log_softmax.default", softmaxKernel(true))
}
