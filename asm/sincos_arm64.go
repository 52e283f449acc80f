//go:build !purego

package asm

// The NEON kernels of sin and cos (sincos_arm64.s).

// sinCosF32 sets d[i] = sinGo1(x[i]) (k = 0) or cosGo1(x[i]) (k = 1) up to
// the first vector of four (or, in the tail, the first element) holding
// |x| ≥ 1e6, an Inf or a NaN, and returns the elements done.
//
//go:noescape
func sinCosF32(d, x []float32, k int) int

func sinF32NEON(d, x []float32) { sinCosNEON(d, x, uSin) }
func cosF32NEON(d, x []float32) { sinCosNEON(d, x, uCos) }

// sinCosNEON runs sinCosF32 and, where it stops, the twin on the next
// four elements (or fewer at the end), and then the kernel again. The
// twin is called through unaryGo, not directly: that is the function the
// tests compare with (an inlined copy could fuse its arithmetic
// differently).
func sinCosNEON(d, x []float32, op unaryOp) {
	k := 0
	if op == uCos {
		k = 1
	}
	for i := 0; i < len(d); {
		i += sinCosF32(d[i:], x[i:], k)
		if i < len(d) {
			m := min(i+4, len(d))
			unaryGo[op](d[i:m], x[i:m])
			i = m
		}
	}
}
