//go:build !purego

package asm

import "math"

// The NEON reciprocal (float32) and division (float32, float64) kernels
// (div_arm64.s).

//go:noescape
func reciprocalF32(d, x []float32)

//go:noescape
func divVV32(d, x, y []float32)

//go:noescape
func divVS32(d, x []float32, s, r float32)

//go:noescape
func divSV32(d []float32, s float32, y []float32)

//go:noescape
func divVV64(d, x, y []float64)

//go:noescape
func divVS64(d, x []float64, s, r float64)

//go:noescape
func divSV64(d []float64, s float64, y []float64)

// divInRange reports whether 2^-63 ≤ |s| < 2^63, the operands' range of
// the division kernels (DIVLO, DIVWID in div_arm64.s).
func divInRange(s float32) bool { return math.Float32bits(s)<<1-0x40000000 <= 0x7dffffff }

// divVSNEON is the binary table's vs[opDiv]: divVS32 with r = 1/s, but for
// an s outside the range, which the twin takes.
func divVSNEON(d, x []float32, s float32) {
	if !divInRange(s) {
		divVSGo(d, x, s)
		return
	}
	divVS32(d, x, s, 1/s)
}

// divSVNEON is the binary table's sv[opDiv]: divSV32, but for an s other
// than ±0 outside the range, which the twin takes.
func divSVNEON(d []float32, s float32, y []float32) {
	if s != 0 && !divInRange(s) {
		divSVGo(d, s, y)
		return
	}
	divSV32(d, s, y)
}

// recipKernelsNEON installs the NEON reciprocal into the unary table t.
func recipKernelsNEON(t *[numUnaryOps]func(d, x []float32)) { t[uReciprocal] = reciprocalF32 }

// divKernelsNEON installs the NEON float32 division into the binary table t.
func divKernelsNEON(t *binTable[float32]) {
	t.vv[opDiv], t.vs[opDiv], t.sv[opDiv] = divVV32, divVSNEON, divSVNEON
}

// divInRange64 reports whether 2^-256 ≤ |s| < 2^256, the operands' range
// of the float64 division kernels (lod, himask in div_arm64.s).
func divInRange64(s float64) bool { return math.Float64bits(s)<<1-0x5fe0000000000000 < 1<<62 }

// divVSNEON64 is the binary table's vs[opDiv] for float64: divVS64 with
// r = 1/s, but for an s outside the range, which the twin takes.
func divVSNEON64(d, x []float64, s float64) {
	if !divInRange64(s) {
		divVSGo(d, x, s)
		return
	}
	divVS64(d, x, s, 1/s)
}

// divSVNEON64 is the binary table's sv[opDiv] for float64: divSV64, but
// for an s other than ±0 outside the range, which the twin takes.
func divSVNEON64(d []float64, s float64, y []float64) {
	if s != 0 && !divInRange64(s) {
		divSVGo(d, s, y)
		return
	}
	divSV64(d, s, y)
}

// divKernelsNEON64 installs the NEON float64 division into the binary table t.
func divKernelsNEON64(t *binTable[float64]) {
	t.vv[opDiv], t.vs[opDiv], t.sv[opDiv] = divVV64, divVSNEON64, divSVNEON64
}
