package goaten_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/golden"
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

var fuzzInts = []int{0, 1, 2, 3, -1, -2, 5, 1 << 40, -(1 << 40), 4, 7, 64,
	1 << 32, 1 << 62, math.MaxInt64, math.MinInt64, -3, 6}
var fuzzFloats = []float64{0, 0.5, -1, 2, math.NaN(), math.Inf(1), math.Inf(-1), 1e30, -0.0, 3.25,
	1e-30, math.MaxFloat64, 5e-324, -0.5}
var fuzzStrings = []string{"none", "tanh", "sum", "mean", "max", "amin", "prod", "floor", "trunc", "bogus", "",
	// conv padding= and pad mode=
	"same", "valid", "reflect", "replicate", "circular", "constant",
	// einsum equations, valid and not
	"ij,jk->ik", "...ij,...jk", "i,i->", "ii->i", "->", "a...b...", "ij->ji->", "i", ",", "...", "bij,bjk->bik", "i->ii", "ij->k", ".i"}
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
			t = t.Slice(tensor.WithStart(1), tensor.WithStep(2))
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
			t = t.AsStrided([]int{n - k + 1, k}, []int{1, 1}, tensor.WithStorageOffset(0))
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
//
// which picks the op (which < fuzzGoldenBase) or, from fuzzGoldenBase on, a
// golden record (core, then error records) whose arguments the bytes mutate:
// a call that is valid, or almost, with one or a few arguments changed reaches
// deeper into kernels than arguments built from nothing.
func FuzzDispatcher(f *testing.F) {
	for i := range fuzzOps() {
		f.Add(uint16(i), []byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9})
		f.Add(uint16(i), []byte{0, 0, 0, 0})
	}
	for i := range fuzzGoldenRecords() {
		f.Add(uint16(fuzzGoldenBase+i), []byte{})
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		if err := fuzzDispatch(which, data); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzTrace, when set (while debugging a crasher), sees each fuzzed call's
// arguments before it runs, then its result and error.
var fuzzTrace func(op *tensor.Op, args []any, kwargs map[string]any)

// fuzzDispatch runs one fuzzed call. It returns an error when the result
// disagrees with the op's meta function; a panic other than *tensor.Error
// propagates.
func fuzzDispatch(which uint16, data []byte) error {
	old := tensor.MaxElements
	tensor.MaxElements = 1 << 22
	defer func() { tensor.MaxElements = old }()
	r := &fuzzBytes{b: data}
	var op *tensor.Op
	var args []any
	var kwargs map[string]any
	if recs := fuzzGoldenRecords(); which >= fuzzGoldenBase && len(recs) > 0 {
		rec := recs[int(which-fuzzGoldenBase)%len(recs)]
		op = tensor.MustOp(rec.Op)
		var err error
		if args, kwargs, err = golden.Args(op, rec, tensor.CPU); err != nil {
			return nil
		}
		for n := r.pick(4); n > 0; n-- {
			args = r.mutateArgs(op, args, kwargs)
		}
		if r.pick(8) == 7 { // the whole call on the meta device
			for i := range args {
				args[i] = fuzzOnMeta(args[i])
			}
			for k, v := range kwargs {
				kwargs[k] = fuzzOnMeta(v)
			}
		}
	} else {
		ops := fuzzOps()
		op = ops[int(which)%len(ops)]
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
		for _, a := range op.Schema.Args {
			if !a.KwargOnly || r.pick(2) == 0 {
				continue
			}
			if kwargs == nil {
				kwargs = map[string]any{}
			}
			kwargs[a.Name] = r.value(a.Type)
		}
	}
	if fuzzTrace != nil {
		fuzzTrace(op, args, kwargs)
	}
	res, err := tensor.CallErr(op.Name, args, kwargs)
	if fuzzTrace != nil {
		fuzzTrace(op, []any{res}, map[string]any{"error": err})
	}
	if err != nil {
		return nil
	}
	// Every tensor the call returned or touched stays inside its storage.
	if err := fuzzInsideStorage(op.Name, res, args, kwargs); err != nil {
		return err
	}
	if op.Schema.IsInplace() {
		return nil
	}
	var m any
	if tensor.Try(func() { m = core.RunMeta(op, op.Bind(args, kwargs)) }) != nil {
		return nil // data-dependent shapes (nonzero, boolean indexing)
	}
	// A view aliases its input, with the meta's strides and offset too.
	var base *tensor.Tensor
	if op.Schema.IsView() && len(args) > 0 {
		base, _ = args[0].(*tensor.Tensor)
	}
	switch out := res.(type) {
	case *tensor.Tensor:
		return fuzzSameMeta(op.Name, out, m.(*tensor.Tensor), base)
	case []*tensor.Tensor:
		mts, ok := m.([]*tensor.Tensor)
		if !ok || len(mts) != len(out) {
			return fmt.Errorf("%s: %d results, meta says %v", op.Name, len(out), m)
		}
		for i := range out {
			if err := fuzzSameMeta(fmt.Sprintf("%s result %d", op.Name, i), out[i], mts[i], base); err != nil {
				return err
			}
		}
	}
	return nil
}

// fuzzInsideStorage checks that the CPU tensors among a call's result and
// arguments (which in-place ops may have resized) reach no element past the
// end of their storage.
func fuzzInsideStorage(name string, res any, args []any, kwargs map[string]any) error {
	var ts []*tensor.Tensor
	var collect func(v any)
	collect = func(v any) {
		switch x := v.(type) {
		case *tensor.Tensor:
			ts = append(ts, x)
		case []*tensor.Tensor:
			ts = append(ts, x...)
		case []any:
			for _, e := range x {
				collect(e)
			}
		}
	}
	collect(res)
	collect(args)
	for _, v := range kwargs {
		collect(v)
	}
	for _, t := range ts {
		if t == nil || t.Storage() == nil || t.Numel() == 0 {
			continue
		}
		st := t.Storage()
		for _, s := range t.Strides() {
			if s < 0 {
				return fmt.Errorf("%s: a tensor with negative strides %v", name, t.Strides())
			}
		}
		need := tensor.StorageExtent(t.Sizes(), t.Strides(), t.StorageOffset())
		if t.StorageOffset() < 0 || need > st.NBytes()/t.DType().ItemSize() {
			return fmt.Errorf("%s: a tensor %v strides %v offset %d reaches element %d of a storage of %d",
				name, t.Sizes(), t.Strides(), t.StorageOffset(), need-1, st.NBytes()/t.DType().ItemSize())
		}
	}
	return nil
}

// fuzzSameMeta compares a result's dtype and sizes with its meta tensor (both
// nil, for outputs a mask left out, is agreement).
// When base is not nil the result is a view of it: it must share base's
// storage and have the meta's strides and offset.
func fuzzSameMeta(what string, out, mt, base *tensor.Tensor) error {
	if out == nil || mt == nil {
		if out != mt {
			return fmt.Errorf("%s: result is nil: %v, meta is nil: %v", what, out == nil, mt == nil)
		}
		return nil
	}
	if mt.DType() != out.DType() || !slices.Equal(mt.Sizes(), out.Sizes()) {
		return fmt.Errorf("%s: result %s%v, meta says %s%v", what, out.DType(), out.Sizes(), mt.DType(), mt.Sizes())
	}
	if base == nil {
		return nil
	}
	if !slices.Equal(mt.Strides(), out.Strides()) || mt.StorageOffset() != out.StorageOffset() {
		return fmt.Errorf("%s: view with strides %v offset %d, meta says %v offset %d",
			what, out.Strides(), out.StorageOffset(), mt.Strides(), mt.StorageOffset())
	}
	if base.Storage() != nil && out.Storage() != base.Storage() {
		return fmt.Errorf("%s: view does not share its input's storage", what)
	}
	return nil
}

var (
	fuzzOpsOnce sync.Once
	fuzzOpList  []*tensor.Op
)

// fuzzOps lists the ops the generated mode calls: the core ops in table
// order (so that which < len(core.Names) keeps naming the same op), then every
// other op with a CPU kernel or a decomposition (in-place and out= variants,
// composites such as the losses), sorted by name.
func fuzzOps() []*tensor.Op {
	fuzzOpsOnce.Do(func() {
		for _, n := range core.Names {
			fuzzOpList = append(fuzzOpList, tensor.MustOp(n))
		}
		for _, op := range tensor.Ops() {
			if !op.Core && (op.BackendKernel(tensor.CPU) != nil || op.HasKernel(tensor.KeyCompositeImplicit)) {
				fuzzOpList = append(fuzzOpList, op)
			}
		}
	})
	return fuzzOpList
}

// fuzzOnMeta moves the tensors in v to the meta device.
func fuzzOnMeta(v any) any {
	switch x := v.(type) {
	case *tensor.Tensor:
		var m *tensor.Tensor
		if tensor.Try(func() { m = x.ToDevice(tensor.Meta) }) == nil {
			return m
		}
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = fuzzOnMeta(e)
		}
		return l
	}
	return v
}

