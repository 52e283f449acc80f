package cpu

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Kernels of embedding, embedding_dense_backward and _embedding_bag.

func embeddingKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.EmbeddingOf(a)
	weight, indices := p.Weight, p.Indices
	var idx []int64
	if indices.DType() == tensor.Int64 && indices.IsContiguous() {
		idx = elems[int64](indices) // read only: no copy of the indices
	} else {
		idx = ixInt64s(indices)
	}
	rows := int64(weight.Size(0))
	for _, v := range idx {
		if v < 0 || v >= rows {
			tensor.IndexPanicf("index out of range in self")
		}
	}
	if out.Numel() == 0 {
		return
	}
	if weight.Dim() == 2 && weight.IsContiguous() && out.IsContiguous() {
		// A row's bytes a lookup, into a contiguous result.
		is := weight.DType().ItemSize()
		d := weight.Size(1) * is
		wb := weight.Storage().Bytes()[weight.StorageOffset()*is:]
		ob := out.Storage().Bytes()[out.StorageOffset()*is:]
		for i, v := range idx {
			copy(ob[i*d:(i+1)*d], wb[int(v)*d:(int(v)+1)*d])
		}
		return
	}
	e := ixEntry{dim: 0, shape: indices.Sizes(), vals: idx}
	plan := ixPlan(weight.Sizes(), weight.Strides(), weight.StorageOffset(), []ixEntry{e})
	ixCopy(out, weight, &ixMoves{src: plan.offsets(), run: plan.run})
}

// ixRound rounds v to dtype d's precision (float16/bfloat16 through float32).
func ixRound(v float64, d tensor.DType) float64 {
	switch d {
	case tensor.Float32:
		return float64(float32(v))
	case tensor.Float16:
		return float64(tensor.HalfToFloat32(tensor.Float32ToHalf(float32(v))))
	case tensor.BFloat16:
		return float64(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(v))))
	}
	return v
}

// embeddingDenseBackwardKernel adds each index's gradient row into its row
// of out, which starts zeroed (registered zeroed).
func embeddingDenseBackwardKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.EmbeddingDenseBackwardOf(a)
	grad, indices := p.GradOutput, p.Indices
	numWeights, padding, scale := p.NumWeights, int64(p.PaddingIdx), p.ScaleGradByFreq
	if out.Numel() == 0 {
		return
	}
	idx := ixInt64s(indices)
	d := out.Size(1)
	g := contiguous(grad)
	var counts []int64
	if scale {
		counts = make([]int64, numWeights)
		for _, v := range idx {
			if v >= 0 && v < int64(numWeights) {
				counts[v]++
			}
		}
	}
	dt := out.DType()
	os, gs, goff := out.Storage(), g.Storage(), g.StorageOffset()
	if dt.IsFloat() {
		acc := make([]float64, d)
		row := make([]float64, d)
		for i, v := range idx {
			if v == padding || v < 0 || v >= int64(numWeights) {
				continue
			}
			alpha := 1.0
			if scale {
				alpha = ixRound(1/float64(counts[v]), dt)
			}
			loadF64(acc, os, dt, int(v)*d, 1)
			loadF64(row, gs, dt, goff+i*d, 1)
			if dt.IsReduced() {
				// at::Half/BFloat16 arithmetic rounds the product and the sum.
				for j := range acc {
					acc[j] += ixRound(alpha*row[j], dt)
				}
			} else {
				// PyTorch's add kernel computes a + alpha*b with a fused multiply-add.
				for j := range acc {
					acc[j] = math.FMA(alpha, row[j], acc[j])
				}
			}
			storeF64(os, dt, int(v)*d, 1, acc)
		}
		return
	}
	acc := make([]int64, d)
	row := make([]int64, d)
	for i, v := range idx {
		if v == padding || v < 0 || v >= int64(numWeights) {
			continue
		}
		alpha := int64(1)
		if scale && dt != tensor.Bool {
			alpha = int64(1 / float64(counts[v]))
		}
		loadI64(acc, os, dt, int(v)*d, 1)
		loadI64(row, gs, dt, goff+i*d, 1)
		for j := range acc {
			acc[j] += alpha * row[j]
		}
		storeI64(os, dt, int(v)*d, 1, acc)
	}
}

