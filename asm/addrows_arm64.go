//go:build !purego

package asm

// addRowsF32NEON is addRowsGo for w a positive multiple of 8
// (addrows_arm64.s).
//
//go:noescape
func addRowsF32NEON(dst []float32, ldd int, src []float32, lds, rows, w int)

func addRowsKernel() func(dst []float32, ldd int, src []float32, lds, rows, w int) {
	if !useNEON {
		return addRowsGo
	}
	return addRowsF32NEON
}
