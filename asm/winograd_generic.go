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

// winoInGo is WinogradInF32's twin: channel by channel, the tile's rows
// transformed, then its columns.
func winoInGo(v []float32, ldv int, x []float32, xoff, cs, ldx, n int, valid uint64) {
	var d, h [36]float32
	for c := range n {
		for k := range d {
			d[k] = 0
			if valid>>k&1 != 0 {
				d[k] = x[xoff+c*cs+k/6*ldx+k%6]
			}
		}
		for i := range 6 {
			winoB(d[6*i:], 1, h[6*i:], 1) // h[i][ξc]
		}
		for j := range 6 {
			winoB(h[j:], 6, v[j*ldv+c:], 6*ldv) // v[ξr·6+ξc]
		}
	}
}

// winoOutGo is WinogradOutF32's twin: channel by channel, the columns of
// M transformed, then the rows, the bias added last.
func winoOutGo(y []float32, yoff, cs, ldy int, m []float32, ldm, n int, bias []float32, valid uint16) bool {
	var mm [36]float32
	var t [24]float32
	var o [16]float32
	finite := true
	for c := range n {
		for k := range mm {
			mm[k] = m[k*ldm+c]
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
			if valid>>k&1 != 0 {
				y[yoff+c*cs+k/4*ldy+k%4] = v
			}
		}
	}
	return finite
}
