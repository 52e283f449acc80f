//go:build !purego

package asm

// The Winograd transforms (winograd_amd64.s), AVX-512 only: the gathers
// and scatters of a vector of channels a plane apart. An AVX2 machine keeps
// the GEMM (WinogradFast).

//go:noescape
func winoInF32AVX512(v []float32, ldv int, x []float32, xoff, cs, ldx, n int, valid uint64, s []float32)

//go:noescape
func winoOutF32AVX512(y []float32, yoff, cs, ldy int, m []float32, ldm, n int, bias []float32, hasBias int, valid uint64, s []float32) bool

var winoAsm = useAVX512

// winoMaxStride bounds a channel stride the kernels take: their gathers
// and scatters index the 16 channels of a vector with 32-bit offsets.
const winoMaxStride = (1<<31 - 1) / 16

func winoInRun(v []float32, ldv int, x []float32, xoff, cs, ldx, n int, valid uint64) {
	if winoUseAsm && cs <= winoMaxStride {
		var s [36 * 16]float32
		winoInF32AVX512(v, ldv, x, xoff, cs, ldx, n, valid, s[:])
		return
	}
	winoInGo(v, ldv, x, xoff, cs, ldx, n, valid)
}

func winoOutRun(y []float32, yoff, cs, ldy int, m []float32, ldm, n int, bias []float32, valid uint16) bool {
	if winoUseAsm && cs <= winoMaxStride {
		var s [24 * 16]float32
		hasBias := 0
		if bias != nil {
			hasBias = 1
		}
		return winoOutF32AVX512(y, yoff, cs, ldy, m, ldm, n, bias, hasBias, uint64(valid), s[:])
	}
	return winoOutGo(y, yoff, cs, ldy, m, ldm, n, bias, valid)
}
