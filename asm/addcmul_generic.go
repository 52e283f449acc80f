package asm

import "math"

// Pure-Go twins of the addcmul kernels. Each loop is what its assembly
// does.

// addcmulGo32 computes each fma(a, b, c), a = v·t1[i] rounded, by a
// shorter road than fma32 where it can. The product of two float32s is
// exact in float64, so the float64 sum s is the exact value rounded once;
// rounding s to float32 then rounds the exact value too, unless s fell on a
// float32 midpoint (its 29 bits below float32's precision 1 followed by
// zeros: a midpoint strictly between s and the exact value would have been
// nearer, so only there can the two roundings disagree) or in float32's
// subnormal range, where fma32 (round to odd) decides. (The test is written
// out in the loop: as a function it is not inlined, and the call per
// element costs more than the arithmetic.)
func addcmulGo32(d, x, t1, t2 []float32, v float32) {
	x, t1, t2 = x[:len(d)], t1[:len(d)], t2[:len(d)]
	for i := range d {
		a, b, c := float32(v*t1[i]), t2[i], x[i]
		s := float64(float64(a)*float64(b)) + float64(c)
		if math.Float64bits(s)&(1<<29-1) == 1<<28 || math.Abs(s) < 0x1p-126 {
			s = float64(fma32(a, b, c))
		}
		d[i] = float32(s)
	}
}

func addcmulGo64(d, x, t1, t2 []float64, v float64) {
	for i := range d {
		d[i] = math.FMA(float64(v*t1[i]), t2[i], x[i])
	}
}

var addcmulGo = addcmulTable{f32: addcmulGo32, f64: addcmulGo64}
