//go:build purego || !amd64

package asm

// convSmallKernelsUnderTest names the small-convolution kernels this build
// runs: the twins (false).
func convSmallKernelsUnderTest() map[string]bool {
	return map[string]bool{"in use (" + Path() + ")": false}
}
