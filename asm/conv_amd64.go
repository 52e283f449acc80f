//go:build !purego

package asm

// The depthwise-convolution kernels (conv_amd64.s).

//go:noescape
func depthwiseF32(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)

//go:noescape
func depthwiseF32AVX512(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)

func convKernels() depthwiseKernel {
	switch {
	case useAVX512:
		return depthwiseF32AVX512
	case useAVX2FMA:
		return depthwiseF32
	}
	return depthwiseGo
}
