package asm

// lerp is LerpF32's kernel for the whole eights (lerp_amd64.go; the twin in
// lerp_generic.go).
var lerp = lerpKernel()

// LerpF32 sets dst[i] = x[i]·a + y[i]·b, each product rounded to float32
// before the sum (no fused multiply-add): a linear interpolation's step
// between two rows with weights a and b (device/cpu's bilinear
// upsampling, along H). It panics unless the slices have one length.
func LerpF32(dst, x []float32, a float32, y []float32, b float32) {
	checkLen("LerpF32", len(dst), len(x), len(y))
	n8 := len(dst) &^ 7
	if n8 > 0 {
		lerp(dst[:n8], x[:n8], a, y[:n8], b)
	}
	lerpGo(dst[n8:], x[n8:], a, y[n8:], b)
}
