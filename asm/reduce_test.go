package asm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func sameF64(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b
}

// checkReduce runs every reduction kernel in use and its twin on x0, y0 at
// offset off and compares the results bit for bit.
func checkReduce(t testing.TB, x0, y0 []float32, off int) {
	t.Helper()
	n := len(x0)
	x, xb := ewPad(x0, off, ewGuard)
	y, yb := ewPad(y0, off+1, ewGuard)
	m := float64(0.25)
	if n > 0 {
		m = float64(x0[0]) / 3
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"sum", red32.sum(x), reduceGo.sum(x0)},
		{"dot", red32.dot(x, y), reduceGo.dot(x0, y0)},
		{"sumSqDev", red32.sumSqDev(x, m), reduceGo.sumSqDev(x0, m)},
	} {
		if n > 0 && !sameF64(c.got, c.want) {
			t.Fatalf("%s n=%d off=%d: %v, twin %v", c.name, n, off, c.got, c.want)
		}
	}
	if nb := n &^ 15; nb > 0 {
		var g, w [16]float64
		for i := range g {
			g[i], w[i] = float64(i)/7, float64(i)/7
		}
		red32.sqDiffLanes(&g, x[:nb], y[:nb])
		reduceGo.sqDiffLanes(&w, x0[:nb], y0[:nb])
		for i := range g {
			if !sameF64(g[i], w[i]) {
				t.Fatalf("sqDiffLanes n=%d off=%d: lane %d = %v, twin %v", nb, off, i, g[i], w[i])
			}
		}
	}
	if nb := n &^ 31; nb > 0 {
		g1, g2 := red32.moments(x[:nb], m)
		w1, w2 := reduceGo.moments(x0[:nb], m)
		if !sameF64(g1, w1) || !sameF64(g2, w2) {
			t.Fatalf("moments n=%d off=%d: %v, %v; twin %v, %v", nb, off, g1, g2, w1, w2)
		}
	}
	if n > 0 {
		for _, k := range []struct {
			name      string
			got, want func([]float32) ([8]float32, [8]int32)
		}{{"maxLanes", red32.maxLanes, reduceGo.maxLanes}, {"minLanes", red32.minLanes, reduceGo.minLanes}} {
			gv, gi := k.got(x)
			wv, wi := k.want(x0)
			for l := range 8 {
				if gi[l] != wi[l] || (wi[l] >= 0 && !ewSame(gv[l], wv[l])) {
					t.Fatalf("%s n=%d: lane %d: (%v, %d), twin (%v, %d)", k.name, n, l, gv[l], gi[l], wv[l], wi[l])
				}
			}
		}
	}
	for _, k := range []struct {
		name      string
		got, want func([]float32) float32
	}{{"maxVal", red32.maxVal, reduceGo.maxVal}, {"minVal", red32.minVal, reduceGo.minVal}} {
		if g, w := k.got(x), k.want(x0); !ewSame(g, w) && !(g == 0 && w == 0) {
			t.Fatalf("%s n=%d: %v, twin %v", k.name, n, g, w)
		}
	}
	s := float32(1.5)
	if n > 1 {
		s = x0[1]
	}
	w, wb := ewPad(y0, off+2, ewGuard)
	for _, c := range []struct {
		name      string
		got, want func(d []float32) float64
	}{
		{"expShift", func(d []float32) float64 { red32.expShift(d, x, s); return 0 },
			func(d []float32) float64 { reduceGo.expShift(d, x0, s); return 0 }},
		{"scaleShift", func(d []float32) float64 { red32.scaleShift(d, x, s, 0.5); return 0 },
			func(d []float32) float64 { reduceGo.scaleShift(d, x0, s, 0.5); return 0 }},
		{"affine", func(d []float32) float64 { red32.affine(d, x, w, y, s, -2); return 0 },
			func(d []float32) float64 { reduceGo.affine(d, x0, y0, y0, s, -2); return 0 }},
	} {
		if n == 0 {
			continue
		}
		want := make([]float32, n)
		ws := c.want(want)
		d, db := ewPad(make([]float32, n), off+3, ewGuard)
		gs := c.got(d)
		if !sameF64(gs, ws) {
			t.Fatalf("%s n=%d off=%d: returned %v, twin %v", c.name, n, off, gs, ws)
		}
		for i := range want {
			if !ewSame(d[i], want[i]) {
				t.Fatalf("%s n=%d off=%d: [%d] = %v, twin %v", c.name, n, off, i, d[i], want[i])
			}
		}
		ewCheckGuards(t, c.name, db, off+3, n, ewGuard)
	}
	ewCheckGuards(t, "x", xb, off, n, ewGuard)
	ewCheckGuards(t, "y", yb, off+1, n, ewGuard)
	ewCheckGuards(t, "w", wb, off+2, n, ewGuard)
}