// fuzzGoldenBase is the first value of FuzzDispatcher's which that names a
// golden record rather than an op.
const fuzzGoldenBase = 0x8000

var (
	fuzzGoldenOnce sync.Once
	fuzzGolden     []*golden.Record
)

// fuzzGoldenRecords loads the core and error golden records once (none when
// the files are missing).
func fuzzGoldenRecords() []*golden.Record {
	fuzzGoldenOnce.Do(func() {
		for _, name := range []string{"core", "errors", "noncore"} {
			recs, err := golden.Load(filepath.Join("testdata", "golden", name+".jsonl.gz"))
			if err != nil {
				continue
			}
			for _, rec := range recs {
				if _, ok := tensor.LookupOp(rec.Op); ok {
					fuzzGolden = append(fuzzGolden, rec)
				}
			}
		}
	})
	return fuzzGolden
}

// mutateArgs changes one positional argument of a decoded golden call (or
// the arity, or a keyword argument) and returns the new positional list.
func (r *fuzzBytes) mutateArgs(op *tensor.Op, args []any, kwargs map[string]any) []any {
	i := r.pick(len(args) + 2)
	switch {
	case i == len(args): // arity: drop the last argument or add one
		if len(args) > 0 && r.next()&1 == 0 {
			return args[:len(args)-1]
		}
		if len(args) < len(op.Schema.Args) && !op.Schema.Args[len(args)].KwargOnly {
			return append(args, r.value(op.Schema.Args[len(args)].Type))
		}
		return append(args, 1)
	case i == len(args)+1: // a keyword-only argument
		var kw []*tensor.Argument
		for k := range op.Schema.Args {
			if op.Schema.Args[k].KwargOnly {
				kw = append(kw, &op.Schema.Args[k])
			}
		}
		if len(kw) > 0 && kwargs != nil {
			a := kw[r.pick(len(kw))]
			kwargs[a.Name] = r.mutate(args, kwargs[a.Name], a.Type)
		}
		return args
	}
	var ty *tensor.Type
	if i < len(op.Schema.Args) {
		ty = op.Schema.Args[i].Type
	}
	args[i] = r.mutate(args, args[i], ty)
	return args
}

