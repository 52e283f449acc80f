//go:build !purego

package asm

import "math"

// The NEON reductions (reduce_arm64.s): sum (and sum2, two rows at a
// time), dot, sumSqDev, moments, accumulateRows and sqDiffLanes. They widen float32 to float64 without
// FCVTL (which Go's arm64 assembler lacks) and see finite values only:
// when x holds an Inf or a NaN (sqDiffLanes: a square is one) the kernel
// says so and the twin runs instead (from the start, or for that block of
// columns), so NaN payloads are the twin's by construction. The twin is
// called through reduceGo, not directly: an inlined copy may order the
// operands of an addition the other way, and with two NaNs that picks the
// other payload. The 16 (32) running sums are added up by the twins'
// sum16 (sum32), the tails past the whole blocks by the twins' loop
// bodies. The float32 row kernels and the extremes (rows_arm64.s, below)
// leave what saw a NaN to the twins likewise; expShift is exp's kernel
// (unary_exp_arm64.s).

// sumNEON sets a[l] = Σ float64(x[i]) over i mod 16 = l for len(x) a
// positive multiple of 16; false (a meaningless) if x holds an Inf or NaN.
//
//go:noescape
func sumNEON(a *[16]float64, x []float32) bool

// sum2NEON is sumNEON of x into a and of y into b (len(x) = len(y)),
// the two rows through one loop; false if x or y holds an Inf or NaN.
//
//go:noescape
func sum2NEON(a, b *[16]float64, x, y []float32) bool

// dotNEON sets a[l] = Σ float64(x[i])·float64(y[i]) over i mod 16 = l,
// as sumNEON.
//
//go:noescape
func dotNEON(a *[16]float64, x, y []float32) bool

// sumSqDevNEON sets a[l] = Σ (float64(x[i]) - m)² over i mod 16 = l (m
// not NaN), as sumNEON.
//
//go:noescape
func sumSqDevNEON(a *[16]float64, x []float32, m float64) bool

// momentsNEON sets a[l] = Σ d and b[l] = Σ d², d = float64(x[32j+l]) -
// k, for l < 16 over every j with 32j+16 ≤ len(x) (k not NaN): half of
// momentsGo's sums. False if those elements hold an Inf or NaN.
//
//go:noescape
func momentsNEON(a, b *[16]float64, x []float32, k float64) bool

// sqDiffNEON adds float64(float32((x[i]-y[i])²)) to a[i mod 16] in turn
// for len(x) a positive multiple of 16, as sqDiffLanesGo; false (a
// meaningless) if a square is an Inf or a NaN.
//
//go:noescape
func sqDiffNEON(a *[16]float64, x, y []float32) bool

// accRowsNEON is accumulateRowsGo block by block of 8 columns (len(acc)
// a positive multiple of 8); it stops before the first block whose rows
// hold an Inf or NaN, leaving it untouched, and returns the columns done.
//
//go:noescape
func accRowsNEON(acc []float64, x []float32, rows, stride int) int

func reduceKernels() *reduceTable {
	if !useNEON {
		return &reduceGo
	}
	t := reduceGo
	t.sum, t.dot, t.sumSqDev, t.moments = sumF32NEON, dotF32NEON, sumSqDevF32NEON, momentsF32NEON
	t.sum2 = sum2F32NEON
	t.accumulateRows, t.sqDiffLanes = accumulateRowsNEON, sqDiffLanesF32NEON
	t.scaleShift, t.affine = scaleShiftF32NEON, affineF32NEON
	t.normGradSums, t.normGradDX, t.normGradWB = normGradSumsF32NEON, normGradDXF32NEON, normGradWBF32NEON
	t.groupGradSums, t.groupGradDX = groupGradSumsF32NEON, groupGradDXF32NEON
	t.maxLanes, t.minLanes, t.maxVal, t.minVal = maxLanesF32NEON, minLanesF32NEON, maxValF32NEON, minValF32NEON
	t.expShift = expShiftNEON // unary_exp_arm64.go
	return &t
}

func sumF32NEON(x []float32) float64 {
	var a [16]float64
	n := len(x) &^ 15
	if n > 0 && !sumNEON(&a, x[:n]) {
		return reduceGo.sum(x)
	}
	for i := n; i < len(x); i++ {
		a[i%16] += float64(x[i]) // each sum finite, then one addition
	}
	return sum16(&a)
}

