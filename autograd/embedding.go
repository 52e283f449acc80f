package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// embeddingBagBackward is _embedding_bag(weight, indices, offsets,
// scale_grad_by_freq, mode, sparse, per_sample_weights,
// include_last_offset, padding_idx) -> (out, offset2bag, bag_size,
// max_indices). The bag of each index is worked out from the offsets.
func embeddingBagBackward(c *Ctx) {
	p, at := args.InternalEmbeddingBagOf(c.Args()), args.InternalEmbeddingBagAt()
	weight, g := c.T(at.Weight), c.G(0)
	if !hasData(g) {
		c.Set(at.Weight, zerosOf(g, weight.Sizes()))
		if w := c.In(at.PerSampleWeights); w != nil {
			c.Set(at.PerSampleWeights, zerosOf(g, w.Sizes()))
		}
		return
	}
	idxT := c.T(at.Indices)
	idx := idxT.Reshape([]int{-1}).Int64s()
	offs := c.T(at.Offsets).Int64s()
	scaleFreq, mode := p.ScaleGradByFreq, p.Mode
	psw := c.T(at.PerSampleWeights)
	pad := int64(p.PaddingIdx)
	numBags := g.Size(0)
	n := len(idx)
	bag := make([]int, n)
	counts := make([]int, numBags)
	for b := 0; b < numBags; b++ {
		start, end := int(offs[b]), n
		if b+1 < len(offs) {
			end = int(offs[b+1])
		}
		for i := start; i < end; i++ {
			bag[i] = b
			if pad < 0 || idx[i] != pad {
				counts[b]++
			}
		}
	}
	inBag := make([]bool, n)
	for b := 0; b < numBags; b++ {
		start, end := int(offs[b]), n
		if b+1 < len(offs) {
			end = int(offs[b+1])
		}
		for i := start; i < end; i++ {
			inBag[i] = true
		}
	}
	freq := map[int64]int{}
	for _, v := range idx {
		freq[v]++
	}
	bagIdx := make([]int64, n)
	for i, b := range bag {
		bagIdx[i] = int64(b)
	}
	tb := ints(bagIdx, g)
	if c.Needs(at.Weight) {
		if mode == core.EmbeddingBagMax {
			mi := c.Out(3)
			keep := make([]float64, numBags)
			for b, k := range counts {
				if k > 0 {
					keep[b] = 1
				}
			}
			gm := g.Mul(floats(keep, []int{numBags, 1}, g.DType(), g))
			c.Set(at.Weight, zerosOf(g, weight.Sizes()).ScatterAdd(0, mi, gm))
		} else {
			scale := make([]float64, n)
			for i, v := range idx {
				if !inBag[i] || (pad >= 0 && v == pad) {
					continue
				}
				s := 1.0
				if mode == core.EmbeddingBagMean && counts[bag[i]] > 0 {
					s /= float64(counts[bag[i]])
				}
				if scaleFreq {
					s /= float64(freq[v])
				}
				scale[i] = s
			}
			rows := g.IndexSelect(0, tb).Mul(floats(scale, []int{n, 1}, g.DType(), g))
			if psw != nil {
				rows = rows.Mul(psw.Reshape([]int{-1, 1}))
			}
			c.Set(at.Weight, indexAdd(rows, weight.Sizes(), 0, ints(idx, g)))
		}
	}
	if c.Needs(at.PerSampleWeights) {
		mask := make([]float64, n)
		safe := make([]int64, n)
		for i, v := range idx {
			if inBag[i] && (pad < 0 || v != pad) {
				mask[i] = 1
				safe[i] = v
			}
		}
		rows := weight.IndexSelect(0, ints(safe, g))
		d := g.IndexSelect(0, tb).Mul(rows).Sum([]int{1})
		c.Set(at.PerSampleWeights, d.Mul(floats(mask, []int{n}, g.DType(), g)).Reshape(c.Sizes(at.PerSampleWeights)))
	}
}

// registerEmbedding registers the derivatives of the embedding family
// (aten/core/embedding.go).
func registerEmbedding() {
	// embedding(Tensor weight, Tensor indices, SymInt padding_idx, bool scale_grad_by_freq, bool sparse)
	def("aten::embedding", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.EmbeddingOf(c.Args()), args.EmbeddingAt()
		c.Set(at.Weight, tensor.EmbeddingDenseBackward(c.G(0), c.T(at.Indices), c.Sizes(at.Weight)[0], p.PaddingIdx, p.ScaleGradByFreq))
	}})
	// embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq)
	def("aten::embedding_dense_backward", fn(func(c *Ctx) {
		p, at := args.EmbeddingDenseBackwardOf(c.Args()), args.EmbeddingDenseBackwardAt()
		g, idx := c.G(0), c.T(at.Indices)
		gg := g.IndexSelect(0, idx.Reshape([]int{-1}))
		if pad := p.PaddingIdx; pad >= 0 {
			gg = gg.MaskedFillScalar(idx.EqScalar(pad).Reshape([]int{-1, 1}), 0.0)
		}
		c.Set(at.GradOutput, gg.View(append(idx.Shape(), -1)))
	}))
	// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx)
	def("aten::_embedding_bag", &Deriv{Outputs: []int{0}, Backward: embeddingBagBackward})
}
