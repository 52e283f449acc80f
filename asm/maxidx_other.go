//go:build purego || !(amd64 || arm64)

package asm

func maxIndexRowsKernel() func(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
	return maxIndexRowsGo
}
