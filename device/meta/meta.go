// Package meta registers the meta device (PyTorch's "meta" device, the
// FakeTensor of torch._subclasses): tensors that carry sizes, strides, dtype
// and device but no data. Every core op runs on it from its meta function,
// so a program on meta tensors checks its arguments and computes the shapes
// and dtypes of everything it makes without computing a value. Views share a
// fake storage with their base (same version counter, PyTorch's strides and
// offset); in-place ops check their arguments and return self.
//
// The device is written against package device like any other: raw data is
// a fake storage that knows only its size, views are native, in-place ops
// are supported (they have nothing to write), and every core op lowers to a
// fresh fake storage. Non-core ops decompose.
// Ops whose result depends on data fail: nonzero and boolean-mask indexing
// (output shape), _local_scalar_dense (Tensor.item()).
package meta

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/tensor"
)

// storage is a meta tensor's raw value: a fake storage that knows only its
// size, shared by a tensor and its views, so that as_strided can check its
// bounds as PyTorch's meta tensors do.
type storage struct{ nbytes int }

// NBytes is the size of the storage in bytes.
func (s *storage) NBytes() int { return s.nbytes }

func init() {
	lowerings := map[string]device.Lowering{}
	for _, name := range core.Names {
		op := core.Op(name)
		if op.Schema.IsView() || op.Meta == nil || name == "aten::nonzero.default" {
			// Views are native; ops without a meta function cannot run, and
			// nonzero's output shape is its data.
			continue
		}
		lowerings[name] = noData
	}
	for _, name := range core.InplaceNames {
		lowerings[name] = keep
	}
	lowerings["aten::resize_.default"] = resize
	lowerings["aten::atan2.out"] = resize
	lowerings["aten::_local_scalar_dense.default"] = func(*device.Call) any {
		tensor.Panicf("Tensor.item() cannot be called on meta tensors")
		return nil
	}
	device.Register(device.Backend{
		Name: "meta",
		FromCPU: func(t *tensor.Tensor) any {
			if st := t.Storage(); st != nil {
				return &storage{st.NBytes()}
			}
			return newStorage(t)
		},
		Lowerings:   lowerings,
		NativeViews: true,
		Inplace:     true,
	})
}

func newStorage(t *tensor.Tensor) *storage {
	if t == nil {
		return nil
	}
	return &storage{tensor.StorageExtent(t.Sizes(), t.Strides(), t.StorageOffset()) * t.DType().ItemSize()}
}

// noData is every functional lowering of the meta device: a fake storage
// per output.
func noData(c *device.Call) any {
	if len(c.Out) == 1 && !returnsList(c.Op) {
		return newStorage(c.Out[0])
	}
	raws := make([]any, len(c.Out))
	for i, t := range c.Out {
		if t != nil {
			raws[i] = newStorage(t)
		}
	}
	return raws
}

// keep is the lowering of the in-place ops: nothing to write.
func keep(*device.Call) any { return nil }

// resize grows the storage of a tensor whose sizes an op changed (resize_,
// out=), as PyTorch does.
func resize(c *device.Call) any {
	t := c.Out[0]
	need := newStorage(t).nbytes
	if st, ok := t.Raw().(*storage); ok {
		st.nbytes = max(st.nbytes, need)
		return nil
	}
	return &storage{need}
}

// returnsList reports whether op returns a tuple or a Tensor[].
func returnsList(op *tensor.Op) bool {
	r := op.Schema.Returns
	return len(r) > 1 || (len(r) == 1 && r[0].Type.Kind == tensor.TList)
}
