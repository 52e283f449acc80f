package goaten

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/goaten/goaten/tensor"
)

// The constructors of PyTorch's torch.zeros(*size) family take their sizes
// the way PyTorch does: as separate ints, Zeros(2, 3), or as one []int,
// Zeros(x.Sizes()); options follow the sizes.

// Zeros is torch.zeros(*size): a tensor of zeros, float32 on the CPU unless
// options say otherwise (WithDtype, WithDevice, WithRequiresGrad).
//
//	goaten.Zeros(2, 3)
//	goaten.Zeros(2, 3, goaten.WithDtype(goaten.Int64))
//	goaten.Zeros(x.Sizes(), goaten.WithDevice(x.Device()))
func Zeros(size ...any) *Tensor {
	sizes, opts, rg := sizesAndOptions("zeros", size)
	return requireGrad(tensor.ZerosOf(sizes, opts...), rg)
}

// Ones is torch.ones(*size): a tensor of ones (see Zeros for the arguments).
func Ones(size ...any) *Tensor {
	sizes, opts, rg := sizesAndOptions("ones", size)
	return requireGrad(tensor.OnesOf(sizes, opts...), rg)
}

// Empty is torch.empty(*size): a tensor whose values are not set (goaten's
// are zero; see Zeros for the arguments).
func Empty(size ...any) *Tensor {
	sizes, opts, rg := sizesAndOptions("empty", size)
	return requireGrad(tensor.EmptyOf(sizes, opts...), rg)
}

// Full is torch.full(size, v): a tensor filled with v, whose dtype is v's
// kind as in PyTorch 1.13 (float32 for a float, int64 for an int, bool for a
// bool) unless WithDtype says otherwise. The value comes first, then the
// sizes: Full(0.5, 2, 3).
func Full(v any, size ...any) *Tensor {
	sizes, opts, rg := sizesAndOptions("full", size)
	if _, ok := v.(bool); ok && !slices.ContainsFunc(opts, func(o Option) bool { return o.Name() == "dtype" }) {
		// torch.full infers bool from a bool (aten::full itself, called
		// through the dispatcher, gets an integer Scalar: see core.FullDType).
		opts = append(opts, tensor.WithDtype(Bool))
	}
	return requireGrad(tensor.Full(sizes, v, opts...), rg)
}

// Rand is torch.rand(*size): uniform samples in [0, 1) from the default
// generator, PyTorch's stream after the same ManualSeed (see Zeros for the
// arguments).
func Rand(size ...any) *Tensor {
	sizes, opts, rg := sizesAndOptions("rand", size)
	return requireGrad(tensor.Rand(sizes, opts...), rg)
}

// Randn is torch.randn(*size): standard normal samples from the default
// generator, PyTorch's stream after the same ManualSeed (see Zeros for the
// arguments).
func Randn(size ...any) *Tensor {
	sizes, opts, rg := sizesAndOptions("randn", size)
	return requireGrad(tensor.Randn(sizes, opts...), rg)
}

// WithRequiresGrad is the requires_grad=v of PyTorch's factory functions:
// the tensor made by Zeros, Ones, Empty, Full, Rand, Randn or FromNested is
// a leaf that requires grad. (It is not an op argument: ops reject it.)
func WithRequiresGrad(v bool) Option { return tensor.Kw("requires_grad", v) }

func requireGrad(t *Tensor, rg bool) *Tensor {
	if rg {
		t.SetRequiresGrad(true)
	}
	return t
}

// sizesAndOptions splits a constructor's arguments into its sizes (ints, or
// one []int) and the options after them, taking requires_grad out of the
// options. A wrong argument fails with PyTorch's TypeError.
func sizesAndOptions(fn string, args []any) (sizes []int, opts []Option, requiresGrad bool) {
	sizes = []int{}
	for i, a := range args {
		if o, ok := a.(Option); ok {
			if o.Name() == "requires_grad" {
				b, ok := o.Value().(bool)
				if !ok {
					tensor.TypePanicf("%s(): argument 'requires_grad' must be bool, not %s", fn, pyType(o.Value()))
				}
				requiresGrad = b
				continue
			}
			opts = append(opts, o)
			continue
		}
		if len(opts) > 0 || requiresGrad {
			tensor.TypePanicf("%s(): the size comes before the options, but found an element of type %s after one", fn, pyType(a))
		}
		if s, ok := a.([]int); ok {
			if len(args) > 1 && (i > 0 || !isOption(args[1])) {
				tensor.TypePanicf("%s(): argument 'size' must be tuple of ints, but found element of type list at pos %d", fn, i+1)
			}
			sizes = append(sizes, s...)
			continue
		}
		n, ok := intValue(a)
		if !ok {
			tensor.TypePanicf("%s(): argument 'size' must be tuple of ints, but found element of type %s at pos %d", fn, pyType(a), i+1)
		}
		sizes = append(sizes, n)
	}
	return sizes, opts, requiresGrad
}

