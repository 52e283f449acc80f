package goaten_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// fuzzBytes hands out fuzz input a byte at a time (zeros once it runs out).
type fuzzBytes struct {
	b []byte
	i int
}

func (r *fuzzBytes) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *fuzzBytes) pick(n int) int { return int(r.next()) % n }

var fuzzInts = []int{0, 1, 2, 3, -1, -2, 5, 1 << 40, -(1 << 40), 4, 7, 64}
var fuzzFloats = []float64{0, 0.5, -1, 2, math.NaN(), math.Inf(1), math.Inf(-1), 1e30, -0.0, 3.25}
var fuzzStrings = []string{"none", "tanh", "sum", "mean", "max", "amin", "prod", "floor", "trunc", "bogus", ""}
var fuzzDims = []int{0, 1, 2, 3, 5, 1, 2, 4}

func (r *fuzzBytes) tensor() *tensor.Tensor {
	d := tensor.AllDTypes[r.pick(len(tensor.AllDTypes))]
	rank := r.pick(5)
	shape := make([]int, rank)
	for i := range shape {
		shape[i] = fuzzDims[r.pick(len(fuzzDims))]
	}
	t := tensor.Empty(d, shape...)
	n := t.Numel()
	for i := 0; i < n; i++ {
		v := fuzzFloats[r.pick(len(fuzzFloats))]
		if !d.IsFloat() && (math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 100) {
			v = float64(r.pick(7)) - 3
		}
		idx := make([]int, rank)
		rem := i
		for k := rank - 1; k >= 0; k-- {
			idx[k] = rem % shape[k]
			rem /= shape[k]
		}
		t.SetAt(tensor.Float(v), idx...)
	}
	// Non-contiguous and overlapping layouts.
	switch r.pick(6) {
	case 1:
		if rank >= 2 {
			p := make([]int, rank)
			for i := range p {
				p[i] = rank - 1 - i
			}
			t = t.Permute(p)
		}
	case 2:
		if rank >= 1 && shape[0] == 1 {
			s := append([]int(nil), shape...)
			s[0] = 3
			t = t.Expand(s)
		}
	case 3:
		if rank >= 1 && shape[0] >= 2 {
			t = t.Slice(0, 1, nil, 2)
		}
	case 4:
		// A large stride-0 broadcast of a small storage: anything that
		// materialises it must go through the allocation cap.
		if rank >= 1 && shape[0] == 1 {
			s := append([]int(nil), shape...)
			s[0] = 1 << 11
			t = t.Expand(s)
		}
	case 5:
		// Overlapping windows: [n-k+1, k] with strides [1, 1] over a 1-d view.
		if n >= 2 {
			k := 1 + r.pick(n)
			t = t.AsStrided([]int{n - k + 1, k}, []int{1, 1}, 0)
		}
	}
	return t
}

func (r *fuzzBytes) value(ty *tensor.Type) any {
	if ty.Kind == tensor.TOptional {
		if r.pick(3) == 0 {
			return nil
		}
		return r.value(ty.Elem)
	}
	if r.pick(16) == 0 { // a value of the wrong type
		return []any{nil, "x", 1.5, 3, r.tensor()}[r.pick(5)]
	}
	switch ty.Kind {
	case tensor.TTensor:
		return r.tensor()
	case tensor.TInt:
		return fuzzInts[r.pick(len(fuzzInts))]
	case tensor.TFloat:
		return fuzzFloats[r.pick(len(fuzzFloats))]
	case tensor.TBool:
		return r.next()&1 == 1
	case tensor.TStr:
		return fuzzStrings[r.pick(len(fuzzStrings))]
	case tensor.TScalar:
		switch r.pick(3) {
		case 0:
			return tensor.Int(int64(fuzzInts[r.pick(len(fuzzInts))]))
		case 1:
			return tensor.Float(fuzzFloats[r.pick(len(fuzzFloats))])
		}
		return tensor.BoolScalar(r.next()&1 == 1)
	case tensor.TScalarType:
		return tensor.AllDTypes[r.pick(len(tensor.AllDTypes))]
	case tensor.TMemoryFormat:
		return tensor.MemoryFormat(r.pick(4))
	case tensor.TLayout:
		return tensor.Strided
	case tensor.TDevice:
		return []tensor.Device{tensor.CPU, tensor.Meta}[r.pick(2)]
	case tensor.TGenerator:
		return tensor.NewGenerator(uint64(r.next()))
	case tensor.TList:
		n := r.pick(5)
		switch ty.Elem.Base().Kind {
		case tensor.TTensor:
			l := make([]any, n)
			for i := range l {
				if ty.Elem.Kind == tensor.TOptional && r.pick(3) == 0 {
					continue
				}
				l[i] = r.tensor()
			}
			return l
		case tensor.TFloat:
			l := make([]float64, n)
			for i := range l {
				l[i] = fuzzFloats[r.pick(len(fuzzFloats))]
			}
			return l
		case tensor.TBool:
			l := make([]bool, n)
			for i := range l {
				l[i] = r.next()&1 == 1
			}
			return l
		}
		l := make([]int, n)
		for i := range l {
			l[i] = fuzzInts[r.pick(len(fuzzInts))]
		}
		return l
	}
	return nil
}

