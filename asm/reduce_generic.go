package asm

import "math"

// Pure-Go twins of the reduction kernels: the same running sums in the
// same order as the assembly.

// sum16 adds up 16 running sums as the kernels do: the four vectors of
// four lanes pairwise, then the lanes (0+2) + (1+3).
func sum16(a *[16]float64) float64 {
	var v [4]float64
	for l := range v {
		v[l] = (a[l] + a[4+l]) + (a[8+l] + a[12+l])
	}
	return (v[0] + v[2]) + (v[1] + v[3])
}

// sum32 adds up 32 running sums: each half as sum16, then the halves.
func sum32(a *[32]float64) float64 {
	return sum16((*[16]float64)(a[:16])) + sum16((*[16]float64)(a[16:]))
}

// sum8 adds up 8 running sums: the two vectors, then the lanes.
func sum8(a *[8]float64) float64 {
	var v [4]float64
	for l := range v {
		v[l] = a[l] + a[4+l]
	}
	return (v[0] + v[2]) + (v[1] + v[3])
}

func sumGo(x []float32) float64 {
	var a [16]float64
	for i, v := range x {
		a[i%16] += float64(v)
	}
	return sum16(&a)
}

func dotGo(x, y []float32) float64 {
	var a [16]float64
	for i, v := range x {
		a[i%16] += float64(v) * float64(y[i]) // exact product: one rounding, as the FMA
	}
	return sum16(&a)
}

func sqDiffLanesGo(a *[16]float64, x, y []float32) {
	for i, v := range x {
		d := v - y[i]
		a[i%16] += float64(float32(d * d)) // float32 difference and square (no fused multiply-add), as SubF32 and MulF32
	}
}

func sumSqDevGo(x []float32, m float64) float64 {
	var a [16]float64
	for i, v := range x {
		d := float64(v) - m
		a[i%16] = math.FMA(d, d, a[i%16])
	}
	return sum16(&a)
}

func momentsGo(x []float32, k float64) (s1, s2 float64) {
	var a, b [32]float64
	for i, v := range x {
		d := float64(v) - k
		a[i%32] += d
		b[i%32] = math.FMA(d, d, b[i%32])
	}
	return sum32(&a), sum32(&b)
}

// lanesGo folds x into 8 lanes; better(v, cur) says whether v replaces the
// lane's current value (the first element of a lane always does).
func lanesGo(x []float32, better func(v, cur float32) bool) (v [8]float32, idx [8]int32) {
	for l := range 8 {
		idx[l] = -1
	}
	lanesFrom(&v, &idx, x, 0, better)
	return v, idx
}

// lanesFrom folds x[n:] into the lanes v, idx (those of x[:n]).
func lanesFrom(v *[8]float32, idx *[8]int32, x []float32, n int, better func(v, cur float32) bool) {
	for i := n; i < len(x); i++ {
		if l := i % 8; idx[l] < 0 || better(x[i], v[l]) {
			v[l], idx[l] = x[i], int32(i)
		}
	}
}

// A NaN replaces a number, never another NaN; a number replaces only a
// strictly worse one: the first NaN and the first of equals win.
func maxBetter(v, cur float32) bool { return v > cur || (v != v && cur == cur) }
func minBetter(v, cur float32) bool { return v < cur || (v != v && cur == cur) }

func maxLanesGo(x []float32) ([8]float32, [8]int32) { return lanesGo(x, maxBetter) }
func minLanesGo(x []float32) ([8]float32, [8]int32) { return lanesGo(x, minBetter) }

func valGo(x []float32, init float32, better func(v, cur float32) bool) float32 {
	m := init
	for _, v := range x {
		if v != v {
			return v
		}
		if better(v, m) {
			m = v
		}
	}
	return m
}

func maxValGo(x []float32) float32 { return valGo(x, float32(math.Inf(-1)), maxBetter) }
func minValGo(x []float32) float32 { return valGo(x, float32(math.Inf(1)), minBetter) }

func expShiftGo(d, x []float32, m float32) {
	for i, v := range x {
		d[i] = expGo1(v - m)
	}
}

func scaleShiftGo(d, x []float32, s, c float32) {
	for i, v := range x {
		d[i] = fma32(v, s, c)
	}
}

func affineGo(d, x, w, b []float32, s, c float32) {
	for i, v := range x {
		d[i] = fma32(fma32(v, s, c), w[i], b[i])
	}
}

var reduceGo = reduceTable{
	sum: sumGo, dot: dotGo, sumSqDev: sumSqDevGo, moments: momentsGo,
	maxLanes: maxLanesGo, minLanes: minLanesGo, maxVal: maxValGo, minVal: minValGo,
	expShift: expShiftGo, scaleShift: scaleShiftGo, affine: affineGo,
	normGradSums: normGradSumsGo, normGradDX: normGradDXGo, normGradWB: normGradWBGo,
	groupGradSums: groupGradSumsGo, groupGradDX: groupGradDXGo, accumulateRows: accumulateRowsGo,
	sqDiffLanes: sqDiffLanesGo,
}

func accumulateRowsGo(acc []float64, x []float32, rows, stride int) {
	for r := range rows {
		accumulateGo(acc, x[r*stride:r*stride+len(acc)])
	}
}

func accumulateGo(acc []float64, x []float32) {
	for i, v := range x {
		acc[i] += float64(v)
	}
}

func groupGradSumsGo(dy, x []float32) (s, b [8]float32) {
	for i := range dy {
		s[i%8] = fma32(dy[i], x[i], s[i%8])
		b[i%8] += dy[i]
	}
	return s, b
}

func groupGradDXGo(dx, dy, x []float32, c1, c2, c3 float32) {
	for i := range dx {
		dx[i] = fma32(c1, dy[i], c2*x[i]) + c3
	}
}

func normGradSumsGo(dy, x, w []float32) (s, b [8]float32) {
	for i := range dy {
		ps, pb := float32((dy[i]*x[i])*w[i]), float32(dy[i]*w[i]) // rounded: no fused add
		if i < 8 {
			s[i], b[i] = ps, pb
		} else {
			s[i%8] += ps
			b[i%8] += pb
		}
	}
	return s, b
}

func normGradDXGo(dx, dy, x, w []float32, rs, b, c float32) {
	for i := range dx {
		dx[i] = fma32(b, x[i], (rs*dy[i])*w[i]) + c
	}
}

func normGradWBGo(dw, db, dy, x []float32, rs, nb float32) {
	for i := range dw {
		dw[i] = fma32(dy[i], fma32(rs, x[i], nb), dw[i])
		db[i] += dy[i]
	}
}
