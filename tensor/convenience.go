package tensor

// Hand-written conveniences over the generated wrappers, for calls whose
// interesting arguments are keyword-only in the schema.

// To returns t converted to dtype d (t itself when it already has it), like
// PyTorch's t.to(dtype).
func (t *Tensor) To(d DType) *Tensor {
	if t.dtype == d {
		return t
	}
	return CallKw("aten::_to_copy", []any{t}, map[string]any{"dtype": d}).(*Tensor)
}

// ToDevice returns t moved to device dev (t itself when it is there).
func (t *Tensor) ToDevice(dev Device) *Tensor {
	if t.device == dev {
		return t
	}
	return CallKw("aten::_to_copy", []any{t}, map[string]any{"device": dev}).(*Tensor)
}

// AddAlpha is t + alpha*other.
func (t *Tensor) AddAlpha(other *Tensor, alpha any) *Tensor {
	return CallKw("aten::add.Tensor", []any{t, other}, map[string]any{"alpha": alpha}).(*Tensor)
}

// FullOf makes a tensor of the given shape filled with v, in dtype d.
func FullOf(d DType, v any, sizes ...int) *Tensor {
	return CallKw("aten::full", []any{sizes, v}, map[string]any{"dtype": d}).(*Tensor)
}

// ArangeOf is torch.arange(start, end, step, dtype=d).
func ArangeOf(d DType, start, end, step any) *Tensor {
	return CallKw("aten::arange.start_step", []any{start, end, step}, map[string]any{"dtype": d}).(*Tensor)
}
