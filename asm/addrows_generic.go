package asm

// addRowsGo is AddRowsF32's twin.
func addRowsGo(dst []float32, ldd int, src []float32, lds, rows, w int) {
	for r := range rows {
		d := dst[r*ldd:][:w]
		for j, v := range src[r*lds:][:w] {
			d[j] += v
		}
	}
}
