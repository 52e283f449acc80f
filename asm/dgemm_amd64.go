//go:build !purego

package asm

import "unsafe"

// dgemmImpls lists the fp64 micro-kernels this CPU can run, best first; the
// last is always the pure-Go twin. Dgemm uses the first.
//
// Blocking: with AVX-512 a 12×16 tile (24 ZMM accumulators), with AVX2 a
// 6×8 tile (12 YMM accumulators); for both, a sliver of packed B fills two
// thirds of L1 and a block of packed A about 144 KiB of L2 (see sgemmImpls).
var (
	dgemmKC512 = l1Depth(16 * 8)
	dgemmKC2   = l1Depth(8 * 8)
)

var dgemmImpls = available(
	gemmImpl[float64]{"avx512", useAVX512, blocking{mr: 12, nr: 16, kc: dgemmKC512, mc: l2Rows(dgemmKC512, 8, 12), nc: 4096}, dgemmAVX512, []kernel[float64]{dgemmAVX512Rows4, dgemmAVX512Rows8},
		dgemmAVX512Set, []kernel[float64]{dgemmAVX512SetRows4, dgemmAVX512SetRows8}},
	gemmImpl[float64]{"avx2", useAVX2FMA, blocking{mr: 6, nr: 8, kc: dgemmKC2, mc: l2Rows(dgemmKC2, 8, 6), nc: 4080}, dgemmAVX2, nil, dgemmAVX2Set, nil},
	gemmImpl[float64]{"go", true, blocking{mr: 6, nr: 8, kc: 256, mc: 72, nc: 4080}, dgemmGo6x8, nil, nil, nil},
)

// dgemmKernel12x16 is the AVX-512 micro-kernel for a 12×16 tile: it adds
// Σ_{p<k} a[p*12+i]*b[p*16+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func dgemmKernel12x16(k int, a, b, c *float64, ldc int)

// dgemmKernel6x8 is the AVX2+FMA micro-kernel for a 6×8 tile: it adds
// Σ_{p<k} a[p*6+i]*b[p*8+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64, ldc int)

func dgemmAVX512(k int, a, b, c []float64, ldc int) {
	dgemmKernel12x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmAVX2(k int, a, b, c []float64, ldc int) {
	dgemmKernel6x8(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmGo6x8(k int, a, b, c []float64, ldc int) { gemmKernelGo[float64](6, 8, k, a, b, c, ldc) }

// dgemmKernel8x16 and dgemmKernel4x16 (gemm12_amd64.s) do the first 8 and 4 rows of
// the AVX-512 tile: the bottom edge of C.
//
//go:noescape
func dgemmKernel8x16(k int, a, b, c *float64, ldc int)

//go:noescape
func dgemmKernel4x16(k int, a, b, c *float64, ldc int)

func dgemmAVX512Rows4(k int, a, b, c []float64, ldc int) {
	dgemmKernel4x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmAVX512Rows8(k int, a, b, c []float64, ldc int) {
	dgemmKernel8x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

// The Set kernels: see sgemm_amd64.go.
//
//go:noescape
func dgemmKernelSet12x16(k int, a, b, c *float64, ldc int)

//go:noescape
func dgemmKernelSet8x16(k int, a, b, c *float64, ldc int)

//go:noescape
func dgemmKernelSet4x16(k int, a, b, c *float64, ldc int)

//go:noescape
func dgemmKernelSet6x8(k int, a, b, c *float64, ldc int)

func dgemmAVX512Set(k int, a, b, c []float64, ldc int) {
	dgemmKernelSet12x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmAVX512SetRows4(k int, a, b, c []float64, ldc int) {
	dgemmKernelSet4x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmAVX512SetRows8(k int, a, b, c []float64, ldc int) {
	dgemmKernelSet8x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func dgemmAVX2Set(k int, a, b, c []float64, ldc int) {
	dgemmKernelSet6x8(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}
