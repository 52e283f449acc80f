//go:build purego || !(amd64 || arm64)

package asm

func addRowsKernel() func(dst []float32, ldd int, src []float32, lds, rows, w int) {
	return addRowsGo
}
