//go:build !purego

package asm

import "unsafe"

// dgemmBlocking: a 6×8 tile (12 YMM accumulators); a 256-deep sliver of B
// is 16 KiB (L1), a 72×256 block of A 144 KiB (L2).
var dgemmBlocking = blocking{mr: 6, nr: 8, kc: 256, mc: 72, nc: 4080}

// dgemmKernel6x8 is the AVX2+FMA micro-kernel for a 6×8 tile: it adds
// Σ_{p<k} a[p*6+i]*b[p*8+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64, ldc int)

// dgemmKernel runs the micro-kernel of the active path.
func dgemmKernel(k int, a, b, c []float64, ldc int) {
	if useAVX2FMA {
		dgemmKernel6x8(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
		return
	}
	dgemmKernelGo(6, 8, k, a, b, c, ldc)
}
