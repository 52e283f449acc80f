package library

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// Sample is one call of an op for OpCheck: positional arguments, and
// keyword arguments by name.
type Sample struct {
	Args   []any
	Kwargs map[string]any
}

// OpCheck runs each sample through op name's real kernel and its fake
// kernel and checks what PyTorch's torch.library.opcheck checks, plus
// gradients. Each failure is an error naming the test and the sample:
//
//   - test_schema: the real kernel's results have the schema's kinds; the
//     arguments it writes are those the schema marks Tensor(a!) (a marked
//     one it leaves alone is an error too); a result aliases an argument
//     (shares its storage) only where the annotations say so, and a result
//     annotated Tensor(a) does alias its argument; results alias each
//     other only where declared;
//   - test_autograd_registration: when a sample's tensor requires grad, the
//     op has an autograd formula (RegisterAutograd) or a
//     CompositeImplicitAutograd kernel;
//   - test_faketensor: the fake kernel runs on meta copies of the arguments
//     (same sizes, strides, dtypes) and its results have the real ones'
//     sizes, dtypes and (for CPU results) strides;
//   - test_gradcheck: when an autograd formula is registered, gradients
//     match finite differences (autograd.Gradcheck) with respect to every
//     floating tensor argument the op does not write, in float64 copies on
//     the CPU (the check is skipped for an op with no CPU kernel).
//
// The samples' tensors are copied; OpCheck changes none of them.
func OpCheck(name string, samples []Sample) error {
	d := lookupDef(name)
	var errs []error
	report := func(i int, test string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("opcheck(%s, ...): %s failed with %v (sample %d)", d.op.Name, test, err, i))
		}
	}
	for i, s := range samples {
		real, err := d.testSchema(s)
		report(i, "test_schema", err)
		report(i, "test_autograd_registration", d.testAutogradRegistration(s))
		if err == nil {
			report(i, "test_faketensor", d.testFake(s, real))
		}
		report(i, "test_gradcheck", d.testGradcheck(s))
	}
	return errors.Join(errs...)
}

// mapTensors copies args with f applied to every tensor.
func mapTensors(args []any, f func(*tensor.Tensor) *tensor.Tensor) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil {
				out[i] = f(x)
			} else {
				out[i] = x
			}
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				if t != nil {
					l[j] = f(t)
				}
			}
			out[i] = l
		default:
			out[i] = a
		}
	}
	return out
}

func mapKw(kw map[string]any, f func(*tensor.Tensor) *tensor.Tensor) map[string]any {
	if kw == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range kw {
		out[k] = mapTensors([]any{v}, f)[0]
	}
	return out
}

func clone(t *tensor.Tensor) (c *tensor.Tensor) {
	autograd.NoGrad(func() { c = t.Clone() })
	return c
}

// sameTensor reports whether two tensors hold the same metadata and
// values (NaNs equal).
func sameTensor(a, b *tensor.Tensor) bool {
	if !slices.Equal(a.Sizes(), b.Sizes()) || !slices.Equal(a.Strides(), b.Strides()) || a.DType() != b.DType() {
		return false
	}
	av, bv := a.Float64s(), b.Float64s()
	for i := range av {
		if av[i] != bv[i] && !(math.IsNaN(av[i]) && math.IsNaN(bv[i])) {
			return false
		}
	}
	return true
}

func (d *opDef) bind(args []any, kw map[string]any) (res any, bound []any, err error) {
	op := d.op
	err = tensor.Try(func() {
		bound = op.Bind(args, kw)
		autograd.NoGrad(func() { res = op.Invoke(bound) })
	})
	return res, bound, err
}

