//go:build !purego

package asm

// depthwiseKernelsUnderTest are the DepthwiseF32 kernels this CPU can run.
func depthwiseKernelsUnderTest() map[string]depthwiseKernel {
	k := map[string]depthwiseKernel{"in use (" + Path() + ")": depthwise}
	if hasAVX2 && hasFMA {
		k["avx2"] = depthwiseF32
	}
	if hasAVX512F && hasAVX2 && hasFMA {
		k["avx512"] = depthwiseF32AVX512
	}
	return k
}
