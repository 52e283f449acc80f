//go:build !purego

package asm

import "unsafe"

// pack6F32 and pack6F64 (pack_amd64.s) are the AVX packers of six rows:
// d[p*stride+i] = alpha·src[i*ld+p] for i < 6 and p < 8n (float32) or 4n
// (float64), n ≥ 1; d and src must hold that.
//
//go:noescape
func pack6F32(d, src *float32, ld, n, stride int, alpha float32)

//go:noescape
func pack6F64(d, src *float64, ld, n, stride int, alpha float64)

// pack8F32 (pack_amd64.s) is the AVX packer of eight float32 rows:
// d[p*stride+i] = src[i*ld+p] for i < 8 and p < 8n, n ≥ 1; d and src must
// hold that.
//
//go:noescape
func pack8F32(d, src *float32, ld, n, stride int)

// pack8 packs the leading columns of eight float32 rows of src into d as
// interleave8 does, with pack8F32, and returns how many columns it packed:
// whole runs of 8, none for float64 or without AVX2.
func pack8[T float32 | float64](d, src []T, ld, kc, stride int) int {
	d32, ok := any(d).([]float32)
	n := kc / 8
	if !useAVX2FMA || !ok || n == 0 {
		return 0
	}
	s := any(src).([]float32)
	_, _ = s[7*ld+8*n-1], d32[(8*n-1)*stride+7] // both hold the block
	pack8F32(&d32[0], &s[0], ld, n, stride)
	return 8 * n
}

// pack6 packs the leading columns of six rows of src into d as interleave6
// does, with the AVX packers, and returns how many columns it packed: whole
// runs of one vector (8 float32, 4 float64), none without AVX2.
func pack6[T float32 | float64](d, src []T, ld, kc, stride int, alpha T) int {
	if !useAVX2FMA {
		return 0
	}
	switch d := any(d).(type) {
	case []float32:
		n := kc / 8
		if n == 0 {
			return 0
		}
		s := any(src).([]float32)
		_, _ = s[5*ld+8*n-1], d[(8*n-1)*stride+5] // both hold the block
		pack6F32(&d[0], &s[0], ld, n, stride, any(alpha).(float32))
		return 8 * n
	case []float64:
		n := kc / 4
		if n == 0 {
			return 0
		}
		s := any(src).([]float64)
		_, _ = s[5*ld+4*n-1], d[(4*n-1)*stride+5] // both hold the block
		pack6F64(&d[0], &s[0], ld, n, stride, any(alpha).(float64))
		return 4 * n
	}
	return 0
}

// copyRows64 and copyRows128 (pack_amd64.s) copy n ≥ 1 rows of 64 or 128
// bytes, ld bytes apart at s, to d back to back.
//
//go:noescape
func copyRows64(d, s unsafe.Pointer, ld, n int)

//go:noescape
func copyRows128(d, s unsafe.Pointer, ld, n int)

// copyRowsVec copies kc rows of w elements, ld apart in src, to d back to
// back with the AVX row copies, and reports whether it could: rows of 64 or
// 128 bytes on a CPU with AVX2. It is what copyRows16 and copyRows32 try
// first; their Go loops are its twin.
func copyRowsVec[T float32 | float64](d, src []T, ld, kc, w int) bool {
	size := int(unsafe.Sizeof(*new(T)))
	if !useAVX2FMA || kc == 0 || (w*size != 64 && w*size != 128) {
		return false
	}
	_, _ = src[(kc-1)*ld+w-1], d[kc*w-1] // both hold the rows
	if w*size == 64 {
		copyRows64(unsafe.Pointer(&d[0]), unsafe.Pointer(&src[0]), ld*size, kc)
	} else {
		copyRows128(unsafe.Pointer(&d[0]), unsafe.Pointer(&src[0]), ld*size, kc)
	}
	return true
}

// gatherRows128 (pack_amd64.s) copies n ≥ 1 rows of 128 bytes, at s +
// (base + offs[p])·scale, to d back to back.
//
//go:noescape
func gatherRows128(d, s unsafe.Pointer, base int, offs *int, n, scale int)

// gatherRowsVec copies the rows src[base+offs[p]:][:w] (every one in src)
// to dst back to back with gatherRows128 and reports whether it could: rows
// of 128 bytes on a CPU with AVX2. GatherRows' Go loop is its twin.
func gatherRowsVec[T float32 | float64](dst, src []T, base int, offs []int, w int) bool {
	size := int(unsafe.Sizeof(*new(T)))
	if !useAVX2FMA || len(offs) == 0 || w*size != 128 {
		return false
	}
	_ = dst[len(offs)*w-1] // holds the rows
	gatherRows128(unsafe.Pointer(&dst[0]), unsafe.Pointer(unsafe.SliceData(src)), base, &offs[0], len(offs), size)
	return true
}

// copyRowsAny (pack_amd64.s) copies rows ≥ 1 rows of n ≥ 32 bytes, lds
// bytes apart at s, to d, ldd bytes apart.
//
//go:noescape
func copyRowsAny(d, s unsafe.Pointer, ldd, lds, rows, n int)

// copyRowsVecAny copies the rows for CopyRows with copyRowsAny and reports
// whether it could: rows of at least 32 bytes on a CPU with AVX2.
func copyRowsVecAny[T float32 | float64](dst []T, ldd int, src []T, lds, rows, w int) bool {
	size := int(unsafe.Sizeof(*new(T)))
	if !useAVX2FMA || w*size < 32 {
		return false
	}
	copyRowsAny(unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src)), ldd*size, lds*size, rows, w*size)
	return true
}

// copyRowsAddF32 (pack_amd64.s) is copyRowsAny adding b to every element
// (float32).
//
//go:noescape
func copyRowsAddF32(d, s unsafe.Pointer, ldd, lds, rows, n int, b float32)

// copyRowsAddVec runs CopyRowsAdd with copyRowsAddF32 and reports whether
// it could: float32 rows of at least 8 elements on a CPU with AVX2.
func copyRowsAddVec[T float32 | float64](dst []T, ldd int, src []T, lds, rows, w int, b T) bool {
	b32, ok := any(b).(float32)
	if !useAVX2FMA || !ok || w < 8 {
		return false
	}
	copyRowsAddF32(unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src)), ldd*4, lds*4, rows, w*4, b32)
	return true
}
