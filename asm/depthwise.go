package asm

import "fmt"

// Depthwise 2-d correlations read in place: no padded copy of the planes.
// A DWPlan says where each tap of the kernel reads for every output
// element; the kernels (depthwise_amd64.s, the twins in
// depthwise_generic.go) run it over many planes of one channel, which share
// the kernel's weights.

// DWPlan is the geometry of a depthwise correlation of planes of H rows,
// LDX elements apart (Span elements in all, at least H·LDX), into planes of
// OH×OW. The tap (kh, kw) of output element (oh, ow) reads element
// ColOff[kw] + ow of input row oh·SH + RowOff[kh] when that row is in
// [0, H) and ow in [Lo[kw], Hi[kw]), and padding (zero) otherwise. For a
// plain correlation of stride 1 with padding pw and dilation dw,
// ColOff[kw] = kw·dw − pw; a column stride s is run on planes whose
// columns the caller has dealt into s phases (ColOff then points into the
// right phase: within the row, or past the plane's H rows when the phases
// are planes of their own). Build it with NewDWPlan; it may be shared by
// goroutines.
type DWPlan struct {
	H, OH, OW, SH, LDX     int
	Span                   int
	RowOff, ColOff, Lo, Hi []int
	rowLo, rowHi           []int       // per kernel row: the output rows whose input row is in [0, H)
	tabs, gtabs            [2][]uint64 // for dwVL[i] lanes: the kernels' entries (dwEntries, dwGradEntries)
	blk                    []int       // the forward kernels' blocks of output rows (dwBlocks)
	rows3                  bool        // three consecutive kernel rows of three taps, row stride 1, blocks of consecutive rows
	zero                   []float32   // a zero row, where the kernels point rows outside [0, H) (never read)
}

// dwVL are the vector lengths the kernels' tables are built for: 8
// (AVX2) and 16 (AVX-512).
var dwVL = [2]int{8, 16}

// dwEntry is the size in uint64s of a table entry: a 32-byte lane mask (8
// int32 lanes of all ones or zeros for AVX2; the first 16 bits the lanes
// for AVX-512) and the byte offset of the tap's first column from its row.
const dwEntry = 6

// NewDWPlan checks and completes the geometry. It panics if the slices'
// lengths differ from the kernel's rows and columns, or a tap reads outside
// [0, span) of a plane for an output column in [Lo, Hi).
func NewDWPlan(H, OH, OW, SH, LDX, span int, rowOff, colOff, lo, hi []int) *DWPlan {
	checkLen("NewDWPlan", len(colOff), len(lo), len(hi))
	if H < 0 || OH < 0 || OW < 0 || SH < 1 || LDX < 0 || span < H*LDX {
		panic(fmt.Sprintf("asm.NewDWPlan: %d rows of %d in %d, output %d×%d, row stride %d", H, LDX, span, OH, OW, SH))
	}
	p := &DWPlan{H: H, OH: OH, OW: OW, SH: SH, LDX: LDX, Span: span, RowOff: rowOff, ColOff: colOff, Lo: lo, Hi: hi}
	for kw, o := range colOff {
		if lo[kw] < 0 || hi[kw] > OW {
			panic(fmt.Sprintf("asm.NewDWPlan: kernel column %d reads output columns [%d, %d) of %d", kw, lo[kw], hi[kw], OW))
		}
		if lo[kw] < hi[kw] && H > 0 && (o+lo[kw] < 0 || (H-1)*LDX+o+hi[kw] > span) {
			panic(fmt.Sprintf("asm.NewDWPlan: kernel column %d reads elements [%d, %d) of rows of %d, %d rows in %d", kw, o+lo[kw], o+hi[kw], LDX, H, span))
		}
	}
	for _, r := range rowOff {
		a, b := 0, OH
		for a < OH && (a*SH+r < 0 || a*SH+r >= H) {
			a++
		}
		for b > a && ((b-1)*SH+r < 0 || (b-1)*SH+r >= H) {
			b--
		}
		p.rowLo, p.rowHi = append(p.rowLo, a), append(p.rowHi, b)
	}
	for i, vl := range dwVL {
		p.tabs[i] = dwEntries(p, vl)
		p.gtabs[i] = dwGradEntries(p, vl)
	}
	p.blk = dwBlocks(p)
	p.rows3 = dwRows3(p)
	p.zero = make([]float32, span)
	return p
}

