//go:build !purego

package asm

// The AVX-512 pieces of GeluBackwardF32 (unary512_amd64.s). erf(x·√½) is
// ErfF32's polynomial where |x·√½| < 1 and 1 − erfc elsewhere; computing
// both for every lane (ErfF32's way) made erf two thirds of the time, so a
// chunk runs the polynomial for every lane and packs the other lanes'
// x·√½ into c (geluErfSplitAVX512: about a sixth of the lanes for normal
// x), ErfF32 runs on the packed values, and geluBwdFinishAVX512 puts them
// back into their lanes and computes the rest of the gradient. The same
// bits as the twin geluBwdGo1.

//go:noescape
func geluErfSplitAVX512(t, c, x []float32) (n int)

//go:noescape
func geluBwdFinishAVX512(d, g, x, t, c []float32)

// geluBwdAVX512 is GeluBackwardF32 with those kernels, a chunk at a time.
func geluBwdAVX512(d, g, x []float32) {
	var t [geluBwdChunkLen]float32
	var c [geluBwdChunkLen + 16]float32
	for i := 0; i < len(d); i += geluBwdChunkLen {
		j := min(i+geluBwdChunkLen, len(d))
		if n := geluErfSplitAVX512(t[:j-i], c[:], x[i:j]); n > 0 {
			erfF32AVX512(c[:n], c[:n])
		}
		geluBwdFinishAVX512(d[i:j], g[i:j], x[i:j], t[:j-i], c[:])
	}
}

// geluBwdKernel is the kernel in use, nil for the chunked elementwise ones.
var geluBwdKernel = func() func(d, g, x []float32) {
	if useAVX512 {
		return geluBwdAVX512
	}
	return nil
}()
