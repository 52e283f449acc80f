//go:build !purego

package asm

// convSmallKernelsUnderTest names the small-convolution kernels this CPU
// can run: true for the assembly, false for the twins.
func convSmallKernelsUnderTest() map[string]bool {
	k := map[string]bool{"in use (" + Path() + ")": convSmallUseAsm}
	if hasAVX512F && hasAVX2 && hasFMA {
		k["avx512"] = true
	}
	return k
}