// dwBlock is the size in ints of an entry of dwBlocks.
const dwBlock = 32

// dwBlocks are the forward kernels' blocks of output rows, eight or seven
// (seven when that divides the rows and eight does not: MobileNet's 112,
// 28, 14 and 7), the last block moved back to end at the last row; with
// fewer rows than that, the last row repeated. Each entry holds the
// block's rows times SH (at 0), times SH and the input row's bytes (at 8),
// times the output row's bytes (at 16), at 24 the number of columns a row
// vector may end at and be stored whole (what lies past ow then lands on
// rows stored later, or past the last row's end, in the plane), at 25
// the number of rows (the eighth slot of a block of seven repeats the
// seventh and is not stored); for the window of 16 input rows from the
// first row's first kernel row on (first·SH + RowOff[0]), at 26 the bits
// of those inside [0, H) and at 27 its first row's offset in bytes.
func dwBlocks(p *DWPlan) []int {
	h := 8
	if p.OH%8 != 0 && p.OH%7 == 0 {
		h = 7
	}
	nb := max(1, (p.OH+h-1)/h)
	b := make([]int, nb*dwBlock)
	for i := range nb {
		e := b[i*dwBlock:]
		first := max(0, min(h*i, p.OH-h))
		last := 0
		for k := range 8 {
			r := min(first+min(k, h-1), p.OH-1)
			e[k], e[8+k], e[16+k] = r*p.SH, r*p.SH*p.LDX*4, r*p.OW*4
			if k < h {
				last = r
			}
		}
		e[24] = p.OH*p.OW - last*p.OW
		e[25] = h
		if len(p.RowOff) > 0 {
			ih := first*p.SH + p.RowOff[0]
			for j := range 16 {
				if 0 <= ih+j && ih+j < p.H {
					e[26] |= 1 << j
				}
			}
			e[27] = ih * p.LDX * 4
		}
	}
	return b
}

// dwRows3 reports whether the plan is one dwConv3AVX512 runs: three
// kernel rows, consecutive, of three taps each, row stride 1, and blocks
// (dwBlocks) of consecutive rows (at least eight rows, or blocks of seven).
func dwRows3(p *DWPlan) bool {
	r := p.RowOff
	return p.SH == 1 && len(r) == 3 && r[1] == r[0]+1 && r[2] == r[0]+2 && len(p.ColOff) == 3 &&
		(p.OH >= 8 || p.blk[25] == 7)
}

// dwEntries is a plan's table for vectors of vl lanes: for each vector of
// output columns, one entry per kernel column (its lane mask and the byte
// offset of its first column, (ColOff[kw] + c0)·4) and then one for the
// output (the lanes < OW).
func dwEntries(p *DWPlan, vl int) []uint64 {
	kw := len(p.ColOff)
	nvec := (p.OW + vl - 1) / vl
	t := make([]uint64, nvec*(kw+1)*dwEntry)
	set := func(e []uint64, lo, hi int, off int) {
		var bits uint64
		for j := range vl {
			if lo <= j && j < hi {
				bits |= 1 << j
			}
		}
		if vl == 16 {
			e[0] = bits
		} else {
			for j := range 4 {
				for h := range 2 {
					if bits>>(2*j+h)&1 != 0 {
						e[j] |= 0xffffffff << (32 * h)
					}
				}
			}
		}
		e[4] = uint64(off * 4)
	}
	for v := range nvec {
		c0 := v * vl
		for k := range kw {
			set(t[(v*(kw+1)+k)*dwEntry:], p.Lo[k]-c0, p.Hi[k]-c0, p.ColOff[k]+c0)
		}
		set(t[(v*(kw+1)+kw)*dwEntry:], 0, p.OW-c0, c0)
	}
	return t
}

