package core

import "github.com/goaten/goaten/tensor"

// Meta functions of sort and topk.

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
func sortMeta(op *tensor.Op, args []any) any {
	x := T(args, 0)
	tensor.WrapDim(args[1].(int), x.Dim())
	return []*tensor.Tensor{Like(op, args, x, x.DType()), Like(op, args, x, tensor.Int64)}
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
func topkMeta(op *tensor.Op, args []any) any {
	x := T(args, 0)
	k := args[1].(int)
	d := tensor.WrapDim(args[2].(int), x.Dim())
	slice := 1
	if x.Dim() > 0 {
		slice = x.Size(d)
	}
	tensor.Check(k >= 0 && k <= slice, "selected index k out of range")
	sizes := x.Shape()
	if x.Dim() > 0 {
		sizes[d] = k
	}
	return []*tensor.Tensor{Contig(op, args, x.DType(), sizes...), Contig(op, args, tensor.Int64, sizes...)}
}

func init() {
	def("aten::sort.default", sortMeta)
	def("aten::topk.default", topkMeta)
}
