//go:build purego || !amd64

package asm

// convSmallAsm: no assembly for the small-convolution kernels here.
const convSmallAsm = false

func convBlockRun(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32, hasBias int) {
	convBlockGo(dst, dPlane, ldd, x, ldx, wp, off, m, rows, cols, bias, hasBias)
}

func convWGradRun(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int) {
	convWGradGo(lanes, gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
}
