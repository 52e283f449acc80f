//go:build !purego

package asm

// The depthwise kernels read in place (depthwise_amd64.s): AVX2+FMA on 8
// lanes, AVX-512 on 16.

//go:noescape
func dwConvAVX2(dst, x, w []float32, rowOff []int, tab []uint64, blk []int, zero []float32, n, xPlane, dPlane, h, ow, ldx, kw int, init float32)

//go:noescape
func dwConvAVX512(dst, x, w []float32, rowOff []int, tab []uint64, blk []int, zero []float32, n, xPlane, dPlane, h, ow, ldx, kw int, init float32)

//go:noescape
func dwConv3AVX512(dst, x, w []float32, tab []uint64, blk []int, n, xPlane, dPlane, ow, ldx int, init float32)

//go:noescape
func dwGrad3AVX512(gy, x []float32, tab []uint64, acc []float32, n, xPlane, gPlane, ow, oh, ldx, pre, xStart, steps, nvec int)

//go:noescape
func dwInputS2AVX512(gx, gy, w []float32, masks []uint64, n, gxPlane, gPlane, oh, ow int)

//go:noescape
func dwGradS2AVX512(gy, x, acc []float32, masks []uint64, n, xPlane, gPlane, oh, ow int)

//go:noescape
func dwGradAVX2(gy, x []float32, rowOff, rowLo, rowHi []int, tab []uint64, acc []float32, n, xPlane, gPlane, ow, sh, ldx, nch, nvec int)

//go:noescape
func dwGradAVX512(gy, x []float32, rowOff, rowLo, rowHi []int, tab []uint64, acc []float32, n, xPlane, gPlane, ow, sh, ldx, nch, nvec int)

// dwConvAsm is DepthwiseConvF32's kernel on vl lanes.
func dwConvAsm(vl int) dwConvKernel {
	k := dwConvAVX2
	if vl == 16 {
		k = dwConvAVX512
	}
	return func(p *DWPlan, dst []float32, dPlane int, x []float32, xPlane, n int, w []float32, init float32) {
		if vl == 16 && p.rows3 {
			dwConv3AVX512(dst, x, w, p.tabs[1], p.blk, n, xPlane, dPlane, p.OW, p.LDX, init)
			return
		}
		k(dst, x, w, p.RowOff, p.tabs[dwTab(vl)], p.blk, p.zero, n, xPlane, dPlane, p.H, p.OW, p.LDX, len(p.ColOff), init)
	}
}

// dwGradAsm is DepthwiseGradF32's kernel on vl lanes.
func dwGradAsm(vl int) dwGradKernel {
	k := dwGradAVX2
	if vl == 16 {
		k = dwGradAVX512
	}
	return func(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
		if vl == 16 && p.rows3 {
			// The input rows walked: from the kernel's first row of
			// output row 0 (pre rows above the image) to its last of the
			// last output row, within the image.
			r0 := p.RowOff[0]
			lo := max(0, r0)
			steps := max(0, min(p.H, p.OH+r0+2)-lo)
			dwGrad3AVX512(gy, x, p.tabs[1], acc, n, xPlane, gPlane, p.OW, p.OH, p.LDX, max(0, -r0), lo*p.LDX*4, steps, (p.OW+15)/16)
			return
		}
		nch := dwCols(len(p.ColOff)) / dwChunk
		k(gy, x, p.RowOff, p.rowLo, p.rowHi, p.gtabs[dwTab(vl)], acc, n, xPlane, gPlane, p.OW, p.SH, p.LDX, nch, (p.OW+vl-1)/vl)
	}
}

// dwInputS2Asm is DepthwiseInputGradS2F32's AVX-512 kernel: the lane
// masks of each vector of 16 columns of gy (its columns, those whose next
// column is inside, the two stores' lanes), then the kernel.
func dwInputS2Asm(gx []float32, gxPlane int, gy []float32, gPlane, n, oh, ow int, w []float32) {
	nvec := (ow + 15) / 16
	var buf [4 * 8]uint64
	masks := buf[:0]
	if nvec > 8 {
		masks = make([]uint64, 0, 4*nvec)
	}
	lanes := func(k int) uint64 { return 1<<min(max(k, 0), 16) - 1 }
	for v := range nvec {
		k := min(16, ow-16*v)
		masks = append(masks, lanes(k), lanes(ow-16*v-1), lanes(2*k), lanes(2*k-16))
	}
	dwInputS2AVX512(gx, gy, w, masks, n, gxPlane, gPlane, oh, ow)
}

// dwGradS2Asm is DepthwiseGradS2F32's AVX-512 kernel: the lane masks of
// each vector of 16 columns of gy (tap 0's, gy's, the four loads of an
// input row's 32 columns from 2j and from 2j−1), then the kernel.
func dwGradS2Asm(gy []float32, gPlane int, x []float32, xPlane, n, oh, ow int, acc []float32) {
	nvec := (ow + 15) / 16
	var buf [6 * 8]uint64
	masks := buf[:0]
	if nvec > 8 {
		masks = make([]uint64, 0, 6*nvec)
	}
	lanes := func(a, b int) uint64 { // lanes [a, b) of 16
		a, b = min(max(a, 0), 16), min(max(b, 0), 16)
		if a >= b {
			return 0
		}
		return (1<<(b-a) - 1) << a
	}
	W := 2 * ow
	for v := range nvec {
		j0 := 16 * v
		k := min(16, ow-j0)
		masks = append(masks, lanes(1-2*j0, k), lanes(0, k), lanes(0, W-2*j0), lanes(0, W-2*j0-16),
			lanes(1-2*j0, W-2*j0+1), lanes(0, W-2*j0-15))
	}
	dwGradS2AVX512(gy, x, acc, masks, n, xPlane, gPlane, oh, ow)
}

// The kernels of DepthwiseInputGradS2F32 and DepthwiseGradS2F32, and
// whether they are vector kernels.
var dwInputS2, dwGradS2, dwS2Vector = func() (func(gx []float32, gxPlane int, gy []float32, gPlane, n, oh, ow int, w []float32), func(gy []float32, gPlane int, x []float32, xPlane, n, oh, ow int, acc []float32), bool) {
	if useAVX512 {
		return dwInputS2Asm, dwGradS2Asm, true
	}
	return dwInputS2Go, dwGradS2Go, false
}()

func dwKernels() (dwConvKernel, dwGradKernel, int) {
	switch {
	case useAVX512:
		return dwConvAsm(16), dwGradAsm(16), 16
	case useAVX2FMA:
		return dwConvAsm(8), dwGradAsm(8), 8
	}
	return dwConvGo, func(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
		dwGradGo(p, gy, gPlane, x, xPlane, n, acc, 8)
	}, 8
}
