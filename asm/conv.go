package asm

import "fmt"

// The direct-convolution kernel: one plane of a depthwise (one channel per
// group) 2-d correlation, computed output row by output row with no column
// matrix.

// depthwise is the DepthwiseF32 kernel in use (conv_amd64.go, the twin in
// conv_generic.go).
var depthwise = convKernels()

// DepthwiseF32 sets, for r < rows and c < cols,
//
//	dst[r·ldd + c] = init + Σ_t w[t]·x[r·ldx + c + off[t]]
//
// adding the taps in order, each with one rounding (a fused multiply-add):
// the correlation of a plane x (already padded, rows ldx apart) by a kernel
// whose taps w sit at offsets off, into rows of dst ldd apart; dst must not
// overlap x (the kernels may compute a row twice). It panics if
// len(w) != len(off), an offset is negative, or a row of dst or a tap's read
// of x falls outside the slice.
func DepthwiseF32(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32) {
	checkLen("DepthwiseF32", len(w), len(off))
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("asm.DepthwiseF32: %d rows of %d columns", rows, cols))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if ldd < cols || (rows-1)*ldd+cols > len(dst) {
		panic(fmt.Sprintf("asm.DepthwiseF32: %d rows of %d, %d apart, do not fit a dst of %d", rows, cols, ldd, len(dst)))
	}
	for _, o := range off {
		if o < 0 || ldx < 0 || (rows-1)*ldx+cols+o > len(x) {
			panic(fmt.Sprintf("asm.DepthwiseF32: the tap at offset %d of %d rows of %d, %d apart, reads past an x of %d", o, rows, cols, ldx, len(x)))
		}
	}
	if len(w) == 0 {
		for r := range rows {
			for c := range cols {
				dst[r*ldd+c] = init
			}
		}
		return
	}
	depthwise(dst, ldd, x, ldx, w, off, rows, cols, init)
}

type depthwiseKernel func(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)