func TestReduce(t *testing.T) {
	if Path() != "go" && runtimeHasUnaryAsm && Path() != "neon" && red32 == &reduceGo {
		t.Fatalf("path %s but the reductions are the twins", Path())
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range ewLens() {
		for off := 0; off < 3; off++ {
			x, y := ewValues32(r, n), ewValues32(r, n)
			checkReduce(t, x, y, off)
			// Plain values too, so that the sums are not all NaN.
			for i := range x {
				x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			checkReduce(t, x, y, off)
		}
	}
}

// TestMaxMin checks MaxF32/MinF32 against a plain scan: the first NaN wins,
// then the first of the extreme values.
func TestMaxMin(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	scan := func(x []float32, isMin bool) (float32, int) {
		best, bi := x[0], 0
		for i, v := range x {
			if best != best {
				break
			}
			if v != v || (isMin && v < best) || (!isMin && v > best) {
				best, bi = v, i
			}
		}
		return best, bi
	}
	for _, n := range ewLens()[1:] {
		for trial := 0; trial < 4; trial++ {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.IntN(5)) // many ties
				if trial == 1 && r.IntN(9) == 0 {
					x[i] = float32(math.NaN())
				}
				if trial == 2 {
					x[i] = float32(math.Inf(-1))
				}
			}
			for _, isMin := range []bool{false, true} {
				f := MaxF32
				if isMin {
					f = MinF32
				}
				gv, gi := f(x)
				wv, wi := scan(x, isMin)
				if gi != wi || !ewSame(gv, wv) {
					t.Fatalf("n=%d min=%v: (%v, %d), want (%v, %d) in %v", n, isMin, gv, gi, wv, wi, x)
				}
			}
		}
	}
}