// FuzzDispatcher builds argument lists for any core op from fuzz bytes —
// wrong arity and types, None, every dtype, empty and size-1 dims, huge and
// negative ints, non-contiguous and overlapping views, NaN/Inf — and checks
// that each call returns a result whose metadata agrees with the op's meta
// function, or fails with a *tensor.Error. Any other panic is a crash.
func FuzzDispatcher(f *testing.F) {
	for i := range core.Names {
		f.Add(uint16(i), []byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9})
		f.Add(uint16(i), []byte{0, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		if err := fuzzDispatch(which, data); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzDispatch runs one fuzzed call. It returns an error when the result
// disagrees with the op's meta function; a panic other than *tensor.Error
// propagates.
func fuzzDispatch(which uint16, data []byte) error {
	old := tensor.MaxElements
	tensor.MaxElements = 1 << 22
	defer func() { tensor.MaxElements = old }()
	op := tensor.MustOp(core.Names[int(which)%len(core.Names)])
	r := &fuzzBytes{b: data}
	var args []any
	for _, a := range op.Schema.Args {
		if a.KwargOnly {
			continue
		}
		args = append(args, r.value(a.Type))
	}
	switch r.pick(16) {
	case 0:
		if len(args) > 0 {
			args = args[:len(args)-1]
		}
	case 1:
		args = append(args, 1)
	}
	// Keyword-only arguments (dtype=, alpha=, out=, include_self=, ...),
	// each given or left to its default.
	var kwargs map[string]any
	for _, a := range op.Schema.Args {
		if !a.KwargOnly || r.pick(2) == 0 {
			continue
		}
		if kwargs == nil {
			kwargs = map[string]any{}
		}
		kwargs[a.Name] = r.value(a.Type)
	}
	res, err := tensor.CallErr(op.Name, args, kwargs)
	if err != nil || op.Schema.IsInplace() {
		return nil
	}
	var m any
	if tensor.Try(func() { m = core.RunMeta(op, op.Bind(args, kwargs)) }) != nil {
		return nil // data-dependent shapes (nonzero, boolean indexing)
	}
	switch out := res.(type) {
	case *tensor.Tensor:
		return fuzzSameMeta(op.Name, out, m.(*tensor.Tensor))
	case []*tensor.Tensor:
		mts, ok := m.([]*tensor.Tensor)
		if !ok || len(mts) != len(out) {
			return fmt.Errorf("%s: %d results, meta says %v", op.Name, len(out), m)
		}
		for i := range out {
			if err := fuzzSameMeta(fmt.Sprintf("%s result %d", op.Name, i), out[i], mts[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// fuzzSameMeta compares a result's dtype and sizes with its meta tensor (both
// nil, for outputs a mask left out, is agreement).
func fuzzSameMeta(what string, out, mt *tensor.Tensor) error {
	if out == nil || mt == nil {
		if out != mt {
			return fmt.Errorf("%s: result is nil: %v, meta is nil: %v", what, out == nil, mt == nil)
		}
		return nil
	}
	if mt.DType() != out.DType() || !slices.Equal(mt.Sizes(), out.Sizes()) {
		return fmt.Errorf("%s: result %s%v, meta says %s%v", what, out.DType(), out.Sizes(), mt.DType(), mt.Sizes())
	}
	return nil
}
