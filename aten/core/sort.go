package core

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of sort and topk.

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
func sortMeta(op *tensor.Op, a []any) any {
	p := args.SortOf(a)
	x := p.Self
	tensor.WrapDim(p.Dim, x.Dim())
	return []*tensor.Tensor{Like(op, a, x, x.DType()), Like(op, a, x, tensor.Int64)}
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
func topkMeta(op *tensor.Op, a []any) any {
	p := args.TopkOf(a)
	x := p.Self
	k := p.K
	d := tensor.WrapDim(p.Dim, x.Dim())
	slice := 1
	if x.Dim() > 0 {
		slice = x.Size(d)
	}
	tensor.Check(k >= 0 && k <= slice, "selected index k out of range")
	sizes := x.Shape()
	if x.Dim() > 0 {
		sizes[d] = k
	}
	return []*tensor.Tensor{Contig(op, a, x.DType(), sizes...), Contig(op, a, tensor.Int64, sizes...)}
}

func init() {
	def("aten::sort.default", sortMeta)
	def("aten::topk.default", topkMeta)
}
