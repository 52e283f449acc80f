//go:build !purego

package asm

// maxIndexRowsF32AVX2 is maxIndexRowsGo for cols ≥ 8: each row in blocks
// of eight, the last block moved back to end at the row's end (folding a
// candidate twice changes nothing). It reads the eight lane offsets
// 0…7 from lanes.
//
//go:noescape
func maxIndexRowsF32AVX2(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32)

func maxIndexRowsKernel() func(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
	if !useAVX2FMA {
		return maxIndexRowsGo
	}
	return func(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
		if cols < 8 {
			maxIndexRowsGo(m, mi, ldm, v, ldv, rows, cols, i0, colStep, rowStep)
			return
		}
		maxIndexRowsF32AVX2(m, mi, ldm, v, ldv, rows, cols, i0, colStep, rowStep)
	}
}