// mutate returns a changed version of v (ty is its schema type, nil if
// unknown): a neighbouring or extreme value, a shorter or longer list, a
// tensor of another dtype, layout or shape, None, or a fresh value.
func (r *fuzzBytes) mutate(args []any, v any, ty *tensor.Type) any {
	if r.pick(8) == 0 {
		if ty != nil {
			return r.value(ty)
		}
		return nil
	}
	switch x := v.(type) {
	case *tensor.Tensor:
		return r.mutateTensor(x)
	case int64:
		switch r.pick(4) {
		case 0:
			return x + 1
		case 1:
			return x - 1
		case 2:
			return -x
		}
		return fuzzInts[r.pick(len(fuzzInts))]
	case float64:
		return fuzzFloats[r.pick(len(fuzzFloats))]
	case bool:
		return !x
	case string:
		return fuzzStrings[r.pick(len(fuzzStrings))]
	case []any:
		l := append([]any(nil), x...)
		switch r.pick(5) {
		case 0:
			if len(l) > 0 {
				return l[:len(l)-1]
			}
		case 1:
			if len(l) > 0 {
				return append(l, l[r.pick(len(l))])
			}
		case 2:
			return l[:0]
		case 3:
			if len(l) > 0 {
				l[r.pick(len(l))] = nil
				return l
			}
		}
		if len(l) > 0 {
			k := r.pick(len(l))
			var et *tensor.Type
			if ty != nil && ty.Base().Kind == tensor.TList {
				et = ty.Base().Elem
			}
			l[k] = r.mutate(args, l[k], et)
		}
		return l
	case nil:
		if ty != nil {
			return r.value(ty)
		}
	}
	return v
}

