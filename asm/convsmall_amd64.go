//go:build !purego

package asm

// The small-convolution kernels (convsmall_amd64.s), AVX-512 only: an
// AVX2 machine keeps the GEMM (ConvSmallFast).

//go:noescape
func convBlockF32AVX512(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32, hasBias int)

//go:noescape
func convWGradF32AVX512(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int)

var convSmallAsm = useAVX512

func convBlockRun(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32, hasBias int) {
	if convSmallUseAsm {
		convBlockF32AVX512(dst, dPlane, ldd, x, ldx, wp, off, m, rows, cols, bias, hasBias)
		return
	}
	convBlockGo(dst, dPlane, ldd, x, ldx, wp, off, m, rows, cols, bias, hasBias)
}

func convWGradRun(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int) {
	if convSmallUseAsm {
		convWGradF32AVX512(lanes, gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
		return
	}
	convWGradGo(lanes, gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
}
