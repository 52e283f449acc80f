// Package cpu is the default device: strided storage with real aliasing views,
// in-place kernels, and loops shaped for SIMD. Its raw data is *tensor.Storage.
package cpu

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// impl registers the CPU kernel of the named op.
func impl(name string, k tensor.Kernel) { core.Op(name).ImplBackend(tensor.CPU, k) }

// impls registers one kernel for several ops.
func impls(k tensor.Kernel, names ...string) {
	for _, n := range names {
		impl(n, k)
	}
}

func init() {
	tensor.SetDeviceHooks(tensor.CPU, tensor.DeviceHooks{
		ToCPU:   func(t *tensor.Tensor) *tensor.Tensor { return t },
		FromCPU: func(t *tensor.Tensor) *tensor.Tensor { return t },
	})
}

// meta runs op's meta function and returns its single tensor result.
func meta(op *tensor.Op, args []any) *tensor.Tensor {
	return core.RunMeta(op, args).(*tensor.Tensor)
}

// metaN runs op's meta function for an op returning several tensors.
func metaN(op *tensor.Op, args []any) []*tensor.Tensor {
	return core.RunMeta(op, args).([]*tensor.Tensor)
}

// alloc gives a metadata-only tensor fresh CPU storage.
func alloc(t *tensor.Tensor) *tensor.Tensor {
	if t == nil {
		return nil
	}
	t.SetDevice(tensor.CPU)
	return tensor.Materialize(t)
}

// allocMeta runs op's meta function and allocates its single output.
func allocMeta(op *tensor.Op, args []any) *tensor.Tensor { return alloc(meta(op, args)) }

// allocUninit is alloc for a kernel that writes every element of its
// output: the storage is not zeroed first (tensor.NewStorageUninit).
func allocUninit(t *tensor.Tensor) *tensor.Tensor {
	t.SetDevice(tensor.CPU)
	return tensor.MaterializeUninit(t)
}

// allocMetaUninit is allocMeta with allocUninit.
func allocMetaUninit(op *tensor.Op, args []any) *tensor.Tensor { return allocUninit(meta(op, args)) }

// emptyUninit is a contiguous tensor of dtype d whose elements a kernel is
// about to write, all of them.
func emptyUninit(d tensor.DType, sizes ...int) *tensor.Tensor {
	return tensor.MaterializeUninit(tensor.NewMetaContiguous(sizes, d, tensor.CPU))
}

// data views t's storage as []T (the whole storage: index with offsets).
func data[T tensor.Elem](t *tensor.Tensor) []T { return tensor.Elems[T](t.Storage()) }

// elems returns the elements of a contiguous tensor t, in order.
func elems[T tensor.Elem](t *tensor.Tensor) []T { return data[T](t)[t.StorageOffset():][:t.Numel()] }

// view makes a tensor that aliases base's storage with the metadata of m.
func view(base, m *tensor.Tensor) *tensor.Tensor {
	m.SetDevice(base.Device())
	return m.WithRaw(base.Raw()).ShareVersion(base)
}

// contiguous returns t if it is contiguous with offset 0 in a storage of
// exactly its size, else a contiguous copy.
func contiguous(t *tensor.Tensor) *tensor.Tensor {
	if t.IsContiguous() {
		return t
	}
	out := tensor.Empty(t.DType(), t.Sizes()...)
	copyInto(out, t)
	return out
}

// toDType returns t converted to dtype d (t itself if it already has it).
func toDType(t *tensor.Tensor, d tensor.DType) *tensor.Tensor {
	if t.DType() == d {
		return t
	}
	out := tensor.Empty(d, t.Sizes()...)
	copyInto(out, t)
	return out
}

// contiguousAs returns a contiguous tensor of dtype d with t's values.
func contiguousAs(t *tensor.Tensor, d tensor.DType) *tensor.Tensor {
	if t.DType() == d {
		return contiguous(t)
	}
	return toDType(t, d)
}
