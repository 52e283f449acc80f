//go:build purego || !(amd64 || arm64)

package asm

// Without the AVX2 (select_amd64.s) or NEON (select_arm64.s) kernels, the
// twins run.

func cmpKernels32() *cmpTable[float32]                        { return &cmpGo32 }
func cmpKernels64() *cmpTable[float64]                        { return &cmpGo64 }
func selKernel32() func(d []uint32, c []uint8, x, y []uint32) { return selectGo[uint32] }
func selKernel64() func(d []uint64, c []uint8, x, y []uint64) { return selectGo[uint64] }

func thresholdBackward(d, g, x []float32, th float32, _ bool) { thresholdBackwardGo(d, g, x, th) }
