package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/goaten/goaten/internal/cputime"
	"github.com/goaten/goaten/tensor"
)

// winoErrBound bounds the error of a Winograd output in units of 2⁻²⁴
// (float32's half ulp of 1) times the largest Σ|x·w| (+ |bias|) over the
// outputs of its 4×4 tile (the float32 summation scale of the tile: an
// output's error is made of its whole tile's values): see
// conv_winograd.go. It is a measured bound, with a margin: over 650
// random cases of these tests' kind (2026-11-28) the largest ratio was 51
// with the AVX-512 GEMM, 49 with the pure-Go one and 127 with the AVX2
// one, the largest ones all with 1 to 5 input channels (no sum over
// channels to average the transforms' roundings; the default cases' worst
// with 16 or more is about 41); the direct sum's stays under 7
// (TestConvWinograd logs its figures). Each output is also held to the first-order bound of
// its rounding steps, (C + 16)·2⁻²⁴ times the same computation on
// absolute values (|Aᵀ|·Σ_c (|G|·|w|·|Gᵀ|) ⊙ (|Bᵀ|·|x|·|B|)·|A|): each
// transform pass rounds at most three times, the weights once, the sum
// over the C channels C times, the bias once.
const winoErrBound = 256

// winoGradErrBound bounds the error of a Winograd weight gradient in
// units of 2⁻²⁴ times the largest Σ|gy·x| over the nine taps of its
// kernel (the transforms mix them), measured: see
// TestConvWinogradWeightGrad's log.
const winoGradErrBound = 256

// winoCase is a 3×3 convolution of stride 1: N images of C channels,
// H×W, into K channels, padded by ph, pw.
type winoCase struct {
	N, C, H, W, K, ph, pw int
	bias                  bool
}

func (c winoCase) String() string {
	return fmt.Sprintf("%d×%d×%d×%d→%d/p%d,%d/bias=%v", c.N, c.C, c.H, c.W, c.K, c.ph, c.pw, c.bias)
}

// winoCases are drawn at random: batches 1–3, channels up to 64, images
// 1–40 (sizes that are and are not a multiple of the tile), padding 0–2;
// and the op survey's shape, cut to two images, a 4×4 image, and two
// padded past the kernel's reach (tiles wholly in the padding; no input
// gradient on this path).
func winoCases(r *rand.Rand, n int) []winoCase {
	cs := []winoCase{{2, 64, 56, 56, 64, 1, 1, true}, {1, 16, 4, 4, 16, 1, 1, false}, {2, 5, 6, 7, 6, 3, 4, true}, {1, 3, 2, 1, 4, 5, 2, false}}
	for len(cs) < n {
		c := winoCase{N: 1 + r.IntN(3), C: 1 + r.IntN(64), K: 1 + r.IntN(64), H: 1 + r.IntN(40), W: 1 + r.IntN(40),
			ph: r.IntN(3), pw: r.IntN(3), bias: r.IntN(2) == 0}
		if c.H+2*c.ph < 3 || c.W+2*c.pw < 3 {
			continue
		}
		cs = append(cs, c)
	}
	return cs
}

// The transforms' matrices in absolute value, for the first-order bound.
var (
	winoAbsBT = [6][6]float64{
		{4, 0, 5, 0, 1, 0}, {0, 4, 4, 1, 1, 0}, {0, 4, 4, 1, 1, 0},
		{0, 2, 1, 2, 1, 0}, {0, 2, 1, 2, 1, 0}, {0, 4, 0, 5, 0, 1},
	}
	winoAbsG  = [6][3]float64{{1. / 4, 0, 0}, {1. / 6, 1. / 6, 1. / 6}, {1. / 6, 1. / 6, 1. / 6}, {1. / 24, 1. / 12, 1. / 6}, {1. / 24, 1. / 12, 1. / 6}, {0, 0, 1}}
	winoAbsAT = [4][6]float64{{1, 1, 1, 1, 1, 0}, {0, 1, 1, 2, 2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, 1, 8, 8, 1}}
)