func isOption(a any) bool { _, ok := a.(Option); return ok }

// intValue converts a Go integer to int.
func intValue(a any) (int, bool) {
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > math.MaxInt {
			return 0, false
		}
		return int(v.Uint()), true
	}
	return 0, false
}

// pyType names a Go value's type as PyTorch's messages name Python types.
func pyType(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case *Tensor:
		if x == nil {
			return "NoneType"
		}
		return "Tensor"
	case float32, float64:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Slice, reflect.Array:
		return "list"
	}
	return fmt.Sprintf("%T", v)
}

// FromNested is torch.tensor(data): a new CPU tensor holding a copy of data,
// a number or nested Go slices (or arrays) of numbers or bools. The shape
// follows the nesting, [][]float32{{1, 2}, {3, 4}} giving a 2×2 tensor;
// the dtype follows the Go element type (float32 → Float32, float64 →
// Float64, int and int64 → Int64, int32, int16, int8, uint8, bool); in a
// []any the elements' types promote as torch.promote_types does, and an
// empty []any gives float32, as torch.tensor([]) does.
//
// Ragged input fails as PyTorch's does ("expected sequence of length 2 at
// dim 1 (got 3)"), as does an element that is not a number. Options:
// WithDtype (the values are converted), WithDevice, WithRequiresGrad.
func FromNested(data any, opts ...Option) *Tensor {
	var dtype DType = tensor.Invalid
	var dev Device = CPU
	rg := false
	for _, o := range opts {
		switch o.Name() {
		case "dtype":
			d, ok := o.Value().(DType)
			if !ok {
				tensor.TypePanicf("tensor(): argument 'dtype' must be torch.dtype, not %s", pyType(o.Value()))
			}
			dtype = d
		case "device":
			d, ok := o.Value().(Device)
			if !ok {
				tensor.TypePanicf("tensor(): argument 'device' must be torch.device, not %s", pyType(o.Value()))
			}
			dev = d
		case "requires_grad":
			b, ok := o.Value().(bool)
			if !ok {
				tensor.TypePanicf("tensor(): argument 'requires_grad' must be bool, not %s", pyType(o.Value()))
			}
			rg = b
		default:
			tensor.TypePanicf("tensor() got an unexpected keyword argument '%s'", o.Name())
		}
	}
	n := &nested{dtype: tensor.Invalid}
	n.sizes(reflect.ValueOf(data))
	n.walk(reflect.ValueOf(data), 0)
	if n.dtype == tensor.Invalid {
		n.dtype = n.staticDType(reflect.TypeOf(data))
	}
	t := n.tensor()
	if dtype != tensor.Invalid {
		t = t.To(dtype)
	}
	t = t.ToDevice(dev)
	return requireGrad(t, rg)
}

// nested gathers FromNested's shape, dtype and values.
type nested struct {
	shape  []int
	dtype  DType
	floats []float64
	ints   []int64
	bools  []bool
	kinds  []byte // per value: 'f', 'i' or 'b'
}

// deref unwraps interfaces and pointers.
func deref(v reflect.Value) reflect.Value {
	for !v.IsValid() || v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if !v.IsValid() || v.IsNil() {
			tensor.TypePanicf("Could not infer dtype of NoneType")
		}
		if v.Type() == tensorType {
			tensor.TypePanicf("tensor(): the data holds a Tensor; join tensors with Stack or Cat")
		}
		v = v.Elem()
	}
	return v
}

var tensorType = reflect.TypeOf((*Tensor)(nil))

func isSeq(v reflect.Value) bool { return v.Kind() == reflect.Slice || v.Kind() == reflect.Array }

// sizes is the shape as PyTorch's compute_sizes finds it: the lengths of
// the first element at each level, down to a number or an empty sequence.
func (n *nested) sizes(v reflect.Value) {
	for v = deref(v); isSeq(v); {
		n.shape = append(n.shape, v.Len())
		if v.Len() == 0 {
			return
		}
		v = deref(v.Index(0))
	}
}

