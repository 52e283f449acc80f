//go:build !purego

package asm

// The NEON depthwise-convolution kernel (conv_arm64.s).

//go:noescape
func depthwiseF32(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)

func convKernels() depthwiseKernel {
	if useNEON {
		return depthwiseF32
	}
	return depthwiseGo
}