// winoRef is the convolution in float64; per output, the largest
// Σ|x·w| (+ |bias|) over its 4×4 tile of outputs (scale), and the
// Winograd computation of its tile on absolute values (abs).
func winoRef(c winoCase, x, w, b []float64) (y, scale, abs []float64) {
	OH, OW := c.H+2*c.ph-2, c.W+2*c.pw-2
	y = make([]float64, c.N*c.K*OH*OW)
	mag := make([]float64, len(y))
	for n := range c.N {
		for o := range c.K {
			for i := range OH {
				for j := range OW {
					var s, m float64
					if b != nil {
						s, m = b[o], math.Abs(b[o])
					}
					for ch := range c.C {
						for ki := range 3 {
							ii := i + ki - c.ph
							if ii < 0 || ii >= c.H {
								continue
							}
							for kj := range 3 {
								jj := j + kj - c.pw
								if jj < 0 || jj >= c.W {
									continue
								}
								p := x[((n*c.C+ch)*c.H+ii)*c.W+jj] * w[((o*c.C+ch)*3+ki)*3+kj]
								s, m = s+p, m+math.Abs(p)
							}
						}
					}
					k := ((n*c.K+o)*OH+i)*OW + j
					y[k], mag[k] = s, m
				}
			}
		}
	}
	scale = make([]float64, len(y))
	for k := range y {
		q := k % (OH * OW)
		i0, j0 := q/OW/4*4, q%OW/4*4
		for i := i0; i < min(i0+4, OH); i++ {
			for j := j0; j < min(j0+4, OW); j++ {
				scale[k] = max(scale[k], mag[k-q+i*OW+j])
			}
		}
	}
	// |U| of each kernel, then tile by tile |V| of each channel, their
	// products summed and |Aᵀ|·…·|A|.
	uAbs := make([][36]float64, c.K*c.C)
	for o := range c.K {
		for ch := range c.C {
			g := w[(o*c.C+ch)*9:]
			var t [6][3]float64
			for a := range 6 {
				for jj := range 3 {
					for ii := range 3 {
						t[a][jj] += winoAbsG[a][ii] * math.Abs(g[ii*3+jj])
					}
				}
			}
			for a := range 6 {
				for bb := range 6 {
					for jj := range 3 {
						uAbs[o*c.C+ch][a*6+bb] += t[a][jj] * winoAbsG[bb][jj]
					}
				}
			}
		}
	}
	abs = make([]float64, len(y))
	vAbs := make([][36]float64, c.C)
	for n := range c.N {
		for ty := 0; ty < OH; ty += 4 {
			for tx := 0; tx < OW; tx += 4 {
				for ch := range c.C {
					var d, t [6][6]float64
					for i := range 6 {
						for j := range 6 {
							if ii, jj := ty-c.ph+i, tx-c.pw+j; ii >= 0 && ii < c.H && jj >= 0 && jj < c.W {
								d[i][j] = math.Abs(x[((n*c.C+ch)*c.H+ii)*c.W+jj])
							}
						}
					}
					for a := range 6 {
						for j := range 6 {
							for i := range 6 {
								t[a][j] += winoAbsBT[a][i] * d[i][j]
							}
						}
					}
					vAbs[ch] = [36]float64{}
					for a := range 6 {
						for bb := range 6 {
							for j := range 6 {
								vAbs[ch][a*6+bb] += t[a][j] * winoAbsBT[bb][j]
							}
						}
					}
				}
				for o := range c.K {
					var m [36]float64
					for ch := range c.C {
						for e := range m {
							m[e] += uAbs[o*c.C+ch][e] * vAbs[ch][e]
						}
					}
					for i := range min(4, OH-ty) {
						for j := range min(4, OW-tx) {
							var s float64
							for a := range 6 {
								for bb := range 6 {
									s += winoAbsAT[i][a] * m[a*6+bb] * winoAbsAT[j][bb]
								}
							}
							if b != nil {
								s += math.Abs(b[o])
							}
							abs[((n*c.K+o)*OH+ty+i)*OW+tx+j] = s
						}
					}
				}
			}
		}
	}
	return y, scale, abs
}

