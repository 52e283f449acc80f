//go:build !purego

package asm

// The NEON kernel of gelu, the erf form (gelu_arm64.s).

//go:noescape
func geluF32(d, x []float32)