// TestRowKernels checks softmax, log_softmax and layer norm against float64.
func TestRowKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 2, 7, 8, 9, 31, 100, 1024, 1031} {
		x := make([]float32, n)
		w := make([]float32, n)
		b := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 5)
			w[i] = float32(r.NormFloat64())
			b[i] = float32(r.NormFloat64())
		}
		mx := math.Inf(-1)
		for _, v := range x {
			mx = math.Max(mx, float64(v))
		}
		var s float64
		for _, v := range x {
			s += math.Exp(float64(v) - mx)
		}
		d := make([]float32, n)
		SoftmaxF32(d, x)
		for i, v := range x {
			want := math.Exp(float64(v)-mx) / s
			// x - max is rounded to float32 first, as in PyTorch.
			if math.Abs(float64(d[i])-want) > (4e-7+0x1p-23*math.Abs(float64(v)-mx))*want+1e-30 {
				t.Fatalf("softmax n=%d [%d] = %v, want %v", n, i, d[i], want)
			}
		}
		LogSoftmaxF32(d, x)
		for i, v := range x {
			want := float64(v) - mx - math.Log(s)
			if math.Abs(float64(d[i])-want) > 4e-7*math.Abs(want)+2e-6 {
				t.Fatalf("log_softmax n=%d [%d] = %v, want %v", n, i, d[i], want)
			}
		}
		mean, v2 := meanVar(x)
		rstd := 1 / math.Sqrt(v2+1e-5)
		gm, gr := LayerNormF32(d, x, w, b, 1e-5)
		if math.Abs(float64(gm)-mean) > 1e-6*(1+math.Abs(mean)) || math.Abs(float64(gr)-rstd) > 1e-6*rstd {
			t.Fatalf("layer_norm n=%d: mean, rstd %v %v, want %v %v", n, gm, gr, mean, rstd)
		}
		for i, v := range x {
			want := (float64(v)-mean)*rstd*float64(w[i]) + float64(b[i])
			// PyTorch's x·rstd + (-rstd·mean) leaves the rounding of
			// rstd·mean when the variance is tiny against eps.
			tol := 2e-6*(1+math.Abs(want)) + 0x1p-23*rstd*math.Abs(mean)*math.Abs(float64(w[i]))
			if math.Abs(float64(d[i])-want) > tol {
				t.Fatalf("layer_norm n=%d [%d] = %v, want %v", n, i, d[i], want)
			}
		}
	}
	// A NaN spreads over its softmax row; -Inf rows are NaN.
	d := make([]float32, 3)
	SoftmaxF32(d, []float32{1, float32(math.NaN()), 2})
	if d[0] == d[0] || d[2] == d[2] {
		t.Errorf("softmax with a NaN: %v", d)
	}
	ninf := float32(math.Inf(-1))
	SoftmaxF32(d, []float32{ninf, ninf, ninf})
	if d[0] == d[0] {
		t.Errorf("softmax of -Inf: %v", d)
	}
}

// FuzzReduce runs the reduction kernels on operands decoded from data.
func FuzzReduce(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(1))
	f.Add(make([]byte, 8*67), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, off uint8) {
		x := make([]float32, len(data)/8)
		y := make([]float32, len(x))
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[8*i:]))
			y[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[8*i+4:]))
		}
		checkReduce(t, x, y, int(off%8))
	})
}

// TestLayerNormMoments checks the one-pass shifted moments of LayerNormF32
// against a two-pass float64 reference where a naive one-pass variance
// would cancel: a large mean with a small spread, a first element far from
// the rest (the shift), constant rows; and the two-pass route of rows with
// an Inf or a NaN.
func TestLayerNormMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	rows := map[string]func(i int) float32{
		"offset 1e4, spread 1e-2": func(int) float32 { return float32(1e4 + 1e-2*r.NormFloat64()) },
		"offset -3e6, spread 1":   func(int) float32 { return float32(-3e6 + r.NormFloat64()) },
		"outlier first": func(i int) float32 {
			if i == 0 {
				return 1e6
			}
			return float32(r.NormFloat64())
		},
		"constant":  func(int) float32 { return 7.25 },
		"tiny":      func(int) float32 { return float32(1e-30 * r.NormFloat64()) },
		"near zero": func(i int) float32 { return float32(i%3) * 1e-3 },
	}
	for name, f := range rows {
		for _, n := range []int{1, 5, 32, 33, 1024, 4099} {
			x := make([]float32, n)
			for i := range x {
				x[i] = f(i)
			}
			mean, v2 := meanVar(x)
			wantR := float32(1 / math.Sqrt(float64(float32(v2)+1e-5)))
			d := make([]float32, n)
			gm, gr := LayerNormF32(d, x, nil, nil, 1e-5)
			if ulps := math.Abs(float64(gm)-mean) / ulp32(mean); ulps > 1 {
				t.Errorf("%s n=%d: mean %v, want %v (%.2f ulp)", name, n, gm, mean, ulps)
			}
			if ulps := math.Abs(float64(gr-wantR)) / ulp32(float64(wantR)); ulps > 1 {
				t.Errorf("%s n=%d: rstd %v, want %v (%.2f ulp)", name, n, gr, wantR, ulps)
			}
		}
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	d := make([]float32, 40)
	for _, c := range []struct {
		x          []float32
		mean, rstd float32 // NaN: any NaN
	}{
		{[]float32{inf, 1, 2}, inf, nan},
		{[]float32{1, 2, -inf}, -inf, nan},
		{[]float32{1, nan, 2}, nan, nan},
		{append(make([]float32, 35), inf), inf, nan},
	} {
		gm, gr := LayerNormF32(d[:len(c.x)], c.x, nil, nil, 1e-5)
		if !ewSame(gm, c.mean) && !(gm != gm && c.mean != c.mean) || !(gr != gr && c.rstd != c.rstd) && gr != c.rstd {
			t.Errorf("LayerNormF32(%v): mean, rstd %v %v, want %v %v", c.x, gm, gr, c.mean, c.rstd)
		}
	}
}