// testSchema runs the real kernel on copies of the sample and checks
// returns, mutations and aliasing; it returns the result.
func (d *opDef) testSchema(s Sample) (any, error) {
	sc := d.op.Schema
	args, kw := mapTensors(s.Args, clone), mapKw(s.Kwargs, clone)
	var before []any
	if err := tensor.Try(func() { before = d.op.Bind(mapTensors(args, clone), mapKw(kw, clone)) }); err != nil {
		return nil, err
	}
	res, bound, err := d.bind(args, kw)
	if err != nil {
		return nil, err
	}
	if msg := d.checkReturns(res); msg != "" {
		return nil, fmt.Errorf("%s: the kernel returned %s", d.op.Name, msg)
	}
	for i, a := range sc.Args {
		if !a.Type.IsTensorLike() {
			continue
		}
		pre, post := flatArgTensors(before[i:i+1]), flatArgTensors(bound[i:i+1])
		if len(pre) != len(post) || len(post) == 0 {
			continue
		}
		mutated := false
		for k := range post {
			mutated = mutated || !sameTensor(pre[k], post[k])
		}
		written := isWritten(a.Type)
		switch {
		case mutated && !written:
			return nil, fmt.Errorf("Argument %s is not defined as mutable but was mutated", a.Name)
		case !mutated && written:
			return nil, fmt.Errorf("%s: for argument '%s': the operator's schema %s specified that the operator mutates the argument, but this seems to be empirically wrong. Please make the schema and operator behavior consistent. You can specify that an operator mutates a Tensor by e.g. changing its schema type from 'Tensor name' to 'Tensor(a!) name'(use different identifiers (a, b, c, ...) for different Tensors)",
				d.op.Name, a.Name, sc)
		}
	}
	outs, idx := d.resultTensors(res)
	for k, o := range outs {
		if o == nil {
			continue
		}
		set := aliasSet(sc.Returns[idx[k]].Type)
		for i, a := range sc.Args {
			in := flatArgTensors(bound[i : i+1])
			if len(in) == 0 {
				continue
			}
			as := aliasSet(a.Type)
			declared := set != "" && as != "" && sameSet(set, as)
			switch {
			case aliasesAny(o, in) && !declared:
				return nil, fmt.Errorf("Argument %s is not defined to alias output but was aliasing", a.Name)
			case declared && !aliasesAny(o, in) && !anyUnknown(o, in):
				return nil, fmt.Errorf("Argument %s is defined to alias output %d (%s) but was not aliasing: return the argument or a view of it", a.Name, idx[k], sc.Returns[idx[k]].Type)
			}
		}
		for j := 0; j < k; j++ {
			if idx[j] != idx[k] && aliases(outs[j], o) {
				sj := aliasSet(sc.Returns[idx[j]].Type)
				if set == "" || sj == "" || !sameSet(set, sj) {
					return nil, fmt.Errorf("Outputs %d and %d alias unexpectedly", idx[j], idx[k])
				}
			}
		}
	}
	return res, nil
}

// anyUnknown reports whether aliasing between t and ts cannot be told
// (a device whose raw data is not a pointer).
func anyUnknown(t *tensor.Tensor, ts []*tensor.Tensor) bool {
	if _, ok := storageKey(t); !ok {
		return true
	}
	for _, u := range ts {
		if _, ok := storageKey(u); !ok {
			return true
		}
	}
	return false
}

func anyRequiresGrad(args []any, kw map[string]any) bool {
	for _, t := range flatArgTensors(args) {
		if t.RequiresGrad() {
			return true
		}
	}
	for _, v := range kw {
		for _, t := range flatArgTensors([]any{v}) {
			if t.RequiresGrad() {
				return true
			}
		}
	}
	return false
}

func (d *opDef) testAutogradRegistration(s Sample) error {
	if !anyRequiresGrad(s.Args, s.Kwargs) {
		return nil
	}
	regMu.Lock()
	composite := d.composite
	regMu.Unlock()
	if d.autograd != nil || composite == "CompositeImplicitAutograd" {
		return nil
	}
	return fmt.Errorf("%s: at least one input requires grad but the operator does not have an autograd kernel defined at an autograd key (register one with library.RegisterAutograd): its outputs' backward fails. If your operator consists of regular goaten operations, consider not using an operator at all or registering your operator as CompositeImplicitAutograd", d.op.Name)
}

// metaCopy is a meta tensor with t's sizes, strides, offset and dtype.
func metaCopy(t *tensor.Tensor) *tensor.Tensor {
	m := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.CPU)
	if h := tensor.DeviceHooksOf(tensor.Meta); h.FromCPU != nil {
		return h.FromCPU(m)
	}
	m.SetDevice(tensor.Meta)
	return m
}

func toMetaDevice(args []any) []any {
	out := mapTensors(args, metaCopy)
	for i, a := range out {
		if _, ok := a.(tensor.Device); ok {
			out[i] = tensor.Meta
		}
	}
	return out
}

