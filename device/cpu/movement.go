package cpu

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Views alias their input's storage: the kernel only attaches the meta
// function's sizes/strides/offset to the input's storage. Copies move data
// with copyInto over strided windows of the input and output.

func viewKernel(op *tensor.Op, a []any) any {
	return view(args.Self(a), meta(op, a)) // every view op views its first argument
}

func splitWithSizesKernel(op *tensor.Op, a []any) any {
	self := args.SplitWithSizesOf(a).Self
	ms := metaN(op, a)
	for i, m := range ms {
		ms[i] = view(self, m)
	}
	return ms
}

// window is a temporary strided view of base's storage (not returned to
// callers, so it does not join base's version counter).
func window(base *tensor.Tensor, sizes, strides []int, offset int) *tensor.Tensor {
	return tensor.NewMeta(sizes, strides, offset, base.DType(), base.Device()).WithRaw(base.Raw())
}

func catKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a) // the inputs' copies tile it along dim
	p := args.CatOf(a)
	ts, dim := p.Tensors, p.Dim
	for _, t := range ts {
		if !(t.Dim() == 1 && t.Sizes()[0] == 0) {
			dim = tensor.WrapDim(dim, t.Dim())
			break
		}
	}
	if out.Numel() == 0 {
		return out
	}
	at := 0
	for _, t := range ts {
		if (t.Dim() == 1 && t.Sizes()[0] == 0) || t.Numel() == 0 {
			continue
		}
		n := t.Sizes()[dim]
		sizes := append([]int(nil), out.Sizes()...)
		sizes[dim] = n
		dst := window(out, sizes, out.Strides(), out.StorageOffset()+at*out.Strides()[dim])
		copyInto(dst, t)
		at += n
	}
	return out
}

func flipKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a) // the copy writes all of it
	p := args.FlipOf(a)
	self := p.Self
	mask := core.FlipDims(p.Dims, self.Dim())
	strides := append([]int(nil), self.Strides()...)
	off := self.StorageOffset()
	for d, f := range mask {
		if f && self.Sizes()[d] > 0 {
			off += (self.Sizes()[d] - 1) * strides[d]
			strides[d] = -strides[d]
		}
	}
	copyInto(out, window(self, self.Sizes(), strides, off))
	return out
}

func repeatKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	if out.Numel() == 0 {
		return out
	}
	v := args.RepeatOf(a)
	self, reps := v.Self, v.Repeats
	pad := len(reps) - self.Dim()
	n := len(reps)
	// Split each output dim of size r*p into (r, p): the source repeats
	// along r with stride 0.
	sizes := make([]int, 2*n)
	ost := make([]int, 2*n)
	sst := make([]int, 2*n)
	for i, r := range reps {
		p, ps := 1, 0
		if i >= pad {
			p, ps = self.Sizes()[i-pad], self.Strides()[i-pad]
		}
		os := out.Strides()[i]
		sizes[2*i], sizes[2*i+1] = r, p
		ost[2*i], ost[2*i+1] = p*os, os
		sst[2*i], sst[2*i+1] = 0, ps
	}
	copyInto(window(out, sizes, ost, out.StorageOffset()), window(self, sizes, sst, self.StorageOffset()))
	return out
}

func constantPadKernel(op *tensor.Op, a []any) any {
	p := args.ConstantPadNdOf(a)
	self := p.Self
	_, inLo, outLo, n := core.ConstantPadGeometry(self.Sizes(), p.Pad)
	v := p.Value
	var out *tensor.Tensor
	if f := v.Float64(); f == 0 && !math.Signbit(f) {
		out = allocMeta(op, a) // zeroed storage: the padding is 0 already
	} else {
		out = allocMetaUninit(op, a) // every element is written below
		if tensor.Numel(n) != out.Numel() {
			fillValue(out, v)
		}
	}
	if tensor.Numel(n) == 0 {
		return out
	}
	inOff, outOff := self.StorageOffset(), out.StorageOffset()
	for d := range n {
		inOff += inLo[d] * self.Strides()[d]
		outOff += outLo[d] * out.Strides()[d]
	}
	copyInto(window(out, n, out.Strides(), outOff), window(self, n, self.Strides(), inOff))
	return out
}

func cloneKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a) // dense, and copyInto writes all of it
	copyInto(out, args.CloneOf(a).Self)
	return out
}

func copyKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a)
	copyInto(out, args.CopyOf(a).Src)
	return out
}

func toCopyKernel(op *tensor.Op, a []any) any {
	m := meta(op, a)
	dev := m.Device()
	var out *tensor.Tensor
	if dev == tensor.Meta {
		// The meta device takes metadata only: nothing to copy.
		out = m
		out.SetDevice(tensor.CPU)
	} else {
		out = alloc(m)
		copyInto(out, args.InternalToCopyOf(a).Self)
		if dev == tensor.CPU {
			return out
		}
	}
	// Another device: hand it the CPU copy to convert.
	h := tensor.DeviceHooksOf(dev)
	if h.FromCPU == nil {
		tensor.Panicf("device %q cannot take data from the CPU", dev)
	}
	return h.FromCPU(out)
}

func resizeKernel(op *tensor.Op, a []any) any {
	self := args.Resize_Of(a).Self
	m := meta(op, a)
	self.SetMeta(m.Sizes(), m.Strides(), m.StorageOffset())
	if need := tensor.StorageExtent(m.Sizes(), m.Strides(), m.StorageOffset()); need > 0 {
		if need > tensor.MaxElements {
			tensor.Panicf("refusing to allocate a tensor of %d elements of %s", need, self.DType())
		}
		self.Storage().Resize(need * self.DType().ItemSize())
	}
	return self
}

func selectScatterKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	p := args.SelectScatterOf(a)
	copyInto(out, p.Self)
	w := core.SelectView(out, p.Dim, p.Index)
	copyInto(w.WithRaw(out.Raw()), p.Src)
	return out
}

func sliceScatterKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	p := args.SliceScatterOf(a)
	copyInto(out, p.Self)
	w := core.SliceView(out, p.Dim, p.Start, p.End, p.Step)
	copyInto(w.WithRaw(out.Raw()), p.Src)
	return out
}

func init() {
	impls(viewKernel,
		"aten::view.default", "aten::permute.default", "aten::expand.default", "aten::alias.default",
		"aten::slice.Tensor", "aten::select.int", "aten::diagonal.default", "aten::as_strided.default",
		"aten::squeeze.dim", "aten::squeeze.dims", "aten::unsqueeze.default")
	impl("aten::split_with_sizes.default", splitWithSizesKernel)
	impl("aten::cat.default", catKernel)
	impl("aten::flip.default", flipKernel)
	impl("aten::repeat.default", repeatKernel)
	impl("aten::constant_pad_nd.default", constantPadKernel)
	impl("aten::clone.default", cloneKernel)
	impl("aten::copy.default", copyKernel)
	impl("aten::_to_copy.default", toCopyKernel)
	impl("aten::resize_.default", resizeKernel)
	impl("aten::select_scatter.default", selectScatterKernel)
	impl("aten::slice_scatter.default", sliceScatterKernel)
}
