package core

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Reflection and replication padding over the last 1, 2 or 3 dims.
// Negative pads crop. Only float32 and float64 are supported on the CPU, as
// in PyTorch 1.13.

// PadMode says how a pad op fills the border.
type PadMode uint8

// Pad modes.
const (
	Reflect PadMode = iota
	Replicate
)

// PadSpec describes a validated pad call: the number of padded (trailing)
// dims and, for each of them in order (depth, height, width), the pads
// before and after.
type PadSpec struct {
	Mode   PadMode
	Dims   int
	Before []int
	After  []int
}

// padPairs splits a padding list (given from the last dim: left, right, top,
// bottom, front, back) for k trailing dims.
func padPairs(padding []int, k int) (before, after []int) {
	before = make([]int, k)
	after = make([]int, k)
	for i := 0; i < k; i++ {
		// padding[0:2] is the last dim.
		before[k-1-i] = padding[2*i]
		after[k-1-i] = padding[2*i+1]
	}
	return before, after
}

// legacyTensorRepr is the last line of a tensor's C++ printout, used in
// "tensor expected ... but got:" messages, e.g. "[ torch.FloatTensor{1,1,1,3} ]".
func legacyTensorRepr(t *tensor.Tensor) string {
	parts := make([]string, t.Dim())
	for i, s := range t.Sizes() {
		parts[i] = fmt.Sprint(s)
	}
	return "[ " + LegacyTypeName(t.DType()) + "{" + strings.Join(parts, ",") + "} ]"
}

// padDTypeCheck rejects the dtypes PyTorch 1.13's CPU pad kernels lack.
func padDTypeCheck(name string, dt tensor.DType) {
	if dt != tensor.Float32 && dt != tensor.Float64 {
		tensor.Panicf("\"%s\" not implemented for '%s'", name, CTypeName(dt))
	}
}

// padOutput builds the output meta: leading dims kept, the k trailing dims
// grown by their pads.
func padOutput(op *tensor.Op, a []any, in *tensor.Tensor, spec *PadSpec) *tensor.Tensor {
	sizes := append([]int(nil), in.Sizes()...)
	lead := len(sizes) - spec.Dims
	for i := 0; i < spec.Dims; i++ {
		sizes[lead+i] = satAdd(sizes[lead+i], spec.Before[i], spec.After[i])
	}
	return contigMeta(sizes, in.DType(), op.DeviceOf(a))
}

// ReflectionPadSpec validates reflection_pad{1,2,3}d and returns the spec.
func ReflectionPadSpec(in *tensor.Tensor, padding []int, k int) *PadSpec {
	if len(padding) != 2*k {
		tensor.Panicf("padding size is expected to be %d", 2*k)
	}
	sz := func(d int) int { return in.Sizes()[tensor.WrapDim(d, in.Dim())] }
	n := in.Dim()
	switch k {
	case 1:
		if !((n == 2 && sz(1) != 0) || (n == 3 && sz(1) != 0 && sz(2) != 0)) {
			tensor.Panicf("2D or 3D (batch mode) tensor expected for input, but got: %s", legacyTensorRepr(in))
		}
	case 2:
		valid := sz(1) != 0 && sz(2) != 0
		if !((n == 3 && valid) || (n == 4 && valid && sz(3) != 0)) {
			tensor.Panicf("3D or 4D (batch mode) tensor expected for input, but got: %s", legacyTensorRepr(in))
		}
	case 3:
		valid := sz(1) != 0 && sz(2) != 0 && sz(3) != 0
		if !((n == 4 && valid) || (n == 5 && valid && sz(4) != 0)) {
			tensor.Panicf("4D or 5D (batch mode) tensor expected for input, but got: %s", legacyTensorRepr(in))
		}
	}
	before, after := padPairs(padding, k)
	lead := n - k
	outs := make([]int, k)
	for i := k - 1; i >= 0; i-- {
		j := k - 1 - i // 0 for the last dim
		size := in.Sizes()[lead+i]
		if before[i] >= size || after[i] >= size {
			tensor.Panicf("Argument #%d: Padding size should be less than the corresponding input dimension, but got: padding (%d, %d) at dimension %d of input %s",
				4+2*j, before[i], after[i], lead+i, tensor.ShapeString(in.Sizes()))
		}
		outs[i] = satAdd(size, before[i], after[i])
	}
	anyPos := false
	for _, o := range outs {
		anyPos = anyPos || o >= 1
	}
	switch k {
	case 1:
		if outs[0] < 1 {
			tensor.Panicf("2input (W: %d)is too small. Calculated output W: %d", in.Sizes()[lead], outs[0])
		}
	case 2:
		if !anyPos {
			tensor.Panicf("input (H: %d, W: %d)is too small.  Calculated output H: %d W: %d",
				in.Sizes()[lead], in.Sizes()[lead+1], outs[0], outs[1])
		}
	case 3:
		if !anyPos {
			tensor.Panicf("input (D: %d H: %d, W: %d) is too small. Calculated output D: %d H: %d W: %d",
				in.Sizes()[lead], in.Sizes()[lead+1], in.Sizes()[lead+2], outs[0], outs[1], outs[2])
		}
	}
	return &PadSpec{Mode: Reflect, Dims: k, Before: before, After: after}
}

