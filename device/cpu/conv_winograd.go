package cpu

import (
	"runtime"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Winograd convolutions F(4×4, 3×3): a float32 3×3 convolution of stride
// and dilation 1 computes each 4×4 tile of output from the 6×6 tile of
// input under it as Y = Aᵀ·[Σ_c (G·w_oc·Gᵀ) ⊙ (Bᵀ·d_c·B)]·A: per tile, 36
// products of an element of the transformed weights by one of the
// transformed input, 2.25 per output instead of 9. For a chunk of tiles
// the sums over the input channels are 36 GEMMs, [K × C]·[C × tiles], of
// the transformed weights (winoWeights, once per call: the weights change
// in place in training) by the transformed tiles (asm.WinogradInF32: 16
// tiles at a time in quarters of up to four side by side, rows of tiles
// sharing a transform when they are short; a row of tiles per channel).
// asm.WinogradOutF32 turns the products back into output tiles, adds the
// bias and writes the outputs that are in the image. Chunks run on the
// pool's goroutines, each tile written by one chunk: the result does not
// depend on the number of cores.
//
// The float32 error is larger than the direct sum's: the transforms'
// coefficients (up to 5 in Bᵀ, 8 in Aᵀ, 1/24 … 1/4 in G) mix a tile's
// values with cancellations. TestConvWinograd holds each output to
// (C + 16)·2⁻²⁴ times the same computation on absolute values (a first-
// order bound on its roundings) and to 256·2⁻²⁴ times the largest Σ|x·w|
// over the outputs of its tile (an output's error is made of its whole
// tile's values; measured: at most 51 of those units with the AVX-512
// GEMM, 127 with the AVX2 one and one or two input channels, under 7 for
// the direct sum). An infinity or NaN in the input or the weights spreads
// over whole tiles (Inf − Inf); WinogradOutF32 reports any output that is
// not finite, and the convolution is then computed again the exact way.

// winoMode forces the Winograd path on (1, where it applies: tests of the
// pure-Go twins) or off (-1, for comparisons); 0 chooses by winoWorth.
var winoMode = 0

// winoChunkTiles is the number of tiles a chunk transforms: its
// transformed input and products (36·tiles·(C + K) float32, 864 KiB for 64
// tiles of 64 → 64 channels) about fill one core's L2 cache.
var winoChunkTiles = 128

// winoApplies reports whether convWinograd can compute the convolution p
// of compute dtype ct: float32, ordinary, 2 spatial dims, one group, a 3×3
// kernel of stride and dilation 1.
func winoApplies(p *core.ConvParams, ct tensor.DType) bool {
	if ct != tensor.Float32 || p.Transposed || p.Empty || len(p.In) != 2 || p.Groups != 1 || prod(p.Out) == 0 {
		return false
	}
	for i := range 2 {
		if p.Kernel[i] != 3 || p.Stride[i] != 1 || p.Dilation[i] != 1 {
			return false
		}
	}
	return true
}

// winoWorth reports whether the Winograd path is faster than the wide GEMM
// for a convolution of N images of C to K channels with outputs of OH×OW
// (measured: bench/README.md, "Winograd convolutions").
func winoWorth(N, C, K, OH, OW int) bool {
	switch winoMode {
	case 1:
		return true
	case -1:
		return false
	}
	// The weight transform costs about 45 ns per pair of channels, what
	// the GEMM saves on about 700 outputs (N·OH·OW): 8×256×7×7 → 256 took
	// 5.7 ms against the wide GEMM's 3.4, 8×256×14×14 9.4 against 10.4.
	// Below 16 channels each way neither the GEMMs nor the savings are
	// large (16 → 16 on 16×32×32: even).
	return asm.WinogradFast() && C >= 16 && K >= 16 && N*OH*OW >= 1024
}

// winoForward reports whether convForward runs p on convWinograd.
func winoForward(p *core.ConvParams, ct tensor.DType) bool {
	return winoApplies(p, ct) && winoWorth(p.N, p.InC, p.OutC, p.Out[0], p.Out[1])
}

// winoInputGrad reports whether convBackward runs p's input gradient on
// convWinograd: a convolution of the output gradient (OutC channels) into
// InC channels, with the complementary padding.
func winoInputGrad(p *core.ConvParams, ct tensor.DType) bool {
	return winoApplies(p, ct) && unitStrideAdjoint(p) && winoWorth(p.N, p.OutC, p.InC, p.In[0], p.In[1])
}

// winoG applies G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12
// 1/6; 1/24 -1/12 1/6; 0 0 1] to (a, b, c), into r[0], r[s], …, r[5s]
// (in float64, by multiplications: the divisions were a tenth of a
// forward's time).
func winoG(a, b, c float64, r []float64, s int) {
	const q, sixth, h24, h12 = 1.0 / 4, 1.0 / 6, 1.0 / 24, 1.0 / 12
	ac := (a + c) * sixth
	r[0] = a * q
	r[s] = -ac - b*sixth
	r[2*s] = -ac + b*sixth
	e := a*h24 + c*sixth
	r[3*s] = e + b*h12
	r[4*s] = e - b*h12
	r[5*s] = c
}

// winoUPlane is the distance between the planes ξ of the transformed
// weights of K × C kernels: a cache line more than K·C, so that the 36
// planes written at once are not all in one set of the L1 cache.
func winoUPlane(K, C int) int { return K*C + 16 }

// winoWeights sets u[ξ·winoUPlane(K, C) + o·C + c] to element ξ of
// G·g·Gᵀ, the transformed weights of the K × C 3×3 kernels g[o][c] = w[o][c]
// (flip false; w is K × C × 3 × 3) or g[o][c][k] = w[c][o][8-k] (flip: w
// is C × K × 3 × 3, the flipped, transposed weight of an input gradient),
// computed in float64 and rounded once: the GEMMs' left operands, a K × C
// matrix per ξ. The output channels are shared among the cores.
func winoWeights(w []float32, K, C int, flip bool, u []float32) {
	up := winoUPlane(K, C)
	parts := 1
	if K*C >= 4096 {
		parts = min(K, runtime.GOMAXPROCS(0))
	}
	forChunks(parts, parts > 1, func(_, part int) {
		var g [9]float64
		var t [18]float64
		var r [36]float64
		for o := part * K / parts; o < (part+1)*K/parts; o++ {
			for c := range C {
				if flip {
					src := w[(c*K+o)*9:][:9]
					for k, v := range src {
						g[8-k] = float64(v)
					}
				} else {
					src := w[(o*C+c)*9:][:9]
					for k, v := range src {
						g[k] = float64(v)
					}
				}
				for j := range 3 { // G·g, column by column: t[i·3 + j]
					winoG(g[j], g[3+j], g[6+j], t[j:], 3)
				}
				for i := range 6 { // (G·g)·Gᵀ, row by row
					winoG(t[3*i], t[3*i+1], t[3*i+2], r[6*i:], 1)
				}
				d := u[o*C+c:]
				for ξ, x := range r {
					d[ξ*up] = float32(x)
				}
			}
		}
	})
}

// winoQuarter is up to 4 tiles side by side of one tile row (image n,
// tile row ty, tiles tx … tx+tiles-1): a quarter of the tiles a transform
// takes at once (asm.WinoTiles).
type winoQuarter struct{ n, ty, tx, tiles int }

// winoChunks cuts the tile rows of N images of tH × tW tiles into quarters,
// the quarters four at a time into groups (a transform's tiles: rows of
// fewer than 16 tiles share a group) and the groups into chunks of at most
// tc tiles (at least one group each): chunk i is groups chunks[i] …
// chunks[i+1]-1, group g quarters 4g … 4g+3 (fewer at the end).
func winoChunks(N, tH, tW, tc int) (qs []winoQuarter, chunks []int) {
	for n := range N {
		for ty := range tH {
			for tx := 0; tx < tW; tx += 4 {
				qs = append(qs, winoQuarter{n, ty, tx, min(4, tW-tx)})
			}
		}
	}
	tiles := 0
	for g := 0; 4*g < len(qs); g++ {
		gt := 0
		for _, q := range qs[4*g : min(4*g+4, len(qs))] {
			gt += q.tiles
		}
		if len(chunks) == 0 || tiles+gt > tc {
			chunks, tiles = append(chunks, g), 0
		}
		tiles += gt
	}
	return qs, append(chunks, (len(qs)+3)/4)
}

// convWinograd sets y (N images of K channels, OH×OW) to the convolution
// of x (N images of C channels, H×W) by the 3×3 kernels whose transformed
// weights are u (winoWeights), padded by ph, pw, plus bias (nil: none). It
// reports false, y then partly written, when an output is not finite.
func convWinograd(N, C, H, W, K, ph, pw int, x, u, bias, y []float32) bool {
	OH, OW := H+2*ph-2, W+2*pw-2
	tH, tW := (OH+3)/4, (OW+3)/4
	tc := max(16, winoChunkTiles)
	qs, bounds := winoChunks(N, tH, tW, tc)
	chunks := len(bounds) - 1
	// The 36 planes of the transformed tiles and of the products, each a
	// row of tc tiles per channel, a cache line more apart than that: the
	// transforms touch all 36 at once, which whole multiples of 4 KiB
	// apart would put in one set of the L1 cache.
	vp, mp, up := C*tc+16, K*tc+16, winoUPlane(K, C)
	par := chunks > 1 && runtime.GOMAXPROCS(0) > 1
	workers := 1
	if par {
		workers = min(runtime.GOMAXPROCS(0), chunks)
	}
	type scratch struct {
		v, m *[]float32
		ok   bool
	}
	bufs := make([]scratch, workers)
	for i := range bufs {
		bufs[i].ok = true
	}
	defer func() {
		for _, s := range bufs {
			putScratch(s.v)
			putScratch(s.m)
		}
	}()
	// rowBits is the bits of the size rows from start that lie in [0, n).
	rowBits := func(start, size, n int) (bits uint8) {
		for i := range size {
			if r := start + i; r >= 0 && r < n {
				bits |= 1 << i
			}
		}
		return bits
	}
	// group returns group g's tiles as the input and the output transforms
	// take them, and their number.
	group := func(g int) (in, out asm.WinoTiles, tiles int) {
		for i, q := range qs[4*g : min(4*g+4, len(qs))] {
			r0, c0 := 4*q.ty-ph, 4*q.tx-pw // the quarter's corner in the image
			in.Tiles[i], out.Tiles[i] = q.tiles, q.tiles
			in.Off[i], in.Rows[i], in.Lo[i], in.Hi[i] = q.n*C*H*W+r0*W+c0, rowBits(r0, 6, H), -c0, W-c0
			out.Off[i], out.Rows[i], out.Hi[i] = q.n*K*OH*OW+4*q.ty*OW+4*q.tx, rowBits(4*q.ty, 4, OH), OW-4*q.tx
			tiles += q.tiles
		}
		return in, out, tiles
	}
	forChunks(chunks, par, func(wk, ch int) {
		s := &bufs[wk]
		if s.v == nil {
			s.v = getScratch[float32](36 * vp)
			s.m = getScratch[float32](36 * mp)
		}
		v, m := *s.v, *s.m
		nt := 0
		for g := bounds[ch]; g < bounds[ch+1]; g++ {
			in, _, tiles := group(g)
			asm.WinogradInF32(v[nt:], vp, tc, x, H*W, W, C, &in)
			nt += tiles
		}
		for ξ := range 36 {
			asm.Sgemm(false, false, K, nt, C, 1, u[ξ*up:], C, v[ξ*vp:], tc, 0, m[ξ*mp:], tc)
		}
		nt = 0
		for g := bounds[ch]; g < bounds[ch+1]; g++ {
			_, out, tiles := group(g)
			if !asm.WinogradOutF32(y, OH*OW, OW, m[nt:], mp, tc, K, bias, &out) {
				s.ok = false
			}
			nt += tiles
		}
	})
	for _, s := range bufs {
		if !s.ok {
			return false
		}
	}
	return true
}

// convWinogradForward sets y to the convolution p (winoForward) of x by w
// plus bias (nil: none) and reports whether its outputs are all finite.
func convWinogradForward(p *core.ConvParams, x, w, bias, y []float32) bool {
	C, K := p.InC, p.OutC
	u := getScratch[float32](36 * winoUPlane(K, C))
	defer putScratch(u)
	winoWeights(w, K, C, false, *u)
	return convWinograd(p.N, C, p.In[0], p.In[1], K, p.Padding[0], p.Padding[1], x, *u, bias, y)
}

// convWinogradInputGrad sets dx to the input gradient of the convolution p
// (winoInputGrad) whose output gradient is gy: gy convolved by the
// flipped, transposed weight with the complementary padding. It reports
// whether the gradient is all finite.
func convWinogradInputGrad(p *core.ConvParams, gy, w, dx []float32) bool {
	C, K := p.OutC, p.InC
	u := getScratch[float32](36 * winoUPlane(K, C))
	defer putScratch(u)
	winoWeights(w, K, C, true, *u)
	pad := adjointPadding(p)
	return convWinograd(p.N, C, p.Out[0], p.Out[1], K, pad[0], pad[1], gy, *u, nil, dx)
}
