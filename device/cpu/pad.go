package cpu

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// gatherCopy fills the contiguous dst (from index 0) with
// src[base + Σ_d offs[d][i_d]], walking dst in row-major order: offs[d] maps
// each index along output dim d to a source offset (already times stride).
func gatherCopy[T any](dst, src []T, base int, offs [][]int) {
	r := len(offs)
	if r == 0 {
		dst[0] = src[base]
		return
	}
	for _, o := range offs {
		if len(o) == 0 {
			return
		}
	}
	last := offs[r-1]
	n := len(last)
	var idxBuf [8]int
	idx := idxBuf[:0]
	if r-1 > len(idxBuf) {
		idx = make([]int, r-1)
	} else {
		idx = idxBuf[:r-1]
	}
	outer := base
	for d := 0; d < r-1; d++ {
		outer += offs[d][0]
	}
	for k := 0; ; k += n {
		row := dst[k : k+n]
		for j, o := range last {
			row[j] = src[outer+o]
		}
		d := r - 2
		for ; d >= 0; d-- {
			outer -= offs[d][idx[d]]
			idx[d]++
			if idx[d] < len(offs[d]) {
				outer += offs[d][idx[d]]
				break
			}
			idx[d] = 0
			outer += offs[d][0]
		}
		if d < 0 {
			return
		}
	}
}

// padKernel runs a reflection or replication pad over the last k dims; of
// reads the op's view (the pad ops take the same arguments: every other
// one's converts to reflection_pad1d's).
func padKernel(k int, mode core.PadMode, of func([]any) args.ReflectionPad1d) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		out := allocMeta(op, a)
		if out.Numel() == 0 {
			return out
		}
		v := of(a)
		in := v.Self
		var spec *core.PadSpec
		if mode == core.Reflect {
			spec = core.ReflectionPadSpec(in, v.Padding, k)
		} else {
			spec = core.ReplicationPadSpec(in, v.Padding, k)
		}
		rank := in.Dim()
		lead := rank - k
		offs := make([][]int, rank)
		for d := 0; d < rank; d++ {
			st := in.Strides()[d]
			var src []int
			if d < lead {
				src = make([]int, in.Sizes()[d])
				for i := range src {
					src[i] = i
				}
			} else {
				p := d - lead
				src = core.PadSource(mode, in.Sizes()[d], spec.Before[p], spec.After[p])
				for _, i := range src {
					if i < 0 || i >= in.Sizes()[d] {
						tensor.Panicf("padding (%d, %d) reads outside dimension %d of size %d", spec.Before[p], spec.After[p], d, in.Sizes()[d])
					}
				}
			}
			for i := range src {
				src[i] *= st
			}
			offs[d] = src
		}
		switch out.DType() {
		case tensor.Float32:
			gatherCopy(data[float32](out), data[float32](in), in.StorageOffset(), offs)
		case tensor.Float64:
			gatherCopy(data[float64](out), data[float64](in), in.StorageOffset(), offs)
		}
		return out
	}
}

func init() {
	impl("aten::reflection_pad1d.default", padKernel(1, core.Reflect, args.ReflectionPad1dOf))
	impl("aten::reflection_pad2d.default", padKernel(2, core.Reflect,
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReflectionPad2dOf(a)) }))
	impl("aten::reflection_pad3d.default", padKernel(3, core.Reflect,
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReflectionPad3dOf(a)) }))
	impl("aten::replication_pad2d.default", padKernel(2, core.Replicate,
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReplicationPad2dOf(a)) }))
	impl("aten::replication_pad3d.default", padKernel(3, core.Replicate,
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReplicationPad3dOf(a)) }))
}