func winoRand(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(float32(r.NormFloat64()))
	}
	return v
}

// withWino runs f with winoMode set to mode.
func withWino(mode int, f func()) {
	defer func(m int) { winoMode = m }(winoMode)
	winoMode = mode
	f()
}

// TestConvWinograd checks the forward and the input gradient on the
// Winograd path (forced on, so that the pure-Go twins are checked where
// the device does not take it) against a float64 direct sum: each output
// within winoErrBound·2⁻²⁴ of its tile's largest Σ|x·w|.
func TestConvWinograd(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 25))
	n := 40
	if testing.Short() {
		n = 12
	}
	worst, worstDirect := 0.0, 0.0
	for _, c := range winoCases(r, n) {
		OH, OW := c.H+2*c.ph-2, c.W+2*c.pw-2
		xv, wv := winoRand(r, c.N*c.C*c.H*c.W), winoRand(r, c.K*c.C*9)
		var bv []float64
		var b *tensor.Tensor
		if c.bias {
			bv = winoRand(r, c.K)
			b = tensor.FromSlice(bv, c.K).To(tensor.Float32)
		}
		x := tensor.FromSlice(xv, c.N, c.C, c.H, c.W).To(tensor.Float32)
		w := tensor.FromSlice(wv, c.K, c.C, 3, 3).To(tensor.Float32)
		stride, pad, dil := []int{1, 1}, []int{c.ph, c.pw}, []int{1, 1}
		var y *tensor.Tensor
		withWino(1, func() {
			y = tensor.Call("aten::convolution", x, w, b, stride, pad, dil, false, []int{0, 0}, 1).(*tensor.Tensor)
		})
		want, scale, abs := winoRef(c, xv, wv, bv)
		worst = max(worst, winoCheck(t, c.String()+" forward", y.Float64s(), want, scale, abs, c.C))
		withWino(-1, func() { // the direct path's error, for comparison
			y = tensor.Call("aten::convolution", x, w, b, stride, pad, dil, false, []int{0, 0}, 1).(*tensor.Tensor)
		})
		worstDirect = max(worstDirect, winoCheck(t, c.String()+" forward (direct)", y.Float64s(), want, scale, nil, 0))
		if c.ph > 2 || c.pw > 2 {
			continue
		}
		// The input gradient: the convolution of gy (K channels, OH×OW)
		// by the flipped, transposed weight, padded by 2 - p.
		gv := winoRand(r, c.N*c.K*OH*OW)
		gy := tensor.FromSlice(gv, c.N, c.K, OH, OW).To(tensor.Float32)
		var outs []*tensor.Tensor
		withWino(1, func() {
			outs = tensor.Call("aten::convolution_backward", gy, x, w, nil, stride, pad, dil, false, []int{0, 0}, 1, []bool{true, false, false}).([]*tensor.Tensor)
		})
		adj := winoCase{N: c.N, C: c.K, H: OH, W: OW, K: c.C, ph: 2 - c.ph, pw: 2 - c.pw}
		wt := make([]float64, len(wv))
		for o := range c.K {
			for ch := range c.C {
				for k := range 9 {
					wt[(ch*c.K+o)*9+8-k] = wv[(o*c.C+ch)*9+k]
				}
			}
		}
		want, scale, abs = winoRef(adj, gv, wt, nil)
		worst = max(worst, winoCheck(t, c.String()+" grad_input", outs[0].Float64s(), want, scale, abs, adj.C))
	}
	t.Logf("largest error: %.2f·2⁻²⁴ of the tile's Σ|x·w| (bound %d); the direct path's forward: %.2f", worst, winoErrBound, worstDirect)
}

