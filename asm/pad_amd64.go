//go:build !purego

package asm

// padRowsU32AVX2 (pad_amd64.s) is padRowsGo for rows of n ≥ 8 copied
// elements, rows ≥ 1.
//
//go:noescape
func padRowsU32AVX2(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32)

// padRowsKernel is PadRowsU32's kernel: AVX2 for rows that copy eight
// elements or more, the twin for shorter ones.
func padRowsKernel() func(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32) {
	if !useAVX2FMA {
		return padRowsGo
	}
	return func(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32) {
		if n < 8 {
			padRowsGo(x, ldx, src, lds, rows, left, n, right, v)
			return
		}
		padRowsU32AVX2(x, ldx, src, lds, rows, left, n, right, v)
	}
}
