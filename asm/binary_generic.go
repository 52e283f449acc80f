package asm

import "math"

// Pure-Go twins of the binary kernels. Each loop is what its assembly does.

func addGo[T float32 | float64](d, x, y []T) {
	for i := range d {
		d[i] = x[i] + y[i]
	}
}

func subGo[T float32 | float64](d, x, y []T) {
	for i := range d {
		d[i] = x[i] - y[i]
	}
}

func mulGo[T float32 | float64](d, x, y []T) {
	for i := range d {
		d[i] = x[i] * y[i]
	}
}

func divGo[T float32 | float64](d, x, y []T) {
	for i := range d {
		d[i] = x[i] / y[i]
	}
}

// maximum is torch.maximum on one pair: a NaN wins (a's if both are), else
// the larger, a on ties.
func maximum[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b || b > a:
		return b
	}
	return a
}

// minimum is torch.minimum on one pair, as maximum.
func minimum[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b || b < a:
		return b
	}
	return a
}

func maxGo[T float32 | float64](d, x, y []T) {
	for i := range d {
		d[i] = maximum(x[i], y[i])
	}
}

func minGo[T float32 | float64](d, x, y []T) {
	for i := range d {
		d[i] = minimum(x[i], y[i])
	}
}

func addVSGo[T float32 | float64](d, x []T, s T) {
	for i := range d {
		d[i] = x[i] + s
	}
}

func subVSGo[T float32 | float64](d, x []T, s T) {
	for i := range d {
		d[i] = x[i] - s
	}
}

func mulVSGo[T float32 | float64](d, x []T, s T) {
	for i := range d {
		d[i] = x[i] * s
	}
}

func divVSGo[T float32 | float64](d, x []T, s T) {
	for i := range d {
		d[i] = x[i] / s
	}
}

func maxVSGo[T float32 | float64](d, x []T, s T) {
	for i := range d {
		d[i] = maximum(x[i], s)
	}
}

func minVSGo[T float32 | float64](d, x []T, s T) {
	for i := range d {
		d[i] = minimum(x[i], s)
	}
}

func subSVGo[T float32 | float64](d []T, s T, y []T) {
	for i := range d {
		d[i] = s - y[i]
	}
}

func divSVGo[T float32 | float64](d []T, s T, y []T) {
	for i := range d {
		d[i] = s / y[i]
	}
}

func maxSVGo[T float32 | float64](d []T, s T, y []T) {
	for i := range d {
		d[i] = maximum(s, y[i])
	}
}

func minSVGo[T float32 | float64](d []T, s T, y []T) {
	for i := range d {
		d[i] = minimum(s, y[i])
	}
}

func axpyGo32(d []float32, a float32, x, y []float32) {
	for i := range d {
		d[i] = fma32(a, x[i], y[i])
	}
}

func axpyGo64(d []float64, a float64, x, y []float64) {
	for i := range d {
		d[i] = math.FMA(a, x[i], y[i])
	}
}

// fma32 is a·b + c rounded once to float32, as VFMADD…PS does: the product
// is exact in float64, the sum is rounded to odd there (nearest, then the
// last bit set when inexact: TwoSum gives the error), and round-to-odd with
// 29 spare bits makes the final rounding to float32 correct.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if e == 0 || math.IsInf(s, 0) || s != s {
		return float32(s)
	}
	u := math.Float64bits(s)
	if (e > 0) != (s > 0) {
		u-- // the exact sum is nearer zero than s: truncate one ulp down
	}
	return float32(math.Float64frombits(u | 1))
}

// binGo builds the table of twins.
func binGo[T float32 | float64](axpy func(d []T, a T, x, y []T)) binTable[T] {
	return binTable[T]{
		vv:   [numBinOps]func(d, x, y []T){addGo[T], subGo[T], mulGo[T], divGo[T], maxGo[T], minGo[T]},
		vs:   [numBinOps]func(d, x []T, s T){addVSGo[T], subVSGo[T], mulVSGo[T], divVSGo[T], maxVSGo[T], minVSGo[T]},
		sv:   [numBinOps]func(d []T, s T, y []T){nil, subSVGo[T], nil, divSVGo[T], maxSVGo[T], minSVGo[T]},
		axpy: axpy,
	}
}

var (
	binGo32 = binGo(axpyGo32)
	binGo64 = binGo(axpyGo64)
)

// cubeGo is the twin of the cube kernels: d[i] = (x[i]·x[i])·x[i], each
// product rounded to float32.
func cubeGo(d, x []float32) {
	for i, v := range x[:len(d)] {
		t := v * v
		d[i] = t * v
	}
}

// bwdGo is the twin of the backward kernels (binTable.bwd), each operation
// rounded to float32 (the explicit conversions keep Go from fusing them).
func bwdGo(op bwdOp, d, g, y []float32) {
	y = y[:len(d)]
	g = g[:len(d)]
	switch op {
	case bwdSigmoid:
		for i, v := range y {
			t := float32(1 - v)
			t = float32(g[i] * t)
			d[i] = t * v
		}
	case bwdTanh:
		for i, v := range y {
			t := float32(v * v)
			t = float32(1 - t)
			d[i] = g[i] * t
		}
	}
}