// sum2F32NEON is sumF32NEON of the rows x[:n] and x[n:2n], bit for bit:
// the same running sums, their whole sixteens through one loop. A row
// holding an Inf or a NaN there sends both rows to sumF32NEON.
func sum2F32NEON(x []float32, n int) (float64, float64) {
	r0, r1 := x[:n], x[n:2*n]
	m := n &^ 15
	var a, b [16]float64
	if m == 0 || !sum2NEON(&a, &b, r0[:m], r1[:m]) {
		return sumF32NEON(r0), sumF32NEON(r1)
	}
	for i := m; i < n; i++ {
		a[i%16] += float64(r0[i]) // each sum finite, then one addition, as sumF32NEON
		b[i%16] += float64(r1[i])
	}
	return sum16(&a), sum16(&b)
}

func dotF32NEON(x, y []float32) float64 {
	var a [16]float64
	n := len(x) &^ 15
	if n > 0 && !dotNEON(&a, x[:n], y[:n]) {
		return reduceGo.dot(x, y)
	}
	for i := n; i < len(x); i++ {
		if x[i] != x[i] && y[i] != y[i] {
			return reduceGo.dot(x, y) // two NaN operands: the twin's order picks the payload
		}
		a[i%16] += float64(x[i]) * float64(y[i])
	}
	return sum16(&a)
}

func sumSqDevF32NEON(x []float32, m float64) float64 {
	var a [16]float64
	n := len(x) &^ 15
	if m != m || n > 0 && !sumSqDevNEON(&a, x[:n], m) {
		return reduceGo.sumSqDev(x, m)
	}
	for i := n; i < len(x); i++ {
		d := float64(x[i]) - m
		a[i%16] = math.FMA(d, d, a[i%16])
	}
	return sum16(&a)
}

// momentsF32NEON takes len(x) a positive multiple of 32, as the table's
// moments: the sums 0–15 from x, then 16–31 from x[16:].
func momentsF32NEON(x []float32, k float64) (s1, s2 float64) {
	var a, b [32]float64
	if k != k ||
		!momentsNEON((*[16]float64)(a[:16]), (*[16]float64)(b[:16]), x, k) ||
		!momentsNEON((*[16]float64)(a[16:]), (*[16]float64)(b[16:]), x[16:], k) {
		return reduceGo.moments(x, k)
	}
	return sum32(&a), sum32(&b)
}

// accumulateRowsNEON takes len(acc) a positive multiple of 8, as the
// table's accumulateRows; a block of 8 columns with an Inf or a NaN in
// its rows runs the twin.
func accumulateRowsNEON(acc []float64, x []float32, rows, stride int) {
	for c := 0; c < len(acc); c += 8 {
		c += accRowsNEON(acc[c:], x[c:], rows, stride)
		if c < len(acc) {
			reduceGo.accumulateRows(acc[c:c+8], x[c:], rows, stride)
		}
	}
}

// sqDiffLanesF32NEON takes len(x) a multiple of 16, as the table's
// sqDiffLanes; acc is left to the twin when a square is an Inf or a NaN.
func sqDiffLanesF32NEON(acc *[16]float64, x, y []float32) {
	a := *acc
	if len(x) == 0 || !sqDiffNEON(&a, x, y) {
		reduceGo.sqDiffLanes(acc, x, y)
		return
	}
	*acc = a
}

// The float32 row kernels (rows_arm64.s). A row kernel does the blocks of
// 8 elements, stopping before a block whose results hold a NaN, and
// returns the elements done; byBlocks runs the twin on that block and on
// the tail, and calls the kernel again past them.

// scaleShiftNEON is scaleShiftGo on the blocks of 8 (it does them all).
//
//go:noescape
func scaleShiftNEON(d, x []float32, s, c float32) int

// affineNEON is affineGo on the blocks of 8, as a row kernel.
//
//go:noescape
func affineNEON(d, x, w, b []float32, s, c float32) int

// normGradDXNEON is normGradDXGo on the blocks of 8, as a row kernel.
//
//go:noescape
func normGradDXNEON(dx, dy, x, w []float32, rs, b, c float32) int

