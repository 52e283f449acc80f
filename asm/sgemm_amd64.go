//go:build !purego

package asm

import "unsafe"

// sgemmImpls lists the fp32 micro-kernels this CPU can run, best first; the
// last is always the pure-Go twin. Sgemm uses the first.
//
// Blocking: with AVX-512 a 12×32 tile (24 ZMM accumulators), with AVX2 a
// 6×16 tile (12 YMM accumulators); for both, a sliver of packed B fills two
// thirds of L1 (kc 256 and 512 on Zen 5's 48 KiB, 168 and 336 on Zen 3's
// 32 KiB) and a block of packed A about 144 KiB of L2.
var (
	sgemmKC512 = l1Depth(32 * 4)
	sgemmKC2   = l1Depth(16 * 4)
)

var sgemmImpls = available(
	gemmImpl[float32]{"avx512", useAVX512, blocking{mr: 12, nr: 32, kc: sgemmKC512, mc: l2Rows(sgemmKC512, 4, 12), nc: 4096}, sgemmAVX512, []kernel[float32]{sgemmAVX512Rows4, sgemmAVX512Rows8},
		sgemmAVX512Set, []kernel[float32]{sgemmAVX512SetRows4, sgemmAVX512SetRows8}},
	gemmImpl[float32]{"avx2", useAVX2FMA, blocking{mr: 6, nr: 16, kc: sgemmKC2, mc: l2Rows(sgemmKC2, 4, 6), nc: 4080}, sgemmAVX2, nil, sgemmAVX2Set, nil},
	gemmImpl[float32]{"go", true, blocking{mr: 6, nr: 16, kc: 256, mc: 144, nc: 4080}, sgemmGo6x16, nil, nil, nil},
)

// sgemmKernel12x32 is the AVX-512 micro-kernel for a 12×32 tile: it adds
// Σ_{p<k} a[p*12+i]*b[p*32+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func sgemmKernel12x32(k int, a, b, c *float32, ldc int)

// sgemmKernel6x16 is the AVX2+FMA micro-kernel for a 6×16 tile: it adds
// Σ_{p<k} a[p*6+i]*b[p*16+j] to c[i*ldc+j]. a, b and c must hold the tile.
//
//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32, ldc int)

func sgemmAVX512(k int, a, b, c []float32, ldc int) {
	sgemmKernel12x32(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmAVX2(k int, a, b, c []float32, ldc int) {
	sgemmKernel6x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmGo6x16(k int, a, b, c []float32, ldc int) { gemmKernelGo[float32](6, 16, k, a, b, c, ldc) }

// sgemmKernel8x32 and sgemmKernel4x32 (gemm12_amd64.s) do the first 8 and 4 rows of
// the AVX-512 tile: the bottom edge of C.
//
//go:noescape
func sgemmKernel8x32(k int, a, b, c *float32, ldc int)

//go:noescape
func sgemmKernel4x32(k int, a, b, c *float32, ldc int)

func sgemmAVX512Rows4(k int, a, b, c []float32, ldc int) {
	sgemmKernel4x32(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmAVX512Rows8(k int, a, b, c []float32, ldc int) {
	sgemmKernel8x32(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

// The Set kernels (gemm12_amd64.s, gemm6_amd64.s) are the kernels above
// that store the tile's sums into c instead of adding them (c not read).
//
//go:noescape
func sgemmKernelSet12x32(k int, a, b, c *float32, ldc int)

//go:noescape
func sgemmKernelSet8x32(k int, a, b, c *float32, ldc int)

//go:noescape
func sgemmKernelSet4x32(k int, a, b, c *float32, ldc int)

//go:noescape
func sgemmKernelSet6x16(k int, a, b, c *float32, ldc int)

func sgemmAVX512Set(k int, a, b, c []float32, ldc int) {
	sgemmKernelSet12x32(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmAVX512SetRows4(k int, a, b, c []float32, ldc int) {
	sgemmKernelSet4x32(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmAVX512SetRows8(k int, a, b, c []float32, ldc int) {
	sgemmKernelSet8x32(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

func sgemmAVX2Set(k int, a, b, c []float32, ldc int) {
	sgemmKernelSet6x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}
