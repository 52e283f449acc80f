package hop

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Metadata comparisons and their messages, in PyTorch's words
// (torch/_higher_order_ops/utils.py: check_meta_consistency,
// diff_tensor_meta; torch.fx.passes.shape_prop.TensorMetadata).

// pySize is a torch.Size's repr: torch.Size([2, 3]).
func pySize(s []int) string { return "torch.Size([" + joinInts(s) + "])" }

// pyTuple is a Python tuple of ints: (), (1,), (3, 1).
func pyTuple(s []int) string {
	if len(s) == 1 {
		return "(" + strconv.Itoa(s[0]) + ",)"
	}
	return "(" + joinInts(s) + ")"
}

func joinInts(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}

func memoryFormat(t *T) string {
	if tensor.IsContiguousStrides(t.Sizes(), t.Strides()) {
		return "torch.contiguous_format"
	}
	return "None"
}

// tensorMetadata is the repr of PyTorch's TensorMetadata of t.
func tensorMetadata(t *T) string {
	rg := "False"
	if t.RequiresGrad() {
		rg = "True"
	}
	return fmt.Sprintf("TensorMetadata(shape=%s, dtype=%s, requires_grad=%s, stride=%s, memory_format=%s, is_quantized=False, qparams={})",
		pySize(t.Sizes()), fx.Repr(t.DType()), rg, pyTuple(t.Strides()), memoryFormat(t))
}

// fakeRepr is a FakeTensor's repr: FakeTensor(..., size=(2, 3)), with the
// dtype when it is not float32 and the device when it is not the CPU. Every
// tensor of a message is printed so: they describe metadata.
func fakeRepr(t *T) string {
	if t == nil {
		return "None"
	}
	s := "FakeTensor(..., "
	if t.Device() != tensor.CPU {
		s += "device='" + t.Device().String() + "', "
	}
	s += "size=" + pyTuple(t.Sizes())
	if t.DType() != tensor.Float32 {
		s += ", dtype=" + fx.Repr(t.DType())
	}
	return s + ")"
}

// valueRepr prints a tensor for a message: its values when it has data
// (tensor([True, False])), its metadata otherwise.
func valueRepr(t *T) string {
	if t == nil {
		return "None"
	}
	if t.Device() == tensor.Meta || t.Keys.Has(tensor.KeyTrace) {
		return fakeRepr(t)
	}
	var s string
	if err := tensor.Try(func() { s = t.String() }); err != nil {
		return fakeRepr(t)
	}
	return s
}

// pyList prints tensors as a Python list or tuple.
func pyList(ts []*T, tuple bool) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = valueRepr(t)
	}
	if tuple {
		if len(ts) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// sameMeta reports whether two tensors have the same shape, dtype, strides
// and device (PyTorch's _same_meta_except_requires_grad).
func sameMeta(a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.DType() == b.DType() && a.Device() == b.Device() &&
		slices.Equal(a.Sizes(), b.Sizes()) && slices.Equal(a.Strides(), b.Strides())
}

// diffMeta lists how two tensors' metadata differ, as diff_tensor_meta
// (without requires_grad and memory format).
func diffMeta(a, b *T) []string {
	var d []string
	if !slices.Equal(a.Sizes(), b.Sizes()) {
		d = append(d, fmt.Sprintf("'shape: %s vs %s'", pySize(a.Sizes()), pySize(b.Sizes())))
	}
	if a.DType() != b.DType() {
		d = append(d, fmt.Sprintf("'dtype: %s vs %s'", fx.Repr(a.DType()), fx.Repr(b.DType())))
	}
	if !slices.Equal(a.Strides(), b.Strides()) {
		d = append(d, fmt.Sprintf("'stride: %s vs %s'", pyTuple(a.Strides()), pyTuple(b.Strides())))
	}
	return d
}

// checkMetaConsistency is PyTorch's check_meta_consistency: "" when the
// lists pair up with equal metadata, else its message.
func checkMetaConsistency(lhs, rhs []*T, lhsName, rhsName string) string {
	if len(lhs) != len(rhs) {
		return fmt.Sprintf("Expected %s and %s to have same number of outputs but got lhs:%s and rhs:%s",
			lhsName, rhsName, pyList(lhs, false), pyList(rhs, false))
	}
	var diffs []string
	for i := range lhs {
		a, b := lhs[i], rhs[i]
		if a == nil || b == nil {
			if a != b {
				diffs = append(diffs, fmt.Sprintf("pair[%d] differ in type: %s vs %s, where lhs is %s and rhs is %s",
					i, fakeRepr(a), fakeRepr(b), fakeRepr(a), fakeRepr(b)))
			}
			continue
		}
		if d := diffMeta(a, b); len(d) > 0 {
			diffs = append(diffs, fmt.Sprintf("pair[%d] differ in %s, where lhs is %s and rhs is %s",
				i, strings.Join(d, ", "), fakeRepr(a), fakeRepr(b)))
		}
		if a.Device() != b.Device() {
			diffs = append(diffs, fmt.Sprintf("pair[%d] differ in device, where lhs is %s and rhs is %s",
				i, fakeRepr(a), fakeRepr(b)))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("Expected %s and %s to have same metadata but found:\n%s", lhsName, rhsName, strings.Join(diffs, "\n"))
}

// truth is Python's bool() of a one-element tensor: a read of its value
// (in a trace running in segments, the read ends the segment).
func truth(t *T) bool {
	s := t.Item()
	return s.Bool()
}
