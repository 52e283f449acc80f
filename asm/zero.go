package asm

import "unsafe"

// ZeroF32 sets every element of dst to +0 (clear). A dst of zeroStreamBytes
// and more is cleared with non-temporal stores from its first 64-byte
// boundary on (on amd64 with AVX2): a large fresh result is written once to
// memory, without reading each line first. nll_loss_backward's 16 MB
// gradient took 1.8x as long with Go's clear (REP STOSQ, issue 25).
func ZeroF32(dst []float32) {
	if len(dst) == 0 {
		return
	}
	if useAVX2FMA && len(dst)*4 >= zeroStreamBytes {
		h := (64 - int(uintptr(unsafe.Pointer(unsafe.SliceData(dst)))%64)) % 64 / 4
		if m := (len(dst) - h) &^ 15; m > 0 {
			clear(dst[:h])
			zeroNT(unsafe.Pointer(&dst[h]), m/16)
			clear(dst[h+m:])
			return
		}
	}
	clear(dst)
}

// zeroStreamBytes is the size from which ZeroF32 streams: a quarter of the
// elementwise kernels' streamBytes, since a cleared result is rarely all
// read back while it could still be in the caches (8 MiB on the project
// machine; nll_loss_backward's 16 MB just under streamBytes).
var zeroStreamBytes = streamBytes / 4

// ZeroF64 is ZeroF32 for float64.
func ZeroF64(dst []float64) {
	if len(dst) == 0 {
		return
	}
	ZeroF32(unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), 2*len(dst)))
}
