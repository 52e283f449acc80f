package asm

import "unsafe"

// Row copies that stream: a result too large to stay in the caches
// (StreamBytes and more) is best written with non-temporal stores, which
// skip reading each destination line before writing it. Go's copy streams
// only single moves of a megabyte and more; a result assembled from many
// rows (cat, a broadcast op's rows) needs a kernel that does every row in
// one call and fences the stores once, at its end: a fence per row of a
// few kilobytes costs more than the stores save.

// StreamBytes is the result size from which the kernels of this package
// store with non-temporal stores (see streamBytes).
func StreamBytes() int { return streamBytes }

// CopyRowsStream copies rows rows of n bytes each, row r from
// src[r*lds:][:n] to dst[r*ldd:][:n], as
//
//	for r := range rows {
//		copy(dst[r*ldd:][:n], src[r*lds:][:n])
//	}
//
// does, but with non-temporal stores where the CPU has them (AVX2) and
// each destination row starts 32-byte aligned, is a multiple of 32 bytes
// long, and so is ldd; other rows are copied with copy. The stores are
// fenced before it returns. The rows must not overlap; the slices must
// hold every row, or it panics.
func CopyRowsStream(dst []byte, ldd int, src []byte, lds int, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	if ldd < 0 || lds < 0 || (rows-1)*ldd+n > len(dst) || (rows-1)*lds+n > len(src) {
		panic("asm.CopyRowsStream: rows out of range")
	}
	if copyRowsNT != nil && n%32 == 0 && ldd%32 == 0 && uintptr(unsafe.Pointer(unsafe.SliceData(dst)))%32 == 0 {
		copyRowsNT(dst, ldd, src, lds, rows, n)
		return
	}
	copyRowsGo(dst, ldd, src, lds, rows, n)
}

// copyRowsGo is CopyRowsStream's twin (and the kernel's doc comment).
func copyRowsGo(dst []byte, ldd int, src []byte, lds int, rows, n int) {
	for r := range rows {
		copy(dst[r*ldd:][:n], src[r*lds:][:n])
	}
}

// Fill sets every element of d to v: a few stores, then copies of what is
// already filled (copy's wide moves), doubling up to a 4 KiB block that
// then repeats from L1. A scalar store loop writes one element a cycle.
func Fill[T uint8 | uint16 | uint32 | uint64 | float32](d []T, v T) {
	n := min(len(d), 16)
	for i := range n {
		d[i] = v
	}
	blk := max(16, 4096/int(unsafe.Sizeof(v)))
	for n < len(d) {
		n += copy(d[n:], d[:min(n, blk)])
	}
}
