//go:build !purego

package asm

// dwKernelsUnderTest are the in-place depthwise kernels this CPU can run:
// the forward kernel, the weight-gradient kernel and its lanes.
func dwKernelsUnderTest() map[string]dwKernelSet {
	k := map[string]dwKernelSet{"in use (" + Path() + ")": {dwConv, dwGrad, dwLanes, Path() == "avx2+fma"}}
	if hasAVX2 && hasFMA {
		k["avx2"] = dwKernelSet{dwConvAsm(8), dwGradAsm(8), 8, true}
	}
	if hasAVX512F && hasAVX2 && hasFMA {
		k["avx512"] = dwKernelSet{dwConvAsm(16), dwGradAsm(16), 16, false}
	}
	return k
}
