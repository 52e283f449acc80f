//go:build purego || !(amd64 || arm64)

package asm

// Without assembly the twins run with a 4×8 tile: the widest whose
// accumulators the Go compiler keeps in L1 without spilling much.
var (
	sgemmBlocking = blocking{mr: 4, nr: 8, kc: 256, mc: 128, nc: 4096}
	dgemmBlocking = blocking{mr: 4, nr: 8, kc: 256, mc: 64, nc: 4096}
)

func sgemmKernel(k int, a, b, c []float32, ldc int) { sgemmKernelGo(4, 8, k, a, b, c, ldc) }
func dgemmKernel(k int, a, b, c []float64, ldc int) { dgemmKernelGo(4, 8, k, a, b, c, ldc) }
