package asm

import "math"

// Pure-Go twins of the unary float32 kernels. Each function below is,
// operation for operation, what the assembly computes in one lane: every
// float32 operation rounds as the vector instruction does and fma32 stands
// for VFMADD…PS, so twin and kernel agree bit for bit.
//
// The polynomial coefficients are float32 minimax fits (of relative error,
// coefficients rounded to float32 one at a time from the lowest, the rest
// refitted) on the ranges stated beside them.

const (
	expHi = 89.0   // exp saturates above: e^89 overflows float32
	expLo = -120.0 // and is zero below (the scale factors stay normal down to here)
	log2e = float32(1.44269504088896341)
	ln2Hi = float32(0.693359375)    // 9 bits of ln 2: n·ln2Hi is exact
	ln2Lo = float32(-2.12194440e-4) // ln 2 - ln2Hi
)

// expQ: e^r = 1 + r + r²·Q(r) on |r| ≤ ln2/2 (relative error 3.1e-9).
var expQ = [5]float32{0.4999999403953552, 0.1666652113199234, 0.04166825860738754, 0.008368668146431446, 0.0013821333413943648}

// logP: log(1+f) = f - f²/2 + f³·P(f) on √½-1 ≤ f ≤ √2-1 (5.8e-9).
var logP = [8]float32{0.3333333134651184, -0.2500081956386566, 0.2000124305486679, -0.1662341058254242, 0.14201539754867554, -0.13159550726413727, 0.12762485444545746, -0.07636940479278564}

// tanhP: tanh(x) = x + x³·P(x²) on |x| ≤ 0.625 (4.5e-9).
var tanhP = [5]float32{-0.3333328068256378, 0.1333140730857849, -0.053736716508865356, 0.020629001781344414, -0.005693382117897272}

// erfP: erf(z) = z·(c0 + P(z²)) on |z| ≤ 1 with c0 = 2/√π rounded to
// float32 and P's constant term carrying c0's rounding error (1.2e-9).
const erfC0 = float32(1.128379225730896)

var erfP = [7]float32{-6.000001917527698e-08, -0.3761262595653534, 0.11283586174249649, -0.026853838935494423, 0.00518835661932826, -0.0008010296733118594, 7.85380179877393e-05}

// erfcH: erfc(z) = e^{-z²}·t·H(t) with t = 2/(2+z), on 0.5 ≤ z ≤ 10.6
// (2.8e-9).
var erfcH = [10]float32{0.2820875346660614, 0.2822936773300171, 0.2445094883441925, 0.19141368567943573, 0.024200474843382835, 0.13931621611118317, -0.25302526354789734, 0.0457412414252758, 0.07581278681755066, -0.03237973153591156}

// horner evaluates c[0] + x·(c[1] + x·(…)) with fused steps.
func horner(c []float32, x float32) float32 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = fma32(p, x, c[i])
	}
	return p
}

// vmax and vmin are VMAXPS/VMINPS with the limit first: a NaN x stays.
func vmax(lim, x float32) float32 {
	if lim > x {
		return lim
	}
	return x
}

func vmin(lim, x float32) float32 {
	if lim < x {
		return lim
	}
	return x
}

