package optim

import (
	"math"
	"math/big"
)

// cosPrec is the working precision of cos, far beyond float64's 53 bits.
const cosPrec = 320

// bigPi is π to cosPrec bits.
var bigPi, _, _ = big.ParseFloat("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196", 10, cosPrec, big.ToNearestEven)

// cos is the cosine rounded once to the nearest float64, which is what
// glibc's cos (behind Python's math.cos, in PyTorch's cosine schedules)
// returns. Go's math.Cos can be an ulp off, and a recursive schedule
// carries such an ulp along: CosineAnnealingLR's rates would drift from
// PyTorch's after a few steps.
func cos(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	if math.Abs(x) > 1e6 {
		return math.Cos(x) // far beyond any schedule; reduction would need more bits
	}
	// r = x - 2π·round(x/2π), |r| ≤ π.
	bx := new(big.Float).SetPrec(cosPrec).SetFloat64(x)
	twoPi := new(big.Float).SetPrec(cosPrec).Mul(bigPi, big.NewFloat(2))
	q := new(big.Float).SetPrec(cosPrec).Quo(bx, twoPi)
	qf, _ := q.Float64()
	k := new(big.Float).SetPrec(cosPrec).SetFloat64(math.Round(qf))
	r := new(big.Float).SetPrec(cosPrec).Sub(bx, k.Mul(k, twoPi))
	// Taylor series: Σ (-1)^n r^(2n)/(2n)!.
	r2 := new(big.Float).SetPrec(cosPrec).Mul(r, r)
	sum := new(big.Float).SetPrec(cosPrec).SetInt64(1)
	term := new(big.Float).SetPrec(cosPrec).SetInt64(1)
	eps := new(big.Float).SetPrec(cosPrec).SetMantExp(big.NewFloat(1), -cosPrec)
	for n := int64(1); n < 200; n++ {
		term.Mul(term, r2)
		term.Quo(term, new(big.Float).SetPrec(cosPrec).SetInt64((2*n-1)*(2*n)))
		term.Neg(term)
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	f, _ := sum.Float64()
	return f
}
