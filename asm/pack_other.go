//go:build purego || !amd64

package asm

// pack6 packs nothing without the AVX packers: interleave6's twin does it all.
func pack6[T float32 | float64](d, src []T, ld, kc, stride int, alpha T) int { return 0 }

// pack8 packs nothing without the AVX packers: interleave8's twin does it all.
func pack8[T float32 | float64](d, src []T, ld, kc, stride int) int { return 0 }

// copyRowsVec copies nothing without the AVX row copies: copyRows16 and
// copyRows32 run their Go loops.
func copyRowsVec[T float32 | float64](d, src []T, ld, kc, w int) bool { return false }

// gatherRowsVec gathers nothing without the AVX row copies: GatherRows
// runs its Go loop.
func gatherRowsVec[T float32 | float64](dst, src []T, base int, offs []int, w int) bool {
	return false
}

// copyRowsVecAny copies nothing without the AVX row copies: CopyRows runs
// its Go loop.
func copyRowsVecAny[T float32 | float64](dst []T, ldd int, src []T, lds, rows, w int) bool {
	return false
}

// copyRowsAddVec adds nothing without the AVX row copies: CopyRowsAdd runs
// its Go loop.
func copyRowsAddVec[T float32 | float64](dst []T, ldd int, src []T, lds, rows, w int, b T) bool {
	return false
}
