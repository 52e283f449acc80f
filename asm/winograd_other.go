//go:build purego || !amd64

package asm

// winoAsm: no assembly for the Winograd transforms here.
const winoAsm = false

func winoInRun(v []float32, ldp, ldc int, x []float32, xoff, cs, ldx, n int, masks *[48]uint16, lanes int) {
	winoInGo(v, ldp, ldc, x, xoff, cs, ldx, n, masks, lanes)
}

func winoOutRun(y []float32, yoff, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, masks *[16]uint16, lanes int) bool {
	return winoOutGo(y, yoff, cs, ldy, m, ldp, ldc, n, bias, masks, lanes)
}
