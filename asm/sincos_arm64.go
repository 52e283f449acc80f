//go:build !purego

package asm

// The NEON kernels of sin and cos (sincos_arm64.s), and the hand-off that
// they and gelu_tanh's (gelutanh_arm64.go) share.

// sinCosF32 sets d[i] = sinGo1(x[i]) (k = 0) or cosGo1(x[i]) (k = 1) up to
// the first vector of four (or, in the tail, the first element) holding
// |x| ≥ 1e6, an Inf or a NaN, and returns the elements done.
//
//go:noescape
func sinCosF32(d, x []float32, k int) int

func sinStop(d, x []float32) int { return sinCosF32(d, x, 0) }
func cosStop(d, x []float32) int { return sinCosF32(d, x, 1) }

func sinF32NEON(d, x []float32) { runStopping(d, x, sinStop, uSin) }
func cosF32NEON(d, x []float32) { runStopping(d, x, cosStop, uCos) }

// runStopping runs kernel, which stops before a vector it leaves to the
// twin and returns the elements done, and where it stops the twin of op
// on the next four elements (or fewer at the end), then the kernel again.
// The twin is called through unaryGo, not directly: that is the function
// the tests compare with (an inlined copy could fuse its arithmetic
// differently).
func runStopping(d, x []float32, kernel func(d, x []float32) int, op unaryOp) {
	for i := 0; i < len(d); {
		i += kernel(d[i:], x[i:])
		if i < len(d) {
			m := min(i+4, len(d))
			unaryGo[op](d[i:m], x[i:m])
			i = m
		}
	}
}
