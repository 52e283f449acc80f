package asm

import "fmt"

// A max pool's running maxima with their indices, a tap of the window at a
// time (device/cpu's max_pool2d).

// maxIndexRows is the kernel in use (maxidx_amd64.go; the twin in
// maxidx_generic.go).
var maxIndexRows = maxIndexRowsKernel()

// MaxIndexRowsF32 folds one candidate per element into running maxima m
// and their indices mi, over rows of cols elements (m and mi rows ldm
// apart, v's rows ldv apart): where v > m, or v is NaN, m takes v and mi
// the candidate's index, i0 + r·rowStep + c·colStep for row r, column c.
// Folding a window's taps in order gives max_pool2d's result: the first
// of equal maxima, the last NaN. Folding the same candidates twice changes
// nothing. It panics unless the rows fit in m, mi and v.
func MaxIndexRowsF32(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
	if rows < 0 || cols < 0 || ldm < cols || ldv < cols ||
		rows > 0 && cols > 0 && ((rows-1)*ldm+cols > len(m) || (rows-1)*ldm+cols > len(mi) || (rows-1)*ldv+cols > len(v)) {
		panic(fmt.Sprintf("asm.MaxIndexRowsF32: %d rows of %d (ldm %d, ldv %d) in %d, %d and %d elements", rows, cols, ldm, ldv, len(m), len(mi), len(v)))
	}
	if rows == 0 || cols == 0 {
		return
	}
	maxIndexRows(m, mi, ldm, v, ldv, rows, cols, i0, colStep, rowStep)
}