// meanVar is the mean and biased variance of x, two passes in float64.
func meanVar(x []float32) (mean, variance float64) {
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (float64(v) - mean) * (float64(v) - mean)
	}
	return mean, variance / float64(len(x))
}

// checkNormGrad runs the layer-norm gradient kernels of the CPU's path and
// their twins on one row at offset off of guarded buffers and compares
// both with the definitions (map_reduce_all's lanes for the sums, fma32
// for the fused steps); outputs past the row keep their guards.
func checkNormGrad(t testing.TB, dy, x, w []float32, rs, b, c, nb float32, off int) {
	t.Helper()
	n := len(x)
	what := fmt.Sprintf("n=%d off=%d rs=%v b=%v c=%v nb=%v", n, off, rs, b, c, nb)
	const g = float32(-7)
	dyp, _ := ewPad(dy, off, g)
	xp, _ := ewPad(x, off, g)
	wp, _ := ewPad(w, off, g)

	// The sums: sequential below 8, else lanes and their tree.
	var ds, db float32
	if n < 8 {
		for i := range n {
			ps, pb := float32((dy[i]*x[i])*w[i]), float32(dy[i]*w[i]) // no fused add (arm64)
			if i == 0 {
				ds, db = ps, pb
			} else {
				ds, db = ds+ps, db+pb
			}
		}
	} else {
		var ls, lb [8]float32
		for i := range n {
			ps, pb := float32((dy[i]*x[i])*w[i]), float32(dy[i]*w[i]) // no fused add (arm64)
			if i < 8 {
				ls[i], lb[i] = ps, pb
			} else {
				ls[i%8] += ps
				lb[i%8] += pb
			}
		}
		ds, db = lanes8Tree(&ls), lanes8Tree(&lb)
	}
	gs, gb := LayerNormGradSumsF32(dyp, xp, wp)
	if !ewSame(gs, ds) || !ewSame(gb, db) {
		t.Fatalf("%s: sums %v %v, want %v %v", what, gs, gb, ds, db)
	}
	if n >= 8 {
		full := n &^ 7
		ks, kb := red32.normGradSums(dyp[:full], xp[:full], wp[:full])
		ts, tb := normGradSumsGo(dy[:full], x[:full], w[:full])
		for l := range 8 {
			if !ewSame(ks[l], ts[l]) || !ewSame(kb[l], tb[l]) {
				t.Fatalf("%s: kernel lanes %v %v, twin %v %v", what, ks, kb, ts, tb)
			}
		}
	}

	dx, dxBuf := ewPad(make([]float32, n), off, g)
	LayerNormGradDXF32(dx, dyp, xp, wp, rs, b, c)
	ewCheckGuards(t, what+" dx", dxBuf, off, n, g)
	twin := make([]float32, n)
	normGradDXGo(twin, dy, x, w, rs, b, c)
	for i := range n {
		def := fma32(b, x[i], (rs*dy[i])*w[i]) + c
		if !ewSame(twin[i], def) || !ewSame(dx[i], def) {
			t.Fatalf("%s: dx[%d] = %v (twin %v), want %v", what, i, dx[i], twin[i], def)
		}
	}

	acc := ewValues[float32](rand.New(rand.NewPCG(uint64(n), 3)), 2*n)
	dw, dwBuf := ewPad(acc[:n], off, g)
	dbs, dbBuf := ewPad(acc[n:], off, g)
	LayerNormGradWBF32(dw, dbs, dyp, xp, rs, nb)
	ewCheckGuards(t, what+" dw", dwBuf, off, n, g)
	ewCheckGuards(t, what+" db", dbBuf, off, n, g)
	tw, tb := append([]float32(nil), acc[:n]...), append([]float32(nil), acc[n:]...)
	normGradWBGo(tw, tb, dy, x, rs, nb)
	for i := range n {
		defW := fma32(dy[i], fma32(rs, x[i], nb), acc[i])
		defB := acc[n+i] + dy[i]
		if !ewSame(tw[i], defW) || !ewSame(dw[i], defW) || !ewSame(tb[i], defB) || !ewSame(dbs[i], defB) {
			t.Fatalf("%s: dw, db [%d] = %v %v (twin %v %v), want %v %v", what, i, dw[i], dbs[i], tw[i], tb[i], defW, defB)
		}
	}
}

