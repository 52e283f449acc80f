package cpu

import (
	"runtime"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Small convolutions (few channels, such as examples/mnist's 1→8 and 8→16)
// run on direct kernels rather than the wide GEMM: asm.ConvBlockF32 writes
// a block of eight output channels straight from the padded input planes
// (no packing, the bias added on the way out, the outputs written in
// place), and asm.ConvWGradF32 computes the weight gradient as dot
// products of the output gradient with the shifted input planes. The
// forward and input gradient sum every element in the GEMM's order (the
// taps from zero in order, then the bias), so they give the wide GEMM's
// results bit for bit; the weight gradient's sums are taken in another
// order than the GEMM's.

// smallMaxDepth bounds the taps (input channels · kernel positions) of a
// convolution that convSmall computes: beyond it the GEMM, whose tiles
// reuse each input element over more outputs, is faster.
const smallMaxDepth = 144

// smallMaxPairs bounds outG·inG for convSmallWeightGrad: each pair of
// output channels streams its input channel's planes of every image again.
const smallMaxPairs = 256

// smallConv reports whether the direct kernels can run the stride-1
// convolution p in compute dtype ct (one of convWide's, float32, at most 2
// spatial dims) and the assembly kernels are there (elsewhere the GEMM is
// faster).
func smallConv(p *core.ConvParams, ct tensor.DType) bool {
	return ct == tensor.Float32 && len(p.In) <= 2 && asm.ConvSmallFast() && wideForward(p, ct)
}

// smallForward reports whether convSmall computes the forward of p.
func smallForward(p *core.ConvParams, ct tensor.DType) bool {
	return smallConv(p, ct) && p.InC/p.Groups*prod(p.Kernel) <= smallMaxDepth
}

// convSmallForward sets y to the convolution p of x by w plus bias (nil:
// none), all float32.
func convSmallForward(p *core.ConvParams, x, w, bias, y []float32) {
	g := newWideGeom(p.InC, p.In, p.Kernel, p.Padding, p.Dilation)
	convSmall(g, p.N, p.Groups, p.OutC/p.Groups, x, w, bias, y)
}

// convSmallBackward computes, of the gradients gi and gw (nil: not asked
// for) of the convolution p, those the direct kernels can, and returns the
// others (nil when done).
func convSmallBackward(p *core.ConvParams, gy, x, w []float32, gi, gw *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
	if !smallConv(p, tensor.Float32) {
		return gi, gw
	}
	G := p.Groups
	inG, outG, taps := p.InC/G, p.OutC/G, prod(p.Kernel)
	if gw != nil && taps <= 9 && inG*outG <= smallMaxPairs {
		buf, dw := resultBuf[float32](gw, tensor.Float32)
		g := newWideGeom(p.InC, p.In, p.Kernel, p.Padding, p.Dilation)
		convSmallWeightGrad(g, p.N, G, outG, x, gy, dw)
		finish(gw, buf)
		gw = nil
	}
	if gi != nil && unitStrideAdjoint(p) && outG*taps <= smallMaxDepth {
		buf, dx := resultBuf[float32](gi, tensor.Float32)
		g := newWideGeom(p.OutC, p.Out, p.Kernel, adjointPadding(p), p.Dilation)
		convSmall(g, p.N, G, inG, gy, flipTransposeWeight(w, G, outG, inG, taps), nil, dx)
		finish(gi, buf)
		gi = nil
	}
	return gi, gw
}

// smallRows is the number of output rows a ConvBlockF32 call computes, so
// that the input rows it reads stay in the L1 cache for every block of
// output channels.
const smallRows = 16

// convSmall sets y (N images of G·outG channels, g.out) to the stride-1
// convolution of x (N images of g.c = G·inG channels, g.img) by w (G
// groups of outG × inG·taps) plus bias (nil: none): image by image (on
// the pool's goroutines when there is enough work), each padded once, then
// blocks of eight output channels and smallRows rows by ConvBlockF32.
func convSmall(g *wideGeom, N, G, outG int, x, w, bias, y []float32) {
	inG, taps := g.c/G, len(g.off)
	K := inG * taps
	OH, OW, Wp := g.out[1], g.out[2], g.padded[2]
	// Tap k = c·taps + t reads the padded plane of channel c at off[t];
	// wp holds each group's blocks of eight output channels, K taps of 8.
	off := make([]int, K)
	for k := range off {
		off[k] = k/taps*g.plane + g.off[k%taps]
	}
	blocks := (outG + 7) / 8
	wp := make([]float32, G*blocks*8*K)
	for gr := range G {
		for o := range outG {
			src := w[(gr*outG+o)*K:][:K]
			dst := wp[(gr*blocks+o/8)*8*K:]
			for k, v := range src {
				dst[8*k+o%8] = v
			}
		}
	}
	workers := 1
	if runtime.GOMAXPROCS(0) > 1 && N > 1 && N*G*outG*g.outLen*K >= gemmParallel {
		workers = min(runtime.GOMAXPROCS(0), N)
	}
	var pads []*[]float32
	if g.needsPad() {
		pads = make([]*[]float32, workers)
		defer func() {
			for _, b := range pads {
				putScratch(b)
			}
		}()
	}
	run := func(wk, n int) {
		var buf []float32
		if g.needsPad() {
			if pads[wk] == nil {
				pads[wk] = getScratch[float32](g.c * g.plane)
				clear(*pads[wk]) // the borders stay zero
			}
			buf = *pads[wk]
		}
		xp := wideChunk(g, x, n, 1, buf)
		for gr := range G {
			xg := xp[gr*inG*g.plane:]
			for r0 := 0; r0 < OH; r0 += smallRows {
				rows := min(smallRows, OH-r0)
				for b := range blocks {
					o0 := gr*outG + 8*b
					m := min(8, outG-8*b)
					var bb []float32
					if bias != nil {
						bb = bias[o0 : o0+m]
					}
					asm.ConvBlockF32(y[(n*G*outG+o0)*g.outLen+r0*OW:], g.outLen, OW, xg[r0*Wp:], Wp,
						wp[(gr*blocks+b)*8*K:][:8*K], off, m, rows, OW, bb)
				}
			}
		}
	}
	if workers == 1 {
		for n := range N {
			run(0, n)
		}
		return
	}
	parallel.For(workers, func(t int) {
		for n := t; n < N; n += workers {
			run(t, n)
		}
	})
}

// convSmallWeightGrad sets dw (G groups of outG × inG·taps, taps ≤ 9) to
// the weight gradient of the stride-1 convolution of x (N images of g.c =
// G·inG channels) whose output gradient is gy: the images padded once,
// then for each group, input channel and pair of output channels one
// ConvWGradF32 over every image (the pairs on the pool's goroutines when
// there is enough work; each sum is one call's, whatever the number of
// cores).
func convSmallWeightGrad(g *wideGeom, N, G, outG int, x, gy, dw []float32) {
	inG, taps := g.c/G, len(g.off)
	OH, OW, Wp := g.out[1], g.out[2], g.padded[2]
	var xp []float32
	if g.needsPad() {
		b := getScratch[float32](N * g.c * g.plane)
		defer putScratch(b)
		clear(*b)
		xp = wideChunk(g, x, 0, N, *b)
	} else {
		xp = wideChunk(g, x, 0, N, nil)
	}
	var off [9]int // taps past the kernel's read at 0, their sums dropped
	copy(off[:], g.off)
	pairs := (outG + 1) / 2
	tasks := G * inG * pairs
	task := func(i int) {
		gr, c, pr := i/(inG*pairs), i/pairs%inG, i%pairs
		o := gr*outG + 2*pr
		gPlane := g.outLen
		if 2*pr+1 == outG {
			gPlane = 0 // one channel, twice
		}
		var s [18]float32
		asm.ConvWGradF32(s[:], gy[o*g.outLen:], gPlane, G*outG*g.outLen, OW,
			xp[(gr*inG+c)*g.plane:], g.c*g.plane, Wp, off[:], N, OH, OW)
		for j := range min(2, outG-2*pr) {
			copy(dw[((o+j)*inG+c)*taps:][:taps], s[9*j:])
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || tasks == 1 || N*g.outLen*G*outG*inG*taps < gemmParallel {
		for i := range tasks {
			task(i)
		}
		return
	}
	workers = min(workers, tasks)
	parallel.For(workers, func(t int) {
		for i := t; i < tasks; i += workers {
			task(i)
		}
	})
}
