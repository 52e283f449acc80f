package decomp

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Indexing composites over scatter_reduce, index_put and index.

func init() {
	def("aten::scatter.reduce", scatterReduceMode)
	def("aten::scatter.value_reduce", scatterValueReduceMode)
	def("aten::index_add", indexAdd)
	def("aten::index_copy", indexCopy)
	def("aten::index_fill.int_Scalar", indexFillScalar)
	def("aten::index_fill.int_Tensor", indexFillTensor)
	def("aten::take", take)
	def("aten::masked_select", maskedSelect)
}

// scatterMode maps scatter's reduce names to scatter_reduce's.
func scatterMode(s string) string {
	switch s {
	case "add":
		return "sum"
	case "multiply":
		return "prod"
	}
	tensor.Panicf("reduce argument must be either add or multiply.")
	return ""
}

func scatterReduceMode(op *tensor.Op, a []any) any {
	p := args.ScatterModeOf(a)
	mode := scatterMode(p.Reduce)
	return p.Self.ScatterReduce(p.Dim, p.Index, p.Src, mode)
}

func scatterValueReduceMode(op *tensor.Op, a []any) any {
	p := args.ScatterValueModeOf(a)
	x, idx := p.Self, p.Index
	mode := scatterMode(p.Reduce)
	src := fullOn(x, idx.Shape(), p.Value, x.DType())
	return x.ScatterReduce(p.Dim, idx, src, mode)
}

// alongDim is the index list that puts idx at dim for index/index_put.
func alongDim(dim int, idx *T) []*T {
	l := make([]*T, dim+1)
	l[dim] = idx.To(tensor.Int64)
	return l
}

// indexInto writes (or adds) source into self at index along dim with index_put.
func indexInto(self *T, dim int, idx, src *T, accumulate bool) *T {
	if self.Dim() == 0 {
		r := indexInto(reshape(self, []int{1}), 0, reshape(idx, []int{-1}), reshape(src, []int{-1}), accumulate)
		return reshape(r, nil)
	}
	d := wrapDim(dim, self.Dim())
	if src.Dim() == 0 {
		src = reshape(src, []int{1})
	}
	return self.IndexPut(alongDim(d, reshape(idx, []int{-1})), src, tensor.WithAccumulate(accumulate))
}

func indexAdd(op *tensor.Op, a []any) any {
	p := args.IndexAddOf(a)
	x, dim, idx, src, alpha := p.Self, p.Dim, p.Index, p.Source, p.Alpha
	if idx.Dim() > 1 {
		tensor.IndexPanicf("index_add_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s", idx.Dim(), core.CTypeName(idx.DType()), tensor.ShapeString(idx.Sizes()))
	}
	if idx.DType() != tensor.Int64 && idx.DType() != tensor.Int32 {
		tensor.Panicf("index_add_(): Expected dtype int32/int64 for index but got: %s", core.CTypeName(idx.DType()))
	}
	if x.DType() != src.DType() {
		tensor.Panicf("index_add_(): self (%s) and source (%s) must have the same scalar type", core.CTypeName(x.DType()), core.CTypeName(src.DType()))
	}
	d := wrapDim(dim, max(x.Dim(), 1))
	n := 1
	if src.Dim() > 0 {
		n = src.Size(d)
	}
	if idx.Numel() != n {
		tensor.Panicf("index_add_(): Number of indices (%d) should be equal to source.size(dim): (%d), for dim: %d", idx.Numel(), n, d)
	}
	return indexInto(x, d, idx, scaleBy(src, alpha), true)
}

func indexCopy(op *tensor.Op, a []any) any {
	p := args.IndexCopyOf(a)
	x, dim, idx, src := p.Self, p.Dim, p.Index, p.Source
	if idx.DType() != tensor.Int64 {
		tensor.Panicf("index_copy_(): Expected a long tensor for index, but got %s", core.CTypeName(idx.DType()))
	}
	if x.DType() != src.DType() {
		tensor.Panicf("index_copy_(): self and source expected to have the same dtype, but got (self) %s and (source) %s", core.CTypeName(x.DType()), core.CTypeName(src.DType()))
	}
	if idx.Dim() > 1 {
		tensor.Panicf("index_copy_(): Index should have dimension 1 or 0 (got %d)", idx.Dim())
	}
	return indexInto(x, wrapDim(dim, max(x.Dim(), 1)), idx, src, false)
}

func indexFill(x *T, dim int, idx, v *T) *T {
	if idx.DType() != tensor.Int64 {
		tensor.IndexPanicf("index_fill_(): Expected dtype int64 for index.")
	}
	tensor.Check(idx.Dim() <= 1, "Index has to be a vector/scalar")
	if x.Dim() == 0 {
		return reshape(indexFill(reshape(x, []int{1}), 0, idx, v), nil)
	}
	d := wrapDim(dim, x.Dim())
	return x.IndexPut(alongDim(d, reshape(idx, []int{-1})), v.To(x.DType()))
}

func indexFillScalar(op *tensor.Op, a []any) any {
	p := args.IndexFillIntScalarOf(a)
	x := p.Self
	v := scalarAs(p.Value, x.DType())
	core.CheckScalarFits(v, x.DType())
	return indexFill(x, p.Dim, p.Index, scalarLike(x, v, x.DType()))
}

func indexFillTensor(op *tensor.Op, a []any) any {
	p := args.IndexFillIntTensorOf(a)
	v := p.Value
	if v.Dim() != 0 {
		tensor.Panicf("index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", v.Dim())
	}
	return indexFill(p.Self, p.Dim, p.Index, v)
}

func take(op *tensor.Op, a []any) any {
	p := args.TakeOf(a)
	x, idx := p.Self, p.Index
	if idx.DType() != tensor.Int64 {
		tensor.Panicf("take(): Expected a long tensor for index, but got %s", core.CTypeName(idx.DType()))
	}
	return reshape(x, []int{-1}).Index([]*T{idx})
}

func maskedSelect(op *tensor.Op, a []any) any {
	p := args.MaskedSelectOf(a)
	x, mask := p.Self, p.Mask
	tensor.Check(mask.DType() == tensor.Bool || mask.DType() == tensor.Uint8, "masked_select: expected BoolTensor or ByteTensor for mask")
	shape := tensor.BroadcastShapes(x.Sizes(), mask.Sizes())
	if len(shape) == 0 {
		shape = []int{1} // 0-d operands select from one element (index.Tensor rejects a 0-d mask)
	}
	return x.Expand(shape).Index([]*T{mask.To(tensor.Bool).Expand(shape)})
}