// walk stores the values below v, at dimension dim, checking each
// sequence's length against the shape.
func (n *nested) walk(v reflect.Value, dim int) {
	v = deref(v)
	if dim < len(n.shape) {
		if !isSeq(v) {
			tensor.TypePanicf("tensor(): expected a sequence at dim %d but found a %s", dim, pyType(v.Interface()))
		}
		if l := v.Len(); l != n.shape[dim] {
			tensor.Raise(&tensor.Error{Kind: tensor.ValueError, Msg: fmt.Sprintf("expected sequence of length %d at dim %d (got %d)", n.shape[dim], dim, l)})
		}
		for i := 0; i < v.Len(); i++ {
			n.walk(v.Index(i), dim+1)
		}
		return
	}
	if isSeq(v) {
		tensor.TypePanicf("tensor(): expected a number at dim %d but found a sequence", dim)
	}
	var d DType
	switch v.Kind() {
	case reflect.Float32:
		d = tensor.Float32
		n.floats, n.kinds = append(n.floats, v.Float()), append(n.kinds, 'f')
	case reflect.Float64:
		d = tensor.Float64
		n.floats, n.kinds = append(n.floats, v.Float()), append(n.kinds, 'f')
	case reflect.Bool:
		d = tensor.Bool
		n.bools, n.kinds = append(n.bools, v.Bool()), append(n.kinds, 'b')
	case reflect.Int, reflect.Int64:
		d = tensor.Int64
		n.ints, n.kinds = append(n.ints, v.Int()), append(n.kinds, 'i')
	case reflect.Int32:
		d = tensor.Int32
		n.ints, n.kinds = append(n.ints, v.Int()), append(n.kinds, 'i')
	case reflect.Int16:
		d = tensor.Int16
		n.ints, n.kinds = append(n.ints, v.Int()), append(n.kinds, 'i')
	case reflect.Int8:
		d = tensor.Int8
		n.ints, n.kinds = append(n.ints, v.Int()), append(n.kinds, 'i')
	case reflect.Uint8:
		d = tensor.Uint8
		n.ints, n.kinds = append(n.ints, int64(v.Uint())), append(n.kinds, 'i')
	default:
		tensor.TypePanicf("Could not infer dtype of %s", pyType(v.Interface()))
	}
	if n.dtype == tensor.Invalid {
		n.dtype = d
	} else {
		n.dtype = tensor.PromoteTypes(n.dtype, d)
	}
}

// staticDType is the dtype of data's element type, for data with no
// elements ([][]float64{} is a float64 tensor); float32 when the type does
// not say ([]any{}).
func (n *nested) staticDType(t reflect.Type) DType {
	for t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		t = t.Elem()
	}
	if t == nil {
		return tensor.Float32
	}
	switch t.Kind() {
	case reflect.Float64:
		return tensor.Float64
	case reflect.Bool:
		return tensor.Bool
	case reflect.Int, reflect.Int64:
		return tensor.Int64
	case reflect.Int32:
		return tensor.Int32
	case reflect.Int16:
		return tensor.Int16
	case reflect.Int8:
		return tensor.Int8
	case reflect.Uint8:
		return tensor.Uint8
	}
	return tensor.Float32
}

// tensor builds the tensor: the values, converted to the inferred dtype.
func (n *nested) tensor() *Tensor {
	shape := append([]int{}, n.shape...) // non-nil: a number makes a 0-d tensor
	count := len(n.kinds)
	var fi, ii, bi int
	switch {
	case n.dtype.IsFloat():
		out := make([]float64, count)
		for k, kind := range n.kinds {
			switch kind {
			case 'f':
				out[k], fi = n.floats[fi], fi+1
			case 'i':
				out[k], ii = float64(n.ints[ii]), ii+1
			case 'b':
				if n.bools[bi] {
					out[k] = 1
				}
				bi++
			}
		}
		if n.dtype == tensor.Float32 {
			f32 := make([]float32, count)
			for k, x := range out {
				f32[k] = float32(x)
			}
			return tensor.FromSlice(f32, shape...)
		}
		return tensor.FromSlice(out, shape...).To(n.dtype)
	case n.dtype == tensor.Bool:
		return tensor.FromSlice(append([]bool{}, n.bools...), shape...)
	}
	out := make([]int64, count)
	for k, kind := range n.kinds {
		switch kind {
		case 'i':
			out[k], ii = n.ints[ii], ii+1
		case 'b':
			if n.bools[bi] {
				out[k] = 1
			}
			bi++
		}
	}
	return tensor.FromSlice(out, shape...).To(n.dtype)
}
