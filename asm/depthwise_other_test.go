//go:build purego || !amd64

package asm

// dwKernelsUnderTest are the in-place depthwise kernels this build runs.
func dwKernelsUnderTest() map[string]dwKernelSet {
	return map[string]dwKernelSet{"in use (" + Path() + ")": {dwConv, dwGrad, dwLanes, false}}
}
