//go:build !purego

package asm

import "unsafe"

// sgemmBlocking: a 6×16 tile (12 YMM accumulators); a 256-deep sliver of B
// is 16 KiB (L1), a 144×256 block of A 144 KiB (L2).
var sgemmBlocking = blocking{mr: 6, nr: 16, kc: 256, mc: 144, nc: 4080}

// sgemmKernel6x16 is the AVX2+FMA micro-kernel for a 6×16 tile: it adds
// Σ_{p<k} a[p*6+i]*b[p*16+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32, ldc int)

// sgemmKernel runs the micro-kernel of the active path.
func sgemmKernel(k int, a, b, c []float32, ldc int) {
	if useAVX2FMA {
		sgemmKernel6x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
		return
	}
	sgemmKernelGo(6, 16, k, a, b, c, ldc)
}