// dwCheck panics unless n planes of the plan fit x (planes xPlane apart)
// and out (planes oPlane apart, OH·OW each), and there are nw taps.
func (p *DWPlan) dwCheck(op string, out []float32, oPlane int, x []float32, xPlane, n, nw int) {
	if n < 0 || nw != len(p.RowOff)*len(p.ColOff) {
		panic(fmt.Sprintf("asm.%s: %d planes, %d weights for a %d×%d kernel", op, n, nw, len(p.RowOff), len(p.ColOff)))
	}
	if n == 0 {
		return
	}
	if oPlane < 0 || (n-1)*oPlane+p.OH*p.OW > len(out) {
		panic(fmt.Sprintf("asm.%s: %d output planes of %d×%d, %d apart, do not fit %d", op, n, p.OH, p.OW, oPlane, len(out)))
	}
	if xPlane < 0 || (n-1)*xPlane+p.Span > len(x) {
		panic(fmt.Sprintf("asm.%s: %d input planes of %d, %d apart, do not fit %d", op, n, p.Span, xPlane, len(x)))
	}
}

// DepthwiseConvF32 sets n output planes of dst (dPlane apart) to the
// correlation of the n input planes of x (xPlane apart) by the kernel w
// (row-major, kh then kw): each element is init plus its taps in order,
// each with one rounding (a fused multiply-add). A tap reading padding (a
// column outside [Lo, Hi), a row outside [0, H)) is left out, as PyTorch
// leaves it out: an infinite weight makes no NaN there (AVX2 adds +0·0 for
// a column outside: the sign of a zero sum may differ). dst must not
// overlap x.
func DepthwiseConvF32(p *DWPlan, dst []float32, dPlane int, x []float32, xPlane, n int, w []float32, init float32) {
	p.dwCheck("DepthwiseConvF32", dst, dPlane, x, xPlane, n, len(w))
	if n == 0 || p.OH == 0 || p.OW == 0 {
		return
	}
	if len(w) == 0 {
		for i := range n {
			for j := range p.OH * p.OW {
				dst[i*dPlane+j] = init
			}
		}
		return
	}
	dwConv(p, dst, dPlane, x, xPlane, n, w, init)
}

// DWGradLen is the number of partial sums DepthwiseGradF32 writes for the
// plan, and DWGradAt the index of the first of tap (kh, kw)'s DWLanes().
func (p *DWPlan) DWGradLen() int { return len(p.RowOff) * dwCols(len(p.ColOff)) * dwLanes }
func (p *DWPlan) DWGradAt(kh, kw int) int {
	return (kh*dwCols(len(p.ColOff)) + kw) * dwLanes
}

// DWLanes is the number of partial sums DepthwiseGradF32 writes per tap.
func DWLanes() int { return dwLanes }

// DepthwiseGradF32 sets acc's DWLanes() partial sums of each tap (kh, kw),
// from acc[p.DWGradAt(kh, kw)] on, to the weight gradient of the tap over
// n planes: together, the sum over the planes and output elements of gy's
// element times the input element the tap reads for it (pairs where the tap
// reads padding are left out). gy holds n planes of OH×OW, gPlane apart; x
// the input planes, xPlane apart. Each partial sum is made of chains of
// fused multiply-adds (dwGradGo; on 16 lanes, for three consecutive kernel
// rows of three taps at row stride 1, dwGrad3Go's), so the result depends
// on DWLanes and the plan. A pair of a zero with an
// infinity or a NaN in the padding may make a sum NaN where the gradient is
// not (the caller then sums again with DepthwiseGradExactF32).
func DepthwiseGradF32(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
	dwGradCheck(p, gy, gPlane, x, xPlane, n, acc)
	dwGrad(p, gy, gPlane, x, xPlane, n, acc)
}

// DepthwiseGradExactF32 is DepthwiseGradF32 summing only the pairs of
// elements the taps read (its pure-Go twin): slower, and never a NaN from a
// zero of the padding.
func DepthwiseGradExactF32(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
	dwGradCheck(p, gy, gPlane, x, xPlane, n, acc)
	dwGradGo(p, gy, gPlane, x, xPlane, n, acc, dwLanes)
}

