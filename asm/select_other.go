//go:build purego || !amd64

package asm

// Without the AVX2 kernels (select_amd64.s) the twins run: Go's arm64
// assembler has no vector float compare.

func cmpKernels32() *cmpTable[float32]                        { return &cmpGo32 }
func cmpKernels64() *cmpTable[float64]                        { return &cmpGo64 }
func selKernel32() func(d []uint32, c []uint8, x, y []uint32) { return selectGo[uint32] }
func selKernel64() func(d []uint64, c []uint8, x, y []uint64) { return selectGo[uint64] }
