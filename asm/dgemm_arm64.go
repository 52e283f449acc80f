//go:build !purego

package asm

import "unsafe"

// dgemmBlocking: an 8×4 tile (16 NEON accumulators); a 256-deep sliver of B
// is 8 KiB (L1), a 64×256 block of A 128 KiB (L2).
var dgemmBlocking = blocking{mr: 8, nr: 4, kc: 256, mc: 64, nc: 4096}

// dgemmKernel8x4 is the NEON micro-kernel for an 8×4 tile: it adds
// Σ_{p<k} a[p*8+i]*b[p*4+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func dgemmKernel8x4(k int, a, b, c *float64, ldc int)

// dgemmKernel runs the micro-kernel of the active path.
func dgemmKernel(k int, a, b, c []float64, ldc int) {
	if useNEON {
		dgemmKernel8x4(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
		return
	}
	dgemmKernelGo(8, 4, k, a, b, c, ldc)
}