func dwGradCheck(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32) {
	p.dwCheck("DepthwiseGradF32", gy, gPlane, x, xPlane, n, len(p.RowOff)*len(p.ColOff))
	if len(acc) < p.DWGradLen() {
		panic(fmt.Sprintf("asm.DepthwiseGradF32: %d partial sums, want %d", len(acc), p.DWGradLen()))
	}
}

// dwChunk is the number of kernel columns the weight-gradient kernels
// keep in registers at a time.
const dwChunk = 3

// dwGradEntries is a plan's weight-gradient table for vectors of vl lanes:
// for each vector of output columns and chunk of dwChunk kernel columns,
// the output's entry and then one per column of the chunk (an empty mask
// past the kernel's last column).
func dwGradEntries(p *DWPlan, vl int) []uint64 {
	kw := len(p.ColOff)
	nvec, nch := (p.OW+vl-1)/vl, (kw+dwChunk-1)/dwChunk
	fwd := p.tabs[dwTab(vl)]
	t := make([]uint64, nvec*nch*(dwChunk+1)*dwEntry)
	for v := range nvec {
		for ch := range nch {
			e := t[(v*nch+ch)*(dwChunk+1)*dwEntry:]
			copy(e[:dwEntry], fwd[(v*(kw+1)+kw)*dwEntry:])
			for s := range dwChunk {
				if k := ch*dwChunk + s; k < kw {
					copy(e[(1+s)*dwEntry:][:dwEntry], fwd[(v*(kw+1)+k)*dwEntry:])
				}
			}
		}
	}
	return t
}

// dwTab is the index in dwVL of vl.
func dwTab(vl int) int {
	if vl == 16 {
		return 1
	}
	return 0
}

type (
	dwConvKernel func(p *DWPlan, dst []float32, dPlane int, x []float32, xPlane, n int, w []float32, init float32)
	dwGradKernel func(p *DWPlan, gy []float32, gPlane int, x []float32, xPlane, n int, acc []float32)
)

// The kernels in use and the lanes of the weight gradient's partial sums.
var dwConv, dwGrad, dwLanes = dwKernels()

// DepthwiseInputGradS2F32 sets the n planes of gx (gxPlane apart, 2·oh
// rows of 2·ow) to the input gradient of a 3×3 depthwise correlation of
// stride 2 and padding 1 by the kernel w (row-major), whose output
// gradient is the n planes of gy (gPlane apart, oh×ow): each element is
// the sum, from zero, of the taps that reach it, the kernel's rows and
// columns last first (as device/cpu's strided input gradient adds them in
// its phase planes), each with one rounding (a fused multiply-add); a tap
// reading outside gy is left out. gx must not overlap gy.
func DepthwiseInputGradS2F32(gx []float32, gxPlane int, gy []float32, gPlane, n, oh, ow int, w []float32) {
	if n < 0 || oh < 0 || ow < 0 || len(w) != 9 {
		panic(fmt.Sprintf("asm.DepthwiseInputGradS2F32: %d planes of %d×%d, %d weights", n, oh, ow, len(w)))
	}
	if n == 0 || oh == 0 || ow == 0 {
		return
	}
	if gPlane < 0 || (n-1)*gPlane+oh*ow > len(gy) || gxPlane < 0 || (n-1)*gxPlane+4*oh*ow > len(gx) {
		panic(fmt.Sprintf("asm.DepthwiseInputGradS2F32: %d planes of %d×%d: gy %d apart in %d, gx %d apart in %d", n, oh, ow, gPlane, len(gy), gxPlane, len(gx)))
	}
	dwInputS2(gx, gxPlane, gy, gPlane, n, oh, ow, w)
}

// DepthwiseS2Vector reports whether DepthwiseInputGradS2F32 and
// DepthwiseGradS2F32 run vector kernels (else their scalar twins, slower
// than the general kernels on dealt planes and phase planes).
func DepthwiseS2Vector() bool { return dwS2Vector }

