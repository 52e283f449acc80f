//go:build !purego

package asm

// No NEON reductions: Go's arm64 assembler cannot widen float32 vectors to
// float64 (FCVTL), which the float64 running sums need, nor compare floats;
// the twins run on arm64.
func reduceKernels() *reduceTable { return &reduceGo }
