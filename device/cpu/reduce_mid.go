package cpu

import (
	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// redMidF32 returns x's elements when a reduction over mask sums, for each
// of c kept elements in the middle, outer blocks of one contiguous row of
// inner elements: the reduced dims, then the kept ones, then reduced ones
// again (size-1 dims ignored), with the inner rows long enough to sum as
// rows. A sum of NCHW over (0, 2, 3) — a bias gradient, batch norm's
// statistics and their backward — is this shape.
func redMidF32(x *tensor.Tensor, mask []bool) (v []float32, outer, c, inner int, ok bool) {
	if x.DType() != tensor.Float32 || !x.IsContiguous() || x.Numel() == 0 {
		return nil, 0, 0, 0, false
	}
	if outer, c, inner, ok = core.MidSplit(x.Sizes(), mask); !ok {
		return nil, 0, 0, 0, false
	}
	off := x.StorageOffset()
	return data[float32](x)[off : off+x.Numel()], outer, c, inner, true
}

// sumMidF32 adds into acc[j] (c of them) the rows of v that redMidF32
// found, block by block: each row summed on its own, the row sums added in
// block order, so the result does not depend on how the kept elements are
// shared among goroutines.
func sumMidF32(acc []float64, v []float32, outer, c, inner int) {
	forRows(c, outer*inner, func(lo, hi int) {
		for o := range outer {
			blk := v[o*c*inner:]
			for j := lo; j < hi; j++ {
				acc[j] += asm.SumF32(blk[j*inner : (j+1)*inner])
			}
		}
	})
}
