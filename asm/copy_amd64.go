//go:build !purego

package asm

// copyRowsAVX (copy_amd64.s) is copyRowsGo with non-temporal stores: dst
// 32-byte aligned, n and ldd multiples of 32, rows ≥ 1. Needs AVX.
//
//go:noescape
func copyRowsAVX(dst []byte, ldd int, src []byte, lds int, rows, n int)

// copyRowsNT is the streaming row copy in use, nil where there is none.
var copyRowsNT = func() func(dst []byte, ldd int, src []byte, lds int, rows, n int) {
	if useAVX2FMA {
		return copyRowsAVX
	}
	return nil
}()
