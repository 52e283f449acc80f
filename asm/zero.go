package asm

import "unsafe"

// ZeroF32 sets every element of dst to +0 (clear). A dst that
// StreamsResult is cleared with non-temporal stores from its first 64-byte
// boundary on (on amd64 with AVX2): a large fresh result is written once to
// memory, without reading each line first. nll_loss_backward's 16 MB
// gradient took 1.8x as long with Go's clear (REP STOSQ, issue 25).
func ZeroF32(dst []float32) {
	if len(dst) == 0 {
		return
	}
	if useAVX2FMA && StreamsResult(4*len(dst)) {
		h := alignHead(dst)
		if m := (len(dst) - h) &^ 15; m > 0 {
			clear(dst[:h])
			zeroNT(unsafe.Pointer(&dst[h]), m/16)
			clear(dst[h+m:])
			return
		}
	}
	clear(dst)
}

// StreamsResult reports whether a backward op writing a result of nbytes
// should store it with non-temporal stores (ZeroF32 does so itself; the
// ops pick ThresholdBackwardStreamF32 or GroupNormGradDXStreamF32 for each
// piece): from resultStreamBytes on, a quarter of StreamBytes.
func StreamsResult(nbytes int) bool { return nbytes >= resultStreamBytes }

// resultStreamBytes is a quarter of the elementwise kernels' streamBytes
// (4 MiB on the project machine): a backward op's large result (a gradient
// the op writes once, its inputs streaming through the caches too) took
// 0.55x (nll_loss_backward's 16 MB, zeroed) and 0.77x (group_norm_backward's
// 6.4 MB dx) of the time with non-temporal stores (issue 25).
var resultStreamBytes = streamBytes / 4

// ZeroF64 is ZeroF32 for float64.
func ZeroF64(dst []float64) {
	if len(dst) == 0 {
		return
	}
	ZeroF32(unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), 2*len(dst)))
}
