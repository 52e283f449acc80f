package core

import "github.com/goaten/goaten/tensor"

// _fft_r2c returns a complex tensor and _fft_c2r takes one. goaten has no
// complex dtypes yet, so both fail with a clear error on every device until
// they do.

func fftR2CMeta(op *tensor.Op, args []any) any {
	tensor.Panicf("complex dtypes are not supported yet: _fft_r2c returns a complex tensor")
	return nil
}

func fftC2RMeta(op *tensor.Op, args []any) any {
	tensor.Panicf("complex dtypes are not supported yet: _fft_c2r takes a complex tensor")
	return nil
}

func init() {
	def("aten::_fft_r2c.default", fftR2CMeta)
	def("aten::_fft_c2r.default", fftC2RMeta)
}