// cvt is VCVTPS2DQ: round to nearest even, MinInt32 when out of range or NaN.
func cvt(x float32) int32 {
	r := math.RoundToEven(float64(x))
	if !(r >= math.MinInt32 && r <= math.MaxInt32) {
		return math.MinInt32
	}
	return int32(r)
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// copysign32 gives |x| the sign of s.
func copysign32(x, s float32) float32 {
	return math.Float32frombits(math.Float32bits(x)&^(1<<31) | math.Float32bits(s)&(1<<31))
}

// expReduce returns n = round(x·log2 e) and r = x - n·ln 2 (ln 2 in two
// parts, n·ln2Hi exact), |r| ≤ ln2/2 + a little.
func expReduce(x float32) (n, r float32) {
	n = float32(math.RoundToEven(float64(x * log2e)))
	r = fma32(n, -ln2Hi, x)
	return n, fma32(n, -ln2Lo, r)
}

// expm1Poly is e^r - 1 = r + r²·Q(r) for the reduced r.
func expm1Poly(r float32) float32 { return fma32(horner(expQ[:], r), r*r, r) }

// expParts returns y, s1, s2 with e^x = (y·s1)·s2: y = e^r for the
// reduced r = x - n·ln 2 and s1·s2 = 2^n split so that both are normal
// (that way a subnormal e^x is rounded once, by the last multiply). x is
// clamped to [expLo, expHi]; below expLo y is 0 (a NaN stays NaN).
func expParts(x float32) (y, s1, s2 float32) {
	below := x < expLo
	x = vmin(expHi, vmax(expLo, x))
	n, r := expReduce(x)
	y = expm1Poly(r) + 1
	k := cvt(n)
	k1 := k >> 1
	k2 := k - k1
	s1 = math.Float32frombits(uint32(k1+127) << 23)
	s2 = math.Float32frombits(uint32(k2+127) << 23)
	if below {
		y = 0
	}
	return y, s1, s2
}

func expGo1(x float32) float32 {
	y, s1, s2 := expParts(x)
	return (y * s1) * s2
}

func logGo1(x float32) float32 {
	tiny := x < 0x1p-126 // subnormal (or not positive): scale up by 2^23
	xs, adj := x, int32(0)
	if tiny {
		xs, adj = x*0x1p23, 23
	}
	b := math.Float32bits(xs)
	e := int32(b>>23) - 126 - adj
	m := math.Float32frombits(b&0x007fffff | 0x3f000000) // [0.5, 1)
	if m < 0.70710678118654752 {
		e--
		m += m
	}
	f := m - 1
	ef := float32(e)
	z := f * f
	y := (horner(logP[:], f) * z) * f
	y = fma32(ef, ln2Lo, y)
	y = fma32(z, -0.5, y)
	r := f + y
	r = fma32(ef, ln2Hi, r)
	if x == 0 {
		r = float32(math.Inf(-1))
	}
	if x < 0 {
		r = float32(math.NaN())
	}
	if !(x < float32(math.Inf(1))) { // +Inf or NaN: itself
		r = x
	}
	return r
}

func tanhGo1(x float32) float32 {
	a := abs32(x)
	z := x * x
	small := fma32(x*z, horner(tanhP[:], z), x)
	y, s1, s2 := expParts(a + a)
	e := (y * s1) * s2
	r := 1 - 2/(e+1)
	if a < 0.625 {
		r = small
	}
	return copysign32(r, x) // tanh is odd; this keeps tanh(-0) = -0
}

func sigmoidGo1(x float32) float32 {
	y, s1, s2 := expParts(-abs32(x))
	e := (y * s1) * s2
	num := float32(1)
	if x < 0 {
		num = e
	}
	return num / (1 + e)
}

// erf and gelu_tanh compute in float64 and round once at the end: erfc's
// tail is steep (erfc(z) ~ e^{-z²}), so float32 rounding of z or of
// t = 2/(2+z) would be amplified several times in the result; in float64
// the result is within about half an ulp of float32. exp64 serves them.
// (gelu has its own float32 form below, with t² split exactly.)

const (
	ln2Hi64 = 6.93147180369123816490e-01 // 43 bits of ln 2: n·ln2Hi64 is exact
	ln2Lo64 = 1.90821492927058770002e-10 // ln 2 - ln2Hi64
	exp64Lo = -700.0                     // exp64 is 0 below (e^-700 is still normal)
)

// expT: e^r = 1 + r + r²·T(r), Taylor to r^8 (|r| ≤ ln2/2: error 2e-10).
var expT = [7]float64{1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320}

// exp64 is e^x for x ≤ 0 to about 2^-32 relative: n = round(x/ln 2),
// r = x - n·ln 2 in two parts, the Taylor polynomial, and 2^n from n's bits;
// 0 below exp64Lo (a NaN stays NaN).
func exp64(x float64) float64 {
	below := x < exp64Lo
	if exp64Lo > x {
		x = exp64Lo
	}
	n := math.RoundToEven(x * math.Log2E)
	r := math.FMA(-n, ln2Hi64, x)
	r = math.FMA(-n, ln2Lo64, r)
	y := math.FMA(horner64(expT[:], r), r*r, r) + 1
	m := math.Float64bits(n + 0x1.8p52) // n in the low bits
	s := math.Float64frombits((m + 1023) << 52)
	if below {
		return 0
	}
	return y * s
}

// erfP64 and erfcH64 are erfP and erfcH as float64.
var (
	erfP64  = widen(erfP[:])
	erfcH64 = widen(erfcH[:])
)

func widen(c []float32) []float64 {
	w := make([]float64, len(c))
	for i, v := range c {
		w[i] = float64(v)
	}
	return w
}

// erfPoly64 is erf(z) for |z| < 1.
func erfPoly64(z float64) float64 {
	return math.FMA(z, float64(erfC0), z*horner64(erfP64, z*z))
}

// erfc64 is erfc(a) = e^{-zz}·t·H(t), t = 2/(2+a), for 0.5 ≤ a ≤ 10.6 and
// zz = a² (zz from the unclamped argument, so that e^{-zz} is 0 far out).
func erfc64(a, zz float64) float64 {
	t := 2 / (2 + a)
	return (exp64(-zz) * t) * horner64(erfcH64, t)
}

func vmin64(lim, x float64) float64 {
	if lim < x {
		return lim
	}
	return x
}

func erfGo1(x float32) float32 {
	z := float64(x)
	a := vmin64(10.6, math.Abs(z))
	r := 1 - erfc64(a, a*a)
	if math.Abs(z) < 1 {
		r = erfPoly64(z)
	}
	return float32(math.Copysign(r, z)) // erf is odd; this keeps erf(-0) = -0
}

// geluA and geluB: Φ(-t) = e^{-t²/2}·q, q = b/(c·t·b + a) with c = √(2π) and the
// polynomials a(t), b(t) (b monic) fitted on 0 ≤ t ≤ geluTMax. That is
// the Mills ratio 1/(t + ρ), ρ = a/(c·b) > 0: the sum does not cancel, and
// the rounding errors of a and b reach the result damped by ρ/(t + ρ)
// (and those of b in part cancel). Every coefficient is positive; a(0) =
// 2·b(0), so that Φ(0) = ½ exactly; relative error of the fit 2.2e-9.
var (
	geluA = [5]float32{799.9273681640625, 504.45599365234375, 166.7001953125, 29.958545684814453, 2.506873607635498}
	geluB = [6]float32{399.96368408203125, 434.38330078125, 226.53790283203125, 68.39605712890625, 11.956655502319336, 1}
)

const (
	geluC    = float32(2.5066282746310002) // √(2π)
	geluTMax = 14.5                        // |x·Φ(x)| < 2^-150 below -geluTMax: the result is -0
)

// geluGo1 is x·Φ(x) = ½x·(1 + erf(x/√2)) in float32. With t = |x|
// (clamped to geluTMax) it computes gelu(-t) = -t·Φ(-t), Φ(-t) =
// e^{-t²/2}·q as above, and returns it for x < 0 (-0 below -geluTMax)
// and x + gelu(-t) for x ≥ 0. e^{-t²/2} comes from t² split exactly into
// s + e (e = fma(t, t, -s)): n = round(-s/2·log2 e), r = -s/2 - n·ln 2 -
// e/2, e^r = 1 + ym. 1 + ym is applied by one fused step (v + v·ym), and
// 2^n last as 2^(n+64) (exact) and 2^-64, so that a subnormal result is
// rounded once.
func geluGo1(x float32) float32 {
	t := vmin(geluTMax, abs32(x)) // a NaN stays
	s := t * t
	e := fma32(t, t, -s) // t² = s + e exactly
	a := -0.5 * s        // exact, in [-105.125, 0]
	n, r := expReduce(a)
	r = fma32(e, -0.5, r)
	ym := expm1Poly(r)                                      // e^r - 1
	sc := math.Float32frombits(uint32(cvt(n)+127+64) << 23) // 2^(n+64), n ≥ -152
	b := horner(geluB[:], t)
	q := b / fma32(t*geluC, b, horner(geluA[:], t)) // e^{t²/2}·Φ(-t)
	v := -t * q
	g := (fma32(v, ym, v) * sc) * 0x1p-64 // gelu(-t) = -t·Φ(-t), rounded once
	switch {
	case x != x:
		return t + t // a NaN x: quiet, its sign cleared (t = |x|), as the kernels
	case x < 0:
		if x < -math.MaxFloat32 {
			return geluNaN // -Inf: NaN, as PyTorch's ½x·(1 + erf)
		}
		return g
	}
	return x + g // gelu(x) = x - t·Φ(-t)
}

// geluNaN is gelu(-Inf): amd64's default NaN (-Inf - -Inf), which the
// kernels give on every machine (arm64's own default NaN is positive).
var geluNaN = math.Float32frombits(0xffc00000)

const (
	geluBeta2 = 2 * 0.7978845608028654 // 2·√(2/π)
	geluKappa = 0.044715
)

// sigmoidMul64 is x·σ(u) in float64: x/(1+e) for u ≥ 0 and x·e/(1+e)
// below, with e = e^{-|u|} ≤ 1 (no overflow, and the result is a NaN for
// x = -Inf, as PyTorch's x/(1+e^{-x}) is).
func sigmoidMul64(x, u float64) float32 {
	e := exp64(-math.Abs(u))
	num := x
	if u < 0 {
		num = x * e
	}
	return float32(num / (1 + e))
}

// siluGo1 is x / (e^-x + 1) in float32 with expGo1, PyTorch's operations.
func siluGo1(x float32) float32 { return x / (expGo1(-x) + 1) }

// geluTanhGo1 is ½x·(1 + tanh(u/2)) = x·σ(u), u = 2·√(2/π)·(x + κx³).
func geluTanhGo1(x float32) float32 {
	xd := float64(x)
	return sigmoidMul64(xd, geluBeta2*math.FMA(geluKappa, (xd*xd)*xd, xd))
}

func reluGo1(x float32) float32 {
	if x < 0 {
		return 0
	}
	return x
}

func negGo1(x float32) float32        { return math.Float32frombits(math.Float32bits(x) ^ (1 << 31)) }
func sqrtGo1(x float32) float32       { return float32(math.Sqrt(float64(x))) }
func rsqrtGo1(x float32) float32      { return 1 / float32(math.Sqrt(float64(x))) }
func reciprocalGo1(x float32) float32 { return 1 / x }

// sinCos64 is sin (cos when cos is set) of x in float64: x - n·π/2 with
// π/2 in three parts (n·pio2A is exact for n < 2^20), then the Taylor
// polynomials of sin and cos to degree 9 and 10 on |r| ≤ π/4, picked and
// negated by n mod 4. Valid for |x| < sinCosMax.
func sinCos64(x float64, cos bool) float64 {
	n := math.RoundToEven(x*(2/math.Pi)) + 0 // +0, not -0, so that r keeps the sign of x = -0
	r := x - n*pio2A
	r = math.FMA(-n, pio2B, r)
	r = math.FMA(-n, pio2C, r)
	rr := r * r
	s := math.Copysign(math.FMA(r*rr, horner64(sinT[:], rr), r), r) // keeps sin(-0) = -0
	c := math.FMA(rr, horner64(cosT[:], rr), 1)
	q := int64(n + 0x1.8p52) // n mod 4 in the low bits, as the kernel reads them
	if cos {
		q++
	}
	v := s
	if q&1 != 0 {
		v = c
	}
	if q&2 != 0 {
		v = -v
	}
	return v
}

const (
	sinCosMax = 1e6                   // |x| from here is left to math.Sin/math.Cos
	pio2A     = 1.5707963267341256    // π/2 to 33 bits
	pio2B     = 6.077100506506192e-11 // the next 53 bits
	pio2C     = 3.5215598651832e-27   // the rest
)

// sinT and cosT are Taylor coefficients: sin r = r + r³·S(r²), cos r =
// 1 + r²·C(r²).
var (
	sinT = [4]float64{-1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880}
	cosT = [5]float64{-1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800}
)

func horner64(c []float64, x float64) float64 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = math.FMA(p, x, c[i])
	}
	return p
}

func sinGo1(x float32) float32 { return sinCosGo1(x, false) }
func cosGo1(x float32) float32 { return sinCosGo1(x, true) }

func sinCosGo1(x float32, cos bool) float32 {
	xd := float64(x)
	if !(math.Abs(xd) < sinCosMax) {
		if cos {
			return float32(math.Cos(xd))
		}
		return float32(math.Sin(xd))
	}
	return float32(sinCos64(xd, cos))
}

// mapGo applies f to every element.
func mapGo(f func(float32) float32) func(d, x []float32) {
	return func(d, x []float32) {
		for i := range d {
			d[i] = f(x[i])
		}
	}
}
