package asm

// lerpGo is LerpF32's twin; the conversions keep the products from fusing
// into the sum (arm64 would).
func lerpGo(dst, x []float32, a float32, y []float32, b float32) {
	y = y[:len(x)]
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = float32(v*a) + float32(y[i]*b)
	}
}
