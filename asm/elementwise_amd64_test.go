//go:build !purego

package asm

import "testing"

// On an AVX-512 machine the tests above run the AVX-512 kernels; these run
// them again with the AVX2 tables in use, so both paths are checked here.
func TestAVX2Path(t *testing.T) {
	if !useAVX512 {
		t.Skip("the AVX2 kernels are the ones in use: the other tests cover them")
	}
	defer func(u *[numUnaryOps]func(d, x []float32), r *reduceTable) { un32, red32 = u, r }(un32, red32)
	un32, red32 = &unaryAVX2, &reduceAVX2
	t.Run("Unary", TestUnary)
	t.Run("UnaryDense", TestUnaryDense)
	t.Run("UnarySpecial", TestUnarySpecial)
	t.Run("Reduce", TestReduce)
	t.Run("RowKernels", TestRowKernels)
}
