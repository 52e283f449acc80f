//go:build purego || !amd64

package asm

// depthwiseKernelsUnderTest are the DepthwiseF32 kernels this build runs.
func depthwiseKernelsUnderTest() map[string]depthwiseKernel {
	return map[string]depthwiseKernel{"in use (" + Path() + ")": depthwise}
}
