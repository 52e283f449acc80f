//go:build purego || !(amd64 || arm64)

package asm

// Without assembly the Sgemv kernels are their twins.
func gemvN(y, x, b []float32, ldb int)          { gemvNGo(y, x, b, ldb) }
func gemvTLanes(lanes, x, b []float32, ldb int) { gemvTLanesGo(lanes, x, b, ldb) }
