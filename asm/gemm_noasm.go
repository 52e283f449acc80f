//go:build purego || !(amd64 || arm64)

package asm

// Without assembly only the twins run, with a 4×8 tile: the widest whose
// accumulators stay in L1 without the compiler spilling much.
var (
	sgemmImpls = available(gemmImpl[float32]{"go", true, blocking{mr: 4, nr: 8, kc: 256, mc: 128, nc: 4096}, sgemmGo4x8, nil, nil, nil})
	dgemmImpls = available(gemmImpl[float64]{"go", true, blocking{mr: 4, nr: 8, kc: 256, mc: 64, nc: 4096}, dgemmGo4x8, nil, nil, nil})
)

func sgemmGo4x8(k int, a, b, c []float32, ldc int) { gemmKernelGo[float32](4, 8, k, a, b, c, ldc) }
func dgemmGo4x8(k int, a, b, c []float64, ldc int) { gemmKernelGo[float64](4, 8, k, a, b, c, ldc) }
