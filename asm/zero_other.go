//go:build purego || !amd64

package asm

import "unsafe"

// zeroNT is never called without the AVX2 kernels (useAVX2FMA is false).
func zeroNT(p unsafe.Pointer, n int) {
	clear(unsafe.Slice((*byte)(p), 64*n))
}
