//go:build !purego

package asm

// The AVX2+FMA reduction kernels (reduce_amd64.s).

//go:noescape
func sumF32(x []float32) float64

//go:noescape
func dotF32(x, y []float32) float64

//go:noescape
func sumSqDevF32(x []float32, m float64) float64

//go:noescape
func momentsF32(x []float32, k float64) (s1, s2 float64)

//go:noescape
func momentsF32AVX512(x []float32, k float64) (s1, s2 float64)

//go:noescape
func maxLanesF32(x []float32) (v [8]float32, i [8]int32)

//go:noescape
func minLanesF32(x []float32) (v [8]float32, i [8]int32)

//go:noescape
func maxValF32(x []float32) float32

//go:noescape
func minValF32(x []float32) float32

//go:noescape
func expShiftF32(d, x []float32, m float32)

//go:noescape
func scaleShiftF32(d, x []float32, s, c float32)

//go:noescape
func affineF32(d, x, w, b []float32, s, c float32)

//go:noescape
func expShiftF32AVX512(d, x []float32, m float32)

//go:noescape
func sumF32AVX512(x []float32) float64

//go:noescape
func sumSqDevF32AVX512(x []float32, m float64) float64

//go:noescape
func sum2F32AVX512(x []float32, n int) (a, b float64)

//go:noescape
func affineF32AVX512(d, x, w, b []float32, s, c float32)

//go:noescape
func accumulateRowsF32AVX512(acc []float64, x []float32, rows, stride int)

//go:noescape
func scaleShiftF32AVX512(d, x []float32, s, c float32)

// reduceAVX2 and reduceAVX512 are the tables of the two paths.
var (
	reduceAVX2 = reduceTable{
		sum: sumF32, dot: dotF32, sumSqDev: sumSqDevF32, moments: momentsF32,
		maxLanes: maxLanesF32, minLanes: minLanesF32, maxVal: maxValF32, minVal: minValF32,
		expShift: expShiftF32, scaleShift: scaleShiftF32, affine: affineF32,
		normGradSums: normGradSumsF32, normGradDX: normGradDXF32, normGradWB: normGradWBF32,
		groupGradSums: groupGradSumsF32, groupGradSums4: groupGradSums4F32, groupGradDX: groupGradDXF32,
		groupGradDXNT:  groupGradDXF32NT,
		accumulateRows: accumulateRowsF32,
		sqDiffLanes:    sqDiffLanesF32,
	}
	reduceAVX512 = func() reduceTable {
		t := reduceAVX2
		t.expShift = expShiftF32AVX512
		t.sum, t.sumSqDev, t.moments = sumF32AVX512, sumSqDevF32AVX512, momentsF32AVX512
		t.sum2 = sum2F32AVX512
		t.affine, t.scaleShift = affineF32AVX512, scaleShiftF32AVX512
		t.accumulateRows = accumulateRowsF32AVX512
		return t
	}()
)

func reduceKernels() *reduceTable {
	switch {
	case useAVX512:
		return &reduceAVX512
	case useAVX2FMA:
		return &reduceAVX2
	}
	return &reduceGo
}

//go:noescape
func normGradSumsF32(dy, x, w []float32) (s, b [8]float32)

//go:noescape
func normGradDXF32(dx, dy, x, w []float32, rs, b, c float32)

//go:noescape
func normGradWBF32(dw, db, dy, x []float32, rs, nb float32)

//go:noescape
func groupGradSumsF32(dy, x []float32) (s, b [8]float32)

//go:noescape
func groupGradSums4F32(dy, x []float32, hw int) (s, b [4][8]float32)

//go:noescape
func groupGradDXF32(dx, dy, x []float32, c1, c2, c3 float32)

//go:noescape
func groupGradDXF32NT(dx, dy, x []float32, c1, c2, c3 float32)

//go:noescape
func accumulateRowsF32(acc []float64, x []float32, rows, stride int)

//go:noescape
func sqDiffLanesF32(acc *[16]float64, x, y []float32)

// fmaSS is fma32 in one instruction (FMA3).
func fmaSS(a, b, c float32) float32

// fmaF32 is FMAF32's kernel: fmaSS with FMA3, else the twin.
func fmaF32(a, b, c float32) float32 {
	if useAVX2FMA {
		return fmaSS(a, b, c)
	}
	return fma32(a, b, c)
}
