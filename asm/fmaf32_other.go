//go:build purego || !arm64

package asm

// fmaF32 is a·b + c rounded once (fma32).
func fmaF32(a, b, c float32) float32 { return fma32(a, b, c) }
