package asm

// dwConvGo is DepthwiseConvF32's twin: element by element, the taps in
// order, a tap reading a column outside its range left out, one reading
// a row outside the image adding w·0.
func dwConvGo(p *DWPlan, dst []float32, dPlane int, x []float32, xPlane, n int, w []float32, init float32) {
	kW := len(p.ColOff)
	for i := range n {
		xp, dp := x[i*xPlane:], dst[i*dPlane:]
		for oh := range p.OH {
			for ow := range p.OW {
				s := init
				for kh, r := range p.RowOff {
					ih := oh*p.SH + r
					for kw, c := range p.ColOff {
						switch {
						case ow < p.Lo[kw] || ow >= p.Hi[kw]:
						case ih < 0 || ih >= p.H:
							s = fma32(w[kh*kW+kw], 0, s)
						default:
							s = fma32(w[kh*kW+kw], xp[ih*p.LDX+c+ow], s)
						}
					}
				}
				dp[oh*p.OW+ow] = s
			}
		}
	}
}

// dwGradGo is DepthwiseGradF32's twin for vectors of vl lanes: lane j of
// tap (kh, kw) sums the output columns j, j+vl, … the tap reads the image
// for, vector by vector, over the planes and the tap's rows two at a time
// (the first of each pair in one chain, the second in another, added at
// the end).
func dwGradGo(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32, vl int) {
	kW := len(p.ColOff)
	kWc := dwCols(kW)
	nvec := (p.OW + vl - 1) / vl
	clear(acc[:len(p.RowOff)*kWc*vl])
	for kh, r := range p.RowOff {
		lo, hi := p.rowLo[kh], p.rowHi[kh]
		for kw, c := range p.ColOff {
			out := acc[(kh*kWc+kw)*vl:][:vl]
			for j := range vl {
				var s0, s1 float32
				for v := range nvec {
					ow := v*vl + j
					if ow < p.Lo[kw] || ow >= p.Hi[kw] {
						continue
					}
					for i := range n {
						gp, xp := gy[i*gPlane:], x[i*xPlane:]
						for oh := lo; oh < hi; oh += 2 {
							s0 = fma32(gp[oh*p.OW+ow], xp[(oh*p.SH+r)*p.LDX+c+ow], s0)
							if oh+1 < hi {
								s1 = fma32(gp[(oh+1)*p.OW+ow], xp[((oh+1)*p.SH+r)*p.LDX+c+ow], s1)
							}
						}
					}
				}
				out[j] = s0 + s1
			}
		}
	}
}

// dwCols is the number of kernel columns kW rounded up to whole chunks:
// the row length of DepthwiseGradF32's partial sums.
func dwCols(kW int) int { return (kW + dwChunk - 1) / dwChunk * dwChunk }