// ReplicationPadSpec validates replication_pad{2,3}d and returns the spec.
func ReplicationPadSpec(in *tensor.Tensor, padding []int, k int) *PadSpec {
	if len(padding) != 2*k {
		tensor.Panicf("padding size is expected to be %d", 2*k)
	}
	sz := func(d int) int { return in.Sizes()[tensor.WrapDim(d, in.Dim())] }
	n := in.Dim()
	switch k {
	case 2:
		valid := sz(1) != 0 && sz(2) != 0
		if !((n == 3 && sz(0) != 0 && valid) || (n == 4 && valid && sz(3) != 0)) {
			tensor.Panicf("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %s", tensor.ShapeString(in.Sizes()))
		}
	case 3:
		valid := sz(1) != 0 && sz(2) != 0 && sz(3) != 0
		if !((n == 4 && sz(0) != 0 && valid) || (n == 5 && valid && sz(4) != 0)) {
			tensor.Panicf("Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %s", tensor.ShapeString(in.Sizes()))
		}
	}
	before, after := padPairs(padding, k)
	lead := n - k
	outs := make([]int, k)
	anyPos := false
	for i := 0; i < k; i++ {
		outs[i] = satAdd(in.Sizes()[lead+i], before[i], after[i])
		anyPos = anyPos || outs[i] >= 1
	}
	switch k {
	case 2:
		if !anyPos {
			tensor.Panicf("input (H: %d, W: %d ) is too small. Calculated output H: %d W: %d",
				in.Sizes()[lead], in.Sizes()[lead+1], outs[0], outs[1])
		}
	case 3:
		if !anyPos {
			tensor.Panicf("input (D: %d H: %d, W: %d) is too small. Calculated output D: %d H: %d W: %d",
				in.Sizes()[lead], in.Sizes()[lead+1], in.Sizes()[lead+2], outs[0], outs[1], outs[2])
		}
	}
	return &PadSpec{Mode: Replicate, Dims: k, Before: before, After: after}
}

// PadSource returns, for one padded dim of input size n with pads before
// and after, the input index each output index reads (PyTorch's index
// mapping, which also handles negative pads).
func PadSource(mode PadMode, n, before, after int) []int {
	out := make([]int, n+before+after)
	iStart := max(0, -before)
	oStart := max(0, before)
	for j := range out {
		var ip int
		switch mode {
		case Reflect:
			switch {
			case j < before:
				ip = 2*before - j
			case j < n+before:
				ip = j
			default:
				ip = 2*(n+before-1) - j
			}
		default:
			switch {
			case j < before:
				ip = before
			case j < n+before:
				ip = j
			default:
				ip = n + before - 1
			}
		}
		out[j] = ip - oStart + iStart
	}
	return out
}

// padArgs are the arguments of every reflection and replication pad op,
// which take the same ones: a view of any converts to padArgs.
type padArgs struct {
	Self    *tensor.Tensor
	Padding []int
}

// padMeta is the meta of a pad op; of reads the op's view.
func padMeta(name string, k int, mode PadMode, of func([]any) padArgs) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		in := p.Self
		var spec *PadSpec
		if mode == Reflect {
			spec = ReflectionPadSpec(in, p.Padding, k)
		} else {
			spec = ReplicationPadSpec(in, p.Padding, k)
		}
		out := padOutput(op, a, in, spec)
		padDTypeCheck(name, in.DType())
		return out
	}
}

func init() {
	def("aten::reflection_pad1d.default", padMeta("reflection_pad1d", 1, Reflect,
		func(a []any) padArgs { return padArgs(args.ReflectionPad1dOf(a)) }))
	def("aten::reflection_pad2d.default", padMeta("reflection_pad2d", 2, Reflect,
		func(a []any) padArgs { return padArgs(args.ReflectionPad2dOf(a)) }))
	def("aten::reflection_pad3d.default", padMeta("reflection_pad3d_cpu", 3, Reflect,
		func(a []any) padArgs { return padArgs(args.ReflectionPad3dOf(a)) }))
	def("aten::replication_pad2d.default", padMeta("replication_pad2d_cpu", 2, Replicate,
		func(a []any) padArgs { return padArgs(args.ReplicationPad2dOf(a)) }))
	def("aten::replication_pad3d.default", padMeta("replication_pad3d_cpu", 3, Replicate,
		func(a []any) padArgs { return padArgs(args.ReplicationPad3dOf(a)) }))
}
