//go:build !purego

package asm

import "testing"

// TestAVX2Path runs the unary, reduction and row-kernel tests with the AVX2
// tables in use, whichever path this machine picked: on an AVX-512 machine
// the tests above ran the AVX-512 kernels, and under GOATEN_PUREGO=1 the
// twins, so this is where the AVX2 kernels are checked there.
func TestAVX2Path(t *testing.T) {
	if !hasAVX2 || !hasFMA {
		t.Skip("this CPU has no AVX2+FMA: the AVX2 kernels cannot execute here (the twins are tested above)")
	}
	defer func(u *[numUnaryOps]func(d, x []float32), r *reduceTable) { un32, red32 = u, r }(un32, red32)
	un32, red32 = &unaryAVX2, &reduceAVX2
	t.Run("Unary", TestUnary)
	t.Run("UnaryDense", TestUnaryDense)
	t.Run("UnarySpecial", TestUnarySpecial)
	t.Run("Reduce", TestReduce)
	t.Run("RowKernels", TestRowKernels)
}
