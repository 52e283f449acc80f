package cpu

import (
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// An outKernel computes a functional op's result into out, a tensor with
// the result's shape and dtype, writing every element of it (a new out's
// storage is not zeroed first). Every argument either does not share out's
// storage or is exactly out (same offset, sizes and strides): elementwise
// kernels read element i of each input before they write element i.
type outKernel func(out *tensor.Tensor, op *tensor.Op, a []any)

// outKernels are the functional ops whose in-place variants write self
// directly through their outKernel.
var outKernels = map[*tensor.Op]outKernel{}

// implsOut registers k as the kernel of the named functional ops, writing a
// new tensor, as their out kernel (tensor.OutKernel: a planned result), and
// for their in-place variants (inplaceKernel), writing self.
func implsOut(k outKernel, names ...string) {
	for _, name := range names {
		outKernels[core.Op(name)] = k
		implOut(name, k)
	}
}

// implOut registers k as the named functional op's kernel, writing a new
// tensor, and as its out kernel; not for its in-place variant (a product
// reads its operands after it has written the result's first elements).
func implOut(name string, k outKernel) {
	impl(name, func(op *tensor.Op, a []any) any {
		out := allocMetaUninit(op, a)
		k(out, op, a)
		return out
	})
	core.Op(name).ImplOut(tensor.CPU, func(outs []*tensor.Tensor, op *tensor.Op, a []any) { k(outs[0], op, a) })
}

// implOuts registers k, which computes an op's results into outs (laid
// out by the meta function, their elements undefined, nil where the call
// leaves a result undefined), as the named op's kernel and as its out
// kernel.
func implOuts(name string, k tensor.OutKernel) {
	impl(name, allocOuts(k))
	core.Op(name).ImplOut(tensor.CPU, k)
}

// allocOuts is the kernel that gives k the results the meta function lays
// out.
func allocOuts(k tensor.OutKernel) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		outs := normAllocUninit(metaN(op, a))
		k(outs, op, a)
		return outs
	}
}

// An intoKernel computes an op without a meta function (its result's
// layout is its decomposition's) into out when out is non-nil and it can,
// and returns the result: out, a new tensor when out is nil, or another
// tensor (the decomposition's, where the kernel does not take the
// arguments).
type intoKernel func(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor

// implInto registers k as the named op's kernel (out nil) and as its out
// kernel, which copies a result other than out into out. The kernel runs
// no meta function first: the op has none, and its checks and messages
// are the kernel's or its decomposition's.
func implInto(name string, k intoKernel) {
	impl(name, func(op *tensor.Op, a []any) any { return k(nil, op, a) })
	core.Op(name).ImplOut(tensor.CPU, func(outs []*tensor.Tensor, op *tensor.Op, a []any) {
		if r := k(outs[0], op, a); r != outs[0] {
			copyInto(outs[0], r)
		}
	})
}

// zeroed wraps k, which adds into its result, as an outKernel: out's
// elements are cleared first (an out's storage is not zeroed).
func zeroed(k outKernel) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, a []any) {
		clearElems(out)
		k(out, op, a)
	}
}

// clearElems sets every element of t to zero: the bytes its sizes and
// (non-negative) strides span from its offset.
func clearElems(t *tensor.Tensor) {
	if t.Numel() == 0 {
		return
	}
	span := 1
	for i, n := range t.Sizes() {
		span += (n - 1) * t.Strides()[i]
	}
	is := t.DType().ItemSize()
	clear(t.Storage().Bytes()[t.StorageOffset()*is:][:span*is])
}

// inplaceKernel runs the functional op and writes its result into self,
// bumping self's version counter: the in-place variant derived from the
// functional one, as STYLE.md asks. Ops with an outKernel compute straight
// into self when writesSelf allows; the rest compute a new tensor and copy
// it into self.
func inplaceKernel(op *tensor.Op, a []any) any {
	self := args.Self(a) // every in-place op writes its first argument
	f, _, _ := op.Functional()
	if k := outKernels[f]; k != nil && writesSelf(self, f, a) {
		k(self, f, a)
	} else {
		res := f.RunBackend(tensor.CPU, a).(*tensor.Tensor)
		core.CheckInplaceResult(self, res)
		copyInto(self, res)
	}
	self.BumpVersion()
	return self
}

// writesSelf reports whether f's result can be computed in self's memory:
// self is dense without overlap, the result has self's shape and dtype (no
// cast on the way in), and every other tensor argument sharing self's
// storage is self's very view (same element size, offset, sizes, strides).
func writesSelf(self *tensor.Tensor, f *tensor.Op, a []any) bool {
	if !core.IsNonOverlappingAndDense(self.Sizes(), self.Strides()) {
		return false
	}
	m := meta(f, a)
	return writesSelfAs(self, m.DType(), m.Sizes(), a)
}

// writesSelfAs is writesSelf for a result of dtype dt and the given sizes:
// self is dense without overlap and the result matches it, and every
// other tensor argument sharing self's storage is self's very view.
func writesSelfAs(self *tensor.Tensor, dt tensor.DType, sizes []int, a []any) bool {
	if dt != self.DType() || !slices.Equal(sizes, self.Sizes()) || !core.IsNonOverlappingAndDense(self.Sizes(), self.Strides()) {
		return false
	}
	st := self.Storage()
	for _, v := range a[1:] {
		t, ok := v.(*tensor.Tensor)
		if !ok || t == nil || t.Storage() != st {
			continue
		}
		if t.DType().ItemSize() != self.DType().ItemSize() || t.StorageOffset() != self.StorageOffset() ||
			!slices.Equal(t.Sizes(), self.Sizes()) || !slices.Equal(t.Strides(), self.Strides()) {
			return false // (a view of another element size covers other bytes)
		}
	}
	return true
}

func init() {
	for _, name := range core.InplaceNames {
		impl(name, inplaceKernel)
	}
}
