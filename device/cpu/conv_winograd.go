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
//
// The weight gradient is the adjoint: dw = Gᵀ·[Σ_tiles (A·dy·Aᵀ) ⊙
// (Bᵀ·d·B)]·G, the output gradient's 4×4 tiles transformed by
// asm.WinogradGradF32, the sums over the tiles 36 GEMMs [K × tiles]·[tiles
// × C] per chunk, accumulated in winoGradParts fixed parts (then added in
// order, in float64) so that the result does not depend on the number of
// cores. TestConvWinogradWeightGrad holds it to (tiles + 16)·2⁻²⁴ of the
// computation on absolute values and to 256·2⁻²⁴ of the largest Σ|gy·x|
// over the kernel's nine taps (measured at most 33; the wide GEMM's 5).

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
	qs = make([]winoQuarter, 0, N*tH*((tW+3)/4))
	chunks = make([]int, 0, (cap(qs)+3)/4+1)
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

// winoPlan is the tiles of a Winograd convolution of N images of C
// channels, H×W, padded by ph, pw, into K channels of OH×OW: tH × tW tiles
// an image, cut into quarters, groups and chunks of at most tc tiles
// (winoChunks).
type winoPlan struct {
	N, C, H, W, K, ph, pw, OH, OW, tc int
	qs                                []winoQuarter
	bounds                            []int
}

func newWinoPlan(N, C, H, W, K, ph, pw int) *winoPlan {
	pl := &winoPlan{N: N, C: C, H: H, W: W, K: K, ph: ph, pw: pw, OH: H + 2*ph - 2, OW: W + 2*pw - 2}
	pl.tc = max(16, winoChunkTiles)
	pl.qs, pl.bounds = winoChunks(N, (pl.OH+3)/4, (pl.OW+3)/4, pl.tc)
	return pl
}

// chunks is the number of chunks.
func (pl *winoPlan) chunks() int { return len(pl.bounds) - 1 }

// rowBits is the bits of the size rows from start that lie in [0, n).
func rowBits(start, size, n int) (bits uint8) {
	for i := range size {
		if r := start + i; r >= 0 && r < n {
			bits |= 1 << i
		}
	}
	return bits
}

// group returns group g's tiles as the input and the output transforms
// take them (x: N×C×H×W, y: N×K×OH×OW), and their number.
func (pl *winoPlan) group(g int) (in, out asm.WinoTiles, tiles int) {
	C, H, W, K, OH, OW := pl.C, pl.H, pl.W, pl.K, pl.OH, pl.OW
	for i, q := range pl.qs[4*g : min(4*g+4, len(pl.qs))] {
		r0, c0 := 4*q.ty-pl.ph, 4*q.tx-pl.pw // the quarter's corner in the image
		in.Tiles[i], out.Tiles[i] = q.tiles, q.tiles
		in.Off[i], in.Rows[i], in.Lo[i], in.Hi[i] = q.n*C*H*W+r0*W+c0, rowBits(r0, 6, H), -c0, W-c0
		out.Off[i], out.Rows[i], out.Hi[i] = q.n*K*OH*OW+4*q.ty*OW+4*q.tx, rowBits(4*q.ty, 4, OH), OW-4*q.tx
		tiles += q.tiles
	}
	return in, out, tiles
}

// transformIn writes the transformed input tiles of chunk ch of x into v
// (36 planes vp apart, rows of tc tiles per channel); it returns the
// number of tiles.
func (pl *winoPlan) transformIn(ch int, x, v []float32, vp int) int {
	nt := 0
	for g := pl.bounds[ch]; g < pl.bounds[ch+1]; g++ {
		in, _, tiles := pl.group(g)
		asm.WinogradInF32(v[nt:], vp, pl.tc, x, pl.H*pl.W, pl.W, pl.C, &in)
		nt += tiles
	}
	return nt
}

// winoWorkers is the number of goroutines for n pieces of work, and
// whether they run in parallel.
func winoWorkers(n int) (int, bool) {
	if n > 1 && runtime.GOMAXPROCS(0) > 1 {
		return min(runtime.GOMAXPROCS(0), n), true
	}
	return 1, false
}

// winoScratch is a goroutine's scratch buffers; ok is cleared when an
// output is not finite.
type winoScratch struct {
	a, b *[]float32
	ok   bool
}

func putWinoScratch(bufs []winoScratch) {
	for _, s := range bufs {
		putScratch(s.a)
		putScratch(s.b)
	}
}

// convWinograd sets y (N images of K channels, OH×OW) to the convolution
// of x (N images of C channels, H×W) by the 3×3 kernels whose transformed
// weights are u (winoWeights), padded by ph, pw, plus bias (nil: none). It
// reports false, y then partly written, when an output is not finite.
func convWinograd(N, C, H, W, K, ph, pw int, x, u, bias, y []float32) bool {
	pl := newWinoPlan(N, C, H, W, K, ph, pw)
	tc, OH, OW := pl.tc, pl.OH, pl.OW
	// The 36 planes of the transformed tiles and of the products, each a
	// row of tc tiles per channel, a cache line more apart than that: the
	// transforms touch all 36 at once, which whole multiples of 4 KiB
	// apart would put in one set of the L1 cache.
	vp, mp, up := C*tc+16, K*tc+16, winoUPlane(K, C)
	workers, par := winoWorkers(pl.chunks())
	bufs := make([]winoScratch, workers)
	defer putWinoScratch(bufs)
	forChunks(pl.chunks(), par, func(wk, ch int) {
		s := &bufs[wk]
		if s.a == nil {
			s.a, s.b, s.ok = getScratch[float32](36*vp), getScratch[float32](36*mp), true
		}
		v, m := *s.a, *s.b
		nt := pl.transformIn(ch, x, v, vp)
		for ξ := range 36 {
			asm.Sgemm(false, false, K, nt, C, 1, u[ξ*up:], C, v[ξ*vp:], tc, 0, m[ξ*mp:], tc)
		}
		nt = 0
		for g := pl.bounds[ch]; g < pl.bounds[ch+1]; g++ {
			_, out, tiles := pl.group(g)
			if !asm.WinogradOutF32(y, OH*OW, OW, m[nt:], mp, tc, K, bias, &out) {
				s.ok = false
			}
			nt += tiles
		}
	})
	for _, s := range bufs {
		if s.a != nil && !s.ok {
			return false
		}
	}
	return true
}