func embeddingBagKernel(op *tensor.Op, a []any) any {
	metas := metaN(op, a)
	for _, m := range metas {
		alloc(m)
	}
	out, offset2bag, bagSize, maxIdx := metas[0], metas[1], metas[2], metas[3]
	p := args.InternalEmbeddingBagOf(a)
	weight, indices, offsets := p.Weight, p.Indices, p.Offsets
	mode := p.Mode
	psw := p.PerSampleWeights
	padding := int64(p.PaddingIdx)
	hasPad := padding >= 0

	idx := ixInt64s(indices)
	offs := ixInt64s(offsets)
	n := int64(len(idx))
	if indices.Dim() > 1 {
		n = int64(indices.Size(0)) // 1.13 checks the last offset against the rows of a 2-d input
	}
	if len(offs) > 0 {
		if offs[0] != 0 {
			tensor.Panicf("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got %d", offs[0])
		}
		if offs[len(offs)-1] > n {
			tensor.Panicf("offsets[-1] can not be greater than input's length %d but got offsets[-1] of %d", n, offs[len(offs)-1])
		}
		for b := 1; b < len(offs); b++ {
			if offs[b] < offs[b-1] {
				tensor.Panicf("embedding_bag: offsets have to be non-decreasing, but got offsets[%d] = %d after offsets[%d] = %d", b, offs[b], b-1, offs[b-1])
			}
		}
	}
	rows := int64(weight.Size(0))
	for i, v := range idx {
		if hasPad && v == padding {
			continue
		}
		if v < 0 || v >= rows {
			tensor.Panicf("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be %d (Index %d is out of bounds: %d, range 0 to %d)", v, i, v, rows)
		}
	}

	numBags := out.Size(0)
	dim := out.Size(1)
	dt := weight.DType()

	// offset2bag[i] is the number of offsets <= i, minus one (-1 throughout
	// for no offsets, as 1.13's index_add_ and cumsum make it).
	if offset2bag.Numel() > 0 {
		o2b := make([]int64, n)
		b := int64(-1)
		k := 0
		for i := int64(0); i < n; i++ {
			for k < len(offs) && offs[k] <= i {
				k++
				b++
			}
			o2b[i] = b
		}
		storeI64(offset2bag.Storage(), offset2bag.DType(), 0, 1, o2b)
	}

	var w []float64
	if psw != nil {
		w = make([]float64, psw.Numel())
		c := contiguous(psw)
		loadF64(w, c.Storage(), c.DType(), c.StorageOffset(), 1)
	}
	// The fast sum path (fbgemm) accumulates in float32 with fused
	// multiply-adds; the other paths accumulate in float32 for float16 and
	// float32 weights (float64 for float64), rounding the product by the
	// per-sample weight and then the sum. The result is rounded to the
	// weight's dtype at the end of each bag.
	fast := core.EmbeddingBagFastPath(weight, mode, psw, p.PaddingIdx)
	accT := tensor.Float32
	if dt == tensor.Float64 {
		accT = tensor.Float64
	}
	ws, woff := weight.Storage(), weight.StorageOffset()
	ws0, ws1 := weight.Stride(0), weight.Stride(1)
	acc := make([]float64, dim)
	row := make([]float64, dim)
	sizes := make([]int64, numBags)
	var argmax []int64
	if mode == core.EmbeddingBagMax {
		argmax = make([]int64, numBags*dim)
	}
	for b := 0; b < numBags; b++ {
		start := offs[b]
		end := n
		if b+1 < len(offs) {
			end = offs[b+1]
		}
		for j := range acc {
			acc[j] = 0
		}
		cnt := int64(0)
		for i := start; i < end; i++ {
			v := idx[i]
			if hasPad && v == padding {
				continue
			}
			loadF64(row, ws, dt, woff+int(v)*ws0, ws1)
			switch mode {
			case core.EmbeddingBagMax:
				am := argmax[b*dim : (b+1)*dim]
				for j, x := range row {
					if cnt == 0 || x > acc[j] {
						acc[j] = x
						am[j] = v
					}
				}
			default:
				switch {
				case fast && w != nil:
					for j, x := range row {
						acc[j] = ixRound(math.FMA(w[i], x, acc[j]), tensor.Float32)
					}
				case fast:
					for j, x := range row {
						acc[j] = ixRound(acc[j]+x, tensor.Float32)
					}
				case w != nil:
					for j, x := range row {
						acc[j] = ixRound(acc[j]+ixRound(w[i]*x, accT), accT)
					}
				default:
					for j, x := range row {
						acc[j] = ixRound(acc[j]+x, accT)
					}
				}
			}
			cnt++
		}
		if mode == core.EmbeddingBagMean && cnt > 0 {
			for j := range acc {
				acc[j] = ixRound(acc[j], dt) / float64(cnt)
			}
		}
		storeF64(out.Storage(), dt, b*dim, 1, acc)
		if mode != core.EmbeddingBagSum {
			sizes[b] = cnt
		}
	}
	storeI64(bagSize.Storage(), bagSize.DType(), 0, 1, sizes)
	switch mode {
	case core.EmbeddingBagMax:
		storeI64(maxIdx.Storage(), maxIdx.DType(), 0, 1, argmax)
	default:
		storeI64(maxIdx.Storage(), maxIdx.DType(), 0, 1, sizes)
	}
	return metas
}

func init() {
	implOut("aten::embedding.default", embeddingKernel)
	implOut("aten::embedding_dense_backward.default", zeroed(embeddingDenseBackwardKernel))
	impl("aten::_embedding_bag.default", embeddingBagKernel)
}
