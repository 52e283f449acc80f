//go:build !purego

package asm

// The AVX2 deal and merge kernels (deal_amd64.s) take whole blocks of
// eight pairs; the twins finish the rest.

//go:noescape
func dealF32AVX2(even, odd, x []float32, blocks int)

//go:noescape
func mergeF32AVX2(x, even, odd []float32, blocks int)

//go:noescape
func mergeRowsF32AVX2(x []float32, ldx int, even, odd []float32, rows, w int)

func dealKernels() (func(even, odd, x []float32), func(x, even, odd []float32)) {
	if !useAVX2FMA {
		return dealGo, mergeGo
	}
	return func(even, odd, x []float32) {
			b := len(odd) / 8
			dealF32AVX2(even, odd, x, b)
			dealGo(even[8*b:], odd[8*b:], x[16*b:])
		}, func(x, even, odd []float32) {
			b := len(odd) / 8
			mergeF32AVX2(x, even, odd, b)
			mergeGo(x[16*b:], even[8*b:], odd[8*b:])
		}
}

// mergeRowsKernel is MergeRowsF32's kernel: AVX2 for rows of eight pairs
// or more (a row's last block moved back to end at its last pair), the
// twin for shorter rows.
func mergeRowsKernel() func(x []float32, ldx int, even, odd []float32, rows, w int) {
	if !useAVX2FMA {
		return mergeRowsGo
	}
	return func(x []float32, ldx int, even, odd []float32, rows, w int) {
		if w < 8 {
			mergeRowsGo(x, ldx, even, odd, rows, w)
			return
		}
		mergeRowsF32AVX2(x, ldx, even, odd, rows, w)
	}
}
