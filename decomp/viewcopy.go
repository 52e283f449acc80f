package decomp

import (
	"github.com/goaten/goaten/aten/args"
	"slices"

	"github.com/goaten/goaten/tensor"
)

// The ops functionalization records in place of views and of the writes
// into them: each view op's copy (view_copy, select_copy, ...), which
// PyTorch's functionalize(remove='mutations_and_views') calls instead of
// the view, and the scatters that undo a diagonal or an as_strided view.
// PyTorch gives all of them kernels of their own (explicit.txt), so a graph
// records them whole; these decompositions run them on every device.

func init() {
	for copyName, view := range viewCopies {
		def(copyName, copyOf(view))
	}
	def("aten::diagonal_scatter", diagonalScatter)
	def("aten::as_strided_scatter", asStridedScatter)
}

// viewCopies maps each *_copy op to the view op it copies; their schemas
// are the same but for the view's alias annotations.
var viewCopies = map[string]string{
	"aten::view_copy":             "aten::view",
	"aten::_reshape_alias_copy":   "aten::_reshape_alias",
	"aten::alias_copy":            "aten::alias",
	"aten::detach_copy":           "aten::detach",
	"aten::permute_copy":          "aten::permute",
	"aten::t_copy":                "aten::t",
	"aten::transpose_copy.int":    "aten::transpose.int",
	"aten::expand_copy":           "aten::expand",
	"aten::slice_copy.Tensor":     "aten::slice.Tensor",
	"aten::select_copy.int":       "aten::select.int",
	"aten::diagonal_copy":         "aten::diagonal",
	"aten::as_strided_copy":       "aten::as_strided",
	"aten::squeeze_copy":          "aten::squeeze",
	"aten::squeeze_copy.dim":      "aten::squeeze.dim",
	"aten::squeeze_copy.dims":     "aten::squeeze.dims",
	"aten::unsqueeze_copy":        "aten::unsqueeze",
	"aten::split_copy.Tensor":     "aten::split.Tensor",
	"aten::split_with_sizes_copy": "aten::split_with_sizes",
	"aten::unbind_copy.int":       "aten::unbind.int",
	"aten::unfold_copy":           "aten::unfold",
}

// copyOf is a view op's copy: the view, then a contiguous clone of each
// result (PyTorch's generated CompositeExplicitAutogradNonFunctional
// kernels of the *_copy ops).
func copyOf(view string) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		switch r := tensor.MustOp(view).Invoke(a).(type) {
		case *T:
			return cloneContig(r)
		case []*T:
			out := make([]*T, len(r))
			for i, t := range r {
				out[i] = cloneContig(t)
			}
			return out
		default:
			tensor.Panicf("%s: unexpected result %T of %s", op.Name, r, view)
			return nil
		}
	}
}

// diagonalScatter is self with its diagonal view replaced by src: a copy
// of self whose diagonal is written (ATen's diagonal_scatter).
func diagonalScatter(op *tensor.Op, a []any) any {
	p := args.DiagonalScatterOf(a)
	self, src := p.Self, p.Src
	out := self.Clone()
	d := out.Diagonal(tensor.WithOffset(p.Offset), tensor.WithDim1(p.Dim1), tensor.WithDim2(p.Dim2))
	checkScatterSizes(d, src)
	d.Copy_(src)
	return out
}

// asStridedScatter is self with the as_strided view replaced by src
// (ATen's as_strided_scatter: the view of a copy of self, written).
func asStridedScatter(op *tensor.Op, a []any) any {
	p := args.AsStridedScatterOf(a)
	self, src := p.Self, p.Src
	out := self.Clone()
	var opts []tensor.Option
	if p.StorageOffset.Ok {
		opts = append(opts, tensor.WithStorageOffset(p.StorageOffset.V))
	}
	v := out.AsStrided(p.Size, p.Stride, opts...)
	checkScatterSizes(v, src)
	v.Copy_(src)
	return out
}

func checkScatterSizes(slice, src *T) {
	if !slices.Equal(slice.Sizes(), src.Sizes()) {
		tensor.Panicf("expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
			tensor.ShapeString(src.Sizes()), tensor.ShapeString(slice.Sizes()))
	}
}
