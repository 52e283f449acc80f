//go:build purego || !amd64

package asm

// Without the amd64 kernels DepthwiseConvF32 and DepthwiseGradF32 run
// their twins.

func dwKernels() (dwConvKernel, dwGradKernel, int) {
	return dwConvGo, func(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
		dwGradGo(p, gy, gPlane, x, xPlane, n, acc, 8)
	}, 8
}

var dwInputS2, dwGradS2, dwS2Vector = dwInputS2Go, dwGradS2Go, false
