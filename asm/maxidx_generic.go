package asm

// maxIndexRowsGo is MaxIndexRowsF32's twin.
func maxIndexRowsGo(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32) {
	for r := range rows {
		mr, ir, vr := m[r*ldm:][:cols], mi[r*ldm:][:cols], v[r*ldv:][:cols]
		base := i0 + int32(r)*rowStep
		for c, x := range vr {
			if x > mr[c] || x != x {
				mr[c], ir[c] = x, base+int32(c)*colStep
			}
		}
	}
}