// normGradWBNEON is normGradWBGo on the blocks of 8, as a row kernel (a
// NaN in dw or db stops it).
//
//go:noescape
func normGradWBNEON(dw, db, dy, x []float32, rs, nb float32) int

// groupGradDXNEON is groupGradDXGo on the blocks of 8, as a row kernel.
//
//go:noescape
func groupGradDXNEON(dx, dy, x []float32, c1, c2, c3 float32) int

// normGradSumsNEON is normGradSumsGo (len(dy) a positive multiple of 8)
// but for NaNs: a lane that met one holds a NaN.
//
//go:noescape
func normGradSumsNEON(s, b *[8]float32, dy, x, w []float32)

// groupGradSumsNEON is groupGradSumsGo (len(dy) a positive multiple of 8)
// but for NaNs, as normGradSumsNEON.
//
//go:noescape
func groupGradSumsNEON(s, b *[8]float32, dy, x []float32)

// maxLanesNEON is maxLanesGo for len(x) a positive multiple of 8.
//
//go:noescape
func maxLanesNEON(v *[8]float32, idx *[8]int32, x []float32)

// minLanesNEON is minLanesGo for len(x) a positive multiple of 8.
//
//go:noescape
func minLanesNEON(v *[8]float32, idx *[8]int32, x []float32)

// maxKeyNEON returns the largest floatKey(x[i], maxKeyBias), len(x) a
// positive multiple of 8.
//
//go:noescape
func maxKeyNEON(x []float32) uint32

// minKeyNEON returns the smallest floatKey(x[i], minKeyBias), as
// maxKeyNEON.
//
//go:noescape
func minKeyNEON(x []float32) uint32

// byBlocks runs kernel(i) on elements i… of a row of n and twin(i, j) on
// the elements i:j the kernel leaves.
func byBlocks(n int, kernel func(i int) int, twin func(i, j int)) {
	for i := 0; i < n; {
		i += kernel(i)
		j := min(i+8, n)
		if i < j {
			twin(i, j)
		}
		i = j
	}
}

// nan reports whether some of the scalars are NaN (their twins run).
func nan(s ...float32) bool {
	for _, v := range s {
		if v != v {
			return true
		}
	}
	return false
}

func scaleShiftF32NEON(d, x []float32, s, c float32) {
	if nan(s, c) {
		reduceGo.scaleShift(d, x, s, c)
		return
	}
	n := scaleShiftNEON(d, x, s, c)
	reduceGo.scaleShift(d[n:], x[n:], s, c)
}

func affineF32NEON(d, x, w, b []float32, s, c float32) {
	if nan(s, c) {
		reduceGo.affine(d, x, w, b, s, c)
		return
	}
	byBlocks(len(x), func(i int) int { return affineNEON(d[i:], x[i:], w[i:], b[i:], s, c) },
		func(i, j int) { reduceGo.affine(d[i:j], x[i:j], w[i:j], b[i:j], s, c) })
}

func normGradDXF32NEON(dx, dy, x, w []float32, rs, b, c float32) {
	if nan(rs, b, c) {
		reduceGo.normGradDX(dx, dy, x, w, rs, b, c)
		return
	}
	byBlocks(len(dx), func(i int) int { return normGradDXNEON(dx[i:], dy[i:], x[i:], w[i:], rs, b, c) },
		func(i, j int) { reduceGo.normGradDX(dx[i:j], dy[i:j], x[i:j], w[i:j], rs, b, c) })
}

func normGradWBF32NEON(dw, db, dy, x []float32, rs, nb float32) {
	if nan(rs, nb) {
		reduceGo.normGradWB(dw, db, dy, x, rs, nb)
		return
	}
	byBlocks(len(dw), func(i int) int { return normGradWBNEON(dw[i:], db[i:], dy[i:], x[i:], rs, nb) },
		func(i, j int) { reduceGo.normGradWB(dw[i:j], db[i:j], dy[i:j], x[i:j], rs, nb) })
}

