// Package newdevice is a goaten device written only against the public API
// (packages goaten and goaten/device), as an outside user would write it.
// Its raw data is a foreign representation, an Array of float64 values in
// row-major order worked on with gonum, and it supplies only the two
// conversions and lowerings of the functional core ops: no native views, no
// in-place ops, no constructors. The framework does the rest (see README.md).
//
// Import it for its side effect, then move tensors with t.ToDevice(newdevice.Device).
package newdevice

import (
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
	"github.com/x448/float16"
)

// Array is the device's raw data: a tensor's values in row-major order,
// each held as a float64 rounded to the tensor's dtype. Integers are exact
// up to 2^53 in magnitude.
type Array struct{ Data []float64 }

// Device is the handle of the "gonum" device.
var Device = device.Register(device.Backend{
	Name:      "gonum",
	FromCPU:   fromCPU,
	ToCPU:     toCPU,
	Lowerings: lowerings,
})

// lowerings gathers the tables of this package's files, one per op family.
var lowerings = merge(pointwise(), reductions(), shapes(), nn(), backward())

type table map[string]device.Lowering

// add registers one lowering for several ops.
func (t table) add(l device.Lowering, names ...string) {
	for _, n := range names {
		t[n] = l
	}
}

func merge(ts ...table) map[string]device.Lowering {
	out := map[string]device.Lowering{}
	for _, t := range ts {
		for k, v := range t {
			out[k] = v
		}
	}
	return out
}

// fromCPU reads a contiguous CPU tensor's values.
func fromCPU(t *gt.Tensor) any { return Array{t.Float64s()} }

// toCPU builds a CPU tensor of t's shape and dtype from the values.
func toCPU(raw any, t *gt.Tensor) *gt.Tensor {
	shape := append([]int{}, t.Sizes()...) // non-nil: [] is a 0-d tensor
	return gt.FromFloat64s(raw.(Array).Data, shape...).To(t.DType())
}

// vals returns the values of a tensor argument.
func vals(t *gt.Tensor) []float64 { return t.Raw().(Array).Data }

// round returns v as the dtype d holds it.
func round(d gt.DType, v float64) float64 {
	switch d {
	case gt.Float64:
		return v
	case gt.Float32:
		return float64(float32(v))
	case gt.Float16:
		return float64(float16.Fromfloat32(float32(v)).Float32())
	case gt.BFloat16:
		return bf16(v)
	case gt.Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	i := int64(v)
	switch d {
	case gt.Int32:
		i = int64(int32(i))
	case gt.Int16:
		i = int64(int16(i))
	case gt.Int8:
		i = int64(int8(i))
	case gt.Uint8:
		i = int64(uint8(i))
	}
	return float64(i)
}

// bf16 rounds to bfloat16 (round to nearest even on the float32 bits).
func bf16(v float64) float64 {
	f := float32(v)
	if f != f {
		return v
	}
	b := math.Float32bits(f)
	b += 0x7fff + (b>>16)&1
	return float64(math.Float32frombits(b &^ 0xffff))
}

// store rounds values to out's dtype and wraps them as raw data.
func store(out *gt.Tensor, v []float64) Array {
	d := out.DType()
	if d != gt.Float64 {
		for i := range v {
			v[i] = round(d, v[i])
		}
	}
	return Array{v}
}

// numel is the number of elements of a shape.
func numel(s []int) int {
	n := 1
	for _, x := range s {
		n *= x
	}
	return n
}

// contiguous returns row-major strides for sizes.
func contiguous(sizes []int) []int {
	st := make([]int, len(sizes))
	acc := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= sizes[i]
	}
	return st
}

// gather returns the values of x (sizes xs, dense) read through a strided
// window: sizes, strides (in x's dense layout) and offset.
func gather(x []float64, sizes, strides []int, offset int) []float64 {
	n := numel(sizes)
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	idx := make([]int, len(sizes))
	p := offset
	for k := 0; k < n; k++ {
		out[k] = x[p]
		for d := len(sizes) - 1; d >= 0; d-- {
			idx[d]++
			p += strides[d]
			if idx[d] < sizes[d] {
				break
			}
			p -= idx[d] * strides[d]
			idx[d] = 0
		}
	}
	return out
}

// expand returns t's values broadcast to shape (numpy rules).
func expand(t *gt.Tensor, shape []int) []float64 {
	v := vals(t)
	ts := t.Sizes()
	if len(ts) == len(shape) {
		same := true
		for i := range ts {
			same = same && ts[i] == shape[i]
		}
		if same {
			return v
		}
	}
	st := make([]int, len(shape))
	cs := contiguous(ts)
	for i := range ts {
		j := len(shape) - len(ts) + i
		if ts[i] != 1 {
			st[j] = cs[i]
		}
	}
	return gather(v, shape, st, 0)
}

// as computes values of t rounded to dtype d (the op's compute dtype).
func as(t *gt.Tensor, d gt.DType, shape []int) []float64 {
	v := expand(t, shape)
	if t.DType() == d || d == gt.Float64 {
		return v
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = round(d, x)
	}
	return out
}

// fail raises a goaten error from a lowering.
func fail(msg string) { panic(&gt.Error{Msg: msg}) }