// mutateTensor returns t with another dtype, a non-contiguous or overlapping
// layout, an extra or missing dim, an empty dim, or fresh values.
func (r *fuzzBytes) mutateTensor(t *tensor.Tensor) (res *tensor.Tensor) {
	if tensor.Try(func() { res = r.mutateTensor1(t) }) != nil {
		return t
	}
	return res
}

func (r *fuzzBytes) mutateTensor1(t *tensor.Tensor) *tensor.Tensor {
	rank := t.Dim()
	switch r.pick(9) {
	case 0:
		return t.To(tensor.AllDTypes[r.pick(len(tensor.AllDTypes))])
	case 1:
		if rank >= 2 {
			p := make([]int, rank)
			for i := range p {
				p[i] = i
			}
			p[rank-2], p[rank-1] = p[rank-1], p[rank-2]
			return t.Permute(p)
		}
	case 2:
		return t.Unsqueeze(r.pick(rank + 1))
	case 3:
		if rank >= 1 {
			d := r.pick(rank)
			return t.Slice(tensor.WithDim(d), tensor.WithStart(0), tensor.WithEnd(0)) // empty along d
		}
	case 4:
		if rank >= 1 {
			d := r.pick(rank)
			return t.Slice(tensor.WithDim(d), tensor.WithStart(0), tensor.WithEnd(1)).Squeeze(d)
		}
	case 5:
		if rank >= 1 && t.Size(0) >= 2 {
			return t.Slice(tensor.WithStart(1), tensor.WithStep(2))
		}
	case 6:
		// Every element aliased to the first one.
		return t.AsStrided(t.Sizes(), make([]int, rank), tensor.WithStorageOffset(t.StorageOffset()))
	case 7:
		// Values out of every usual range: negative, NaN, huge.
		c := t.Clone()
		if n := c.Numel(); n > 0 {
			idx := make([]int, rank)
			rem := r.pick(n)
			for k := rank - 1; k >= 0; k-- {
				idx[k] = rem % c.Size(k)
				rem /= c.Size(k)
			}
			switch d := c.DType(); {
			case d.IsFloat():
				c.SetAt(tensor.Float(fuzzFloats[r.pick(len(fuzzFloats))]), idx...)
			case d == tensor.Int64:
				// Indices, offsets and lengths at the int64 limits.
				c.SetAt(tensor.Int(int64(fuzzInts[r.pick(len(fuzzInts))])), idx...)
			default:
				c.SetAt(tensor.Int(int64(fuzzInts[r.pick(len(fuzzInts))]%1000)), idx...)
			}
		}
		return c
	}
	return r.tensor()
}
