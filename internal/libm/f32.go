package libm

import "math"

// FMA32 is a·b + c rounded once to float32 (C's fmaf). The product is exact
// in float64 and a two-sum recovers the error of the float64 sum, which
// only matters when that sum falls exactly halfway between two float32s.
func FMA32(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact: 24 + 24 bits
	cd := float64(c)
	s := p + cd
	// In float32's normal range s rounds as the exact sum does unless its
	// 29 bits below float32's precision are exactly a half (a tie).
	if math.Float64bits(s)&(1<<29-1) != 1<<28 && math.Abs(s) >= 0x1p-126 {
		return float32(s)
	}
	r := float32(s)
	if float64(r) == s || math.IsInf(s, 0) || s != s {
		return r
	}
	// The exact sum is s + e.
	bb := s - p
	e := float64(p-float64(s-bb)) + float64(cd-bb)
	if e == 0 {
		return r
	}
	lo, hi := r, r
	if float64(r) < s {
		hi = math.Nextafter32(r, float32(math.Inf(1)))
	} else {
		lo = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if s-float64(lo) != float64(hi)-s {
		return r // not a tie: e is far too small to cross the midpoint
	}
	if e > 0 {
		return hi
	}
	return lo
}

// The float32 constants of avx_mathfun.h (Cephes' logf, sinf, cosf).
const (
	cephesSQRTHF = float32(0.707106781186547524)
	logP0        = float32(7.0376836292e-2)
	logP1        = float32(-1.1514610310e-1)
	logP2        = float32(1.1676998740e-1)
	logP3        = float32(-1.2420140846e-1)
	logP4        = float32(+1.4249322787e-1)
	logP5        = float32(-1.6668057665e-1)
	logP6        = float32(+2.0000714765e-1)
	logP7        = float32(-2.4999993993e-1)
	logP8        = float32(+3.3333331174e-1)
	logQ1        = float32(-2.12194440e-4)
	logQ2        = float32(0.693359375)

	minusDP1   = float32(-0.78515625)
	minusDP2   = float32(-2.4187564849853515625e-4)
	minusDP3   = float32(-3.77489497744594108e-8)
	sincofP0   = float32(-1.9515295891e-4)
	sincofP1   = float32(8.3321608736e-3)
	sincofP2   = float32(-1.6666654611e-1)
	coscofP0   = float32(2.443315711809948e-005)
	coscofP1   = float32(-1.388731625493765e-003)
	coscofP2   = float32(4.166664568298827e-002)
	cephesFOPI = float32(1.27323954473516) // 4/π
)

// LogF32x8 is one lane of avx_mathfun.h's log256_ps, as GCC compiles it
// with -mavx2 -mfma: x = m·2^e with m in [√½, √2), log(m) by Cephes'
// degree-9 polynomial, every mul+add that GCC contracts fused. NaN for
// x <= 0; denormals are cut to the smallest normal.
func LogF32x8(x float32) float32 {
	if !(x > 0) {
		return float32(math.NaN())
	}
	x = max(x, math.Float32frombits(0x00800000))
	b := math.Float32bits(x)
	e := float32(int32(b>>23)-0x7f) + 1
	x = math.Float32frombits(b&^0x7f800000 | math.Float32bits(0.5))
	var tmp float32
	if x < cephesSQRTHF {
		tmp = x
		e -= 1
	}
	x -= 1
	x += tmp
	z := float32(x * x)
	y := FMA32(logP0, x, logP1)
	y = FMA32(y, x, logP2)
	y = FMA32(y, x, logP3)
	y = FMA32(y, x, logP4)
	y = FMA32(y, x, logP5)
	y = FMA32(y, x, logP6)
	y = FMA32(y, x, logP7)
	y = FMA32(y, x, logP8)
	y = float32(y * x)
	y = FMA32(y, z, float32(e*logQ1)) // y·z + e·q1: GCC fuses the first product
	y -= float32(z * 0.5)             // exact product: fused or not, one rounding
	x += y
	return FMA32(e, logQ2, x)
}

// SinCosF32x8 is one lane of avx_mathfun.h's sincos256_ps, as GCC compiles
// it with -mavx2 -mfma: x reduced by j·π/4 (j even, three-part π/4), then
// Cephes' sine and cosine polynomials on [-π/4, π/4] picked and signed by j.
func SinCosF32x8(x float32) (sin, cos float32) {
	signSin := math.Float32bits(x) & 0x80000000
	x = math.Float32frombits(math.Float32bits(x) &^ 0x80000000)
	y := float32(x * cephesFOPI)
	j := (int32(y) + 1) &^ 1 // cvttps: truncation
	y = float32(j)
	swapSin := uint32(j&4) << 29
	direct := j&2 == 0 // the sine polynomial gives the sine (else the cosine)
	x = FMA32(y, minusDP1, x)
	x = FMA32(y, minusDP2, x)
	x = FMA32(y, minusDP3, x)
	signCos := uint32(^(j-2)&4) << 29
	signSin ^= swapSin

	z := float32(x * x)
	yc := FMA32(coscofP0, z, coscofP1)
	yc = FMA32(yc, z, coscofP2)
	yc = float32(yc * z)
	yc = FMA32(yc, z, -float32(z*0.5)) // y·z - z·0.5: GCC fuses the first product
	yc += 1

	ys := FMA32(sincofP0, z, sincofP1)
	ys = FMA32(ys, z, sincofP2)
	ys = float32(ys * z)
	ys = FMA32(ys, x, x)

	var s, c float32
	if direct {
		s, c = 0+ys, yc+0
	} else {
		s, c = yc+0, 0+ys
	}
	return math.Float32frombits(math.Float32bits(s) ^ signSin), math.Float32frombits(math.Float32bits(c) ^ signCos)
}