// winoCheck fails unless every got[k] is within winoErrBound·2⁻²⁴·scale[k]
// of want[k] and, where abs is not nil, within (depth + 16)·2⁻²⁴·abs[k];
// it returns the largest ratio of the error to 2⁻²⁴·scale.
func winoCheck(t *testing.T, name string, got, want, scale, abs []float64, depth int) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", name, len(got), len(want))
	}
	worst := 0.0
	for k, g := range got {
		e := math.Abs(g - want[k])
		if !(e <= winoErrBound*0x1p-24*scale[k]) { // NaN fails too
			t.Fatalf("%s: y[%d] = %v, want %v (scale %v: %.1f units)", name, k, g, want[k], scale[k], e/(0x1p-24*scale[k]))
		}
		if abs != nil && !(e <= float64(depth+16)*0x1p-24*abs[k]) {
			t.Fatalf("%s: y[%d] = %v, want %v: more than %d roundings of %v", name, k, g, want[k], depth+16, abs[k])
		}
		if scale[k] > 0 {
			worst = max(worst, e/(0x1p-24*scale[k]))
		}
	}
	return worst
}

// TestConvWinogradNonFinite: an infinity or NaN in the input, the weight
// or the output gradient, or finite values whose transforms overflow,
// give exactly what the direct path gives in the forward and the input
// and weight gradients (the Winograd results are not all finite, and
// they are computed again the exact way).
func TestConvWinogradNonFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	c := winoCase{N: 2, C: 17, H: 9, W: 11, K: 18, ph: 1, pw: 1, bias: true}
	stride, pad, dil := []int{1, 1}, []int{1, 1}, []int{1, 1}
	for _, tc := range []struct {
		name        string
		x, w, gy    int // indices set to val (-1: none)
		val         float64
		nanExpected bool
	}{
		{"x +Inf", 5*c.W + 3, -1, -1, math.Inf(1), true},
		{"x NaN", c.C*c.H*c.W + 7, -1, -1, math.NaN(), true},
		{"x -Inf at a corner", c.H*c.W - 1, -1, -1, math.Inf(-1), true},
		{"w +Inf", -1, 40, -1, math.Inf(1), true},
		{"w NaN", -1, 3, -1, math.NaN(), true},
		{"gy -Inf", -1, -1, 20, math.Inf(-1), true},
		{"gy NaN at a corner", -1, -1, c.H*c.W - 1, math.NaN(), true},
		{"x huge", 4*c.W + 4, -1, -1, 3e38, false},
	} {
		xv, wv, bv := winoRand(r, c.N*c.C*c.H*c.W), winoRand(r, c.K*c.C*9), winoRand(r, c.K)
		gv := winoRand(r, c.N*c.K*c.H*c.W)
		for _, p := range []struct {
			v []float64
			i int
		}{{xv, tc.x}, {wv, tc.w}, {gv, tc.gy}} {
			if p.i >= 0 {
				p.v[p.i] = tc.val
			}
		}
		x := tensor.FromSlice(xv, c.N, c.C, c.H, c.W).To(tensor.Float32)
		w := tensor.FromSlice(wv, c.K, c.C, 3, 3).To(tensor.Float32)
		b := tensor.FromSlice(bv, c.K).To(tensor.Float32)
		gy := tensor.FromSlice(gv, c.N, c.K, c.H, c.W).To(tensor.Float32)
		run := func(mode int) (y, gi, gw []float64) {
			withWino(mode, func() {
				y = tensor.Call("aten::convolution", x, w, b, stride, pad, dil, false, []int{0, 0}, 1).(*tensor.Tensor).Float64s()
				outs := tensor.Call("aten::convolution_backward", gy, x, w, nil, stride, pad, dil, false, []int{0, 0}, 1, []bool{true, true, false}).([]*tensor.Tensor)
				gi, gw = outs[0].Float64s(), outs[1].Float64s()
			})
			return y, gi, gw
		}
		y1, g1, w1 := run(1)
		y0, g0, w0 := run(-1)
		nonFinite := 0
		for _, p := range []struct {
			name      string
			got, want []float64
			hit       bool // the value is in one of this op's operands
		}{{"forward", y1, y0, tc.x >= 0 || tc.w >= 0}, {"grad_input", g1, g0, tc.w >= 0 || tc.gy >= 0}, {"grad_weight", w1, w0, tc.x >= 0 || tc.gy >= 0}} {
			if !p.hit {
				continue // finite operands: TestConvWinograd's bound
			}
			for k, v := range p.got {
				if !(v == p.want[k] || math.IsNaN(v) && math.IsNaN(p.want[k])) {
					t.Fatalf("%s: %s[%d] = %v, the exact path gives %v", tc.name, p.name, k, v, p.want[k])
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					nonFinite++
				}
			}
		}
		if tc.nanExpected && nonFinite == 0 {
			t.Fatalf("%s: every output finite: the case does not test what it should", tc.name)
		}
	}
}

