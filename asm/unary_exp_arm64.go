//go:build !purego

package asm

// expKernelsNEON installs the NEON kernels of the exp family into t (none
// yet: they run their twins).
func expKernelsNEON(t *[numUnaryOps]func(d, x []float32)) {}
