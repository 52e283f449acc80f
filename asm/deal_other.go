//go:build purego || !amd64

package asm

func dealKernels() (func(even, odd, x []float32), func(x, even, odd []float32)) {
	return dealGo, mergeGo
}

func mergeRowsKernel() func(x []float32, ldx int, even, odd []float32, rows, w int) {
	return mergeRowsGo
}