// DepthwiseGradS2F32 sets acc's 16 partial sums of each tap (kh, kw), from
// acc[(3·kh+kw)·16] on, to the weight gradient of the tap of a 3×3
// depthwise correlation of stride 2 and padding 1 over n planes: gy holds
// n planes of oh×ow (gPlane apart), x the input planes of 2·oh rows of
// 2·ow (xPlane apart). Lane j of a tap sums the output columns j, j+16, …
// vector by vector and plane by plane: a chain of fused multiply-adds
// over the plane's rows (only the pairs whose input element is inside:
// no zero of the padding meets an infinity), then added to the tap's
// total.
func DepthwiseGradS2F32(gy []float32, gPlane int, x []float32, xPlane, n, oh, ow int, acc []float32) {
	if n < 0 || oh < 0 || ow < 0 || len(acc) < 9*16 {
		panic(fmt.Sprintf("asm.DepthwiseGradS2F32: %d planes of %d×%d, %d partial sums", n, oh, ow, len(acc)))
	}
	if n > 0 && oh > 0 && ow > 0 && (gPlane < 0 || (n-1)*gPlane+oh*ow > len(gy) || xPlane < 0 || (n-1)*xPlane+4*oh*ow > len(x)) {
		panic(fmt.Sprintf("asm.DepthwiseGradS2F32: %d planes of %d×%d: gy %d apart in %d, x %d apart in %d", n, oh, ow, gPlane, len(gy), xPlane, len(x)))
	}
	if n == 0 || oh == 0 || ow == 0 {
		clear(acc[:9*16])
		return
	}
	dwGradS2(gy, gPlane, x, xPlane, n, oh, ow, acc)
}

// dwGradS2Go is DepthwiseGradS2F32's twin.
func dwGradS2Go(gy []float32, gPlane int, x []float32, xPlane, n, oh, ow int, acc []float32) {
	const vl = 16
	clear(acc[:9*vl])
	W := 2 * ow
	for kh := range 3 {
		for kw := range 3 {
			total := acc[(kh*3+kw)*vl:][:vl]
			for j0 := 0; j0 < ow; j0 += vl {
				for p := range n {
					var chain [vl]float32
					g, xp := gy[p*gPlane:], x[p*xPlane:]
					for i := range oh {
						r := 2*i + kh - 1
						if r < 0 {
							continue
						}
						for l := range min(vl, ow-j0) {
							if c := 2*(j0+l) + kw - 1; c >= 0 {
								chain[l] = fmaF32(g[i*ow+j0+l], xp[r*W+c], chain[l])
							}
						}
					}
					for l := range total {
						total[l] += chain[l]
					}
				}
			}
		}
	}
}

// dwInputS2Go is DepthwiseInputGradS2F32's twin: for each element of gy,
// the four elements of gx in rows 2i, 2i+1 and columns 2j, 2j+1, each
// from zero, its taps in turn.
func dwInputS2Go(gx []float32, gxPlane int, gy []float32, gPlane, n, oh, ow int, w []float32) {
	W := 2 * ow
	for p := range n {
		g, x := gy[p*gPlane:], gx[p*gxPlane:]
		for i := range oh {
			down := i+1 < oh
			for j := range ow {
				right := j+1 < ow
				a := g[i*ow+j]
				e00 := fmaF32(w[4], a, 0)
				e01 := fmaF32(w[5], a, 0)
				e10 := fmaF32(w[7], a, 0)
				e11 := fmaF32(w[8], a, 0)
				if right {
					e01 = fmaF32(w[3], g[i*ow+j+1], e01)
					e11 = fmaF32(w[6], g[i*ow+j+1], e11)
				}
				if down {
					e10 = fmaF32(w[1], g[(i+1)*ow+j], e10)
					e11 = fmaF32(w[2], g[(i+1)*ow+j], e11)
					if right {
						e11 = fmaF32(w[0], g[(i+1)*ow+j+1], e11)
					}
				}
				even, odd := x[2*i*W+2*j:][:2], x[(2*i+1)*W+2*j:][:2]
				even[0], even[1], odd[0], odd[1] = e00, e01, e10, e11
			}
		}
	}
}
