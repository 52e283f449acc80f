package libm

import "math"

// Log is glibc's log(x) (sysdeps/ieee754/dbl-64/e_log.c, the __log_fma
// variant): x = 2^k·z with z in [0x1.6p-1, 0x1.6p0), log(x) = k·ln2 +
// log(c) + log1p(z/c - 1) with c the centre of z's 1/128 subinterval (its
// 1/c and log(c) from the table), and a degree-12 polynomial for x within
// [1 - 2^-4, 1 + 0x1.09p-4) instead.
func Log(x float64) float64 {
	ix := math.Float64bits(x)
	top := ix >> 48
	const lo1, hi1 = 0x3fee000000000000, 0x3ff1090000000000 // bits of 1 - 0x1p-4 and 1 + 0x1.09p-4
	if ix-lo1 < hi1-lo1 {
		if ix == 0x3ff0000000000000 {
			return 0
		}
		return logNear1(x)
	}
	if top-0x0010 >= 0x7ff0-0x0010 {
		// x < 0x1p-1022, inf or nan.
		switch {
		case ix<<1 == 0:
			return math.Inf(-1)
		case ix == 0x7ff0000000000000:
			return x
		case top&0x8000 != 0 || top&0x7ff0 == 0x7ff0:
			return math.NaN()
		}
		// Subnormal: normalise it.
		ix = math.Float64bits(x * 0x1p52)
		ix -= 52 << 52
	}
	const off = 0x3fe6000000000000
	tmp := ix - off
	i := (tmp >> (52 - logTableBits)) % (1 << logTableBits)
	k := int64(tmp) >> 52
	iz := ix - tmp&(0xfff<<52)
	invc, logc := logTab[i][0], logTab[i][1]
	z := math.Float64frombits(iz)

	// log(x) = log1p(z/c-1) + log(c) + k·ln2, r ≈ z/c - 1 with |r| < 1/256.
	r := math.FMA(z, invc, -1.0)
	kd := float64(k)
	w := math.FMA(kd, logLn2hi, logc)
	hi := w + r
	lo := math.FMA(kd, logLn2lo, float64(w-hi)+r)
	// y = lo + r²·A0 + r·r²·(A1 + r·A2 + r²·(A3 + r·A4)) + hi
	r2 := float64(r * r)
	q := math.FMA(r2, math.FMA(r, logA[4], logA[3]), math.FMA(r, logA[2], logA[1]))
	y := math.FMA(float64(r*r2), q, math.FMA(r2, logA[0], lo))
	return y + hi
}

// logNear1 is log(x) for x near 1: r = x - 1, r - r²/2 split exactly in
// hi + lo, plus r³·(B1 + r·B2 + ...).
func logNear1(x float64) float64 {
	B := &logB
	r := x - 1.0
	r2 := float64(r * r)
	r3 := float64(r * r2)
	p := math.FMA(r3, B[10], math.FMA(r2, B[9], math.FMA(r, B[8], B[7])))
	p = math.FMA(r3, p, math.FMA(r2, B[6], math.FMA(r, B[5], B[4])))
	p = math.FMA(r3, p, math.FMA(r2, B[3], math.FMA(r, B[2], B[1])))
	w := float64(r * 0x1p27)
	rhi := float64(r+w) - w
	rlo := r - rhi
	w = float64(float64(rhi*rhi) * B[0]) // B[0] == -0.5: exact
	hi := r + w
	lo := float64(r-hi) + w
	lo = math.FMA(float64(B[0]*rlo), rhi+r, lo)
	y := math.FMA(r3, p, lo)
	return y + hi
}