func groupGradDXF32NEON(dx, dy, x []float32, c1, c2, c3 float32) {
	if nan(c1, c2, c3) {
		reduceGo.groupGradDX(dx, dy, x, c1, c2, c3)
		return
	}
	byBlocks(len(dx), func(i int) int { return groupGradDXNEON(dx[i:], dy[i:], x[i:], c1, c2, c3) },
		func(i, j int) { reduceGo.groupGradDX(dx[i:j], dy[i:j], x[i:j], c1, c2, c3) })
}

// normGradSumsF32NEON runs the twin when a lane sum is NaN: an operand
// was a NaN, or one arose, and the twin picks the payload.
func normGradSumsF32NEON(dy, x, w []float32) (s, b [8]float32) {
	if len(dy) == 0 {
		return reduceGo.normGradSums(dy, x, w)
	}
	normGradSumsNEON(&s, &b, dy, x, w)
	if nan(s[:]...) || nan(b[:]...) {
		return reduceGo.normGradSums(dy, x, w)
	}
	return s, b
}

func groupGradSumsF32NEON(dy, x []float32) (s, b [8]float32) {
	if len(dy) == 0 {
		return reduceGo.groupGradSums(dy, x)
	}
	groupGradSumsNEON(&s, &b, dy, x)
	if nan(s[:]...) || nan(b[:]...) {
		return reduceGo.groupGradSums(dy, x)
	}
	return s, b
}

func maxLanesF32NEON(x []float32) (v [8]float32, idx [8]int32) {
	n := len(x) &^ 7
	if n == 0 {
		return reduceGo.maxLanes(x)
	}
	maxLanesNEON(&v, &idx, x[:n]) // called directly: v and idx stay on the stack
	lanesFrom(&v, &idx, x, n, maxBetter)
	return v, idx
}

func minLanesF32NEON(x []float32) (v [8]float32, idx [8]int32) {
	n := len(x) &^ 7
	if n == 0 {
		return reduceGo.minLanes(x)
	}
	minLanesNEON(&v, &idx, x[:n])
	lanesFrom(&v, &idx, x, n, minBetter)
	return v, idx
}

// The biases of the order keys (floatkey_arm64.h) of maxKeyNEON and
// minKeyNEON, binary_arm64.s's SETUPMAX and SETUPMIN.
const (
	maxKeyBias = 0x00800000 // numbers 0 (-Inf) to 0xff000000 (+Inf), NaNs above
	minKeyBias = 0xff800001 // numbers 0x00ffffff (-Inf) up, NaNs below
)

// floatKey is FKEY: -u for negative bits u, else u | 2^31, minus bias.
func floatKey(v float32, bias uint32) uint32 {
	u := math.Float32bits(v)
	if u>>31 != 0 {
		u = -u
	} else {
		u |= 1 << 31
	}
	return u - bias
}

// keyValue is the number whose key (bias taken off) is k; for the zeros'
// key 2^31, the first zero in x, which the twins return.
func keyValue(x []float32, k uint32) float32 {
	switch {
	case k > 1<<31:
		return math.Float32frombits(k &^ (1 << 31))
	case k < 1<<31:
		return math.Float32frombits(-k)
	}
	for _, v := range x {
		if v == 0 {
			return v
		}
	}
	return 0 // not reached: a zero has that key
}

// maxValF32NEON and minValF32NEON fold the order keys (extremeNEON); a
// slice holding a NaN goes to the twin, which returns the first NaN.
func maxValF32NEON(x []float32) float32 { return extremeNEON(x, true) }
func minValF32NEON(x []float32) float32 { return extremeNEON(x, false) }

func extremeNEON(x []float32, isMax bool) float32 {
	bias, keys, twin := uint32(minKeyBias), minKeyNEON, reduceGo.minVal
	if isMax {
		bias, keys, twin = maxKeyBias, maxKeyNEON, reduceGo.maxVal
	}
	n := len(x) &^ 7
	if n == 0 {
		return twin(x)
	}
	k := keys(x[:n])
	for _, v := range x[n:] {
		if kv := floatKey(v, bias); isMax && kv > k || !isMax && kv < k {
			k = kv
		}
	}
	if isMax && k > 0xff000000 || !isMax && k < 0x00ffffff { // a NaN's key
		return twin(x)
	}
	return keyValue(x, k+bias)
}

// fmaF32 is FMAF32's kernel: the twin.
func fmaF32(a, b, c float32) float32 { return fma32(a, b, c) }
