//go:build !purego

package asm

// addRowsF32AVX2 is addRowsGo for w a positive multiple of 8.
//
//go:noescape
func addRowsF32AVX2(dst []float32, ldd int, src []float32, lds, rows, w int)

func addRowsKernel() func(dst []float32, ldd int, src []float32, lds, rows, w int) {
	if !useAVX2FMA {
		return addRowsGo
	}
	return addRowsF32AVX2
}
