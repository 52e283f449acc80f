package asm

import "fmt"

// RowOffsets is a fixed list of element offsets of rows in a matrix, with
// their range, for GatherRows: the bounds are checked once per call from
// the range rather than row by row.
type RowOffsets struct {
	offs   []int
	lo, hi int
}

// NewRowOffsets returns the row offsets offs, which it keeps: offs must
// not change afterwards.
func NewRowOffsets(offs []int) RowOffsets {
	r := RowOffsets{offs: offs}
	for i, o := range r.offs {
		if i == 0 || o < r.lo {
			r.lo = o
		}
		if i == 0 || o > r.hi {
			r.hi = o
		}
	}
	return r
}

// Len is the number of offsets.
func (r *RowOffsets) Len() int { return len(r.offs) }

// Offsets is the offsets (not to be changed).
func (r *RowOffsets) Offsets() []int { return r.offs }

// GatherRows copies n rows of w elements, rows p0 … p0+n−1 of r, back to
// back into dst:
//
//	for p := range n {
//		copy(dst[p*w:][:w], src[base+r.offs[p0+p]:][:w])
//	}
//
// as a GEMM packer does for a sliver of B whose rows lie anywhere in src
// (a convolution's padded planes read from each tap's offset). Rows of 128
// bytes (32 float32, 16 float64) are moved by a vector loop where the CPU
// has AVX2. Rows out of range panic.
func GatherRows[T float32 | float64](dst, src []T, base int, r *RowOffsets, p0, n, w int) {
	if n <= 0 || w <= 0 {
		return
	}
	if p0 < 0 || p0+n > len(r.offs) || base+r.lo < 0 || base+r.hi+w > len(src) || n*w > len(dst) {
		panic(fmt.Sprintf("asm.GatherRows: rows out of range (p0=%d n=%d w=%d base=%d offsets [%d, %d] of %d, len(src)=%d len(dst)=%d)",
			p0, n, w, base, r.lo, r.hi, len(r.offs), len(src), len(dst)))
	}
	offs := r.offs[p0 : p0+n]
	if gatherRowsVec(dst, src, base, offs, w) {
		return
	}
	gatherRowsGo(dst, src, base, offs, w)
}

// gatherRowsGo is GatherRows' twin (and the kernel's doc comment).
func gatherRowsGo[T float32 | float64](dst, src []T, base int, offs []int, w int) {
	for p, o := range offs {
		copy(dst[p*w:][:w], src[base+o:][:w])
	}
}

// CopyRows copies rows rows of w elements, src's lds apart, to dst's ldd
// apart:
//
//	for r := range rows {
//		copy(dst[r*ldd:][:w], src[r*lds:][:w])
//	}
//
// with a vector loop for rows of at least 32 bytes where the CPU has AVX2
// (a padded copy of an image's rows, say, without a call per row). The
// rows must not overlap; rows out of range panic.
func CopyRows[T float32 | float64](dst []T, ldd int, src []T, lds, rows, w int) {
	if rows <= 0 || w <= 0 {
		return
	}
	if ldd < 0 || lds < 0 || (rows-1)*ldd+w > len(dst) || (rows-1)*lds+w > len(src) {
		panic(fmt.Sprintf("asm.CopyRows: rows out of range (rows=%d w=%d ldd=%d lds=%d len(dst)=%d len(src)=%d)", rows, w, ldd, lds, len(dst), len(src)))
	}
	if copyRowsVecAny(dst, ldd, src, lds, rows, w) {
		return
	}
	for r := range rows {
		copy(dst[r*ldd:][:w], src[r*lds:][:w])
	}
}

// CopyRowsAdd is CopyRows adding b to every element:
//
//	for r := range rows {
//		for j, v := range src[r*lds:][:w] {
//			dst[r*ldd+j] = v + b
//		}
//	}
//
// (a convolution's outputs copied out with their channel's bias), with a
// vector loop for float32 rows of at least 8 elements where the CPU has
// AVX2. The rows must not overlap; rows out of range panic.
func CopyRowsAdd[T float32 | float64](dst []T, ldd int, src []T, lds, rows, w int, b T) {
	if rows <= 0 || w <= 0 {
		return
	}
	if ldd < 0 || lds < 0 || (rows-1)*ldd+w > len(dst) || (rows-1)*lds+w > len(src) {
		panic(fmt.Sprintf("asm.CopyRowsAdd: rows out of range (rows=%d w=%d ldd=%d lds=%d len(dst)=%d len(src)=%d)", rows, w, ldd, lds, len(dst), len(src)))
	}
	if copyRowsAddVec(dst, ldd, src, lds, rows, w, b) {
		return
	}
	for r := range rows {
		d := dst[r*ldd:][:w]
		for j, v := range src[r*lds:][:w] {
			d[j] = v + b
		}
	}
}

// GemmTileCols is the width nr of the slivers of op(B) that SgemmPacked
// (float32) or DgemmPacked (float64) asks its packer for: columns jc … jc+w−1
// of a call lie in one block of nr columns that starts at a multiple of nr.
func GemmTileCols[T float32 | float64]() int {
	if _, ok := any(T(0)).(float64); ok {
		return dgemmUse.bl.nr
	}
	return sgemmUse.bl.nr
}

// PackCols writes the transpose of a rows×cols block of src (rows ld
// apart) into dst, columns stride apart:
//
//	for i := range rows {
//		for p := range cols {
//			dst[p*stride+i] = src[i*ld+p]
//		}
//	}
//
// with the GEMM's 8×8 transposes where it can: a packer for SgemmPacked
// whose sliver's rows of op(B) are the columns of a matrix (stride nr).
// Blocks out of range panic.
func PackCols[T float32 | float64](dst, src []T, ld, rows, cols, stride int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if ld < 0 || stride < rows || (rows-1)*ld+cols > len(src) || (cols-1)*stride+rows > len(dst) {
		panic(fmt.Sprintf("asm.PackCols: block out of range (rows=%d cols=%d ld=%d stride=%d len(src)=%d len(dst)=%d)", rows, cols, ld, stride, len(src), len(dst)))
	}
	interleave(dst, src, ld, rows, cols, stride, 1)
}