// TestConvWinogradCores: the forward and the weight gradient (summed over
// the chunks in parts) do not depend on the number of goroutines the
// chunks run on.
func TestConvWinogradCores(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 27))
	x := tensor.FromSlice(winoRand(r, 3*32*20*20), 3, 32, 20, 20).To(tensor.Float32)
	w := tensor.FromSlice(winoRand(r, 32*32*9), 32, 32, 3, 3).To(tensor.Float32)
	gy := tensor.FromSlice(winoRand(r, 3*32*20*20), 3, 32, 20, 20).To(tensor.Float32)
	one := []int{1, 1}
	var ys, gws [][]float64
	for _, procs := range []int{1, 2, 3} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			withWino(1, func() {
				ys = append(ys, tensor.Call("aten::convolution", x, w, nil, one, one, one, false, []int{0, 0}, 1).(*tensor.Tensor).Float64s())
				outs := tensor.Call("aten::convolution_backward", gy, x, w, nil, one, one, one, false, []int{0, 0}, 1, []bool{false, true, false}).([]*tensor.Tensor)
				gws = append(gws, outs[1].Float64s())
			})
		}()
	}
	for i := 1; i < len(ys); i++ {
		for k, v := range ys[i] {
			if v != ys[0][k] {
				t.Fatalf("run %d: y[%d] = %v, with one goroutine %v", i, k, v, ys[0][k])
			}
		}
		for k, v := range gws[i] {
			if v != gws[0][k] {
				t.Fatalf("run %d: grad_weight[%d] = %v, with one goroutine %v", i, k, v, gws[0][k])
			}
		}
	}
}

// BenchmarkConvWinograd runs 3×3 convolutions of stride 1 (forward with
// a bias, and the input gradient) on the Winograd path and on the wide
// GEMM: the measurements behind winoWorth.
func BenchmarkConvWinograd(b *testing.B) {
	r := rand.New(rand.NewPCG(25, 28))
	for _, c := range []winoCase{
		{8, 64, 56, 56, 64, 1, 1, true},
		{16, 32, 32, 32, 32, 1, 1, true},
		{16, 32, 16, 16, 32, 1, 1, true},
		{16, 16, 32, 32, 16, 1, 1, true},
		{32, 16, 14, 14, 32, 1, 1, true},
		{8, 128, 28, 28, 128, 1, 1, true},
		{8, 256, 14, 14, 256, 1, 1, true},
		{8, 256, 7, 7, 256, 1, 1, true},
		{8, 512, 7, 7, 512, 1, 1, true},
	} {
		x := tensor.FromSlice(winoRand(r, c.N*c.C*c.H*c.W), c.N, c.C, c.H, c.W).To(tensor.Float32)
		w := tensor.FromSlice(winoRand(r, c.K*c.C*9), c.K, c.C, 3, 3).To(tensor.Float32)
		bias := tensor.FromSlice(winoRand(r, c.K), c.K).To(tensor.Float32)
		gy := tensor.FromSlice(winoRand(r, c.N*c.K*c.H*c.W), c.N, c.K, c.H, c.W).To(tensor.Float32)
		one := []int{1, 1}
		for _, m := range []struct {
			name string
			mode int
		}{{"wide", -1}, {"winograd", 1}} {
			name := fmt.Sprintf("%dx%dx%dx%d-%d", c.N, c.C, c.H, c.W, c.K)
			b.Run("forward/"+name+"/"+m.name, func(b *testing.B) {
				withWino(m.mode, func() {
					winoBench(b, func() { tensor.Call("aten::convolution", x, w, bias, one, one, one, false, []int{0, 0}, 1) })
				})
			})
			b.Run("grad_weight/"+name+"/"+m.name, func(b *testing.B) {
				withWino(m.mode, func() {
					winoBench(b, func() {
						tensor.Call("aten::convolution_backward", gy, x, w, nil, one, one, one, false, []int{0, 0}, 1, []bool{false, true, false})
					})
				})
			})
			b.Run("grad_input/"+name+"/"+m.name, func(b *testing.B) {
				withWino(m.mode, func() {
					winoBench(b, func() {
						tensor.Call("aten::convolution_backward", gy, x, w, nil, one, one, one, false, []int{0, 0}, 1, []bool{true, false, false})
					})
				})
			})
		}
	}
}

