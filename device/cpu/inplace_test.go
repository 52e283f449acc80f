package cpu_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// An in-place op gives what its functional op gives, copied into self, for
// every layout of self and of the other operand: the ops with an outKernel
// write self directly (dense self, the result's dtype, no other view of
// self's memory among the arguments), the rest through a temporary.
func TestInplaceMatchesFunctional(t *testing.T) {
	mk := func(d tensor.DType) *tensor.Tensor {
		v := make([]float64, 24)
		for i := range v {
			v[i] = float64(i%7)*1.25 - 3
		}
		if d == tensor.Int64 {
			for i := range v {
				v[i] = float64(i%7 - 3 + i%7/3) // -3…3 without 0
			}
			return tensor.FromSlice(v, 4, 6).To(d)
		}
		v[5] = math.NaN()
		return tensor.FromSlice(v, 4, 6).To(d)
	}
	type layout struct {
		name string
		self func(x *tensor.Tensor) *tensor.Tensor // a view of x to write
		// other is the second operand given self's view and a fresh
		// tensor; nil for unary ops.
		other func(s, fresh *tensor.Tensor) *tensor.Tensor
	}
	layouts := []layout{
		{"contiguous", func(x *tensor.Tensor) *tensor.Tensor { return x }, func(s, f *tensor.Tensor) *tensor.Tensor { return f }},
		{"transposed self", func(x *tensor.Tensor) *tensor.Tensor { return x.View([]int{6, 4}).T() }, func(s, f *tensor.Tensor) *tensor.Tensor { return f }},
		{"strided self", func(x *tensor.Tensor) *tensor.Tensor {
			return x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithStep(2))
		}, func(s, f *tensor.Tensor) *tensor.Tensor {
			return f.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithStep(2))
		}},
		{"self twice", func(x *tensor.Tensor) *tensor.Tensor { return x }, func(s, f *tensor.Tensor) *tensor.Tensor { return s }},
		{"other overlaps self transposed", func(x *tensor.Tensor) *tensor.Tensor {
			return x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(4))
		},
			func(s, f *tensor.Tensor) *tensor.Tensor { return s.T() }},
		{"other shifted in self's storage", func(x *tensor.Tensor) *tensor.Tensor { return x.Slice(tensor.WithStart(1)) },
			func(s, f *tensor.Tensor) *tensor.Tensor {
				return s.AsStrided(s.Sizes(), s.Strides(), tensor.WithStorageOffset(s.StorageOffset()-6))
			}},
		{"broadcast other", func(x *tensor.Tensor) *tensor.Tensor { return x }, func(s, f *tensor.Tensor) *tensor.Tensor { return f.Slice(tensor.WithStart(0), tensor.WithEnd(1)) }},
	}
	cases := []struct {
		op     string
		args   []any          // after self (and other)
		kw     map[string]any // keyword-only arguments
		dtypes []tensor.DType
		binary bool
	}{
		{"add_.Tensor", nil, map[string]any{"alpha": tensor.Int(3)}, []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Float16}, true},
		{"sub_.Tensor", nil, map[string]any{"alpha": tensor.Int(2)}, []tensor.DType{tensor.Float32, tensor.Int64}, true},
		{"mul_.Tensor", nil, nil, []tensor.DType{tensor.Float32, tensor.Float64, tensor.BFloat16}, true},
		{"div_.Tensor", nil, nil, []tensor.DType{tensor.Float32, tensor.Float64}, true},
		{"div_.Tensor_mode", nil, map[string]any{"rounding_mode": "floor"}, []tensor.DType{tensor.Float32, tensor.Int64}, true},
		{"pow_.Tensor_Tensor", nil, nil, []tensor.DType{tensor.Float64}, true},
		{"exp_", nil, nil, []tensor.DType{tensor.Float32, tensor.Float64}, false},
		{"relu_", nil, nil, []tensor.DType{tensor.Float32, tensor.Int64}, false},
		{"abs_", nil, nil, []tensor.DType{tensor.Float32, tensor.Int64}, false},
		{"clamp_", []any{tensor.Float(-1), tensor.Float(2)}, nil, []tensor.DType{tensor.Float32}, false},
	}
	for _, c := range cases {
		for _, d := range c.dtypes {
			for _, l := range layouts {
				if !c.binary && l.name != "contiguous" && l.name != "transposed self" && l.name != "strided self" {
					continue
				}
				name := fmt.Sprintf("%s/%s/%s", c.op, d, l.name)
				t.Run(name, func(t *testing.T) {
					x := mk(d)
					s := l.self(x)
					args := []any{s}
					var other *tensor.Tensor
					if c.binary {
						fresh := mk(d).Neg().AddScalar(0.75).To(d)
						if d == tensor.Int64 { // nonzero divisors
							fresh = mk(d).RemainderScalar(5).AddScalar(6)
						}
						other = l.other(s, fresh)
						args = append(args, other)
					}
					args = append(args, c.args...)
					// The functional result from copies of the operands, taken
					// before self changes.
					fargs := slices.Clone(args)
					fargs[0] = s.Clone()
					if c.binary {
						fargs[1] = other.Clone()
					}
					op := core.Op("aten::" + c.op)
					f, _, _ := op.Functional()
					want := f.Invoke(f.Bind(fargs, c.kw)).(*tensor.Tensor)
					got := op.Invoke(op.Bind(args, c.kw)).(*tensor.Tensor)
					if got != s {
						t.Fatalf("%s returned a new tensor, not self", c.op)
					}
					if !sameF64(s.Float64s(), want.Float64s()) {
						t.Fatalf("self after %s: %v\nwant %v", c.op, s.Float64s(), want.Float64s())
					}
				})
			}
		}
	}
}

// The in-place ops with an outKernel write self without a temporary: add_
// allocates less than add (whose result needs storage).
func TestInplaceWritesSelf(t *testing.T) {
	x := tensor.FromSlice(make([]float32, 64*64), 64, 64)
	y := tensor.FromSlice(make([]float32, 64*64), 64, 64)
	inplace := testing.AllocsPerRun(20, func() { x.Add_(y) })
	functional := testing.AllocsPerRun(20, func() { _ = x.Add(y) })
	if inplace >= functional {
		t.Fatalf("add_ made %v allocations, add %v: add_ went through a temporary", inplace, functional)
	}
}

// An argument viewing self's storage with another element size covers other
// bytes than self's view with the same offset, sizes and strides: add_ goes
// through a temporary, reading other as it was.
func TestInplaceOtherElementSize(t *testing.T) {
	n := 5000 // several chunks of the conversion to float64
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%97) * 1.25
	}
	self := tensor.FromSlice(v)
	other := tensor.NewMeta([]int{n}, []int{1}, 0, tensor.Float32, tensor.CPU).WithRaw(self.Raw())
	want := self.Add(other.Clone()).Float64s()
	self.Add_(other)
	if got := self.Float64s(); !sameF64(got, want) {
		t.Fatalf("add_ of a float32 view of self's bytes: %v, want %v", got, want)
	}
}
