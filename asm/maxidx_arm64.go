//go:build !purego

package asm

// maxIndexRowsF32NEON is maxIndexRowsGo for cols ≥ 4 (maxidx_arm64.s):
// each row in blocks of four, the last block moved back to end at the
// row's end (folding a candidate twice changes nothing).
//
//go:noescape
func maxIndexRowsF32NEON(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32)

// maxIndexRowsNEON runs the twin on rows narrower than a vector.
func maxIndexRowsNEON(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
	if cols < 4 {
		maxIndexRowsGo(m, mi, ldm, v, ldv, rows, cols, i0, colStep, rowStep)
		return
	}
	maxIndexRowsF32NEON(m, mi, ldm, v, ldv, rows, cols, i0, colStep, rowStep)
}

func maxIndexRowsKernel() func(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
	if !useNEON {
		return maxIndexRowsGo
	}
	return maxIndexRowsNEON
}
