package asm

// convBlockGo is ConvBlockF32's twin: element by element, the taps in
// order from zero, the bias last.
func convBlockGo(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32, hasBias int) {
	for o := range m {
		for r := range rows {
			d, xr := dst[o*dPlane+r*ldd:][:cols], x[r*ldx:]
			for c := range d {
				var s float32
				for k, of := range off {
					s = fma32(wp[8*k+o], xr[c+of], s)
				}
				if hasBias != 0 {
					s += bias[o]
				}
				d[c] = s
			}
		}
	}
}

// convWGradGo is ConvWGradF32's twin up to the float64 lanes: lane l of
// sum 9j + t takes, image by image, the columns c ≡ l (mod 16) in float32
// (a row's last vector padded with 0·0), each image's part then added to
// lanes in float64.
func convWGradGo(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int) {
	clear(lanes[:18*16])
	var part [18 * 16]float32
	for i := range n {
		clear(part[:])
		for r := range rows {
			for c0 := 0; c0 < cols; c0 += 16 {
				for l := range 16 {
					c := c0 + l
					for j := range 2 {
						var g float32
						if c < cols {
							g = gy[j*gPlane+i*gImg+r*ldg+c]
						}
						for t, of := range off {
							var v float32
							if c < cols {
								v = x[i*xImg+r*ldx+c+of]
							}
							a := &part[(9*j+t)*16+l]
							*a = fma32(g, v, *a)
						}
					}
				}
			}
		}
		for k, v := range part {
			lanes[k] += float64(v)
		}
	}
}