// TestLayerNormGrad: the layer-norm gradient kernels over lengths 0..67
// and more, unaligned, with NaN, Inf and signed zeros among the values.
func TestLayerNormGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range ewLens() {
		dy, x, w := ewValues[float32](r, n), ewValues[float32](r, n), ewValues[float32](r, n)
		checkNormGrad(t, dy, x, w, float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), r.IntN(8))
	}
	// A lane whose terms are all -0 keeps -0 (the first vector starts it).
	z := float32(math.Copysign(0, -1))
	dy := make([]float32, 16)
	for i := range dy {
		dy[i] = z
	}
	x, w := make([]float32, 16), make([]float32, 16)
	for i := range x {
		x[i], w[i] = 1, 1
	}
	if _, db := LayerNormGradSumsF32(dy, x, w); math.Float32bits(db) != math.Float32bits(z) {
		t.Errorf("sum of -0 terms = %v, want -0", db)
	}
}

func FuzzLayerNormGrad(f *testing.F) {
	f.Add(uint8(17), uint8(1), float32(0.5), float32(-2), float32(3), float32(0.25), uint64(1))
	f.Add(uint8(64), uint8(0), float32(1e20), float32(1e-20), float32(0), float32(-1), uint64(2))
	f.Fuzz(func(t *testing.T, n, off uint8, rs, b, c, nb float32, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 16))
		k := int(n % 100)
		checkNormGrad(t, ewValues[float32](r, k), ewValues[float32](r, k), ewValues[float32](r, k), rs, b, c, nb, int(off%8))
	})
}

// checkGroupGrad runs the group-norm gradient kernels of the CPU's path and
// their twins on one plane at offset off and compares both with the
// definitions; dx past the plane keeps its guards.
func checkGroupGrad(t testing.TB, dy, x []float32, c1, c2, c3 float32, off int) {
	t.Helper()
	n := len(x)
	what := fmt.Sprintf("n=%d off=%d c=%v %v %v", n, off, c1, c2, c3)
	const g = float32(-7)
	dyp, _ := ewPad(dy, off, g)
	xp, _ := ewPad(x, off, g)
	var ls, lb [8]float32
	full := n &^ 7
	for i := range full {
		ls[i%8] = fma32(dy[i], x[i], ls[i%8])
		lb[i%8] += dy[i]
	}
	var ds, db float32
	for l := range 8 {
		ds += ls[l]
		db += lb[l]
	}
	for i := full; i < n; i++ {
		ds = fma32(dy[i], x[i], ds)
		db += dy[i]
	}
	gs, gb := GroupNormGradSumsF32(dyp, xp)
	if !ewSame(gs, ds) || !ewSame(gb, db) {
		t.Fatalf("%s: sums %v %v, want %v %v", what, gs, gb, ds, db)
	}
	if full > 0 {
		ks, kb := red32.groupGradSums(dyp[:full], xp[:full])
		ts, tb := groupGradSumsGo(dy[:full], x[:full])
		for l := range 8 {
			if !ewSame(ks[l], ts[l]) || !ewSame(kb[l], tb[l]) {
				t.Fatalf("%s: kernel lanes %v %v, twin %v %v", what, ks, kb, ts, tb)
			}
		}
	}
	dx, dxBuf := ewPad(make([]float32, n), off, g)
	GroupNormGradDXF32(dx, dyp, xp, c1, c2, c3)
	ewCheckGuards(t, what+" dx", dxBuf, off, n, g)
	twin := make([]float32, n)
	groupGradDXGo(twin, dy, x, c1, c2, c3)
	sdx, sdxBuf := ewPad(make([]float32, n), off, g)
	GroupNormGradDXStreamF32(sdx, dyp, xp, c1, c2, c3)
	ewCheckGuards(t, what+" streamed dx", sdxBuf, off, n, g)
	for i := range n {
		def := fma32(c1, dy[i], c2*x[i]) + c3
		if !ewSame(twin[i], def) || !ewSame(dx[i], def) || !ewSame(sdx[i], def) {
			t.Fatalf("%s: dx[%d] = %v (streamed %v, twin %v), want %v", what, i, dx[i], sdx[i], twin[i], def)
		}
	}
}

