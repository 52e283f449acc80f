//go:build !purego

package asm

// The small-convolution kernels (convsmall_amd64.s), AVX-512 only: an
// AVX2 machine keeps the GEMM (ConvSmallFast).

//go:noescape
func convBlockF32AVX512(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32, hasBias int)

//go:noescape
func convWGradF32AVX512(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int)

//go:noescape
func convWGrad3F32AVX512(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int)

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
		if rows3x3(off, ldx, cols) {
			convWGrad3F32AVX512(lanes, gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
			return
		}
		convWGradF32AVX512(lanes, gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
		return
	}
	convWGradGo(lanes, gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
}

// rows3x3 reports whether convWGrad3F32AVX512 can take the taps at off:
// three rows of three, a row of x apart, on rows of at most one vector.
func rows3x3(off []int, ldx, cols int) bool {
	if cols > 16 {
		return false
	}
	for i := 3; i < 9; i++ {
		if off[i] != off[i%3]+i/3*ldx {
			return false
		}
	}
	return true
}
