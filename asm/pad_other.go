//go:build purego || !amd64

package asm

func padRowsKernel() func(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32) {
	return padRowsGo
}