// checkGroupGradPlanes compares GroupNormGradSumsPlanesF32 over planes of
// hw elements (at offset off of guarded buffers) with
// GroupNormGradSumsF32 of each plane, bit for bit.
func checkGroupGradPlanes(t testing.TB, r *rand.Rand, planes, hw, off int) {
	t.Helper()
	what := fmt.Sprintf("planes=%d hw=%d off=%d", planes, hw, off)
	const g = float32(-7)
	dy, _ := ewPad(ewValues[float32](r, planes*hw), off, g)
	x, _ := ewPad(ewValues[float32](r, planes*hw), off, g)
	ds, dsBuf := ewPad(make([]float32, planes), off, g)
	db, dbBuf := ewPad(make([]float32, planes), off, g)
	GroupNormGradSumsPlanesF32(ds, db, dy, x, hw)
	ewCheckGuards(t, what+" ds", dsBuf, off, planes, g)
	ewCheckGuards(t, what+" db", dbBuf, off, planes, g)
	for k := range planes {
		ws, wb := GroupNormGradSumsF32(dy[k*hw:(k+1)*hw], x[k*hw:(k+1)*hw])
		if !ewSame(ds[k], ws) || !ewSame(db[k], wb) {
			t.Fatalf("%s: plane %d: %v %v, want %v %v", what, k, ds[k], db[k], ws, wb)
		}
	}
	if hw >= 8 && hw%8 == 0 && planes >= 4 && red32.groupGradSums4 != nil {
		s, b := red32.groupGradSums4(dy[:4*hw], x[:4*hw], hw)
		for k := range 4 {
			ts, tb := groupGradSumsGo(dy[k*hw:(k+1)*hw], x[k*hw:(k+1)*hw])
			if !slices.EqualFunc(s[k][:], ts[:], ewSame) || !slices.EqualFunc(b[k][:], tb[:], ewSame) {
				t.Fatalf("%s: kernel plane %d lanes %v %v, twin %v %v", what, k, s[k], b[k], ts, tb)
			}
		}
	}
}

// TestGroupNormGradPlanes: GroupNormGradSumsPlanesF32 over 0..9 planes of
// 0..67 elements and longer ones, unaligned.
func TestGroupNormGradPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for planes := range 10 {
		for _, hw := range ewLens() {
			checkGroupGradPlanes(t, r, planes, hw, r.IntN(8))
		}
	}
}

func FuzzGroupNormGradPlanes(f *testing.F) {
	f.Add(uint8(5), uint8(24), uint8(3), uint64(1))
	f.Fuzz(func(t *testing.T, planes, hw, off uint8, seed uint64) {
		checkGroupGradPlanes(t, rand.New(rand.NewPCG(seed, 28)), int(planes%12), int(hw), int(off%8))
	})
}

