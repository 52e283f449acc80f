//go:build purego || !amd64

package asm

// winoAsm: no assembly for the Winograd transforms here.
const winoAsm = false

func winoInRun(v []float32, ldv int, x []float32, xoff, cs, ldx, n int, valid uint64) {
	winoInGo(v, ldv, x, xoff, cs, ldx, n, valid)
}

func winoOutRun(y []float32, yoff, cs, ldy int, m []float32, ldm, n int, bias []float32, valid uint16) bool {
	return winoOutGo(y, yoff, cs, ldy, m, ldm, n, bias, valid)
}
