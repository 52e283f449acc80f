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

// winoAt is A (Aᵀ transposed) applied to d[0], d[s], d[2s], d[3s], into
// r[0], r[t], …, r[5t], in the assembly's order.
func winoAt(d []float32, s int, r []float32, t int) {
	d0, d1, d2, d3 := d[0], d[s], d[2*s], d[3*s]
	s02, s13 := d0+d2, d1+d3
	p := fma32(4, d2, d0) // d0 + 4·d2
	q := fma32(4, d3, d1) // d1 + 4·d3
	r[0] = d0
	r[t] = s02 + s13
	r[2*t] = s02 - s13
	r[3*t] = fma32(2, q, p)
	r[4*t] = fma32(-2, q, p)
	r[5*t] = d3
}

// winoGradGo is WinogradGradF32's twin: tile by tile, its rows
// transformed, then its columns. k.masks[4r + q] holds the columns of
// quarter q's row r read.
func winoGradGo(v []float32, ldp, ldc int, y []float32, cs, ldy, n int, k *winoKernelArgs) {
	var d [16]float32
	var h [24]float32
	for c := range n {
		t := 0
		for lane := range 16 {
			if k.lanes>>lane&1 == 0 {
				continue
			}
			q, i := lane/4, lane%4
			for e := range d {
				r, col := e/4, 4*i+e%4
				d[e] = 0
				if k.masks[4*r+q]>>col&1 != 0 {
					d[e] = y[k.offs[q]/4+c*cs+r*ldy+col]
				}
			}
			for r := range 4 {
				winoAt(d[4*r:], 1, h[6*r:], 1) // h[r][ξc]
			}
			for j := range 6 {
				winoAt(h[j:], 6, v[j*ldp+c*ldc+t:], 6*ldp) // v[ξr·6+ξc]
			}
			t++
		}
	}
}

// winoInGo is WinogradInF32's twin: tile by tile, its rows transformed,
// then its columns. k.masks[8r + h] holds the columns row r reads, as the
// assembly loads them: bit b of load h is column b (h < 4) or b + 4 (h ≥
// 4) of quarter h%4.
func winoInGo(v []float32, ldp, ldc int, x []float32, cs, ldx, n int, k *winoKernelArgs) {
	var d, h [36]float32
	for c := range n {
		t := 0 // the tile's column of v
		for lane := range 16 {
			if k.lanes>>lane&1 == 0 {
				continue
			}
			q, i := lane/4, lane%4
			for e := range d {
				r, j := e/6, e%6
				col := 4*i + j
				load, bit := q, col
				if j >= 4 {
					load, bit = 4+q, col-4
				}
				d[e] = 0
				if k.masks[8*r+load]>>bit&1 != 0 {
					d[e] = x[k.offs[q]/4+c*cs+r*ldx+col]
				}
			}
			for r := range 6 {
				winoB(d[6*r:], 1, h[6*r:], 1) // h[r][ξc]
			}
			for j := range 6 {
				winoB(h[j:], 6, v[j*ldp+c*ldc+t:], 6*ldp) // v[ξr·6+ξc]
			}
			t++
		}
	}
}

// winoOutGo is WinogradOutF32's twin: tile by tile, the columns of M
// transformed, then the rows, the bias added last. k.masks[4r + q] holds
// the columns of quarter q's output row r written.
func winoOutGo(y []float32, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, k *winoKernelArgs) bool {
	var mm [36]float32
	var t [24]float32
	var o [16]float32
	finite := true
	for c := range n {
		tc := 0
		for lane := range 16 {
			if k.lanes>>lane&1 == 0 {
				continue
			}
			q, i := lane/4, lane%4
			for e := range mm {
				mm[e] = m[e*ldp+c*ldc+tc]
			}
			tc++
			for j := range 6 {
				winoA(mm[j:], 6, t[j:], 6) // t[r][ξc]
			}
			for r := range 4 {
				winoA(t[6*r:], 1, o[4*r:], 1)
			}
			for e, v := range o {
				if bias != nil {
					v += bias[c]
				}
				if v-v != 0 {
					finite = false
				}
				r, col := e/4, 4*i+e%4
				if k.masks[4*r+q]>>col&1 != 0 {
					y[k.offs[q]/4+c*cs+r*ldy+col] = v
				}
			}
		}
	}
	return finite
}
