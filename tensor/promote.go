package tensor

// resultState follows ATen's ResultTypeState: dimensioned tensors, 0-d
// tensors and wrapped numbers (Python scalars) are promoted in separate tiers
// and the tiers are then combined by category.
type resultState struct {
	dim, zero, wrapped DType
}

func (s *resultState) addTensor(t *Tensor) {
	if t == nil {
		return
	}
	switch {
	case t.IsWrappedNumber():
		d := t.dtype
		if d.IsFloat() {
			d = DefaultFloat
		}
		s.wrapped = PromoteTypes(s.wrapped, d)
	case t.Dim() == 0:
		s.zero = PromoteTypes(s.zero, t.dtype)
	default:
		s.dim = PromoteTypes(s.dim, t.dtype)
	}
}

func (s *resultState) addScalar(v Scalar) {
	d := v.DType()
	if d.IsFloat() {
		d = DefaultFloat
	}
	s.wrapped = PromoteTypes(s.wrapped, d)
}

func combineCategories(higher, lower DType) DType {
	if higher.IsFloat() {
		return higher
	}
	if higher == Bool || lower.IsFloat() {
		return PromoteTypes(higher, lower)
	}
	if higher != Invalid {
		return higher
	}
	return lower
}

func (s *resultState) result() DType {
	return combineCategories(s.dim, combineCategories(s.zero, s.wrapped))
}

// ResultType computes torch.result_type over tensors (*Tensor, nil is
// skipped) and scalars (Scalar, or Go numbers), honouring wrapped numbers and
// 0-d tensors as PyTorch does.
func ResultType(operands ...any) DType {
	var s resultState
	for _, o := range operands {
		switch x := o.(type) {
		case *Tensor:
			s.addTensor(x)
		case nil:
		default:
			v, ok := ToScalar(o)
			if !ok {
				Panicf("result_type: unsupported operand %T", o)
			}
			s.addScalar(v)
		}
	}
	return s.result()
}

// BroadcastShapes returns the broadcast of the given shapes, panicking with
// PyTorch's message when two sizes disagree.
func BroadcastShapes(shapes ...[]int) []int {
	return BroadcastShapesInto(nil, shapes...)
}

// BroadcastShapesInto is BroadcastShapes writing into dst's backing array when it is large enough.
func BroadcastShapesInto(dst []int, shapes ...[]int) []int {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	var out []int
	if cap(dst) >= rank {
		out = dst[:rank]
	} else {
		out = make([]int, rank)
	}
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		// From the last dim, as infer_size does, so the reported mismatch is PyTorch's.
		for i := len(s) - 1; i >= 0; i-- {
			v := s[i]
			o := out[off+i]
			switch {
			case o == v:
			case o == 1:
				out[off+i] = v
			case v == 1:
			default:
				Panicf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d", o, v, off+i)
			}
		}
	}
	return out
}

// BroadcastStrides returns t's strides seen at the broadcast shape: 0 for
// broadcast dims, PyTorch's expand rule.
func BroadcastStrides(t *Tensor, shape []int) []int {
	out := make([]int, len(shape))
	off := len(shape) - t.Dim()
	for i := off; i < len(shape); i++ {
		if t.sizes[i-off] == 1 && shape[i] != 1 {
			out[i] = 0
		} else {
			out[i] = t.strides[i-off]
		}
	}
	return out
}

// CanCast reports whether a value of dtype from can be written to dtype to
// without losing category (torch.can_cast).
func CanCast(from, to DType) bool {
	switch {
	case from.IsFloat() && to.IsIntegral(true):
		return false
	case from != Bool && to == Bool:
		return false
	}
	return true
}
