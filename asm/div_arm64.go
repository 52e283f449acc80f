//go:build !purego

package asm

import "math"

// The NEON float32 reciprocal and division kernels (div_arm64.s).

//go:noescape
func reciprocalF32(d, x []float32)

//go:noescape
func divVV32(d, x, y []float32)

//go:noescape
func divVS32(d, x []float32, s, r float32)

//go:noescape
func divSV32(d []float32, s float32, y []float32)

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
