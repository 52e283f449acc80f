//go:build !purego

package asm

// fmaF32 is a·b + c rounded once: on arm64 the compiler fuses the
// expression into one FMADDS.
func fmaF32(a, b, c float32) float32 { return a*b + c }
