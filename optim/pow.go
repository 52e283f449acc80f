package optim

import "math/big"

// powInt is b**n for a step count n ≥ 1, rounded once to float64 as C's
// pow (what Python's ** calls) rounds it; math.Pow can be a few ulps off,
// which float64 parameters would show.
func powInt(b float64, n int) float64 {
	const prec = 256
	x := new(big.Float).SetPrec(prec).SetFloat64(b)
	r := new(big.Float).SetPrec(prec).SetFloat64(1)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r.Mul(r, x)
		}
		x.Mul(x, x)
	}
	f, _ := r.Float64()
	return f
}
