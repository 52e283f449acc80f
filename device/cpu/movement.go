package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
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

func catKernel(out *tensor.Tensor, op *tensor.Op, a []any) { // the inputs' copies tile out along dim
	p := args.CatOf(a)
	ts, dim := p.Tensors, p.Dim
	for _, t := range ts {
		if !(t.Dim() == 1 && t.Sizes()[0] == 0) {
			dim = tensor.WrapDim(dim, t.Dim())
			break
		}
	}
	if out.Numel() == 0 || catRows(out, ts, dim) {
		return
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
}

// catRows is cat of contiguous inputs of out's dtype into a contiguous
// out along a dim with at least two rows before it: row r of out (all the
// dims from dim on) is row r of each input in turn, so each input's rows
// are copied as byte runs, a result of asm.StreamBytes and more with
// non-temporal stores (the strided walk copies through the caches, and a
// fresh result that large is not in them). It reports whether it did;
// inputs skipped by cat (1-d and empty) are skipped here too.
func catRows(out *tensor.Tensor, ts []*tensor.Tensor, dim int) bool {
	isz := out.DType().ItemSize()
	if isz == 0 || !out.IsContiguous() {
		return false
	}
	rows := 1
	for _, s := range out.Sizes()[:dim] {
		rows *= s
	}
	if rows < 2 {
		return false
	}
	inner := out.Numel() / rows / out.Size(dim) * isz // bytes per index along dim
	for _, t := range ts {
		if t.Numel() > 0 && (t.DType() != out.DType() || !t.IsContiguous()) {
			return false
		}
	}
	ob := out.Storage().Bytes()[out.StorageOffset()*isz:][:out.Numel()*isz]
	ldd := out.Size(dim) * inner
	stream := len(ob) >= asm.StreamBytes()
	parallel.Range(rows, max(1, grain*isz/ldd), 1, func(lo, hi int) {
		at := 0
		for _, t := range ts {
			if t.Numel() == 0 {
				continue
			}
			n := t.Size(dim) * inner
			src := t.Storage().Bytes()[t.StorageOffset()*isz:][:t.Numel()*isz]
			dst := ob[lo*ldd+at:]
			if stream {
				asm.CopyRowsStream(dst, ldd, src[lo*n:], n, hi-lo, n)
			} else {
				for r := lo; r < hi; r++ {
					copy(ob[r*ldd+at:][:n], src[r*n:][:n])
				}
			}
			at += n
		}
	})
	return true
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
	if out := constantPadRows(op, a, self, inLo, outLo, n, v); out != nil {
		return out
	}
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

// constantPadRows is constant_pad_nd of a contiguous input padded (or
// cropped) in its last two dims only: it writes each output row once, the
// value around the input row's copy, into an uninitialised result, where
// the general path zeroes or fills the whole result and then copies the
// input through a strided window. It returns nil for other inputs.
func constantPadRows(op *tensor.Op, a []any, self *tensor.Tensor, inLo, outLo, n []int, v tensor.Scalar) *tensor.Tensor {
	r := self.Dim()
	if r == 0 || !self.IsContiguous() || tensor.Numel(n) == 0 {
		return nil
	}
	for d := 0; d < r-2; d++ {
		if inLo[d] != 0 || outLo[d] != 0 || n[d] != self.Size(d) {
			return nil
		}
	}
	out := allocMetaUninit(op, a) // every row is written below
	if !out.IsContiguous() {
		return nil // the result is dense; let the general path handle any other layout
	}
	g := padGeom{inW: self.Size(r - 1), outW: out.Size(r - 1), inC: inLo[r-1], outC: outLo[r-1], nW: n[r-1], inH: 1, outH: 1, nH: 1}
	if r >= 2 {
		g.inH, g.outH, g.inR, g.outR, g.nH = self.Size(r-2), out.Size(r-2), inLo[r-2], outLo[r-2], n[r-2]
	}
	one := tensor.FromScalar(v, out.DType())
	switch out.DType().ItemSize() {
	case 1:
		padRows(g, elems[uint8](out), elems[uint8](self), data[uint8](one)[0])
	case 2:
		padRows(g, elems[uint16](out), elems[uint16](self), data[uint16](one)[0])
	case 4:
		padRows(g, elems[uint32](out), elems[uint32](self), data[uint32](one)[0])
	case 8:
		padRows(g, elems[uint64](out), elems[uint64](self), data[uint64](one)[0])
	default:
		return nil
	}
	return out
}

// padGeom is the geometry of constantPadRows: planes of inH×inW input
// rows and outH×outW output rows; the nH×nW window copied starts at row
// inR, column inC of an input plane and row outR, column outC of an
// output plane.
type padGeom struct {
	inH, inW, outH, outW, inR, inC, outR, outC, nH, nW int
}

func padRows[T uint8 | uint16 | uint32 | uint64](g padGeom, d, s []T, v T) {
	rows := len(d) / g.outW
	// Four-byte elements: the rows that copy an input row are written by
	// asm.PadRowsU32, a run of them a call.
	d32, four := any(d).([]uint32)
	s32, _ := any(s).([]uint32)
	v32, _ := any(v).(uint32)
	parallel.Range(rows, max(1, grain/g.outW), 1, func(lo, hi int) {
		// p, r: the plane of row lo and its row in the input (r0 past
		// outR); advanced row by row, without a division per row.
		p, r := lo/g.outH, lo%g.outH-g.outR
		for i := lo; i < hi; {
			if four && r >= 0 && r < g.nH {
				k := min(hi-i, g.nH-r) // the plane's rows from here that copy one
				asm.PadRowsU32(d32[i*g.outW:], g.outW, s32[(p*g.inH+g.inR+r)*g.inW+g.inC:], g.inW, k,
					g.outC, g.nW, g.outW-g.outC-g.nW, v32)
				i, r = i+k, r+k
			} else {
				padRow(g, d[i*g.outW:(i+1)*g.outW], s, p, r, v)
				i, r = i+1, r+1
			}
			if r == g.outH-g.outR {
				p, r = p+1, -g.outR
			}
		}
	})
}

// padRow writes one output row of padRows: the value, or the value around
// the copy of input row r of plane p.
func padRow[T uint8 | uint16 | uint32 | uint64](g padGeom, row, s []T, p, r int, v T) {
	if r < 0 || r >= g.nH {
		asm.Fill(row, v)
		return
	}
	asm.Fill(row[:g.outC], v)
	copy(row[g.outC:], s[(p*g.inH+g.inR+r)*g.inW+g.inC:][:g.nW])
	asm.Fill(row[g.outC+g.nW:], v)
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

// selectScatterKernel and sliceScatterKernel write every element of out
// (self's shape) from self, then src into the view of out it replaces.
func selectScatterKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.SelectScatterOf(a)
	copyInto(out, p.Self)
	w := core.SelectView(out, p.Dim, p.Index)
	copyInto(w.WithRaw(out.Raw()), p.Src)
}

func sliceScatterKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.SliceScatterOf(a)
	copyInto(out, p.Self)
	w := core.SliceView(out, p.Dim, p.Start, p.End, p.Step)
	copyInto(w.WithRaw(out.Raw()), p.Src)
}

func init() {
	impls(viewKernel,
		"aten::view.default", "aten::permute.default", "aten::expand.default", "aten::alias.default",
		"aten::slice.Tensor", "aten::select.int", "aten::diagonal.default", "aten::as_strided.default",
		"aten::squeeze.dim", "aten::squeeze.dims", "aten::unsqueeze.default")
	impl("aten::split_with_sizes.default", splitWithSizesKernel)
	implOut("aten::cat.default", catKernel)
	impl("aten::flip.default", flipKernel)
	impl("aten::repeat.default", repeatKernel)
	impl("aten::constant_pad_nd.default", constantPadKernel)
	impl("aten::clone.default", cloneKernel)
	impl("aten::copy.default", copyKernel)
	impl("aten::_to_copy.default", toCopyKernel)
	impl("aten::resize_.default", resizeKernel)
	implOut("aten::select_scatter.default", selectScatterKernel)
	implOut("aten::slice_scatter.default", sliceScatterKernel)
}
