package asm

// winoB is Bᵀ applied to d[0], d[s], …, d[5s], into r[0], r[t], …, r[5t]:
// the operations of the assembly, in its order.
func winoB(d []float32, s int, r []float32, t int) {
	d0, d1, d2, d3, d4, d5 := d[0], d[s], d[2*s], d[3*s], d[4*s], d[5*s]
	a := fma32(-4, d2, d4) // d4 - 4·d2
	b := fma32(-4, d1, d3) // d3 - 4·d1
	c := d4 - d2
	e := d3 - d1
	r[0] = fma32(4, d0, fma32(-5, d2, d4))
	r[t] = a + b
	r[2*t] = a - b
	r[3*t] = fma32(2, e, c)
	r[4*t] = fma32(-2, e, c)
	r[5*t] = fma32(4, d1, fma32(-5, d3, d5))
}

// winoA is Aᵀ applied to m[0], m[s], …, m[5s], into y[0], y[t], y[2t],
// y[3t], in the assembly's order.
func winoA(m []float32, s int, y []float32, t int) {
	m0, m1, m2, m3, m4, m5 := m[0], m[s], m[2*s], m[3*s], m[4*s], m[5*s]
	s12, d12 := m1+m2, m1-m2
	s34, d34 := m3+m4, m3-m4
	y[0] = (m0 + s12) + s34
	y[t] = fma32(2, d34, d12)
	y[2*t] = fma32(4, s34, s12)
	y[3*t] = fma32(8, d34, d12) + m5
}

// winoInGo is WinogradInF32's twin: tile by tile, its rows transformed,
// then its columns. masks[8i + k] holds the columns row i reads, as the
// assembly loads them: bit l of load k is column 16k + l (k < 4) or
// 16(k-4) + 4 + l (k ≥ 4, the tiles' last two columns).
func winoInGo(v []float32, ldp, ldc int, x []float32, xoff, cs, ldx, n int, masks *[48]uint16, lanes int) {
	var d, h [36]float32
	for c := range n {
		for t := range lanes {
			for k := range d {
				i, j := k/6, k%6
				col := 4*t + j
				load, bit := col/16, col%16
				if j >= 4 {
					load, bit = 4+(col-4)/16, (col-4)%16
				}
				d[k] = 0
				if masks[8*i+load]>>bit&1 != 0 {
					d[k] = x[xoff+c*cs+i*ldx+col]
				}
			}
			for i := range 6 {
				winoB(d[6*i:], 1, h[6*i:], 1) // h[i][ξc]
			}
			for j := range 6 {
				winoB(h[j:], 6, v[j*ldp+c*ldc+t:], 6*ldp) // v[ξr·6+ξc]
			}
		}
	}
}

// winoOutGo is WinogradOutF32's twin: tile by tile, the columns of M
// transformed, then the rows, the bias added last. masks[4i + q] holds the
// columns of output row i written, bit l of store q being column 16q + l.
func winoOutGo(y []float32, yoff, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, masks *[16]uint16, lanes int) bool {
	var mm [36]float32
	var t [24]float32
	var o [16]float32
	finite := true
	for c := range n {
		for tl := range lanes {
			for k := range mm {
				mm[k] = m[k*ldp+c*ldc+tl]
			}
			for j := range 6 {
				winoA(mm[j:], 6, t[j:], 6) // t[k][ξc]
			}
			for k := range 4 {
				winoA(t[6*k:], 1, o[4*k:], 1)
			}
			for k, v := range o {
				if bias != nil {
					v += bias[c]
				}
				if v-v != 0 {
					finite = false
				}
				i, col := k/4, 4*tl+k%4
				if masks[4*i+col/16]>>(col%16)&1 != 0 {
					y[yoff+c*cs+i*ldy+col] = v
				}
			}
		}
	}
	return finite
}