// winoBench runs f in b's loop and reports the process's CPU time per
// call (cpu-ns/op), which other work on a shared machine moves less than
// the wall time.
func winoBench(b *testing.B, f func()) {
	f() // warm: the scratch pools
	cpu0 := cputime.Process()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
}

// winoRefWeightGrad is the weight gradient of case c (x, gy) in float64;
// per weight, the largest Σ|gy·x| over its kernel's nine taps (scale) and the Winograd computation on absolute
// values, |Gᵀ|·Σ_tiles (|A|·|dy|·|Aᵀ|) ⊙ (|Bᵀ|·|x|·|B|)·|G| (abs); and the
// number of tiles.
func winoRefWeightGrad(c winoCase, x, gy []float64) (dw, scale, abs []float64, tiles int) {
	OH, OW := c.H+2*c.ph-2, c.W+2*c.pw-2
	dw, scale, abs = make([]float64, c.K*c.C*9), make([]float64, c.K*c.C*9), make([]float64, c.K*c.C*9)
	for n := range c.N {
		for o := range c.K {
			for ch := range c.C {
				for k := range 9 {
					var s, m float64
					for i := range OH {
						ii := i + k/3 - c.ph
						if ii < 0 || ii >= c.H {
							continue
						}
						for j := range OW {
							jj := j + k%3 - c.pw
							if jj < 0 || jj >= c.W {
								continue
							}
							p := gy[((n*c.K+o)*OH+i)*OW+j] * x[((n*c.C+ch)*c.H+ii)*c.W+jj]
							s, m = s+p, m+math.Abs(p)
						}
					}
					dw[(o*c.C+ch)*9+k] += s
					scale[(o*c.C+ch)*9+k] += m
				}
			}
		}
	}
	for k := 0; k < len(scale); k += 9 {
		m := 0.0
		for _, v := range scale[k : k+9] {
			m = max(m, v)
		}
		for i := range 9 {
			scale[k+i] = m
		}
	}
	du := make([][36]float64, c.K*c.C)
	vAbs := make([][36]float64, c.C)
	gAbs := make([][36]float64, c.K)
	for n := range c.N {
		for ty := 0; ty < OH; ty += 4 {
			for tx := 0; tx < OW; tx += 4 {
				tiles++
				for ch := range c.C {
					var d, t [6][6]float64
					for i := range 6 {
						for j := range 6 {
							if ii, jj := ty-c.ph+i, tx-c.pw+j; ii >= 0 && ii < c.H && jj >= 0 && jj < c.W {
								d[i][j] = math.Abs(x[((n*c.C+ch)*c.H+ii)*c.W+jj])
							}
						}
					}
					vAbs[ch] = [36]float64{}
					for a := range 6 {
						for j := range 6 {
							for i := range 6 {
								t[a][j] += winoAbsBT[a][i] * d[i][j]
							}
						}
					}
					for a := range 6 {
						for b := range 6 {
							for j := range 6 {
								vAbs[ch][a*6+b] += t[a][j] * winoAbsBT[b][j]
							}
						}
					}
				}
				for o := range c.K {
					var t [6][4]float64
					gAbs[o] = [36]float64{}
					for a := range 6 {
						for j := range 4 {
							for i := range min(4, OH-ty) {
								if tx+j < OW {
									t[a][j] += winoAbsAT[i][a] * math.Abs(gy[((n*c.K+o)*OH+ty+i)*OW+tx+j])
								}
							}
						}
					}
					for a := range 6 {
						for b := range 6 {
							for j := range 4 {
								gAbs[o][a*6+b] += t[a][j] * winoAbsAT[j][b]
							}
						}
					}
				}
				for o := range c.K {
					for ch := range c.C {
						for e := range 36 {
							du[o*c.C+ch][e] += gAbs[o][e] * vAbs[ch][e]
						}
					}
				}
			}
		}
	}
	for k, d := range du {
		for i := range 3 {
			for j := range 3 {
				var s float64
				for a := range 6 {
					for b := range 6 {
						s += winoAbsG[a][i] * d[a*6+b] * winoAbsG[b][j]
					}
				}
				abs[k*9+i*3+j] = s
			}
		}
	}
	return dw, scale, abs, tiles
}

