package cpu

import "github.com/goaten/goaten/asm"

// blasLayout describes a strided rows×cols matrix as BLAS sees it: row-major
// with leading dimension ld, or (trans) the row-major transpose of a
// cols×rows matrix. ok is false for layouts BLAS cannot express (both
// strides non-unit, or overlapping rows).
func blasLayout(rows, cols, rs, cs int) (trans bool, ld int, ok bool) {
	if cs == 1 || cols == 1 {
		ld = rs
		if rows == 1 {
			ld = cols
		}
		if ld >= max(cols, 1) {
			return false, ld, true
		}
	}
	if rs == 1 || rows == 1 {
		ld = cs
		if cols == 1 {
			ld = rows
		}
		if ld >= max(rows, 1) {
			return true, ld, true
		}
	}
	return false, 0, false
}

// gemmBLAS runs C += alpha·A·B through the assembly Sgemm/Dgemm when T is a
// float type and both operands have a BLAS layout; it reports whether it did.
func gemmBLAS[T gemmNum](m, n, k int, alpha T, a, b gmat[T], c []T, ldc int) bool {
	return gemmBLASBeta(m, n, k, alpha, 1, a, b, c, ldc)
}

// gemmBLASBeta is gemmBLAS for C = alpha·A·B + beta·C with beta 0 or 1: with
// 0 every element of C is written without being read (the same bits as
// adding to a zeroed C).
func gemmBLASBeta[T gemmNum](m, n, k int, alpha, beta T, a, b gmat[T], c []T, ldc int) bool {
	if m <= gemvRows && gemvSmall(m, n, k, alpha, beta, a, b, c, ldc) {
		return true // a few rows: B read in place (gemv.go)
	}
	ta, lda, okA := blasLayout(m, k, a.rs, a.cs)
	tb, ldb, okB := blasLayout(k, n, b.rs, b.cs)
	if !okA || !okB {
		return false
	}
	switch al := any(alpha).(type) {
	case float32:
		asm.Sgemm(ta, tb, m, n, k, al, any(a.data).([]float32)[a.off:], lda,
			any(b.data).([]float32)[b.off:], ldb, float32(any(beta).(float32)), any(c).([]float32), ldc)
	case float64:
		asm.Dgemm(ta, tb, m, n, k, al, any(a.data).([]float64)[a.off:], lda,
			any(b.data).([]float64)[b.off:], ldb, any(beta).(float64), any(c).([]float64), ldc)
	default:
		return false
	}
	return true
}
