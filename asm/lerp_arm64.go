//go:build !purego

package asm

// lerpF32NEON is lerpGo for a length that is a positive multiple of 8
// (lerp_arm64.s).
//
//go:noescape
func lerpF32NEON(dst, x []float32, a float32, y []float32, b float32)

func lerpKernel() func(dst, x []float32, a float32, y []float32, b float32) {
	if !useNEON {
		return lerpGo
	}
	return lerpF32NEON
}
