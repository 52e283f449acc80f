//go:build purego || !amd64

package asm

// winoAsm: no assembly for the Winograd transforms here.
const winoAsm = false

func winoInRun(v []float32, ldp, ldc int, x []float32, cs, ldx, n int, k *winoKernelArgs) {
	winoInGo(v, ldp, ldc, x, cs, ldx, n, k)
}

func winoOutRun(y []float32, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, k *winoKernelArgs) bool {
	return winoOutGo(y, cs, ldy, m, ldp, ldc, n, bias, k)
}

func winoGradRun(v []float32, ldp, ldc int, y []float32, cs, ldy, n int, k *winoKernelArgs) {
	winoGradGo(v, ldp, ldc, y, cs, ldy, n, k)
}
