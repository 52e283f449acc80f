//go:build !purego

package asm

// The NEON kernel of erf (erf_arm64.s).

// erfF32 sets d[i] = erfGo1(x[i]) up to the first vector of four (or, in
// the tail, the first element) holding a NaN, and returns the elements
// done.
//
//go:noescape
func erfF32(d, x []float32) int

func erfF32NEON(d, x []float32) { runStopping(d, x, erfF32, uErf) }
