package libm

import "math"

//go:generate go run gen_sincostab.go

// The constants of glibc's s_sin.c and usncs.h.
const (
	sn3 = -1.66666666666664880952546298448555e-01
	sn5 = 8.33333214285722277379541354343671e-03
	cs2 = 4.99999999999999999999950396842453e-01
	cs4 = -4.16666666666664434524222570944589e-02
	cs6 = 1.38888874007937613028114285595617e-03

	ts1 = -0x1.5555555555555p-3
	ts2 = 0x1.1111111110ECEp-7
	ts3 = -0x1.A01A019DB08B8p-13
	ts4 = 0x1.71DE27B9A7ED9p-19
	ts5 = -0x1.ADDFFC2FCDF59p-26

	big45 = 0x1.8000000000000p45 // big45 + |x| rounds |x| to a multiple of 1/128
	hp0   = 0x1.921FB54442D18p0  // π/2 = hp0 + hp1
	hp1   = 0x1.1A62633145C07p-54
	mp1   = 0x1.921FB58000000p0 // π/2 = mp1 + mp2 + pp3 + pp4
	mp2   = -0x1.DDE973C000000p-27
	pp3   = -0x1.CB3B398000000p-55
	pp4   = -0x1.d747f23e32ed7p-83
	hpinv = 0x1.45F306DC9C883p-1 // 2/π
	toint = 0x1.8000000000000p52
)

// reduceLimit is where glibc leaves its three-constant reduction for a
// multi-precision one (__branred); Sin and Cos use package math beyond it.
const reduceLimit = 105414350

// Sin is glibc's sin(x) (sysdeps/ieee754/dbl-64/s_sin.c, __sin_fma) for
// |x| < 105414350, and math.Sin beyond.
func Sin(x float64) float64 {
	k := uint32(math.Float64bits(x)>>32) & 0x7fffffff
	switch {
	case k < 0x3e500000: // |x| < 2^-26
		return x
	case k < 0x3feb6000: // |x| < 0.855469
		return doSin(x, 0)
	case k < 0x400368fd: // |x| < 2.426265
		t := hp0 - math.Abs(x)
		return math.Copysign(doCos(t, hp1), x)
	case k < 0x419921FB:
		n, a, da := reduceSinCos(x)
		return doSinCos(a, da, n)
	}
	return math.Sin(x)
}

// Cos is glibc's cos(x) (s_sin.c, __cos_fma) for |x| < 105414350, and
// math.Cos beyond.
func Cos(x float64) float64 {
	k := uint32(math.Float64bits(x)>>32) & 0x7fffffff
	switch {
	case k < 0x3e400000: // |x| < 2^-27
		return 1
	case k < 0x3feb6000:
		return doCos(x, 0)
	case k < 0x400368fd:
		y := hp0 - math.Abs(x)
		a := y + hp1
		da := float64(y-a) + hp1
		return doSin(a, da)
	case k < 0x419921FB:
		n, a, da := reduceSinCos(x)
		return doSinCos(a, da, n+1)
	}
	return math.Cos(x)
}

// doCos is cos(x + dx) for |x| < 0.855469: x = x0 + t with x0 a multiple
// of 1/128, sin(t) and cos(t) by short series, and the table's sin(x0),
// cos(x0) as double-doubles.
func doCos(x, dx float64) float64 {
	if x < 0 {
		dx = -dx
	}
	ax := math.Abs(x)
	u := big45 + ax
	x = float64(ax-(u-big45)) + dx
	xx := float64(x * x)
	s := math.FMA(float64(x*xx), math.FMA(xx, sn5, sn3), x)
	c := float64(xx * math.FMA(xx, math.FMA(xx, cs6, cs4), cs2))
	i := (uint32(math.Float64bits(u)) << 2) % uint32(len(sincosTab))
	sn, ssn, cs, ccs := sincosTab[i], sincosTab[i+1], sincosTab[i+2], sincosTab[i+3]
	// cor = (ccs - s·ssn - cs·c) - sn·s
	cor := math.FMA(-sn, s, math.FMA(-cs, c, math.FMA(-s, ssn, ccs)))
	return cs + cor
}

// doSin is sin(x + dx) for |x| < 0.855469: the Taylor series below 0.126,
// else the table as in doCos.
func doSin(x, dx float64) float64 {
	xold := x
	if math.Abs(x) < 0.126 {
		return taylorSin(float64(x*x), x, dx)
	}
	if x <= 0 {
		dx = -dx
	}
	ax := math.Abs(x)
	u := big45 + ax
	x = ax - (u - big45)
	xx := float64(x * x)
	s := x + math.FMA(float64(x*xx), math.FMA(xx, sn5, sn3), dx)
	c := math.FMA(x, dx, float64(xx*math.FMA(xx, math.FMA(xx, cs6, cs4), cs2)))
	i := (uint32(math.Float64bits(u)) << 2) % uint32(len(sincosTab))
	sn, ssn, cs, ccs := sincosTab[i], sincosTab[i+1], sincosTab[i+2], sincosTab[i+3]
	// cor = (ssn + s·ccs - sn·c) + cs·s
	cor := math.FMA(cs, s, math.FMA(-sn, c, math.FMA(s, ccs, ssn)))
	return math.Copysign(sn+cor, xold)
}

// taylorSin is a - a³/3! + a⁵/5! - a⁷/7! + a⁹/9! + (1 - a²)·da/2 with
// xx = a².
func taylorSin(xx, a, da float64) float64 {
	p := math.FMA(ts5, xx, ts4)
	p = math.FMA(p, xx, ts3)
	p = math.FMA(p, xx, ts2)
	p = math.FMA(p, xx, ts1)
	t := math.FMA(math.FMA(p, a, -float64(0.5*da)), xx, da)
	return a + t
}

// reduceSinCos writes x as n·π/2 + (a + da), |a| ≲ π/4, for
// |x| < 105414350; n is returned mod 4.
func reduceSinCos(x float64) (n uint32, a, da float64) {
	t := math.FMA(x, hpinv, toint)
	xn := t - toint
	n = uint32(math.Float64bits(t)) & 3
	y := math.FMA(-xn, mp2, math.FMA(-xn, mp1, x))
	t2 := math.FMA(-xn, pp3, y)
	db := math.FMA(-xn, pp3, y-t2)
	b := math.FMA(-xn, pp4, t2)
	db += math.FMA(-xn, pp4, t2-b)
	return n, b, db
}

// doSinCos is sin(a + da + n·π/2).
func doSinCos(a, da float64, n uint32) float64 {
	var r float64
	if n&1 != 0 {
		r = doCos(a, da)
	} else {
		r = doSin(a, da)
	}
	if n&2 != 0 {
		return -r
	}
	return r
}
