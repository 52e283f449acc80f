package asm

import "fmt"

// Rows padded with a value around a copy: constant_pad_nd of a plane's
// rows (device/cpu's padRows), one call for many rows, where a copy per
// row pays a call and 16-byte moves for every row.

// padRows is the kernel in use (pad_amd64.go; the twin in pad_generic.go).
var padRows = padRowsKernel()

// PadRowsU32 writes rows rows of x, ldx apart, each left copies of v, then
// the n elements of src's row (src's rows lds apart), then right copies of
// v:
//
//	for r := range rows {
//		row := x[r*ldx:][:left+n+right]
//		fill(row[:left], v)
//		copy(row[left:], src[r*lds:][:n])
//		fill(row[left+n:], v)
//	}
//
// It panics if a size is negative, the rows of x overlap (ldx <
// left+n+right), or x or src does not hold them. x must not overlap src.
func PadRowsU32(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32) {
	w := left + n + right
	if rows < 0 || left < 0 || n < 0 || right < 0 || ldx < w || lds < 0 ||
		rows > 0 && ((rows-1)*ldx+w > len(x) || n > 0 && (rows-1)*lds+n > len(src)) {
		panic(fmt.Sprintf("asm.PadRowsU32: %d rows of %d+%d+%d, %d apart in %d, from rows %d apart in %d", rows, left, n, right, ldx, len(x), lds, len(src)))
	}
	if rows == 0 || w == 0 {
		return
	}
	padRows(x, ldx, src, lds, rows, left, n, right, v)
}
