package asm

// depthwiseGo is DepthwiseF32's twin: element by element, the taps in order.
func depthwiseGo(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32) {
	for r := range rows {
		d, xr := dst[r*ldd:r*ldd+cols], x[r*ldx:]
		for c := range d {
			s := init
			for t, o := range off {
				s = fma32(w[t], xr[c+o], s)
			}
			d[c] = s
		}
	}
}
