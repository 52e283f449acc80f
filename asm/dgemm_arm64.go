//go:build !purego

package asm

import "unsafe"

// dgemmImpls lists the fp64 micro-kernels this CPU can run, best first; the
// last is always the pure-Go twin. Dgemm uses the first.
//
// Blocking: an 8×4 tile (16 NEON accumulators); a 256-deep sliver of B is
// 8 KiB (L1), a 64×256 block of A 128 KiB (L2).
var dgemmImpls = available(
	gemmImpl[float64]{"neon", useNEON, blocking{mr: 8, nr: 4, kc: 256, mc: 64, nc: 4096}, dgemmNEON, nil, nil, nil},
	gemmImpl[float64]{"go", true, blocking{mr: 8, nr: 4, kc: 256, mc: 64, nc: 4096}, dgemmGo8x4, nil, nil, nil},
)

// dgemmKernel8x4 is the NEON micro-kernel for an 8×4 tile: it adds
// Σ_{p<k} a[p*8+i]*b[p*4+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func dgemmKernel8x4(k int, a, b, c *float64, ldc int)

func dgemmNEON(k int, a, b, c []float64, ldc int) {
	dgemmKernel8x4(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmGo8x4(k int, a, b, c []float64, ldc int) { gemmKernelGo[float64](8, 4, k, a, b, c, ldc) }
