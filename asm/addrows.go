package asm

import "fmt"

// addRows is AddRowsF32's kernel for the whole eights of each row
// (addrows_amd64.go; the twin in addrows_generic.go).
var addRows = addRowsKernel()

// AddRowsF32 adds rows rows of w elements, src's lds apart, into dst's,
// ldd apart:
//
//	for r := range rows {
//		for j, v := range src[r*lds:][:w] {
//			dst[r*ldd+j] += v
//		}
//	}
//
// each sum rounded once, as float32 addition does (an average pool's sums,
// a tap of the window at a time, with no call per row). The rows must not
// overlap; rows out of range panic.
func AddRowsF32(dst []float32, ldd int, src []float32, lds, rows, w int) {
	if rows <= 0 || w <= 0 {
		return
	}
	if ldd < 0 || lds < 0 || (rows-1)*ldd+w > len(dst) || (rows-1)*lds+w > len(src) {
		panic(fmt.Sprintf("asm.AddRowsF32: rows out of range (rows=%d w=%d ldd=%d lds=%d len(dst)=%d len(src)=%d)", rows, w, ldd, lds, len(dst), len(src)))
	}
	w8 := w &^ 7
	if w8 > 0 {
		addRows(dst, ldd, src, lds, rows, w8)
	}
	if w8 < w {
		addRowsGo(dst[w8:], ldd, src[w8:], lds, rows, w-w8)
	}
}
