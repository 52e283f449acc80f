//go:build !purego

package asm

// reluF32NEON sets d[i] = reluGo1(x[i]) (relu_arm64.s).
//
//go:noescape
func reluF32NEON(d, x []float32)
