//go:build !purego

package asm

import "unsafe"

// sgemmImpls lists the fp32 micro-kernels this CPU can run, best first; the
// last is always the pure-Go twin. Sgemm uses the first.
//
// Blocking: an 8×8 tile (16 NEON accumulators); a 256-deep sliver of B is
// 8 KiB (L1), a 128×256 block of A 128 KiB (L2).
var sgemmImpls = available(
	gemmImpl[float32]{"neon", useNEON, blocking{mr: 8, nr: 8, kc: 256, mc: 128, nc: 4096}, sgemmNEON, nil, nil, nil},
	gemmImpl[float32]{"go", true, blocking{mr: 8, nr: 8, kc: 256, mc: 128, nc: 4096}, sgemmGo8x8, nil, nil, nil},
)

// sgemmKernel8x8 is the NEON micro-kernel for an 8×8 tile: it adds
// Σ_{p<k} a[p*8+i]*b[p*8+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func sgemmKernel8x8(k int, a, b, c *float32, ldc int)

func sgemmNEON(k int, a, b, c []float32, ldc int) {
	sgemmKernel8x8(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmGo8x8(k int, a, b, c []float32, ldc int) { gemmKernelGo[float32](8, 8, k, a, b, c, ldc) }