// TestGroupNormGrad: the group-norm gradient kernels over lengths 0..67
// and more, unaligned, with NaN, Inf and signed zeros among the values.
func TestGroupNormGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range ewLens() {
		checkGroupGrad(t, ewValues[float32](r, n), ewValues[float32](r, n),
			float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), r.IntN(8))
	}
}

func FuzzGroupNormGrad(f *testing.F) {
	f.Add(uint8(17), uint8(1), float32(0.5), float32(-2), float32(3), uint64(1))
	f.Add(uint8(64), uint8(0), float32(1e20), float32(1e-20), float32(0), uint64(2))
	f.Fuzz(func(t *testing.T, n, off uint8, c1, c2, c3 float32, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 18))
		k := int(n % 100)
		checkGroupGrad(t, ewValues[float32](r, k), ewValues[float32](r, k), c1, c2, c3, int(off%8))
	})
}

// TestAccumulate: AccumulateF32 (the AVX2 loop where the CPU has it) adds
// each float32 into its float64 exactly as float64(x) + acc, unaligned,
// with NaN, Inf and signed zeros, the accumulators past the end untouched.
func TestAccumulate(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range ewLens() {
		checkAccumulate(t, ewValues[float32](r, n), ewValues[float64](r, n), r.IntN(8))
	}
}

func checkAccumulate(t testing.TB, x []float32, start []float64, off int) {
	t.Helper()
	n := len(x)
	xp, _ := ewPad(x, off, -7)
	acc, buf := ewPad(start, off, -7)
	AccumulateF32(acc, xp)
	ewCheckGuards(t, fmt.Sprintf("n=%d", n), buf, off, n, -7)
	for i := range n {
		if want := start[i] + float64(x[i]); !ewSame(acc[i], want) {
			t.Fatalf("n=%d [%d]: %v + %v = %v, want %v", n, i, start[i], x[i], acc[i], want)
		}
	}
}

// TestAccumulateRows: AccumulateRowsF32 gives AccumulateF32 row by row
// bit for bit, for widths across its 16-column blocks, 1 to 9 rows, strides
// past the width and unaligned starts, the accumulators past the end
// untouched.
func TestAccumulateRows(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, n := range ewLens() {
		for _, rows := range []int{1, 2, 5, 9} {
			stride := n + r.IntN(5)
			x := ewValues[float32](r, (rows-1)*stride+n)
			start := ewValues[float64](r, n)
			want := append([]float64(nil), start...)
			for k := range rows {
				AccumulateF32(want, x[k*stride:k*stride+n])
			}
			off := r.IntN(8)
			xp, _ := ewPad(x, off, -7)
			acc, buf := ewPad(start, off, -7)
			AccumulateRowsF32(acc, xp, rows, stride)
			ewCheckGuards(t, fmt.Sprintf("n=%d rows=%d", n, rows), buf, off, n, -7)
			for i := range n {
				if !ewSame(acc[i], want[i]) {
					t.Fatalf("n=%d rows=%d stride=%d [%d] = %v, want %v", n, rows, stride, i, acc[i], want[i])
				}
			}
		}
	}
}

func FuzzAccumulate(f *testing.F) {
	f.Add(uint8(19), uint8(3), uint64(1))
	f.Fuzz(func(t *testing.T, n, off uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 24))
		checkAccumulate(t, ewValues[float32](r, int(n)), ewValues[float64](r, int(n)), int(off%8))
	})
}

// TestSumSqDiff checks SumSqDiffF32 against SumF32 of MulF32(d, d), d =
// SubF32(x, y): the sum of the float32 squares, bit for bit, at every
// length of ewLens.
func TestSumSqDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for _, n := range ewLens() {
		for _, special := range []bool{false, true} {
			x, y := ewValues32(r, n), ewValues32(r, n)
			if !special {
				for i := range x {
					x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64()*3)
				}
			}
			d := make([]float32, n)
			SubF32(d, x, y)
			MulF32(d, d, d)
			if got, want := SumSqDiffF32(x, y), SumF32(d); !sameF64(got, want) {
				t.Fatalf("n=%d: %v, the sum of the squares %v", n, got, want)
			}
		}
	}
}