// testFake runs the fake kernel on meta copies and compares its results'
// metadata with the real ones.
func (d *opDef) testFake(s Sample, real any) error {
	kw := mapKw(s.Kwargs, metaCopy)
	for k, v := range kw {
		if _, ok := v.(tensor.Device); ok {
			kw[k] = tensor.Meta
		}
	}
	fake, _, err := d.bind(toMetaDevice(s.Args), kw)
	if err != nil {
		return err
	}
	ctx := fmt.Sprintf("When comparing the output of %s on FakeTensor and concrete Tensors, found", d.op.Name)
	rt, ft := flatTensors(real), flatTensors(fake)
	if len(rt) != len(ft) {
		return fmt.Errorf("%s %d tensor outputs (fake) and %d (real)", ctx, len(ft), len(rt))
	}
	for k := range rt {
		r, f := rt[k], ft[k]
		switch {
		case (r == nil) != (f == nil):
			return fmt.Errorf("%s output %d None in one and a tensor in the other", ctx, k)
		case r == nil:
		case !slices.Equal(r.Sizes(), f.Sizes()):
			return fmt.Errorf("%s mismatched tensor metadata: output %d: Shapes %s (real) and %s (fake) are not equal!", ctx, k, tensor.ShapeString(r.Sizes()), tensor.ShapeString(f.Sizes()))
		case r.DType() != f.DType():
			return fmt.Errorf("%s mismatched tensor metadata: output %d: Dtypes %s (real) and %s (fake) are not equal!", ctx, k, r.DType(), f.DType())
		case r.Device() == tensor.CPU && !stridesMatch(r, f):
			return fmt.Errorf("%s mismatched tensor metadata: output %d: Stride mismatch! Strides are %s (real) and %s (fake)", ctx, k, tensor.ShapeString(r.Strides()), tensor.ShapeString(f.Strides()))
		}
	}
	return nil
}

// stridesMatch compares strides where they matter: dims of size 1 (and
// tensors with no elements) may have any stride.
func stridesMatch(a, b *tensor.Tensor) bool {
	if a.Numel() == 0 {
		return true
	}
	for i, n := range a.Sizes() {
		if n != 1 && a.Strides()[i] != b.Strides()[i] {
			return false
		}
	}
	return true
}

// testGradcheck compares the registered formula with finite differences.
func (d *opDef) testGradcheck(s Sample) error {
	if d.autograd == nil {
		return nil
	}
	if d.op.BackendKernel(tensor.CPU) == nil && d.op.Composite() == nil {
		return nil
	}
	sc := d.op.Schema
	var inputs []*tensor.Tensor
	var at []slot
	toCPU := func(t *tensor.Tensor) *tensor.Tensor {
		var c *tensor.Tensor
		autograd.NoGrad(func() { c = t.ToDevice(tensor.CPU).Clone() })
		return c
	}
	var args []any
	var kw map[string]any
	err := tensor.Try(func() {
		args = mapTensors(s.Args, toCPU)
		kw = mapKw(s.Kwargs, toCPU)
		for i, a := range args {
			if i >= len(sc.Args) || isWritten(sc.Args[i].Type) {
				continue
			}
			take := func(t *tensor.Tensor, j int) *tensor.Tensor {
				if t == nil || !t.DType().IsFloat() {
					return t
				}
				var c *tensor.Tensor
				autograd.NoGrad(func() { c = t.To(tensor.Float64).Clone() })
				autograd.SetRequiresGrad(c, true)
				inputs = append(inputs, c)
				at = append(at, slot{i, j})
				return c
			}
			switch x := a.(type) {
			case *tensor.Tensor:
				args[i] = take(x, -1)
			case []*tensor.Tensor:
				for j, t := range x {
					x[j] = take(t, j)
				}
			}
		}
	})
	if err != nil || len(inputs) == 0 {
		return err
	}
	f := func(in []*tensor.Tensor) []*tensor.Tensor {
		a := slices.Clone(args)
		for k, sl := range at {
			if sl.elem < 0 {
				a[sl.arg] = in[k]
			} else {
				l := slices.Clone(a[sl.arg].([]*tensor.Tensor))
				l[sl.elem] = in[k]
				a[sl.arg] = l
			}
		}
		op := d.op
		var outs []*tensor.Tensor
		for _, o := range flatTensors(op.Invoke(op.Bind(a, kw))) {
			if o != nil && o.DType().IsFloat() {
				outs = append(outs, o)
			}
		}
		return outs
	}
	return tensor.Try(func() {
		if e := autograd.Gradcheck(f, inputs); e != nil {
			tensor.Raise(&tensor.Error{Kind: tensor.RuntimeError, Msg: e.Error()})
		}
	})
}
