package cpu

import "github.com/goaten/goaten/tensor"

// _fft_r2c and _fft_c2r need complex dtypes, which goaten does not have
// yet: their kernels run the meta function, which reports that clearly.

func fftKernel(op *tensor.Op, args []any) any { return allocMeta(op, args) }

func init() {
	impls(fftKernel, "aten::_fft_r2c.default", "aten::_fft_c2r.default")
}
