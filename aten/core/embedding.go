package core

import (
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of embedding, embedding_dense_backward and _embedding_bag.

// ixCheckScalarTypes is ATen's checkScalarTypes for one argument.
func ixCheckScalarTypes(fn string, t *tensor.Tensor, argNo int, argName string, allowed ...tensor.DType) {
	for _, d := range allowed {
		if t.DType() == d {
			return
		}
	}
	names := make([]string, len(allowed))
	for i, d := range allowed {
		names[i] = CTypeName(d)
	}
	tensor.Panicf("Expected tensor for argument #%d '%s' to have one of the following scalar types: %s; but got %s instead (while checking arguments for %s)",
		argNo, argName, strings.Join(names, ", "), IndexLegacyTypeName(t.DType()), fn)
}

func embeddingMeta(op *tensor.Op, a []any) any {
	p := args.EmbeddingOf(a)
	weight, indices := p.Weight, p.Indices
	tensor.Check(weight.Dim() == 2, "'weight' must be 2-D")
	ixCheckScalarTypes("embedding", indices, 1, "indices", tensor.Int64, tensor.Int32)
	shape := append(indices.Shape(), weight.Size(1))
	return Contig(op, a, weight.DType(), shape...)
}

func embeddingDenseBackwardMeta(op *tensor.Op, a []any) any {
	p := args.EmbeddingDenseBackwardOf(a)
	grad, indices := p.GradOutput, p.Indices
	numWeights := p.NumWeights
	ixCheckScalarTypes("embedding_backward", indices, 2, "indices", tensor.Int64, tensor.Int32)
	if grad.Dim() == 0 {
		tensor.IndexPanicf("Dimension specified as -1 but tensor has no dimensions")
	}
	d := grad.Size(-1)
	n := indices.Numel()
	if nd, ok := MulNoOverflow(n, d); !ok || grad.Numel() != nd {
		tensor.Panicf("shape '[%d, %d]' is invalid for input of size %d", n, d, grad.Numel())
	}
	if numWeights < 0 {
		tensor.Panicf("Trying to create tensor with negative dimension %d: [%d, %d]", numWeights, numWeights, d)
	}
	return Contig(op, a, grad.DType(), numWeights, d)
}

// Embedding bag modes.
const (
	EmbeddingBagSum  = 0
	EmbeddingBagMean = 1
	EmbeddingBagMax  = 2
)

// EmbeddingBagFastPath reports whether PyTorch 1.13's CPU _embedding_bag
// takes its fast sum path, which leaves offset2bag empty: mode sum, a
// float32/float16 weight with unit stride in dim 1, no padding index, and
// unit-stride per-sample weights.
func EmbeddingBagFastPath(weight *tensor.Tensor, mode int, psw *tensor.Tensor, paddingIdx int) bool {
	if mode != EmbeddingBagSum || paddingIdx >= 0 {
		return false
	}
	if weight.DType() != tensor.Float32 && weight.DType() != tensor.Float16 {
		return false
	}
	if weight.Stride(1) != 1 {
		return false
	}
	return psw == nil || psw.Stride(0) == 1
}

func embeddingBagMeta(op *tensor.Op, a []any) any {
	p := args.InternalEmbeddingBagOf(a)
	weight, indices, offsets := p.Weight, p.Indices, p.Offsets
	mode := p.Mode
	psw := p.PerSampleWeights
	includeLast := p.IncludeLastOffset
	paddingIdx := p.PaddingIdx

	ixCheckScalarTypes("embedding_bag", indices, 1, "indices", tensor.Int64, tensor.Int32)
	ixCheckScalarTypes("embedding_bag", offsets, 3, "offsets", tensor.Int64, tensor.Int32)
	ixCheckScalarTypes("embedding_bag", weight, 1, "weight", tensor.Float16, tensor.Float32, tensor.Float64)
	if mode != EmbeddingBagSum && mode != EmbeddingBagMean && mode != EmbeddingBagMax {
		tensor.Panicf("embedding_bag: mode has to be 0 (sum), 1 (mean) or 2 (max), but got %d", mode)
	}
	if indices.Dim() == 0 || offsets.Dim() == 0 {
		tensor.IndexPanicf("Dimension specified as 0 but tensor has no dimensions")
	}
	if offsets.Dim() != 1 {
		tensor.Panicf("offsets has to be a 1D Tensor, but got a %d-D tensor", offsets.Dim())
	}
	if psw != nil {
		tensor.Check(mode == EmbeddingBagSum, "embedding_bag: per_sample_weights only supported with mode='sum'")
		if psw.DType() != weight.DType() {
			tensor.Panicf("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 'per_sample_weights'; but type %s does not equal %s (while checking arguments for embedding_bag)",
				IndexLegacyTypeName(weight.DType()), IndexLegacyTypeName(psw.DType()))
		}
		tensor.Check(psw.Dim() == 1, "Expected per_sample_weights.value().dim() == 1 to be true, but got false.")
		tensor.Check(psw.Numel() == indices.Numel(), "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got false.")
	}
	if includeLast {
		tensor.Check(offsets.Size(0) >= 1, "include_last_offset: number of offset should be at least 1")
	}
	if weight.Dim() < 2 {
		tensor.IndexPanicf("Dimension out of range (expected to be in range of [%d, %d], but got 1)", -max(weight.Dim(), 1), max(weight.Dim(), 1)-1)
	}
	tensor.Check(weight.Dim() == 2, "'weight' must be 2-D")
	numBags := offsets.Size(0)
	if includeLast {
		numBags--
	}
	dim := weight.Size(1)
	// Indices and offsets are promoted to a common type; the index outputs use it.
	it := tensor.Int32
	if indices.DType() == tensor.Int64 || offsets.DType() == tensor.Int64 {
		it = tensor.Int64
	}
	dev := op.DeviceOf(a)
	out := tensor.NewMetaContiguous([]int{numBags, dim}, weight.DType(), dev)
	n := indices.Numel()
	if EmbeddingBagFastPath(weight, mode, psw, paddingIdx) {
		n = 0
	}
	offset2bag := tensor.NewMetaContiguous([]int{n}, it, dev)
	bagSize := tensor.NewMetaContiguous([]int{numBags}, it, dev)
	var maxIdx *tensor.Tensor
	if mode == EmbeddingBagMax {
		maxIdx = tensor.NewMetaContiguous([]int{numBags, dim}, it, dev)
	} else {
		maxIdx = tensor.NewMetaContiguous([]int{numBags}, it, dev)
	}
	return []*tensor.Tensor{out, offset2bag, bagSize, maxIdx}
}

func init() {
	def("aten::embedding.default", embeddingMeta)
	def("aten::embedding_dense_backward.default", embeddingDenseBackwardMeta)
	def("aten::_embedding_bag.default", embeddingBagMeta)
}
