//go:build !purego

package asm

// lerpF32AVX2 is lerpGo for a length that is a positive multiple of 8.
//
//go:noescape
func lerpF32AVX2(dst, x []float32, a float32, y []float32, b float32)

func lerpKernel() func(dst, x []float32, a float32, y []float32, b float32) {
	if !useAVX2FMA {
		return lerpGo
	}
	return lerpF32AVX2
}
