package fx

import "github.com/goaten/goaten/tensor"

// MetaTensorMeta is the Meta key of a node's TensorMeta summary, as FX's
// ShapeProp stores "tensor_meta".
const MetaTensorMeta = "tensor_meta"

// TensorMeta summarizes a tensor value without its data, as FX's
// TensorMetadata.
type TensorMeta struct {
	Sizes      []int
	Strides    []int
	DType      tensor.DType
	Contiguous bool
}

// ShapeProp is an Interpreter that runs the graph on the meta device and
// records each node's value in its Meta: MetaVal holds the value (meta
// tensors, lists and Tuples of them, numbers) and MetaTensorMeta its
// TensorMeta (a TensorMeta for a tensor, a []any of them for a list or
// Tuple), as torch.fx.passes.shape_prop.ShapeProp. Inputs and tensor
// attributes are replaced by meta tensors of the same sizes, strides and
// dtype, so no data is read or computed.
type ShapeProp struct{ *Interpreter }

// NewShapeProp returns a shape propagator of gm.
func NewShapeProp(gm *GraphModule) *ShapeProp { return &ShapeProp{NewInterpreter(gm)} }

// Propagate runs the graph on meta versions of inputs and returns the meta
// result. A node that fails leaves the Meta of the nodes before it set.
func (p *ShapeProp) Propagate(inputs ...any) (any, error) { return Run(p, inputs...) }

// RunNode runs n and stores its value and summary in n.Meta.
func (p *ShapeProp) RunNode(n *Node) (any, error) {
	v, err := p.Interpreter.RunNode(n)
	if err != nil {
		return nil, err
	}
	n.Meta[MetaVal] = v
	if tm, ok := summarize(v); ok {
		n.Meta[MetaTensorMeta] = tm
	} else {
		delete(n.Meta, MetaTensorMeta)
	}
	return v, nil
}

// Placeholder returns the input as a meta value.
func (p *ShapeProp) Placeholder(n *Node, target string, args []any) (any, error) {
	v, err := p.Interpreter.Placeholder(n, target, args)
	return ToMeta(v), err
}

// GetAttr returns the attribute, tensors as meta tensors.
func (p *ShapeProp) GetAttr(n *Node, target string) (any, error) {
	v, err := p.Interpreter.GetAttr(n, target)
	return ToMeta(v), err
}

// ToMeta returns v with every tensor replaced by a meta tensor of the same
// sizes, strides, storage offset and dtype (a meta tensor is kept), inside
// lists and Tuples too.
func ToMeta(v any) any {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x == nil || x.Device() == tensor.Meta {
			return x
		}
		return metaLike(x)
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(x))
		for k, t := range x {
			out[k], _ = ToMeta(t).(*tensor.Tensor)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for k, e := range x {
			out[k] = ToMeta(e)
		}
		return out
	case Tuple:
		out := make(Tuple, len(x))
		for k, e := range x {
			out[k] = ToMeta(e)
		}
		return out
	}
	return v
}

// metaLike makes a meta tensor with t's sizes, strides, storage offset and
// dtype, over a fake storage just large enough, reading no data.
func metaLike(t *tensor.Tensor) *tensor.Tensor {
	kw := map[string]any{"dtype": t.DType(), "device": tensor.Meta}
	if t.StorageOffset() == 0 {
		return tensor.CallKw("aten::empty_strided", []any{t.Sizes(), t.Strides()}, kw).(*tensor.Tensor)
	}
	span := 1
	for k, n := range t.Sizes() {
		if n == 0 {
			span = 0
			break
		}
		span += (n - 1) * t.Strides()[k]
	}
	base := tensor.CallKw("aten::empty.memory_format", []any{[]int{t.StorageOffset() + span}}, kw).(*tensor.Tensor)
	return tensor.Call("aten::as_strided", base, t.Sizes(), t.Strides(), t.StorageOffset()).(*tensor.Tensor)
}

// summarize is the TensorMeta of a tensor, or a []any of summaries (nil for
// non-tensors) for a list or Tuple holding tensors.
func summarize(v any) (any, bool) {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x == nil {
			return nil, false
		}
		return TensorMeta{
			Sizes:      append([]int(nil), x.Sizes()...),
			Strides:    append([]int(nil), x.Strides()...),
			DType:      x.DType(),
			Contiguous: x.IsContiguous(),
		}, true
	case []*tensor.Tensor:
		out := make([]any, len(x))
		for k, t := range x {
			out[k], _ = summarize(t)
		}
		return out, true
	case []any:
		return summarizeList(x)
	case Tuple:
		return summarizeList(x)
	}
	return nil, false
}

func summarizeList(xs []any) (any, bool) {
	out := make([]any, len(xs))
	found := false
	for k, e := range xs {
		var ok bool
		out[k], ok = summarize(e)
		found = found || ok
	}
	return out, found
}
