//go:build !purego

package asm

// No NEON depthwise kernel yet: the twin runs on arm64.
func convKernels() depthwiseKernel { return depthwiseGo }
