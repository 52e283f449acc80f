//go:build !purego

package asm

// The Winograd transforms (winograd_amd64.s), AVX-512 only: masked loads
// and stores of whole rows, dealt into tiles by two-table permutes. An
// AVX2 machine keeps the GEMM (WinogradFast).

//go:noescape
func winoInF32AVX512(v []float32, ldp, ldc int, x []float32, cs, ldx, n int, k *winoKernelArgs, s []float32)

//go:noescape
func winoOutF32AVX512(y []float32, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, hasBias int, k *winoKernelArgs, s []float32) bool

//go:noescape
func winoGradF32AVX512(v []float32, ldp, ldc int, y []float32, cs, ldy, n int, k *winoKernelArgs, s []float32)

var winoAsm = useAVX512

func winoGradRun(v []float32, ldp, ldc int, y []float32, cs, ldy, n int, k *winoKernelArgs) {
	if winoUseAsm {
		var s [24 * 16]float32
		winoGradF32AVX512(v, ldp, ldc, y, cs, ldy, n, k, s[:])
		return
	}
	winoGradGo(v, ldp, ldc, y, cs, ldy, n, k)
}

func winoInRun(v []float32, ldp, ldc int, x []float32, cs, ldx, n int, k *winoKernelArgs) {
	if winoUseAsm {
		var s [36 * 16]float32
		winoInF32AVX512(v, ldp, ldc, x, cs, ldx, n, k, s[:])
		return
	}
	winoInGo(v, ldp, ldc, x, cs, ldx, n, k)
}

func winoOutRun(y []float32, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, k *winoKernelArgs) bool {
	if winoUseAsm {
		var s [24 * 16]float32
		hasBias := 0
		if bias != nil {
			hasBias = 1
		}
		return winoOutF32AVX512(y, cs, ldy, m, ldp, ldc, n, bias, hasBias, k, s[:])
	}
	return winoOutGo(y, cs, ldy, m, ldp, ldc, n, bias, k)
}