// TestConvWinogradWeightGrad checks the weight gradient on the Winograd
// path (forced on) against a float64 direct sum: each weight within
// (tiles + 16)·2⁻²⁴ of the Winograd computation on absolute values (the
// first-order bound: the sum over the tiles is a float32 sum), and within
// winoGradErrBound·2⁻²⁴ of its kernel's largest Σ|gy·x|.
func TestConvWinogradWeightGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 29))
	n := 24
	if testing.Short() {
		n = 8
	}
	worst, worstWide := 0.0, 0.0
	for _, c := range winoCases(r, n) {
		OH, OW := c.H+2*c.ph-2, c.W+2*c.pw-2
		xv, wv, gv := winoRand(r, c.N*c.C*c.H*c.W), winoRand(r, c.K*c.C*9), winoRand(r, c.N*c.K*OH*OW)
		x := tensor.FromSlice(xv, c.N, c.C, c.H, c.W).To(tensor.Float32)
		w := tensor.FromSlice(wv, c.K, c.C, 3, 3).To(tensor.Float32)
		gy := tensor.FromSlice(gv, c.N, c.K, OH, OW).To(tensor.Float32)
		want, scale, abs, tiles := winoRefWeightGrad(c, xv, gv)
		for _, mode := range []int{1, -1} {
			var got []float64
			withWino(mode, func() {
				outs := tensor.Call("aten::convolution_backward", gy, x, w, nil, []int{1, 1}, []int{c.ph, c.pw}, []int{1, 1}, false, []int{0, 0}, 1, []bool{false, true, false}).([]*tensor.Tensor)
				got = outs[1].Float64s()
			})
			for k, g := range got {
				e := math.Abs(g - want[k])
				if mode == 1 && !(e <= float64(tiles+16)*0x1p-24*abs[k]) {
					t.Fatalf("%v: grad_weight[%d] = %v, want %v: more than %d roundings of %v", c, k, g, want[k], tiles+16, abs[k])
				}
				if !(e <= winoGradErrBound*0x1p-24*scale[k]) {
					t.Fatalf("%v (mode %d): grad_weight[%d] = %v, want %v (scale %v: %.1f units)", c, mode, k, g, want[k], scale[k], e/(0x1p-24*scale[k]))
				}
				if scale[k] > 0 {
					if mode == 1 {
						worst = max(worst, e/(0x1p-24*scale[k]))
					} else {
						worstWide = max(worstWide, e/(0x1p-24*scale[k]))
					}
				}
			}
		}
	}
	t.Logf("largest error: %.2f·2⁻²⁴ of the kernel's Σ|gy·x| (bound %d); the wide path's: %.2f", worst, winoGradErrBound, worstWide)
}
