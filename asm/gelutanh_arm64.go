//go:build !purego

package asm

// The NEON kernel of gelu_tanh (gelutanh_arm64.s).

// geluTanhF32 sets d[i] = geluTanhGo1(x[i]) up to the first vector of four
// (or, in the tail, the first element) holding an Inf or a NaN, and
// returns the elements done.
//
//go:noescape
func geluTanhF32(d, x []float32) int

func geluTanhF32NEON(d, x []float32) { runStopping(d, x, geluTanhF32, uGeluTanh) }
