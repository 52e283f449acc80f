//go:build !purego

package asm

// The AVX2+FMA Sgemv kernels (gemv_amd64.s).

// gemvNF32 is gemvNGo for len(y) a multiple of 8; b must hold
// (len(x)-1)·ldb + len(y) elements. It prefetches pf bytes ahead of its
// loads in B.
//
//go:noescape
func gemvNF32(y, x, b []float32, ldb, pf int)

// gemvAhead is how far ahead of their loads the kernels prefetch, in bytes,
// with PREFETCHNTA (gemvTAhead in gemv_amd64.s). On the project's Zen 5, in
// one pass over GPT-2-small's weights from DRAM (one core, thread CPU time,
// paired runs), the nn.Linear kernel took 0.88–0.93 of the time it took
// with PREFETCHT0 1 KiB ahead on every other line; PREFETCHT0 at 4 KiB,
// 0.91–0.94; PREFETCHNTA at 2, 3, 5 or 6 KiB, 0.89–1.0 (bench/README.md,
// "gemv26"). One core reads about 40 GB/s whatever the prefetch.
const gemvAhead = 4096

// gemvNAhead is gemvNF32's prefetch distance for a block of w columns of
// rows ldb apart: gemvAhead along the rows when they are adjacent, else
// the same columns as many rows on as make up gemvAhead.
func gemvNAhead(w, ldb int) int {
	if ldb == w {
		return gemvAhead
	}
	return (gemvAhead + 4*w - 1) / (4 * w) * 4 * ldb
}

// gemvTLanesF32 is gemvTLanesGo for len(lanes) a multiple of 8; b must
// hold the rows' first len(x)&^7 elements.
//
//go:noescape
func gemvTLanesF32(lanes, x, b []float32, ldb int)

// gemvN runs gemvNF32, or its twin without AVX2+FMA.
func gemvN(y, x, b []float32, ldb int) {
	if len(y) == 0 || len(x) == 0 {
		gemvNGo(y, x, b, ldb)
		return
	}
	_ = b[(len(x)-1)*ldb+len(y)-1] // the kernel reads this far
	if useAVX2FMA && len(y)%8 == 0 {
		gemvNF32(y, x, b, ldb, gemvNAhead(len(y), ldb))
		return
	}
	gemvNGo(y, x, b, ldb)
}

// gemvTLanes runs gemvTLanesF32, or its twin without AVX2+FMA.
func gemvTLanes(lanes, x, b []float32, ldb int) {
	rows, k8 := len(lanes)/8, len(x)&^7
	if rows > 0 && k8 > 0 {
		_ = b[(rows-1)*ldb+k8-1] // the kernel reads this far
	}
	if useAVX2FMA && len(lanes)%8 == 0 {
		gemvTLanesF32(lanes, x, b, ldb)
		return
	}
	gemvTLanesGo(lanes, x, b, ldb)
}
