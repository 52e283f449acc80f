package asm

import "fmt"

// The direct kernels of convolutions with few channels (device/cpu's
// conv_small.go): a block of up to eight output channels computed straight
// from the padded input planes, and the weight gradient of nine taps of two
// output channels as dot products over the images. No column matrix, no
// packing; each output element is summed in the GEMM's order.

// convSmallUseAsm says whether the kernels in use are the assembly ones
// (convBlockRun, convWGradRun in convsmall_amd64.go) or the twins
// (convsmall_generic.go); tests switch it. The kernels are called
// directly, not through function values, so that the small arrays handed
// to them stay on the stack.
var convSmallUseAsm = convSmallAsm

// ConvSmallFast reports whether ConvBlockF32 and ConvWGradF32 run an
// assembly kernel on this CPU (AVX-512); elsewhere they run their pure-Go
// twins, slower than the GEMM a convolution would use instead, except
// under -tags purego or GOATEN_PUREGO=1 where everything runs in Go.
func ConvSmallFast() bool { return convSmallAsm || forceGo }

// ConvBlockF32 sets, for o < m (1 ≤ m ≤ 8), r < rows and c < cols,
//
//	dst[o·dPlane + r·ldd + c] = Σ_k wp[8k + o]·x[r·ldx + c + off[k]]  (+ bias[o])
//
// the terms added to zero in the order of k, each with one rounding (a
// fused multiply-add), bias[o] (when bias is not nil) added last: a block
// of output channels of a convolution whose taps k (input channel and
// kernel position) read x at offsets off, with weights wp packed eight
// output channels to a tap (zero past m). dst must not overlap x (a row may
// be computed twice), nor its rows each other. It panics if
// len(wp) < 8·len(off), len(bias) < m, an offset or stride is negative,
// rows (or planes) are closer than cols, or a row of dst or a tap's read
// of x falls outside its slice.
func ConvBlockF32(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32) {
	if m < 1 || m > 8 || rows < 0 || cols < 0 || dPlane < 0 || ldx < 0 {
		panic(fmt.Sprintf("asm.ConvBlockF32: %d channels (1 to 8) of %d rows of %d, planes %d apart, x rows %d apart", m, rows, cols, dPlane, ldx))
	}
	if len(wp) < 8*len(off) || (bias != nil && len(bias) < m) {
		panic(fmt.Sprintf("asm.ConvBlockF32: %d weights for %d taps, %d biases for %d channels", len(wp), len(off), len(bias), m))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if (rows > 1 && ldd < cols) || (m > 1 && dPlane < cols) || (m-1)*dPlane+(rows-1)*ldd+cols > len(dst) {
		panic(fmt.Sprintf("asm.ConvBlockF32: %d planes of %d rows of %d (%d, %d apart) do not fit a dst of %d", m, rows, cols, dPlane, ldd, len(dst)))
	}
	for _, o := range off {
		if o < 0 || (rows-1)*ldx+cols+o > len(x) {
			panic(fmt.Sprintf("asm.ConvBlockF32: the tap at offset %d of %d rows of %d, %d apart, reads past an x of %d", o, rows, cols, ldx, len(x)))
		}
	}
	var b [8]float32
	hasBias := 0
	if bias != nil {
		copy(b[:], bias[:m])
		hasBias = 1
	}
	if rows == 1 {
		// The kernels work on pairs of rows: the row twice.
		ldd, ldx, rows = 0, 0, 2
	}
	convBlockRun(dst, dPlane, ldd, x, ldx, wp, off, m, rows, cols, b[:], hasBias)
}

// ConvWGradF32 sets, for j < 2 and t < 9,
//
//	s[9j + t] = Σ_{i<n} Σ_{r<rows} Σ_{c<cols} gy[j·gPlane + i·gImg + r·ldg + c]·x[i·xImg + r·ldx + c + off[t]]
//
// the weight gradient of nine taps (off: their offsets into the padded
// input planes x) of two output channels (gy's planes, gPlane apart; 0
// for one channel twice). Each image's part of a sum is kept in sixteen
// float32 lanes, lane l taking the columns c ≡ l (mod 16) in the order of
// r, c with one fused multiply-add each (the columns past cols of a row's
// last vector adding 0·0); the parts are added lane by lane in float64,
// image after image, the sixteen lanes then in order, and the sum rounded
// once to float32. It panics if len(s) < 18, len(off) != 9, a stride is
// negative, or a read falls outside gy or x.
func ConvWGradF32(s []float32, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int) {
	checkLen("ConvWGradF32", len(off), 9)
	if len(s) < 18 || n < 0 || rows < 0 || cols < 0 || gPlane < 0 || gImg < 0 || ldg < 0 || xImg < 0 || ldx < 0 {
		panic(fmt.Sprintf("asm.ConvWGradF32: %d sums (18) of %d images of %d rows of %d, strides %d %d %d %d %d", len(s), n, rows, cols, gPlane, gImg, ldg, xImg, ldx))
	}
	if n == 0 || rows == 0 || cols == 0 {
		clear(s[:18])
		return
	}
	if gPlane+(n-1)*gImg+(rows-1)*ldg+cols > len(gy) {
		panic(fmt.Sprintf("asm.ConvWGradF32: %d images of %d rows of %d (%d, %d apart, planes %d) read past a gy of %d", n, rows, cols, gImg, ldg, gPlane, len(gy)))
	}
	for _, o := range off {
		if o < 0 || (n-1)*xImg+(rows-1)*ldx+cols+o > len(x) {
			panic(fmt.Sprintf("asm.ConvWGradF32: the tap at offset %d of %d images of %d rows of %d (%d, %d apart) reads past an x of %d", o, n, rows, cols, xImg, ldx, len(x)))
		}
	}
	var lanes [18 * 16]float64
	convWGradRun(lanes[:], gy, gPlane, gImg, ldg, x, xImg, ldx, off, n, rows, cols)
	for k := range 18 {
		var v float64
		for _, l := range lanes[16*k : 16*k+16] {
			v += l
		}
		s[k] = float32(v)
	}
}
