//go:build !purego

package asm

// The AVX2+FMA Sgemv kernels (gemv_amd64.s).

// gemvNF32 is gemvNGo for len(y) a multiple of 8; b must hold
// (len(x)-1)·ldb + len(y) elements.
//
//go:noescape
func gemvNF32(y, x, b []float32, ldb int)

// gemvTLanesF32 is gemvTLanesGo for len(lanes) a multiple of 8; b must
// hold the rows' first len(x)&^7 elements.
//
//go:noescape
func gemvTLanesF32(lanes, x, b []float32, ldb int)

// gemvN runs gemvNF32, or its twin without AVX2+FMA.
func gemvN(y, x, b []float32, ldb int) {
	if len(y) == 0 || len(x) == 0 {
		gemvNGo(y, x, b, ldb)
		return
	}
	_ = b[(len(x)-1)*ldb+len(y)-1] // the kernel reads this far
	if useAVX2FMA && len(y)%8 == 0 {
		gemvNF32(y, x, b, ldb)
		return
	}
	gemvNGo(y, x, b, ldb)
}

// gemvTLanes runs gemvTLanesF32, or its twin without AVX2+FMA.
func gemvTLanes(lanes, x, b []float32, ldb int) {
	rows, k8 := len(lanes)/8, len(x)&^7
	if rows > 0 && k8 > 0 {
		_ = b[(rows-1)*ldb+k8-1] // the kernel reads this far
	}
	if useAVX2FMA && len(lanes)%8 == 0 {
		gemvTLanesF32(lanes, x, b, ldb)
		return
	}
	gemvTLanesGo(lanes, x, b, ldb)
}
