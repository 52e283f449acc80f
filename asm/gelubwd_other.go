//go:build purego || !amd64

package asm

// geluBwdKernel is nil: GeluBackwardF32 runs the elementwise kernels a
// chunk at a time (NEON on arm64).
var geluBwdKernel func(d, g, x []float32)
