package asm

// dwConvGo is DepthwiseConvF32's twin: row by row, the taps in order, each
// added to the row's sums over the columns it reads (fmaF32); a tap reading
// a row outside the image is left out.
func dwConvGo(p *DWPlan, dst []float32, dPlane int, x []float32, xPlane, n int, w []float32, init float32) {
	kW := len(p.ColOff)
	for i := range n {
		xp, dp := x[i*xPlane:], dst[i*dPlane:]
		for oh := range p.OH {
			row := dp[oh*p.OW:][:p.OW]
			for j := range row {
				row[j] = init
			}
			for kh, r := range p.RowOff {
				ih := oh*p.SH + r
				for kw, c := range p.ColOff {
					wt, lo, hi := w[kh*kW+kw], p.Lo[kw], p.Hi[kw]
					if lo >= hi {
						continue
					}
					if ih < 0 || ih >= p.H {
						continue
					}
					d := row[lo:hi]
					src := xp[ih*p.LDX+c+lo:][:len(d)]
					for j, v := range d {
						d[j] = fmaF32(wt, src[j], v)
					}
				}
			}
		}
	}
}

// dwGradGo is DepthwiseGradF32's twin for vectors of vl lanes: lane j of
// tap (kh, kw) sums the output columns j, j+vl, … the tap reads the image
// for, vector by vector, over the planes and the tap's rows, in chains: on
// 16 lanes four rows at a time in four chains while four are left, then
// (on 8 lanes from the start) two at a time in chains 0 and 1, a last row
// in chain 0; the chains added as (0 + 2) + (1 + 3) at the end.
func dwGradGo(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32, vl int) {
	if vl == 16 && p.rows3 {
		dwGrad3Go(p, gy, gPlane, x, xPlane, n, acc)
		return
	}
	kWc := dwCols(len(p.ColOff))
	nvec := (p.OW + vl - 1) / vl
	clear(acc[:len(p.RowOff)*kWc*vl])
	quad := 4
	if vl != 16 {
		quad = 1 << 62
	}
	var chains [4][]float32
	for c := range chains {
		chains[c] = make([]float32, vl)
	}
	for kh, r := range p.RowOff {
		lo, hi := p.rowLo[kh], p.rowHi[kh]
		for kw, c := range p.ColOff {
			for _, ch := range chains {
				clear(ch)
			}
			for v := range nvec {
				// The vector's lanes [a, b) the tap reads the image for.
				a, b := max(p.Lo[kw]-v*vl, 0), min(p.Hi[kw]-v*vl, vl)
				if a >= b {
					continue
				}
				c0 := v*vl + a
				for i := range n {
					gp, xp := gy[i*gPlane:], x[i*xPlane:]
					add := func(chain, oh int) {
						g, xr := gp[oh*p.OW+c0:][:b-a], xp[(oh*p.SH+r)*p.LDX+c+c0:][:b-a]
						t := chains[chain][a:b]
						for j, gv := range g {
							t[j] = fmaF32(gv, xr[j], t[j])
						}
					}
					oh := lo
					for ; hi-oh >= quad; oh += 4 {
						for k := range 4 {
							add(k, oh+k)
						}
					}
					for ; hi-oh >= 2; oh += 2 {
						add(0, oh)
						add(1, oh+1)
					}
					if oh < hi {
						add(0, oh)
					}
				}
			}
			out := acc[(kh*kWc+kw)*vl:][:vl]
			for j := range out {
				out[j] = (chains[0][j] + chains[2][j]) + (chains[1][j] + chains[3][j])
			}
		}
	}
}

// dwCols is the number of kernel columns kW rounded up to whole chunks:
// the row length of DepthwiseGradF32's partial sums.
func dwCols(kW int) int { return (kW + dwChunk - 1) / dwChunk * dwChunk }

// dwGrad3Go is dwGradGo on 16 lanes for the plans of dwGrad3AVX512 (three
// consecutive kernel rows of three taps, row stride 1): lane j of tap
// (kh, kw) sums, vector by vector and plane by plane, the output columns
// j, j+16, … the tap reads the image for, in two chains, of the plane's
// even and odd output rows; the chains are added (even + odd) and that to
// the tap's total.
func dwGrad3Go(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
	const vl = 16
	nvec := (p.OW + vl - 1) / vl
	clear(acc[:9*vl])
	var chains [2][vl]float32
	for kh, r := range p.RowOff {
		lo, hi := p.rowLo[kh], p.rowHi[kh]
		for kw, c := range p.ColOff {
			total := acc[(kh*3+kw)*vl:][:vl]
			for v := range nvec {
				// The vector's lanes [a, b) the tap reads the image for.
				a, b := max(p.Lo[kw]-v*vl, 0), min(p.Hi[kw]-v*vl, vl)
				if a >= b {
					continue
				}
				c0 := v*vl + a
				for i := range n {
					chains = [2][vl]float32{}
					gp, xp := gy[i*gPlane:], x[i*xPlane:]
					for oh := lo; oh < hi; oh++ {
						g, xr := gp[oh*p.OW+c0:][:b-a], xp[(oh+r)*p.LDX+c+c0:][:b-a]
						t := chains[oh&1][a:b]
						for j, gv := range g {
							t[j] = fmaF32(gv, xr[j], t[j])
						}
					}
					for j := range total {
						total[j] += chains[0][j] + chains[1][j]
					}
				}
			}
		}
	}
}
