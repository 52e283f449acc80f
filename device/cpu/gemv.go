package cpu

import "github.com/goaten/goaten/asm"

// gemvRows is the most rows of A a float32 product runs through asm.Sgemv
// (B read in place, once per block of columns) instead of the packing
// GEMM: one decoder step's x·W, where packing B cost more than the product.
const gemvRows = 4

// gemvSmall runs C = alpha·A·B + beta·C (beta 0 or 1) through asm.Sgemv
// when T is float32, A has at most gemvRows rows, B is at least 8 wide and
// 8 deep (narrower ones are left to the GEMM) and both operands have a
// BLAS layout; it reports whether it did.
func gemvSmall[T gemmNum](m, n, k int, alpha, beta T, a, b gmat[T], c []T, ldc int) bool {
	al, ok := any(alpha).(float32)
	if !ok || m > gemvRows || n < 8 || k < 8 {
		return false
	}
	ta, lda, okA := blasLayout(m, k, a.rs, a.cs)
	tb, ldb, okB := blasLayout(k, n, b.rs, b.cs)
	if !okA || !okB {
		return false
	}
	asm.Sgemv(ta, tb, m, n, k, al, any(a.data).([]float32)[a.off:], lda,
		any(b.data).([]float32)[b.off:], ldb, any(beta).(float32), any(c).([]float32), ldc)
	return true
}