// winoGradParts is the number of partial sums of a weight gradient:
// chunks p, p + winoGradParts, … add into part p in their order, and the
// parts are added in theirs, so that the result does not depend on the
// number of cores.
const winoGradParts = 4

// winoGT is G, for the weight gradient's Gᵀ·dU·G.
var winoGT = [6][3]float64{{1. / 4, 0, 0}, {-1. / 6, -1. / 6, -1. / 6}, {-1. / 6, 1. / 6, -1. / 6}, {1. / 24, 1. / 12, 1. / 6}, {1. / 24, -1. / 12, 1. / 6}, {0, 0, 1}}

// convWinogradWeightGrad sets dw (K × C × 3 × 3) to the weight gradient of
// the convolution of x (N images of C channels, H×W, padded by ph, pw)
// whose output gradient is gy (N images of K channels): per chunk of
// tiles, the transformed tiles of gy (asm.WinogradGradF32) by those of x,
// 36 products [K × tiles]·[tiles × C] summed into dU, then dw = Gᵀ·dU·G
// in float64. It reports whether dw is all finite.
func convWinogradWeightGrad(N, C, H, W, K, ph, pw int, x, gy, dw []float32) bool {
	pl := newWinoPlan(N, C, H, W, K, ph, pw)
	tc, chunks := pl.tc, pl.chunks()
	parts := min(winoGradParts, chunks)
	vp, gp, up := C*tc+16, K*tc+16, winoUPlane(K, C)
	dus := getScratch[float32](parts * 36 * up)
	defer putScratch(dus)
	du := *dus
	workers, par := winoWorkers(parts)
	bufs := make([]winoScratch, workers)
	defer putWinoScratch(bufs)
	forChunks(parts, par, func(wk, p int) {
		s := &bufs[wk]
		if s.a == nil {
			s.a, s.b = getScratch[float32](36*vp), getScratch[float32](36*gp)
		}
		v, g := *s.a, *s.b
		var beta float32 // the part's first chunk sets it
		for ch := p; ch < chunks; ch += parts {
			nt := pl.transformIn(ch, x, v, vp)
			t := 0
			for gr := pl.bounds[ch]; gr < pl.bounds[ch+1]; gr++ {
				_, out, tiles := pl.group(gr)
				asm.WinogradGradF32(g[t:], gp, tc, gy, pl.OH*pl.OW, pl.OW, K, &out)
				t += tiles
			}
			for ξ := range 36 {
				asm.Sgemm(false, true, K, C, nt, 1, g[ξ*gp:], tc, v[ξ*vp:], tc, beta, du[(p*36+ξ)*up:], C)
			}
			beta = 1
		}
	})
	// dw[o][c] = Gᵀ·(Σ_p dU_p[o][c])·G, the output channels shared among
	// the cores.
	workers, par = winoWorkers(K)
	finite := make([]bool, workers)
	forChunks(workers, par, func(_, part int) {
		finite[part] = true
		var d [36]float64
		var t [6][3]float64
		for o := part * K / workers; o < (part+1)*K/workers; o++ {
			for c := range C {
				for ξ := range d {
					d[ξ] = 0
					for p := range parts {
						d[ξ] += float64(du[(p*36+ξ)*up+o*C+c])
					}
				}
				for a := range 6 {
					for j := range 3 {
						var s float64
						for b := range 6 {
							s += d[a*6+b] * winoGT[b][j]
						}
						t[a][j] = s
					}
				}
				out := dw[(o*C+c)*9:][:9]
				for i := range 3 {
					for j := range 3 {
						var s float64
						for a := range 6 {
							s += winoGT[a][i] * t[a][j]
						}
						v := float32(s)
						if v-v != 0 {
							finite[part] = false
						}
						out[i*3+j] = v
					}
				}
			}
		}
	})
	for _, f := range finite {
		if !f {
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

// winoWeightGrad reports whether convBackward runs p's weight gradient on
// convWinogradWeightGrad: as the forward, and with at most 64 channels
// each way (at 128 and 256 its products, short and accumulated chunk by
// chunk, ran no faster than the wide GEMM: 9.5 against 9.3 ms for
// 8×128×28×28 → 128, 14.8 against 15.2 for 8×256×14×14 → 256).
func winoWeightGrad(p *core.ConvParams, ct tensor.DType) bool {
	return winoApplies(p, ct) && winoWorth(p.N, p.InC, p.OutC, p.Out[0], p.Out[1]) && (winoMode == 1 || max(p.InC, p.OutC) <= 64)
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
